/* tigris serve: the analysis panel of a served game page (a record, or a results
 * folder's game).
 *
 * "Analyse the game" asks the server to search every decision again (POST
 * /api/analysis, run in a worker process), shows its progress (GET /api/analysis/ID)
 * with a button that stops it, and then loads the page again with the analysis: the
 * viewer draws each player's win chance over the game and marks the moves (?! ? ??).
 * Every text from the server is set with textContent, never as HTML. */
import { h, call, leave } from "./panel.js";

const POLL_MS = 500;
let job = null;

const depth = h("select", { id: "analysis-iterations", "aria-label": "iterations a decision" },
  h("option", { value: "500", text: "quick (500 a decision)" }),
  h("option", { value: "2000", text: "usual (2,000)" }),
  h("option", { value: "10000", text: "deep (10,000)" }));
depth.value = "2000";
const start = h("button", { type: "button", id: "analysis-start", text: "Analyse the game" });
const stop = h("button", { type: "button", id: "analysis-stop", text: "Stop" });
stop.hidden = true;
const progress = h("progress", { id: "analysis-progress", max: "1", value: "0" });
progress.hidden = true;
const status = h("p", { id: "analysis-status", class: "hint" });
const panel = h("section", { id: "analysis-panel" }, h("h2", { text: "Analysis" }),
  h("div", { class: "hint-controls" }, start, depth, stop, progress), status);
const side = document.getElementById("side");
side.insertBefore(panel, document.getElementById("copy"));
if (new URL(location.href).searchParams.get("analysis")) {
  status.textContent = "The graph below the board shows the analysis; the marked moves are in the list.";
}

function idle(text) {
  job = null;
  start.disabled = false;
  stop.hidden = true;
  progress.hidden = true;
  status.textContent = text;
}

async function poll() {
  const id = job;
  if (id === null) return;
  let s;
  try { s = await call("/api/analysis/" + id); }
  catch (e) { if (job === id) idle(e.message); return; }
  if (job !== id) return;
  progress.value = s.progress;
  if (s.state === "done") {
    const url = new URL(location.href);
    url.searchParams.set("analysis", id);
    location.assign(url.toString());
  } else if (s.state === "failed" || s.state === "stopped") {
    idle("The analysis " + s.state + (s.error ? ": " + s.error : "."));
  } else {
    status.textContent = s.state === "waiting" ? "Waiting for a free worker..." :
      "Analysing: " + Math.round(100 * s.progress) + "% of the decisions";
    setTimeout(poll, POLL_MS);
  }
}

start.addEventListener("click", async () => {
  start.disabled = true;
  status.textContent = "Starting the analysis...";
  try {
    const r = await call("/api/analysis", { page: location.pathname, iterations: Number(depth.value) });
    job = r.id;
    stop.hidden = false;
    progress.hidden = false;
    progress.value = 0;
    setTimeout(poll, POLL_MS);
  } catch (e) {
    idle(e.message);
  }
});
stop.addEventListener("click", () => {
  if (job === null) return;
  leave("/api/analysis/" + job + "/stop");
  idle("Stopped.");
});
window.addEventListener("pagehide", () => {
  if (job !== null) leave("/api/analysis/" + job + "/stop");
});
