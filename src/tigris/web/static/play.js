/* tigris serve: a person's seat at a served game (the page is the viewer's, its positions
 * as this player sees them).
 *
 * The panel asks the server for the game (GET /api/games/ID?player=P&key=K&drawn=V) three
 * times a second, ten while a bot thinks (its move is shown as soon as it is made): whose
 * turn it is, a bot thinking, what each move did, the legal moves when it is this player's
 * turn, and, when the game has changed since the version V the page shows (a bot's move,
 * another seat's), the page's data, which the viewer draws in place
 * (window.tigrisViewer.redraw: the board, the players, the supply, the moves, the status)
 * at the last move: the page is never loaded again.  The moves onto a square are
 * grouped by kind (a tile's colour, a leader, a catastrophe, a monument, a treasure...):
 * choosing a group outlines its squares on the board, and a click on one plays that move;
 * a move without a square (pass, support N, a swap, war COLOUR, withdraw, no-monument...)
 * is a button of its own that plays it at once, the swaps folded under one line that
 * opens them.  Undo and Resign act for this player (undo after resigning takes the
 * resignation back).  A move, undo or resign is answered with
 * the game and its data, drawn in place at once.  Each of them names the game's version
 * this page saw: when the game has moved on since (another seat, a bot), the server
 * refuses it (409) and the page draws the game as it is.  When the server no longer holds
 * the game (404: it restarted), the page loads itself again: its address, kept beside the
 * record, plays the game on.  Every text from the server is set with textContent, never
 * as HTML. */
import { h, call } from "./panel.js";

const SVG = "http://www.w3.org/2000/svg";
const POLL_MS = 300, THINKING_POLL_MS = 100;
const here = new URL(location.href);
const ID = here.pathname.split("/").pop();
const PLAYER = parseInt(here.searchParams.get("player"), 10);
const KEY = "&key=" + encodeURIComponent(here.searchParams.get("key") || "");
let drawn = JSON.parse(document.getElementById("play-data").textContent).version;   // the version drawn
let moves = JSON.parse(document.getElementById("game-data").textContent).steps.length - 1;
if (!location.hash && moves > 0) location.hash = "#move=" + moves;   // a seat starts at the last move
let shown = window.tigrisShown || { move: moves };
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

function atLastMove() { return shown.move === moves; }

function clearTargets() { marks.replaceChildren(); }

function showTargets(onBoard) {
  clearTargets();
  if (!atLastMove()) return;
  for (const m of onBoard) {
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

/** The group `name` chosen: its squares outlined on the board. */
function choose(name) {
  group = name;
  for (const b of groups.querySelectorAll("button.group")) b.classList.toggle("chosen", b.dataset.group === name);
  const onBoard = state.legal.filter(m => m.group === name && squareOf(m.move));
  showTargets(onBoard);
  choices.replaceChildren();
  if (onBoard.length) {
    choices.append(h("p", { class: "hint", text: "Click an outlined square (" + onBoard.length + ")." }));
  }
}

/** The moves without a square playable only at the last move (the position they are made in). */
function enableMoves() {
  for (const b of groups.querySelectorAll("button.move")) b.disabled = !atLastMove();
}

/** An answer of the server taken in: the page drawn again in place when it holds the
 * page's data (the game changed); an answer older than the one shown is left out. */
function take(answer) {
  if (state && answer.version < state.version) return;
  state = answer;
  if (answer.data && answer.version !== drawn) {
    drawn = answer.version;
    moves = answer.data.steps.length - 1;
    group = null;
    groups.dataset.names = "";                 // the choices drawn anew
    window.tigrisViewer.redraw(answer.data);   // at the last move; tells the panels (tigris:shown)
  }
  render();
}

/** POST a seat's action (move, undo, resign) made at the version shown. */
async function act(action, body) {
  if (!state) return;
  say("");
  try {
    take(await call("/api/games/" + ID + "/" + action + "?" + KEY.slice(1),
                    Object.assign({ player: PLAYER, version: state.version }, body)));
    // a bot answers: look again soon rather than at the next of the slower looks
    if (state.thinking) setTimeout(() => look().catch(err => say(err.message)), THINKING_POLL_MS);
  } catch (e) {
    if (e.status === 409) {                     // the game moved on meanwhile: as it is now
      say("The game had moved on: here it is as it is now.");
      look().catch(err => say(err.message));
      return;
    }
    say(e.message);
  }
}

function play(move) { return act("move", { move: move }); }

function statusText() {
  if (state.over) {
    const r = state.result;
    return "The game is over" + (r && r.adjudicated ? " (" + r.adjudicated + ")" : "") +
      (r ? ": " + r.ranking.map((ps, k) => (k + 1) + ". " + ps.map(p => "player " + p).join(", ")).join("; ") + "." : ".") +
      (state.can_undo ? " Undo takes the resignation back." : "");
  }
  if (state.error) return state.error;
  if (state.thinking) return "Player " + state.to_move + " (" + state.seats[state.to_move] + ") is thinking...";
  if (state.to_move === PLAYER) {
    return "Your turn: " + state.decision.replace("_", " ") + ". Choose a kind of move, or a move." +
      (atLastMove() ? "" : " (Go to the last move to play.)");
  }
  return "Player " + state.to_move + " (" + state.seats[state.to_move] + ") to move.";
}

function render() {
  events.replaceChildren(...state.events.slice().reverse().map(e =>
    h("li", { "data-move": String(e.n) }, h("b", { text: e.n + ". player " + e.player + ": " + e.move }),
      ...e.said.map(s => h("div", { class: "said", text: s })))));
  undo.disabled = !state.can_undo;
  resign.disabled = state.over || state.seats[PLAYER] !== "human";
  status.textContent = statusText();
  // the kinds of moves onto a square, then every move without one (a click plays it)
  const names = [...new Set(state.legal.filter(m => squareOf(m.move)).map(m => m.group))];
  const direct = state.legal.filter(m => !squareOf(m.move)).map(m => m.move);
  const key = names.join("|") + "#" + direct.join("|");
  if (groups.dataset.names === key) return;
  groups.dataset.names = key;
  const kinds = h("div", { class: "play-kinds" }, ...names.map(n =>
    h("button", { type: "button", class: "group", "data-group": n, text: n })));
  // the swaps (up to some 35 sets of tiles) folded under one line, opened by a click
  const swaps = direct.filter(m => m.startsWith("swap "));
  const folded = swaps.length > 1;
  const button = m => h("button", { type: "button", class: "move", "data-move": m, text: m });
  const now = h("div", { class: "play-moves" }, ...direct.filter(m => !folded || !swaps.includes(m)).map(button));
  if (folded) {
    now.append(h("details", { id: "play-swaps" },
      h("summary", { text: "swap tiles (" + swaps.length + " ways)" }),
      h("div", { class: "play-moves" }, ...swaps.map(button))));
  }
  groups.replaceChildren(...(names.length ? [kinds] : []), ...(direct.length ? [now] : []));
  for (const b of kinds.children) b.addEventListener("click", () => choose(b.dataset.group));
  for (const b of now.querySelectorAll("button.move")) b.addEventListener("click", () => play(b.dataset.move));
  enableMoves();
  group = null;
  choices.replaceChildren();
  clearTargets();
  if (names.length === 1 && !direct.length) choose(names[0]);
}

/** The game as it is, and its data when it changed since the version drawn. */
async function look() {
  take(await call("/api/games/" + ID + "?player=" + PLAYER + KEY + "&drawn=" + drawn));
}

async function poll() {
  try {
    await look();
  } catch (e) {
    // the server no longer holds the game (it restarted): this address plays it on
    if (e.status === 404) { location.reload(); return; }
    say(e.message);
  }
  setTimeout(poll, state && state.thinking ? THINKING_POLL_MS : POLL_MS);
}

undo.addEventListener("click", () => act("undo", {}));
resign.addEventListener("click", () => {
  if (confirm("Resign this game?")) act("resign", {});
});
document.addEventListener("tigris:shown", ev => {
  shown = ev.detail;
  enableMoves();
  if (state && group !== null) choose(group); else clearTargets();
});
poll();
