/* tigris serve: the hint panel of a served game page.
 *
 * It asks the server for a hint of the position the viewer shows (POST /api/hint), shows
 * the search's progress (GET /api/hint/ID twice a second) beside a button that stops it,
 * then the plans it examined (the server sends the first few): each numbered, #1 the plan
 * the engine plays, the others by how they read against it, each with the mover's chance
 * of finishing first, its standard error, #1's when it had the plan's visits ("#1 then")
 * and the mark between them (= when the two intervals overlap, < or > beyond both), and
 * its share of the visits; below them the notes
 * (what the marks and the search's schedule mean here) and, for the first plans, why
 * (the expected final scores, what the plan does, the likely line): the same as
 * `tigris hint` prints.  The squares of the first three plans are outlined on the board
 * with their numbers (window.tigrisBoard, from viewer.js).  Moving to another position,
 * or closing the page, stops a search still running.  Every text from the server is set
 * with textContent, never as HTML. */
import { h, SearchTask } from "./panel.js";

const MARKED = 3;                     // the plans whose squares are outlined on the board
let shown = window.tigrisShown || null;      // {move, position}, from viewer.js

const seconds = h("select", { id: "hint-seconds", "aria-label": "seconds of search" },
  ...[1, 3, 10, 30].map(s => h("option", { value: String(s), text: s + " s" })));
seconds.value = "3";
const table = h("table", { id: "hint-table" });
const notes = h("ul", { id: "hint-notes" });
const why = h("div", { id: "hint-why" });
const task = new SearchTask({
  kind: "hint", noun: "search", title: "Hint", startText: "Hint", budget: seconds, more: [table, notes, why],
  running: s => "Searching: " + s.iterations.toLocaleString() + " iterations",
  done: s => render(s.result),
});
const status = task.status;

// A chance or an error in points to a tenth, rounded half up as the server marks them.
function points(x) { return x === null || x === undefined ? "-" : (Math.floor(1000 * x + 0.5) / 10).toFixed(1); }
function pct(x) { return x === null || x === undefined ? "-" : points(x) + "%"; }

// A row's mark against #1, as the table shows it, and what it means.
const SIGNS = { choice: "", equal: "=", above: ">", below: "<" };
const MEANING = {
  choice: "the plan the engine plays",
  equal: "its interval (chance \u00b1 error) overlaps #1's then: not told apart",
  above: "reads above #1's chance then, beyond both errors",
  below: "reads below #1's chance then, beyond both errors",
};

// A square's name at the end of a move's notation ("tile red G5", "leader king C8").
const SQUARE = /\b([A-P](?:1[01]|[1-9]))$/;

// The lines of a plan's reasons, as `tigris hint` prints them.
function whyLines(r, mover) {
  const w = r.why, lines = [];
  if (w.scores) {
    lines.push("expected final scores (the network's): " + w.scores.before.map((b, p) =>
      "P" + p + (p === mover ? "*" : "") + " " + b.toFixed(1) + " \u2192 " + w.scores.after[p].toFixed(1)).join(", "));
  }
  if (w.does.length) lines.push("it does: " + w.does.join("; "));
  if (w.replies.length) {
    lines.push("likely line: " + w.replies.map(x => "player " + x.player + ": " + x.move +
      (x.share === null ? "" : " (" + Math.round(100 * x.share) + "% of the visits there)")).join("; "));
  }
  if (w.then.length) lines.push("then: " + w.then.join("; "));
  return lines;
}

function render(result) {
  const head = h("tr", {}, ...["#", "vs #1", "plan", "win", "\u00b1", "#1 then", "share of visits"].map(
    t => h("th", { text: t })));
  const rows = result.hints.map(r => h("tr", { class: r.mark, "data-rank": String(r.rank) },
    h("td", { class: "num", text: String(r.rank) }),
    h("td", { class: "versus", text: SIGNS[r.mark] || "", title: MEANING[r.mark] || "" }),
    h("td", { text: r.plan.join(" + ") }),
    h("td", { class: "num", text: pct(r.win) }),
    h("td", { class: "num", text: points(r.error) }),
    h("td", { class: "num", text: r.first ? pct(r.first.win) + " \u00b1 " + points(r.first.error) : "",
              title: r.first && r.first.halving !== null ? "#1 when it had " + r.first.visits.toLocaleString() +
                " visits, as this plan (halving " + r.first.halving + ")" : "#1 as it reads in the end" }),
    h("td", { class: "num", text: pct(r.share) })));
  table.replaceChildren(h("thead", {}, head), h("tbody", {}, ...rows));
  notes.replaceChildren(...result.notes.map(n => h("li", { text: n })));
  why.replaceChildren(...result.hints.filter(r => r.why).map(r => h("div", { class: "why", "data-rank": String(r.rank) },
    h("strong", { text: "Why #" + r.rank + " " + r.plan.join(" + ") }),
    h("ul", {}, ...whyLines(r, result.player).map(t => h("li", { text: t }))))));
  const hidden = result.unsearched ? " " + result.unsearched + " other plans held under " +
    Math.round(100 * result.searched_share) + "% of the visits each: too little searched to rank, not shown." : "";
  status.textContent = "Player " + result.player + " to decide (" + result.decision + "): " +
    result.iterations.toLocaleString() + " iterations. #1 is the plan the engine plays. #1 then: its " +
    "chance when it had the plan's visits (the search compares moves at equal visits); = the plan's chance " +
    "cannot be told from it (the intervals win \u00b1 error overlap), < and > read below and above it " +
    "beyond both. Win: the chance of finishing first; \u00b1 its standard error, in points." + hidden;
  // The first plans' squares, outlined on the board with their row's number.
  const squares = [];
  result.hints.slice(0, MARKED).forEach(r => {
    for (const move of r.plan) {
      const m = SQUARE.exec(move);
      if (m) squares.push([m[1], String(r.rank)]);
    }
  });
  if (window.tigrisBoard) window.tigrisBoard.mark(squares);
}

function clear() {
  table.replaceChildren();
  notes.replaceChildren();
  why.replaceChildren();
}

task.start.addEventListener("click", () => {
  if (!shown) return;
  clear();
  task.begin({ position: shown.position, seconds: Number(seconds.value) }, "Starting the search...");
});
document.addEventListener("tigris:shown", ev => {
  shown = ev.detail;
  task.stop();
  clear();
  status.textContent = "";
});
