/* tigris serve: a person's seat at a served game (the page is the viewer's, its positions
 * as this player sees them).
 *
 * The panel asks the server for the game (GET /api/games/ID?player=P&key=K) three times
 * a second:
 * whose turn it is, a bot thinking, what each move did, the legal moves when it is this
 * player's turn.  The moves are grouped by kind (a tile's colour, a leader, a catastrophe,
 * a monument, support, war order, a treasure...): choosing a group outlines its squares
 * on the board, and a click on one plays that move; a group without squares lists its
 * moves as buttons.  Undo and Resign act for this player.  Each of them names the game's
 * version this page saw: when the game has moved on since (another seat, a bot), the
 * server refuses it (409) and the page loads again.  When the game moves on, the page
 * loads again at the last move.  Every text from the server is set with textContent,
 * never as HTML. */
import { h, call } from "./panel.js";

const SVG = "http://www.w3.org/2000/svg";
const POLL_MS = 300;
const here = new URL(location.href);
const ID = here.pathname.split("/").pop();
const PLAYER = parseInt(here.searchParams.get("player"), 10);
const KEY = "&key=" + encodeURIComponent(here.searchParams.get("key") || "");
const MOVES = JSON.parse(document.getElementById("game-data").textContent).steps.length - 1;
if (!location.hash && MOVES > 0) location.hash = "#move=" + MOVES;   // a seat starts at the last move
let shown = window.tigrisShown || { move: MOVES };
let state = null, group = null;

const status = h("p", { id: "play-status" });
const groups = h("div", { id: "play-groups" });
const choices = h("div", { id: "play-choices" });
const events = h("ol", { id: "play-events" });
const undo = h("button", { type: "button", id: "play-undo", text: "Undo" });
const resign = h("button", { type: "button", id: "play-resign", text: "Resign" });
const message = h("p", { id: "play-message", class: "note" });
message.hidden = true;
const panel = h("section", { id: "play-panel" }, h("h2", { text: "Your seat: player " + PLAYER }),
  status, groups, choices, h("div", { class: "play-buttons" }, undo, resign), message,
  h("h3", { text: "What happened" }), events);
const side = document.getElementById("side");
side.insertBefore(panel, side.firstChild);
// Who made the game with more than one person at it gets the other seats' addresses.
const others = JSON.parse(sessionStorage.getItem("tigris-seats-" + ID) || "{}");
const links = Object.entries(others).filter(([p]) => parseInt(p, 10) !== PLAYER);
if (links.length) {
  panel.insertBefore(h("p", { id: "play-others", class: "hint" }, "The other people's seats: ",
    ...links.map(([p, url]) => h("a", { href: url, target: "_blank", text: "player " + p + " " }))), status);
}
const board = document.getElementById("board");
const marks = document.createElementNS(SVG, "g");
marks.setAttribute("id", "play-targets");
board.appendChild(marks);

function squareOf(move) {
  const m = / ([A-P](?:[1-9]|1[01]))$/.exec(move);
  return m ? m[1] : null;
}

function say(text) {
  message.textContent = text;
  message.hidden = !text;
}

function atLastMove() { return shown.move === MOVES; }

function clearTargets() { marks.replaceChildren(); }

function showTargets(moves) {
  clearTargets();
  if (!atLastMove()) return;
  for (const m of moves) {
    const sq = squareOf(m.move);
    const cell = board.querySelector('rect[data-cell="' + sq + '"]');
    if (!cell) continue;
    const r = document.createElementNS(SVG, "rect");
    for (const k of ["x", "y", "width", "height"]) r.setAttribute(k, cell.getAttribute(k));
    r.setAttribute("class", "target");
    r.setAttribute("data-target", sq);
    r.setAttribute("data-move", m.move);
    r.setAttribute("fill", "rgba(40, 170, 90, .28)");
    r.setAttribute("stroke", "#1d7a3e");
    r.setAttribute("stroke-width", "3");
    const title = document.createElementNS(SVG, "title");
    title.textContent = m.move;
    r.appendChild(title);
    r.addEventListener("click", () => play(m.move));
    marks.appendChild(r);
  }
}

function choose(name) {
  group = name;
  for (const b of groups.children) b.classList.toggle("chosen", b.dataset.group === name);
  const moves = state.legal.filter(m => m.group === name);
  const onBoard = moves.filter(m => squareOf(m.move));
  showTargets(onBoard);
  choices.replaceChildren(...moves.filter(m => !squareOf(m.move)).map(m =>
    h("button", { type: "button", class: "choice", "data-move": m.move, text: m.move })));
  for (const b of choices.children) b.addEventListener("click", () => play(b.dataset.move));
  if (onBoard.length) {
    choices.prepend(h("p", { class: "hint", text: "Click an outlined square (" + onBoard.length + ")." }));
  }
}

/** POST a seat's action (move, undo, resign) made at the version shown. */
async function act(action, body) {
  if (!state) return;
  say("");
  try {
    state = await call("/api/games/" + ID + "/" + action + "?" + KEY.slice(1),
                       Object.assign({ player: PLAYER, version: state.version }, body));
    render();
  } catch (e) {
    if (e.status === 409) { location.reload(); return; }     // the game moved on meanwhile
    say(e.message);
  }
}

function play(move) { return act("move", { move: move }); }

function render() {
  if (state.moves !== MOVES) {             // the game went on: load it at its last move
    location.replace(here.pathname + here.search + "#move=" + state.moves);
    location.reload();
    return;
  }
  events.replaceChildren(...state.events.slice().reverse().map(e =>
    h("li", { "data-move": String(e.n) }, h("b", { text: e.n + ". player " + e.player + ": " + e.move }),
      ...e.said.map(s => h("div", { class: "said", text: s })))));
  undo.disabled = !state.can_undo;
  resign.disabled = state.over || state.seats[PLAYER] !== "human";
  if (state.over) {
    const r = state.result;
    status.textContent = "The game is over" + (r && r.adjudicated ? " (" + r.adjudicated + ")" : "") +
      (r ? ": " + r.ranking.map((ps, k) => (k + 1) + ". " + ps.map(p => "player " + p).join(", ")).join("; ") : ".");
  } else if (state.error) {
    status.textContent = state.error;
  } else if (state.thinking) {
    status.textContent = "Player " + state.to_move + " (" + state.seats[state.to_move] + ") is thinking...";
  } else if (state.to_move === PLAYER) {
    status.textContent = "Your turn: " + state.decision.replace("_", " ") + ". Choose a kind of move." +
      (atLastMove() ? "" : " (Go to the last move to play.)");
  } else {
    status.textContent = "Player " + state.to_move + " (" + state.seats[state.to_move] + ") to move.";
  }
  const names = [...new Set(state.legal.map(m => m.group))];
  const same = groups.dataset.names === names.join("|");
  if (!same) {
    groups.dataset.names = names.join("|");
    groups.replaceChildren(...names.map(n => h("button", { type: "button", class: "group", "data-group": n, text: n })));
    for (const b of groups.children) b.addEventListener("click", () => choose(b.dataset.group));
    group = null;
    choices.replaceChildren();
    clearTargets();
    if (names.length === 1) choose(names[0]);
  }
}

async function poll() {
  try {
    state = await call("/api/games/" + ID + "?player=" + PLAYER + KEY);
    render();
  } catch (e) {
    say(e.message);
  }
  setTimeout(poll, POLL_MS);
}

undo.addEventListener("click", () => act("undo", {}));
resign.addEventListener("click", () => {
  if (confirm("Resign this game?")) act("resign", {});
});
document.addEventListener("tigris:shown", ev => {
  shown = ev.detail;
  if (state && group !== null) choose(group); else clearTargets();
});
poll();
