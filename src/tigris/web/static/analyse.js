/* tigris serve: the analysis panel of a served game page (a record, or a results
 * folder's game).
 *
 * The analysis is a file beside the record (NAME.analysis.jsonl; a results folder's game
 * K: games-K.analysis.jsonl in the folder), the file tigris analyse writes: the page
 * draws what it holds (the element #analysis-file says what that is).  "Analyse the
 * game" asks the server to search every decision (POST /api/analysis, run in a worker
 * process that appends a row per decision to the file), shows its progress (GET
 * /api/analysis/ID) with a button that stops it (the rows written stay), and then draws
 * the file's analysis in place (the page's data fetched again and given to
 * window.tigrisViewer.redraw, the page not loaded again): each player's win chance over
 * the game, the luck, and the marked moves (?! ? ??).  A file that holds part of the analysis is continued at its own
 * budget; one that holds something else is left as it is.  Every text from the server
 * is set with textContent, never as HTML. */
import { h, SearchTask } from "./panel.js";

let file = JSON.parse(document.getElementById("analysis-file").textContent);
const depth = h("select", { id: "analysis-iterations", "aria-label": "iterations a decision" },
  h("option", { value: "500", text: "quick (500 a decision)" }),
  h("option", { value: "2000", text: "usual (2,000)" }),
  h("option", { value: "10000", text: "deep (10,000)" }));
depth.value = "2000";
const task = new SearchTask({
  kind: "analysis", noun: "analysis", title: "Analysis", budget: depth,
  startText: file.state === "partial" ? "Continue the analysis" : "Analyse the game",
  running: s => "Analysing: " + Math.round(100 * s.progress) + "% of the decisions (written to " + file.file + ")",
  done: () => drawn().catch(e => task.end("The analysis is in " + file.file + ", but it could not " +
                                          "be drawn here (" + e.message + "): load the page again.")),
});

/** The page's data and the file's state fetched again, and the analysis drawn in place at
 * the move shown. */
async function drawn() {
  const answer = await fetch(location.pathname);
  if (!answer.ok) throw new Error("the server answered " + answer.status);
  const page = new DOMParser().parseFromString(await answer.text(), "text/html");
  const data = JSON.parse(page.getElementById("game-data").textContent);
  file = JSON.parse(page.getElementById("analysis-file").textContent);
  document.getElementById("analysis-file").textContent = JSON.stringify(file);
  const shown = window.tigrisShown ? window.tigrisShown.move : undefined;
  window.tigrisViewer.redraw(data, shown);
  say();
}

function budget() {                      // the file's budget, in words
  return file.iterations != null ? file.iterations.toLocaleString("en") + " iterations"
                                 : file.seconds + " seconds";
}

/** The panel as the file is: its state said, the budget and the button set to match. */
function say() {
  if (file.state === "partial") {          // goes on at the file's budget
    task.start.textContent = "Continue the analysis";
    if (file.iterations != null && ![...depth.options].some(o => o.value === String(file.iterations))) {
      depth.append(h("option", { value: String(file.iterations), text: budget() }));
    }
    if (file.iterations != null) depth.value = String(file.iterations); else depth.hidden = true;
    depth.disabled = true;
    task.status.textContent = file.file + " holds " + file.analysed + " of the " + file.decisions +
      " decisions (" + budget() + " a decision), drawn below the board; continue it at that budget.";
  } else if (file.state === "complete") {
    task.start.hidden = true;
    depth.hidden = true;
    task.status.textContent = "The analysis in " + file.file + " (" + budget() + " a decision) is drawn " +
      "below the board; the marked moves are in the list.";
  } else if (file.state === "refused") {
    task.start.disabled = true;
    depth.hidden = true;
    task.status.textContent = file.file + " beside the game is left as it is: " + file.problem +
      ". Move it away to analyse the game here.";
  } else {
    task.status.textContent = "The analysis is written to " + file.file + ", beside the game.";
  }
}
say();
task.start.addEventListener("click", () => {
  const body = { page: location.pathname };
  if (file.state !== "partial") body.iterations = Number(depth.value);
  task.begin(body, "Starting the analysis...");
});
