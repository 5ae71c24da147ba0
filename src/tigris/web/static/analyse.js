/* tigris serve: the analysis panel of a served game page (a record, or a results
 * folder's game).
 *
 * The analysis is a file beside the record (NAME.analysis.jsonl; a results folder's game
 * K: games-K.analysis.jsonl in the folder), the file tigris analyse writes: the page
 * draws what it holds (the element #analysis-file says what that is).  "Analyse the
 * game" asks the server to search every decision (POST /api/analysis, run in a worker
 * process that appends a row per decision to the file), shows its progress (GET
 * /api/analysis/ID) with a button that stops it (the rows written stay), and then loads
 * the page again: the viewer draws each player's win chance over the game and marks the
 * moves (?! ? ??).  A file that holds part of the analysis is continued at its own
 * budget; one that holds something else is left as it is.  Every text from the server
 * is set with textContent, never as HTML. */
import { h, SearchJob } from "./panel.js";

const file = JSON.parse(document.getElementById("analysis-file").textContent);
const depth = h("select", { id: "analysis-iterations", "aria-label": "iterations a decision" },
  h("option", { value: "500", text: "quick (500 a decision)" }),
  h("option", { value: "2000", text: "usual (2,000)" }),
  h("option", { value: "10000", text: "deep (10,000)" }));
depth.value = "2000";
const job = new SearchJob({
  kind: "analysis", noun: "analysis", title: "Analysis", budget: depth,
  startText: file.state === "partial" ? "Continue the analysis" : "Analyse the game",
  running: s => "Analysing: " + Math.round(100 * s.progress) + "% of the decisions (written to " + file.file + ")",
  done: () => location.reload(),        // the page again, with the file's analysis drawn
});

function budget() {                      // the file's budget, in words
  return file.iterations != null ? file.iterations.toLocaleString("en") + " iterations"
                                 : file.seconds + " seconds";
}

if (file.state === "partial") {          // goes on at the file's budget
  if (file.iterations != null && ![...depth.options].some(o => o.value === String(file.iterations))) {
    depth.append(h("option", { value: String(file.iterations), text: budget() }));
  }
  if (file.iterations != null) depth.value = String(file.iterations); else depth.hidden = true;
  depth.disabled = true;
  job.status.textContent = file.file + " holds " + file.analysed + " of the " + file.decisions +
    " decisions (" + budget() + " a decision), drawn below the board; continue it at that budget.";
} else if (file.state === "complete") {
  job.start.hidden = true;
  depth.hidden = true;
  job.status.textContent = "The analysis in " + file.file + " (" + budget() + " a decision) is drawn " +
    "below the board; the marked moves are in the list.";
} else if (file.state === "refused") {
  job.start.disabled = true;
  depth.hidden = true;
  job.status.textContent = file.file + " beside the game is left as it is: " + file.problem +
    ". Move it away to analyse the game here.";
} else {
  job.status.textContent = "The analysis is written to " + file.file + ", beside the game.";
}
job.start.addEventListener("click", () => {
  const body = { page: location.pathname };
  if (file.state !== "partial") body.iterations = Number(depth.value);
  job.begin(body, "Starting the analysis...");
});
