/* tigris serve: the editor of a position page.
 *
 * The position shown is text (tigris-position/1) to edit, paste or load from a file;
 * "Apply" has the server check it (POST /api/positions) and opens the page of the new
 * position, or shows the engine's message, which names the field that is wrong.  On the
 * board: choose a piece and click a square to put it there ("empty" takes a piece away;
 * a tile comes from the bag and goes back to it); the position is applied at once.  Hands, scores, the bag and the decision at hand are
 * fields of the text.  Every text from the server is set with textContent. */
(function () {
  "use strict";

  const D = JSON.parse(document.getElementById("game-data").textContent);
  const LEADERS = ["priest", "farmer", "trader", "king"];
  const PIECES = [["", "empty (take away)"], ["red", "red temple"], ["blue", "blue farm"],
    ["green", "green market"], ["black", "black settlement"], ["red+treasure", "red temple with a treasure"],
    ["catastrophe", "catastrophe"]];
  for (let p = 0; p < D.players; p++) {
    for (const l of LEADERS) PIECES.push([l + ":" + p, l + " of player " + p]);
  }

  function h(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") e.textContent = v; else e.setAttribute(k, v);
    }
    e.append(...children);
    return e;
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
  text.value = JSON.stringify((window.tigrisShown || {}).position || {}, null, 1);

  async function send(body) {
    error.textContent = "";
    let position;
    try { position = JSON.parse(body); } catch (e) { error.textContent = "not JSON: " + e.message; return; }
    const r = await fetch("/api/positions", { method: "POST", headers: { "Content-Type": "application/json" },
                                              body: JSON.stringify(position) });
    let data = null;
    try { data = await r.json(); } catch (e) { data = null; }
    if (!r.ok) { error.textContent = (data && data.error) || "the server answered " + r.status; return; }
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
})();
