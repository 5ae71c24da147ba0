/* tigris serve: the editor of a position page.
 *
 * The editor's position is always the last valid one.  Every change -- a piece put on the
 * board by a click, a number field, the text applied (typed, pasted or loaded from a
 * file) -- is made to that position and sent to the server (POST /api/positions), which
 * checks and keeps it; the page is then drawn again in place, without loading it anew:
 * the new position's page is fetched (GET /position/ID), its data read and drawn by the
 * viewer (window.tigrisViewer.redraw: the board, players and supply), its header put in
 * this page's, and the address becomes that page's (Back goes to the position before).  The chosen piece, the
 * editor and the hint panel stay.  A change refused (by the server, or by the editor: not
 * so many tiles of a colour left in the bag) is undone -- the text, the
 * fields and the board show the last valid position -- and the refusal, naming the square
 * or the field and the rule, appears beside the board, the field or the text the change
 * came from.
 *
 * A click puts the chosen piece on a square, or takes away what stands there: the server
 * makes the change (POST /api/edit, tigris.web.editing), judged by the rules' own code,
 * so a piece goes only where the rules let such a piece go (a catastrophe never on a
 * treasure, a leader, a monument, a building or another catastrophe; a tile or a leader
 * on an empty square of its kind), and is refused with the rule otherwise; what stands
 * on a square is taken away first to put another piece there.  A catastrophe does what
 * the rules make it do (the tile under it out of the game, a leader left without a
 * temple back to its owner); a tile comes from the bag and goes back to it, a treasure
 * (with its temple) from the treasures a player collected and back to the player to move,
 * a catastrophe taken away back to the player with the fewest left.  A hand's tiles come
 * from the bag and go back to it; the bag's go out of the game and come back from there.
 * The decision at hand (a conflict and its support, a monument, a war)
 * is set in the text.  Every text from the server is set with textContent; the page
 * drawn in place is the server's own, parsed inert (DOMParser): only its data and its
 * header are taken, and none of its scripts is run. */
import { h, call } from "./panel.js";

const RULES = JSON.parse(document.getElementById("rules-data").textContent);   // tigris.constants
const LEADERS = RULES.leaders, COLOURS = RULES.colours;
const TILE = Object.fromEntries(COLOURS.map((c, i) => [c, RULES.tiles[i]]));
const TEMPLE = COLOURS[0];                       // the temples' colour: treasures lie on them

let valid = structuredClone((window.tigrisShown || {}).position || {});     // the last valid position
let shownPath = location.pathname;               // the address of the position shown

// ---------------------------------------------------------------- the panel

const piece = h("select", { id: "edit-piece", "aria-label": "the piece a click puts on the board" });
const text = h("textarea", { id: "edit-text", rows: "12", spellcheck: "false",
                             "aria-label": "the position as tigris-position/1 JSON" });
const file = h("input", { type: "file", id: "edit-file", accept: ".json,application/json" });
const apply = h("button", { type: "button", id: "edit-apply", text: "Apply" });
const error = h("p", { id: "edit-error", class: "error" });               // a refusal of the text
const status = h("p", { id: "edit-status", class: "hint" });              // what the last change did
const boardNote = h("p", { id: "edit-board-error", class: "error" });     // a refusal of a click
const form = h("div", { id: "edit-fields" });
const panel = h("section", { id: "edit-panel", "data-state": "ready", "data-done": "0" },
  h("h2", { text: "Set up the position" }), h("div", { class: "hint-controls" }, piece), status, form, text,
  h("div", { class: "hint-controls" }, apply, file), error);
const side = document.getElementById("side");
side.insertBefore(panel, side.firstChild);
document.getElementById("board-wrap").after(boardNote);

/** The pieces a click puts: [its value, its name], for a game of `players`. */
function pieceNames(players) {
  const names = [["", "empty (take away)"], ...COLOURS.map(c => [c, c + " " + TILE[c]]),
                 [TEMPLE + "+treasure", TEMPLE + " " + TILE[TEMPLE] + " with a treasure"]];
  for (let p = 0; p < players; p++) names.push(["catastrophe:" + p, "catastrophe of player " + p]);
  for (let p = 0; p < players; p++) {
    for (const l of LEADERS) names.push([l + ":" + p, l + " of player " + p]);
  }
  return names;
}

/** The piece selector for `players`, the piece chosen still chosen. */
function fillPieces(players) {
  const chosen = piece.options.length ? piece.value : "none";
  piece.replaceChildren(h("option", { value: "none", text: "click the board to..." }),
    ...pieceNames(players).map(([value, name]) => h("option", { value: value, text: "put: " + name })));
  piece.value = [...piece.options].some(o => o.value === chosen) ? chosen : "none";
}

// ---------------------------------------------------------------- the fields

/** The groups of number fields of `position`: [label, its field's name in the engine's
 * messages, its path in the position, [key, the key's label]...]. */
function groups(position) {
  const colours = COLOURS.map(c => [c, c]), list = [];
  (position.players || []).forEach((pl, p) => {
    const at = "players[" + p + "]";
    if (pl.hand) list.push(["player " + p + " hand", at + ".hand", ["players", p, "hand"], colours]);
    list.push(["player " + p + " score", at + ".score", ["players", p, "score"], colours]);
    list.push(["player " + p, at, ["players", p], [["treasures", "treasures"], ["catastrophes", "catastrophes left"]]]);
  });
  if (position.bag) list.push(["bag", "bag", ["bag"], colours]);
  list.push(["turn", "to_move", [], [["to_move", "player to move"], ["actions_left", "actions left"]]]);
  return list;
}

let shape = "";                                  // the groups shown, to build them anew when they change

/** The fields showing `position`. */
function showFields(position) {
  const list = groups(position), now = JSON.stringify(list);
  if (now !== shape) {
    shape = now;
    form.replaceChildren(...list.map(([label, field, path, keys]) => h("div", { class: "edit-group" },
      h("b", { text: label + ": " }),
      ...keys.map(([key, name]) => h("label", { class: "edit-field" }, name + " ",
        h("input", { type: "number", min: "0", class: "edit-number", "data-path": path.concat([key]).join("."),
                     "aria-label": label + " " + name, title: (field === "to_move" ? "" : field + ".") + key }))),
      h("span", { class: "field-error", "data-for": field }))));
  }
  for (const input of form.querySelectorAll("input[data-path]")) {
    input.value = String(input.dataset.path.split(".").reduce((at, k) => at[k], position));
  }
}

// ---------------------------------------------------------------- the changes

const zeros = () => Object.fromEntries(COLOURS.map(c => [c, 0]));

/** `choice` (a value of the piece selector) put on `square`, or what stands there taken
 * away (choice ""), by the server, which judges it by the rules: the new position; `did`
 * collects what else the change did.  Throws the rule that refuses it. */
async function put(position, square, choice, did) {
  const answer = await call("/api/edit", { position: position, square: square, piece: choice });
  did.push(...answer.did);
  return answer.position;
}

/** The number at `path` set to `value`; a hand's tiles come from the bag, the bag's from
 * out of the game.  Throws what the editor refuses. */
function setNumber(position, path, value, did) {
  if (!/^\d+$/.test(value)) throw new Error(JSON.stringify(value) + " is not a whole number");
  const keys = path.split("."), last = keys.pop(), at = keys.reduce((a, k) => a[k], position);
  const more = Number(value) - at[last];
  at[last] = Number(value);
  const pile = keys[2] === "hand" && position.bag ? "bag" : keys[0] === "bag" ? "out_of_game" : null;
  if (!pile || !more) return;
  if (!position[pile]) position[pile] = zeros();
  const where = pile === "bag" ? "the bag" : "out of the game";
  if (position[pile][last] < more) {
    throw new Error("only " + position[pile][last] + " " + last + " tiles are " + where);
  }
  position[pile][last] -= more;
  did.push(Math.abs(more) + " " + last + (more > 0 ? " from " : " to ") + where);
}

let queue = Promise.resolve(), changes = 0, waiting = 0;

/** Make the change `make`(a copy of the last valid position, a list of what the editor
 * did): it edits the copy, or returns (or resolves to) a new position, or throws what is refused;
 * then show the result.  A refusal undoes the change and is shown in `note`, with `what`
 * was asked.  Changes are made one after another, each to the result of the last. */
function change(what, note, make) {
  waiting += 1;
  panel.dataset.state = "busy";
  queue = queue.then(() => attempt(what, note, make)).finally(() => {
    panel.dataset.done = String(++changes);
    if (--waiting === 0) panel.dataset.state = "ready";
  });
}

async function attempt(what, note, make) {
  for (const n of [error, status, boardNote, ...form.querySelectorAll(".field-error")]) n.textContent = "";
  const did = [];
  let id;
  try {
    const position = structuredClone(valid);
    id = (await call("/api/positions", (await make(position, did)) || position)).id;
  } catch (e) {
    showValid();
    (note.isConnected ? note : error).textContent =
      what + ": refused. " + e.message.replace(/\.$/, "") + ". The position is as it was.";
    return;
  }
  try {
    await redraw(id);
  } catch (e) {
    location.assign("/position/" + id);          // the page anew, if it cannot be drawn in place
    return;
  }
  status.textContent = "Done: " + what + (did.length ? " (" + did.join("; ") + ")" : "") + ".";
}

/** The text and the fields showing the last valid position again. */
function showValid() {
  text.value = JSON.stringify(valid, null, 1);
  showFields(valid);
}

/** The page of position `id` drawn in place of this one's: its data drawn by the viewer
 * (window.tigrisViewer.redraw), its header and title put in this page's. */
async function redraw(id) {
  const answer = await fetch("/position/" + id);
  if (!answer.ok) throw new Error("the server answered " + answer.status);
  const page = new DOMParser().parseFromString(await answer.text(), "text/html");
  const data = JSON.parse(page.getElementById("game-data").textContent);
  window.tigrisViewer.redraw(data, 0);            // sets window.tigrisShown, tells the panels
  document.querySelector("header").replaceWith(document.importNode(page.querySelector("header"), true));
  document.title = page.title;
  valid = structuredClone(window.tigrisShown.position);
  if (location.pathname !== "/position/" + id) history.pushState(null, "", "/position/" + id);
  shownPath = location.pathname;
  fillPieces(valid.players.length);
  showValid();
}

// ---------------------------------------------------------------- the controls

fillPieces((valid.players || []).length);
showValid();

form.addEventListener("change", ev => {
  const input = ev.target, path = input.dataset.path, value = input.value;
  if (!path) return;
  const note = input.closest(".edit-group").querySelector(".field-error");
  change(input.getAttribute("aria-label") + " set to " + value, note,
         (position, did) => setNumber(position, path, value, did));
});

function applyText(what, source) {
  change(what, error, () => {
    try { return JSON.parse(source); } catch (e) { throw new Error("not JSON: " + e.message); }
  });
}

apply.addEventListener("click", () => applyText("the text", text.value));
file.addEventListener("change", async () => {
  if (!file.files.length) return;
  const chosen = file.files[0];
  text.value = await chosen.text();
  applyText("the file " + chosen.name, text.value);
});

// Keys typed in the editor are the editor's: the viewer's keys (arrows, Home, End: another
// move) would take them from its text and its fields.
panel.addEventListener("keydown", ev => ev.stopPropagation());

// A click on the board (whichever board is drawn: it is drawn anew after each change).
document.addEventListener("click", ev => {
  if (piece.value === "none" || !(ev.target instanceof Element) || !ev.target.closest("#board")) return;
  const cell = document.elementsFromPoint(ev.clientX, ev.clientY).find(e => e.dataset && e.dataset.cell);
  if (!cell) return;
  const choice = piece.value, square = cell.dataset.cell;
  const name = choice === "" ? "take away what is" : piece.selectedOptions[0].textContent.replace(/^put: /, "");
  change(name + " on " + square, boardNote, (position, did) => put(position, square, choice, did));
});

// Back (or Forward) to another position's address: that page, loaded.
window.addEventListener("popstate", () => {
  if (location.pathname !== shownPath) location.reload();
});
