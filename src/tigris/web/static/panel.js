/* tigris serve: what the panels of a served page share, a module that hint.js,
 * analyse.js, play.js and edit.js import.  h makes an element whose texts are set
 * with textContent, never as HTML; call asks the server and gives its JSON answer, or
 * throws an Error with the server's message and its status; leave posts as the page
 * goes.  Whatever changes something is a POST of JSON (the server refuses any other). */
export function h(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
}

function post(body, keepalive) {
  return { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
           keepalive: !!keepalive };
}

const POLL_MS = 500;         // how often a running search is asked how far it got

/** A search the page starts and stops (a hint, an analysis), with its panel in the side
 * column above the copy box: a heading (`title`), a start button (`startText`), the
 * `budget` to choose, a stop button, a progress bar, a status line, then `more` (a list of
 * elements).  `kind` names its routes (/api/KIND, /api/KIND/ID, /api/KIND/ID/stop) and
 * `noun` the search in messages; `running(state)` says how far it got, `done(state, id)`
 * takes its result.  Stopped by its button, by `stop()`, or as the page goes. */
export class SearchTask {
  constructor({ kind, noun, title, startText, budget, more = [], running, done }) {
    this.kind = kind;
    this.noun = noun;
    this.running = running;
    this.done = done;
    this.id = null;
    this.timer = null;
    this.start = h("button", { type: "button", id: kind + "-start", text: startText });
    this.stopButton = h("button", { type: "button", id: kind + "-stop", text: "Stop" });
    this.stopButton.hidden = true;
    this.progress = h("progress", { id: kind + "-progress", max: "1", value: "0" });
    this.progress.hidden = true;
    this.status = h("p", { id: kind + "-status", class: "hint" });
    const panel = h("section", { id: kind + "-panel" }, h("h2", { text: title }),
      h("div", { class: "hint-controls" }, this.start, budget, this.stopButton, this.progress),
      this.status, ...more);
    document.getElementById("side").insertBefore(panel, document.getElementById("copy"));
    this.stopButton.addEventListener("click", () => this.stop());
    window.addEventListener("pagehide", () => {
      if (this.id !== null) leave("/api/" + kind + "/" + this.id + "/stop");
    });
  }

  /** Ask for a search of `body`, saying `starting` meanwhile. */
  async begin(body, starting) {
    this.start.disabled = true;
    this.status.textContent = starting;
    try {
      this.id = (await call("/api/" + this.kind, body)).id;
      this.stopButton.hidden = false;
      this.progress.hidden = false;
      this.progress.value = 0;
      this.timer = setTimeout(() => this.poll(), POLL_MS);
    } catch (e) {
      this.end(e.message);
    }
  }

  async poll() {
    const id = this.id;
    if (id === null) return;
    let s;
    try {
      s = await call("/api/" + this.kind + "/" + id);
    } catch (e) {
      if (this.id === id) this.end(e.message);
      return;
    }
    if (this.id !== id) return;
    this.progress.value = s.progress;
    if (s.state === "done") {
      this.end();
      this.done(s, id);
    } else if (s.state === "failed" || s.state === "stopped") {
      this.end("The " + this.noun + " " + s.state + (s.error ? ": " + s.error : "."));
    } else {
      this.status.textContent = s.state === "waiting" ? "Waiting for a free worker..." : this.running(s);
      this.timer = setTimeout(() => this.poll(), POLL_MS);
    }
  }

  /** The panel idle again, saying `message` if given. */
  end(message) {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.id = null;
    this.start.disabled = false;
    this.stopButton.hidden = true;
    this.progress.hidden = true;
    if (message !== undefined) this.status.textContent = message;
  }

  /** Stop a search still running (the server is told without waiting). */
  stop() {
    if (this.id === null) return;
    const id = this.id;
    this.end("Stopped.");
    leave("/api/" + this.kind + "/" + id + "/stop");
  }
}

/** GET `path`, or POST `body` (as JSON) to it: the answer's JSON. */
export async function call(path, body) {
  const r = await fetch(path, body === undefined ? {} : post(body));
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) {
    const error = new Error((data && data.error) || "the server answered " + r.status);
    error.status = r.status;
    throw error;
  }
  return data;
}

/** POST `body` to `path` without waiting, also while the page goes away. */
export function leave(path, body) {
  fetch(path, post(body || {}, true)).catch(() => {});
}
