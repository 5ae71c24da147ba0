/* tigris serve: the editor of a position page.
 *
 * The position shown is text (tigris-position/1) to edit, paste or load from a file;
 * "Apply" has the server check it (POST /api/positions) and opens the page of the new
 * position, or shows the engine's message, which names the field that is wrong.  On the
 * board: choose a piece and click a square to put it there ("empty" takes a piece away;
 * a tile comes from the bag and goes back to it); the position is applied at once.  The
 * hands, scores, treasures, catastrophes, the bag and who is to move are number fields,
 * applied as they change, and the engine's message appears beside the field it names;
 * the decision at hand (a conflict and its support, a monument, a war) is set in the
 * text.  Every text from the server is set with textContent. */
import { h, call } from "./panel.js";

const D = JSON.parse(document.getElementById("game-data").textContent);
const RULES = JSON.parse(document.getElementById("rules-data").textContent);   // tigris.constants
const LEADERS = RULES.leaders, COLOURS = RULES.colours;
const PIECES = [["", "empty (take away)"], ...COLOURS.map((c, i) => [c, c + " " + RULES.tiles[i]]),
  ["red+treasure", "red " + RULES.tiles[0] + " with a treasure"], ["catastrophe", "catastrophe"]];
for (let p = 0; p < D.players; p++) {
  for (const l of LEADERS) PIECES.push([l + ":" + p, l + " of player " + p]);
}

const piece = h("select", { id: "edit-piece", "aria-label": "the piece a click puts on the board" },
  h("option", { value: "none", text: "click the board to..." }),
  ...PIECES.map(([token, name]) => h("option", { value: token, text: "put: " + name })));
const text = h("textarea", { id: "edit-text", rows: "12", spellcheck: "false",
                             "aria-label": "the position as tigris-position/1 JSON" });
const file = h("input", { type: "file", id: "edit-file", accept: ".json,application/json" });
const apply = h("button", { type: "button", id: "edit-apply", text: "Apply" });
const error = h("p", { id: "edit-error", class: "error" });
const panel = h("section", { id: "edit-panel" }, h("h2", { text: "Set up the position" }),
  h("div", { class: "hint-controls" }, piece), text, h("div", { class: "hint-controls" }, apply, file), error);
const side = document.getElementById("side");
side.insertBefore(panel, side.firstChild);
const shownPosition = (window.tigrisShown || {}).position || {};
text.value = JSON.stringify(shownPosition, null, 1);

// The numbers of the position as fields: each player's hand, score, treasures and
// catastrophes, the bag, who is to move; each group has a place for the engine's
// message when it names that group's field.
const form = h("div", { id: "edit-fields" });
const notes = [];

function numbers(label, field, path, values, keys) {
  const note = h("span", { class: "field-error", "data-for": field });
  notes.push(note);
  const inputs = keys.map(k => {
    const input = h("input", { type: "number", min: "0", value: String(values[k]), "data-path": path.concat([k]).join("."),
                               "aria-label": field + "." + k, title: field + "." + k, class: "edit-number" });
    return h("label", { class: "edit-field" }, k.slice(0, 1).toUpperCase(), input);
  });
  return h("div", { class: "edit-group" }, h("b", { text: label + " " }), ...inputs, note);
}

(shownPosition.players || []).forEach((pl, p) => {
  if (pl.hand) form.append(numbers("player " + p + " hand", "players[" + p + "].hand", ["players", p, "hand"], pl.hand, COLOURS));
  form.append(numbers("player " + p + " score", "players[" + p + "].score", ["players", p, "score"], pl.score, COLOURS));
  form.append(numbers("player " + p + " treasures, catastrophes left", "players[" + p + "]", ["players", p], pl,
                      ["treasures", "catastrophes"]));
});
if (shownPosition.bag) form.append(numbers("bag", "bag", ["bag"], shownPosition.bag, COLOURS));
form.append(numbers("to move, actions left", "to_move", [], shownPosition, ["to_move", "actions_left"]));
panel.insertBefore(form, text);
form.addEventListener("change", ev => {
  const path = ev.target.dataset.path;
  if (!path) return;
  let position;
  try { position = JSON.parse(text.value); } catch (e) { error.textContent = "not JSON: " + e.message; return; }
  const keys = path.split("."), last = keys.pop();
  let at = position;
  for (const k of keys) at = at[k];
  at[last] = Number(ev.target.value);
  text.value = JSON.stringify(position, null, 1);
  send(text.value);
});

function showError(message) {
  for (const n of notes) n.textContent = "";
  const field = message.split(":")[0];
  const note = notes.find(n => field.startsWith(n.dataset.for)) ||
               (field.startsWith("tiles.") ? notes.find(n => n.dataset.for === "bag") : null);
  (note || error).textContent = message;
  if (note) error.textContent = "See " + note.dataset.for + ".";
}

async function send(body) {
  error.textContent = "";
  for (const n of notes) n.textContent = "";
  let position;
  try { position = JSON.parse(body); } catch (e) { error.textContent = "not JSON: " + e.message; return; }
  let data;
  try { data = await call("/api/positions", position); } catch (e) { showError(e.message); return; }
  location.assign("/position/" + data.id);
}

apply.addEventListener("click", () => send(text.value));
file.addEventListener("change", async () => {
  if (!file.files.length) return;
  text.value = await file.files[0].text();
  send(text.value);
});
document.getElementById("board").addEventListener("click", ev => {
  if (piece.value === "none") return;
  const cell = document.elementsFromPoint(ev.clientX, ev.clientY).find(e => e.dataset && e.dataset.cell);
  if (!cell) return;
  let position;
  try { position = JSON.parse(text.value); } catch (e) { error.textContent = "not JSON: " + e.message; return; }
  position.squares = position.squares || {};
  const square = cell.dataset.cell, before = position.squares[square];
  // a tile comes from the bag and goes back to it, so the tiles still add up
  const colour = token => token && /^(red|blue|green|black)(\+|$)/.test(token) ? token.split("+")[0] : null;
  if (position.bag) {
    if (colour(before)) position.bag[colour(before)] += 1;
    if (colour(piece.value)) position.bag[colour(piece.value)] -= 1;
  }
  if (piece.value === "") delete position.squares[square];
  else position.squares[square] = piece.value;
  text.value = JSON.stringify(position, null, 1);
  send(text.value);
});
