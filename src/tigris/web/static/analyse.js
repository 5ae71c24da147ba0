/* tigris serve: the analysis panel of a served game page (a record, or a results
 * folder's game).
 *
 * "Analyse the game" asks the server to search every decision again (POST
 * /api/analysis, run in a worker process), shows its progress (GET /api/analysis/ID)
 * with a button that stops it, and then loads the page again with the analysis: the
 * viewer draws each player's win chance over the game and marks the moves (?! ? ??).
 * Every text from the server is set with textContent, never as HTML. */
import { h, SearchJob } from "./panel.js";

const depth = h("select", { id: "analysis-iterations", "aria-label": "iterations a decision" },
  h("option", { value: "500", text: "quick (500 a decision)" }),
  h("option", { value: "2000", text: "usual (2,000)" }),
  h("option", { value: "10000", text: "deep (10,000)" }));
depth.value = "2000";
const job = new SearchJob({
  kind: "analysis", noun: "analysis", title: "Analysis", startText: "Analyse the game", budget: depth,
  running: s => "Analysing: " + Math.round(100 * s.progress) + "% of the decisions",
  done: (s, id) => {                    // the page again, with the analysis drawn
    const url = new URL(location.href);
    url.searchParams.set("analysis", id);
    location.assign(url.toString());
  },
});
if (new URL(location.href).searchParams.get("analysis")) {
  job.status.textContent = "The graph below the board shows the analysis; the marked moves are in the list.";
}
job.start.addEventListener("click", () => {
  job.begin({ page: location.pathname, iterations: Number(depth.value) }, "Starting the analysis...");
});
