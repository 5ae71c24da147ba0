/* tigris serve: the hint panel of a served game page.
 *
 * It asks the server for a hint of the position the viewer shows (POST /api/hint), shows
 * the search's progress (GET /api/hint/ID twice a second) beside a button that stops it,
 * then the plans it examined (the server sends the equals and the next few): the ones the
 * search cannot tell from its choice are marked "=", each with the mover's chance of
 * finishing first, its standard error and its share of the visits; the squares of the
 * first three are outlined on the board (window.tigrisBoard, from viewer.js).  Moving to
 * another position, or closing the page, stops a search still running.  Every text from
 * the server is set with textContent, never as HTML. */
import { h, call, leave } from "./panel.js";

const POLL_MS = 500;
const MARKED = 3;                     // the plans whose squares are outlined on the board
let shown = window.tigrisShown || null;      // {move, position}, from viewer.js
let job = null, timer = null;

const seconds = h("select", { id: "hint-seconds", "aria-label": "seconds of search" },
  ...[1, 3, 10, 30].map(s => h("option", { value: String(s), text: s + " s" })));
seconds.value = "3";
const start = h("button", { type: "button", id: "hint-start", text: "Hint" });
const stop = h("button", { type: "button", id: "hint-stop", text: "Stop" });
stop.hidden = true;
const progress = h("progress", { id: "hint-progress", max: "1", value: "0" });
progress.hidden = true;
const status = h("p", { id: "hint-status", class: "hint" });
const table = h("table", { id: "hint-table" });
const panel = h("section", { id: "hint-panel" }, h("h2", { text: "Hint" }),
  h("div", { class: "hint-controls" }, start, seconds, stop, progress), status, table);
const side = document.getElementById("side");
side.insertBefore(panel, document.getElementById("copy"));

function pct(x) { return x === null || x === undefined ? "-" : (100 * x).toFixed(1) + "%"; }

// A square's name at the end of a move's notation ("tile red G5", "leader king C8").
const SQUARE = /\b([A-P](?:1[01]|[1-9]))$/;

function render(result) {
  const head = h("tr", {}, ...["", "plan", "win", "\u00b1", "share of visits"].map(t => h("th", { text: t })));
  const rows = result.hints.map((r, k) => h("tr", { class: r.equal ? "equal" : "" },
    h("td", { text: (k < MARKED ? "(" + (k + 1) + ") " : "") + (r.equal ? "=" : String(r.rank)) }),
    h("td", { text: r.plan.join(" + ") }),
    h("td", { class: "num", text: pct(r.win) }),
    h("td", { class: "num", text: pct(r.error) }),
    h("td", { class: "num", text: pct(r.share) })));
  table.replaceChildren(h("thead", {}, head), h("tbody", {}, ...rows));
  const hidden = result.unsearched ? " " + result.unsearched + " other plans held under " +
    Math.round(100 * result.searched_share) + "% of the visits each: too little searched to rank, not shown." : "";
  status.textContent = "Player " + result.player + " to decide (" + result.decision + "): " +
    result.iterations.toLocaleString() + " iterations; " + result.equals +
    (result.equals === 1 ? " plan is" : " plans are") +
    " within the search's noise of its choice (marked =). Win: the chance of finishing first." + hidden;
  // The first plans' squares, outlined on the board with their row's number.
  const squares = [];
  result.hints.slice(0, MARKED).forEach((r, k) => {
    for (const move of r.plan) {
      const m = SQUARE.exec(move);
      if (m) squares.push([m[1], String(k + 1)]);
    }
  });
  if (window.tigrisBoard) window.tigrisBoard.mark(squares);
}

function idle() {
  if (timer !== null) clearTimeout(timer);
  timer = null;
  job = null;
  start.disabled = false;
  stop.hidden = true;
  progress.hidden = true;
}

function fail(message) {
  idle();
  status.textContent = message;
}

async function poll() {
  const id = job;
  if (id === null) return;
  let s;
  try {
    s = await call("/api/hint/" + id);
  } catch (e) {
    if (job === id) fail(e.message);
    return;
  }
  if (job !== id) return;
  progress.value = s.progress;
  if (s.state === "done") {
    idle();
    render(s.result);
  } else if (s.state === "failed" || s.state === "stopped") {
    fail("The search " + s.state + (s.error ? ": " + s.error : "."));
  } else {
    status.textContent = s.state === "waiting" ? "Waiting for a free worker..." :
      "Searching: " + s.iterations.toLocaleString() + " iterations";
    timer = setTimeout(poll, POLL_MS);
  }
}

start.addEventListener("click", async () => {
  if (!shown) return;
  start.disabled = true;
  table.replaceChildren();
  status.textContent = "Starting the search...";
  try {
    const r = await call("/api/hint", { position: shown.position, seconds: Number(seconds.value) });
    job = r.id;
    stop.hidden = false;
    progress.hidden = false;
    progress.value = 0;
    timer = setTimeout(poll, POLL_MS);
  } catch (e) {
    fail(e.message);
  }
});

function stopJob() {
  if (job === null) return;
  const id = job;
  idle();
  leave("/api/hint/" + id + "/stop");
  status.textContent = "Stopped.";
}

stop.addEventListener("click", stopJob);
document.addEventListener("tigris:shown", ev => {
  shown = ev.detail;
  if (job !== null) stopJob();
  table.replaceChildren();
  status.textContent = "";
});
window.addEventListener("pagehide", () => {
  if (job !== null) leave("/api/hint/" + job + "/stop");
});
