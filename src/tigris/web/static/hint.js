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
import { h, SearchJob } from "./panel.js";

const MARKED = 3;                     // the plans whose squares are outlined on the board
let shown = window.tigrisShown || null;      // {move, position}, from viewer.js

const seconds = h("select", { id: "hint-seconds", "aria-label": "seconds of search" },
  ...[1, 3, 10, 30].map(s => h("option", { value: String(s), text: s + " s" })));
seconds.value = "3";
const table = h("table", { id: "hint-table" });
const job = new SearchJob({
  kind: "hint", noun: "search", title: "Hint", startText: "Hint", budget: seconds, more: [table],
  running: s => "Searching: " + s.iterations.toLocaleString() + " iterations",
  done: s => render(s.result),
});
const status = job.status;

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

job.start.addEventListener("click", () => {
  if (!shown) return;
  table.replaceChildren();
  job.begin({ position: shown.position, seconds: Number(seconds.value) }, "Starting the search...");
});
document.addEventListener("tigris:shown", ev => {
  shown = ev.detail;
  job.stop();
  table.replaceChildren();
  status.textContent = "";
});
