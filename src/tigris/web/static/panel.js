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
