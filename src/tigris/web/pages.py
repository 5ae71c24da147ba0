"""The server's own pages (``tigris serve``), computed in Starlette's thread pool: the
folders, a results folder, a game with its hint and analysis panels, a new game's form,
a seat to take again; every name and text taken from a file is HTML-escaped
(``tigris.view`` draws the boards)."""

import html
import os
from pathlib import Path

from tigris.bots import DEFAULT as DEFAULT_BOT
from tigris.errors import RecordError, UsageError, excerpt
from tigris.web.folders import is_kind, stays_inside

__all__ = ["ASSETS", "HINT_PANEL", "PLAY_PANEL", "ANALYSIS_PANEL", "EDIT_PANEL", "front_page",
           "seat_again_page", "new_game_form", "results_page", "game_page"]

# The package's files a page may load: the scripts of its panels, every one in static/.
ASSETS = {path.name: "text/javascript" for path in sorted((Path(__file__).parent / "static").glob("*.js"))}
# The panels, each a module that imports what they share from panel.js.
HINT_PANEL = '<script type="module" src="/assets/hint.js"></script>\n'
PLAY_PANEL = '<script type="module" src="/assets/play.js"></script>\n'
ANALYSIS_PANEL = '<script type="module" src="/assets/analyse.js"></script>\n'
EDIT_PANEL = '<script type="module" src="/assets/edit.js"></script>\n'


def front_page(served, live=(), host=False):
    """The folders' results folders and game records (``Folders.listing``: other JSON
    files are not listed), each record with its page.  A record whose game a table plays
    (one of `live`, ``Served.under_way``: known by its file, device and inode, or its
    game, ``tables.game_key``) is named, not linked.  To the server's `host` alone
    (``_from_host``), the people's seats of every game under way and of every unfinished
    record whose seats are kept (``tables.kept_seats``) are linked (class ``seat``), the
    games under way whose record is not listed (``--games`` outside the folders) in a
    section of their own, and an
    unfinished record's "play on" button asks for a table (POST /api/resume) and opens
    its first person's seat.  A folder's path is shown as it is written (class ``path``:
    never in capitals)."""
    from tigris import view
    from tigris.web import tables

    by_file = {file: k for k, (file, _, _, _) in enumerate(live) if file is not None}
    by_game = {key: k for k, (_, key, _, _) in enumerate(live) if key is not None}
    listed = set()

    def seat_links(addresses):
        links = ", ".join(f'<a class="seat" href="{html.escape(url, quote=True)}">player {p}</a>'
                          for p, url in sorted(addresses.items()))
        return f' <span class="seats">seats: {links}</span>' if host and links else ""

    sections = []
    for r, entry in enumerate(served.listing()):
        items = [f'<li><a href="/results/{r}/{_url(rel, "/")}">{html.escape(rel if rel != "." else entry["folder"])}</a></li>'
                 for rel in entry["results"]]
        games = []
        for game in entry["records"]:
            rel, path = game["path"], served.roots[r] / game["path"]
            at = by_file.get(tables.file_id(path)) if live else None
            at = by_game.get(game["game"]) if at is None and live else at
            if at is not None:
                listed.add(at)
                games.append(f'<li class="at-table">{html.escape(rel)} (at a table of this server)'
                             f'{seat_links(live[at][3])}</li>')
            elif game["unfinished"]:
                page = f"/record/{r}/{_url(rel)}"
                kept = tables.kept_seats(path, game["game"]) if host else None
                addresses = {p: tables.seat_address(kept[0], p, key) for p, key in kept[1].items()} if kept else {}
                play_on = f' <button type="button" class="resume" data-page="{page}">play on</button>' if host else ""
                games.append(f'<li class="unfinished"><a href="{page}">{html.escape(rel)}</a>'
                             f'{play_on}{seat_links(addresses)}</li>')
            else:
                games.append(f'<li class="finished"><a href="/record/{r}/{_url(rel)}">{html.escape(rel)}</a></li>')
        sections.append(f'<section class="folder"><h2 class="path">{html.escape(entry["folder"])}</h2>'
                        f'<h3>Results folders</h3><ul class="results">{"".join(items) or "<li>none</li>"}</ul>'
                        f'<h3>Game records</h3><ul class="records">{"".join(games) or "<li>none</li>"}</ul>'
                        f'</section>')
    elsewhere = [f'<li class="at-table">{html.escape(name)}{seat_links(addresses)}</li>'
                 for k, (_, _, name, addresses) in enumerate(live) if k not in listed]
    if host and elsewhere:
        sections.append('<section id="tables"><h2>At this server\'s tables (not listed above)</h2>'
                        f'<ul class="records">{"".join(elsewhere)}</ul></section>')
    return view.plain_page("tigris", "<header><h1>tigris</h1><p class=\"setup\">the folders this "
                           "server reads; <a id=\"new-game\" href=\"/play\">a new game</a>; "
                           "<a id=\"set-up\" href=\"/position\">set up a position</a></p></header>"
                           "<main id=\"folders\">" + "".join(sections) + "</main>" + _RESUME_SCRIPT)


def seat_again_page(name, player):
    """The page of a seat whose game is saved at no table (after a restart): it plays
    the game on from the seat's own address (``POST /api/games/ID/resume``, the key of
    its address) and loads itself again, the seat's page then; or says why not."""
    from tigris import view

    body = f"""<header><a class="back" href="/">&larr; the folders</a><h1>{html.escape(name)}: player {player}</h1></header>
<main><p id="seat-resume">This game is saved; its table is being set again...</p>
<p id="seat-resume-error" class="error"></p></main>
<script>
(async function () {{
  "use strict";
  const here = new URL(location.href), id = here.pathname.split("/").pop();
  const r = await fetch("/api/games/" + id + "/resume?key=" + encodeURIComponent(here.searchParams.get("key") || ""),
    {{ method: "POST", headers: {{ "Content-Type": "application/json" }},
      body: JSON.stringify({{ player: parseInt(here.searchParams.get("player"), 10) }}) }});
  if (r.ok) {{ location.reload(); return; }}
  const data = await r.json().catch(() => ({{}}));
  document.getElementById("seat-resume").textContent = "This game could not be set again:";
  document.getElementById("seat-resume-error").textContent = data.error || String(r.status);
}})();
</script>"""
    return view.plain_page(f"{name}: player {player}", body)

# "play on": a table for a saved game, every person's seat kept for the first seat's page
_RESUME_SCRIPT = """<p id="resume-error" class="error"></p>
<script>
(function () {
  "use strict";
  document.addEventListener("click", async ev => {
    const button = ev.target.closest("button.resume");
    if (!button) return;
    button.disabled = true;
    const r = await fetch("/api/resume", { method: "POST", headers: { "Content-Type": "application/json" },
                                           body: JSON.stringify({ page: button.dataset.page }) });
    const data = await r.json().catch(() => ({}));
    button.disabled = false;
    if (!r.ok) { document.getElementById("resume-error").textContent = data.error || String(r.status); return; }
    const seats = Object.values(data.seats);
    if (seats.length > 1) sessionStorage.setItem("tigris-seats-" + data.id, JSON.stringify(data.seats));
    location.href = seats[0];
  });
})();
</script>"""


def _seat_options(table_bots):
    """The bots of a seat's choice (HTML options) among `table_bots` that may sit at a
    table (honest, their move bounded, a bot file): first the levels (``level-K``, by K: ``session.level_of``),
    then the others by name, each named with its line for players (its ``summary``);
    every option holds that line (``data-summary``) and how it searches (its
    ``description``: its title, and ``data-about``), for the lines below the seats."""
    from tigris.session import level_of
    from tigris.web import tables as playing

    levels, others = [], []
    for name in sorted(table_bots):
        try:
            conf = playing.check_seats([name, playing.HUMAN], table_bots)[0]
        except UsageError:                   # dishonest, too slow, or not a bot file
            continue
        row = (name, f"{name}: {conf.summary}" if conf.summary else name, conf.summary, conf.description)
        level = level_of(name)
        if level is not None:
            levels.append((level, *row))
        else:
            others.append((0, *row))

    def option(name, text, summary, about):
        summary, about = html.escape(summary, quote=True), html.escape(about, quote=True)
        return (f'<option value="{html.escape(name, quote=True)}" title="{about}" '
                f'data-summary="{summary}" data-about="{about}">{html.escape(text)}</option>')

    groups = []
    if levels:
        groups.append('<optgroup label="levels (1 the weakest)">'
                      + "".join(option(*row[1:]) for row in sorted(levels)) + "</optgroup>")
    if others:
        groups.append('<optgroup label="the other bots">'
                      + "".join(option(*row[1:]) for row in others) + "</optgroup>")
    return "".join(groups)


def new_game_form(table_bots):
    """The form of a new game: players, board, variants, who sits where (a person or
    one of `table_bots`, ``tables.table_bots``, that may sit at a table)."""
    from tigris import view
    from tigris.constants import VARIANTS

    options = _seat_options(table_bots)
    bot_choice = options.replace(f'value="{DEFAULT_BOT}" ', f'value="{DEFAULT_BOT}" selected ')
    # each label holds its words and its select in one row of its own (viewer.css): they
    # cannot part, whatever the width
    seats = "".join(
        f'<label class="seat" data-seat="{p}"><span class="who">player {p}</span> <select name="seat{p}">'
        f'<option value="human"{" selected" if p == 0 else ""}>a person</option>'
        + (options if p == 0 else bot_choice) + '</select></label>' for p in range(4))
    variants = "".join(f'<label><input type="checkbox" name="variant" value="{v}"> {v}</label> '
                       for v in VARIANTS)
    body = f"""<header><a class="back" href="/">&larr; the folders</a><h1>A new game</h1></header>
<main id="new-game"><form id="new-game-form">
<p id="game-setup"><label>players <select name="players" id="players">
<option>2</option><option>3</option><option>4</option></select></label>
<label>board <select name="board"><option>classic</option><option>advanced</option></select></label>
{variants}<label>seed <input name="seed" type="number" min="0" placeholder="random"></label></p>
<div id="seats">{seats}</div>
<ul id="seat-about" class="hint"></ul>
<p><button type="submit" id="start">Start</button> <span id="new-game-error" class="error"></span></p>
</form></main>
<script>
(function () {{
  "use strict";
  const form = document.getElementById("new-game-form");
  function seatsShown() {{
    const n = parseInt(form.players.value, 10), about = [];
    for (const l of document.querySelectorAll("label.seat")) {{
      const p = parseInt(l.dataset.seat, 10), chosen = form["seat" + p].selectedOptions[0];
      l.hidden = p >= n;
      if (!l.hidden && chosen && (chosen.dataset.summary || chosen.dataset.about)) {{
        // the line for players, then how the bot searches, smaller
        const li = document.createElement("li"), how = document.createElement("div");
        li.textContent = "player " + p + ", " + chosen.value + ": " + (chosen.dataset.summary || chosen.dataset.about);
        how.className = "technical";
        how.textContent = chosen.dataset.summary ? chosen.dataset.about : "";
        li.append(how);
        about.push(li);
      }}
    }}
    document.getElementById("seat-about").replaceChildren(...about);
  }}
  form.addEventListener("change", seatsShown);
  seatsShown();
  form.addEventListener("submit", async ev => {{
    ev.preventDefault();
    const n = parseInt(form.players.value, 10);
    const body = {{ players: n, board: form.board.value,
      variants: [...form.querySelectorAll("input[name=variant]:checked")].map(e => e.value),
      seats: [...Array(n).keys()].map(p => form["seat" + p].value) }};
    if (form.seed.value !== "") body.seed = parseInt(form.seed.value, 10);
    const r = await fetch("/api/games", {{ method: "POST", headers: {{ "Content-Type": "application/json" }},
                                         body: JSON.stringify(body) }});
    const data = await r.json().catch(() => ({{}}));
    if (!r.ok) {{ document.getElementById("new-game-error").textContent = data.error || String(r.status); return; }}
    const seats = Object.values(data.seats);
    if (seats.length > 1) sessionStorage.setItem("tigris-seats-" + data.id, JSON.stringify(data.seats));
    location.href = seats[0];
  }});
}})();
</script>"""
    return view.plain_page("A new game", body)


def _url(rel, end=""):
    """`rel` (a path relative to a folder, "." the folder) in a URL, then `end`."""
    from urllib.parse import quote

    return "" if rel == "." else quote(rel, safe="/") + end


def results_page(folder, refresh):
    from tigris import view

    summary, recs = view.read_results(folder)
    entries = []
    for rec in recs:
        entries.append({"rec": rec, "page": f"game/{rec['game']}", "problem": None})
    scheduled = summary.get("scheduled")
    # failed games are not played, but a run that is over has tried them
    running = bool(scheduled) and summary["games"] + len(summary.get("errors") or []) < scheduled
    return view.index_page(summary, entries, refresh=refresh if running else None, back=("/", "the folders"))


def game_page(rec, where, title=None, back=None, partial=False):
    """A game's page with its hint and analysis panels, and the analysis in its file
    (``where``: the served folder and the file, ``analysis_path``) drawn if it holds one
    of this game (``_analysis_on_page``); a record that does not replay is a RecordError
    naming the move, unless `partial` (a results folder's game that stopped with an
    error: its page up to the last good move)."""
    from tigris import view

    try:
        replayed = view.replay_steps(rec, partial=partial)
    except RecordError as e:
        raise RecordError(f"{title or view.game_title(rec)}: {e}") from None
    analysis, about = _analysis_on_page(rec, *where, replayed)
    panel = f'<script type="application/json" id="analysis-file">{view.script_json(about)}</script>\n'
    return view.game_page(rec, analysis, title=title, back=back, partial=partial, replayed=replayed,
                          extra=HINT_PANEL + panel + ANALYSIS_PANEL)


def _analysis_on_page(rec, root, out, replayed):
    """``(analysis, about)``: the analysis file `out` read for the page of `rec`
    (``replayed``) if it holds part or all of this game's analysis, ``(header, rows)``,
    else None; ``about`` tells the page's panel: the ``file``'s name, its ``state``
    ("none", "partial", "complete", or "refused" with the ``problem``), the decisions
    ``analysed`` of the ``decisions`` and the budget (``iterations`` or ``seconds``)."""
    from tigris import analysis as analyses
    from tigris import view

    about = {"file": out.name, "state": "none"}
    if not os.path.lexists(out):
        return None, about
    try:
        if not (stays_inside(root, out) and is_kind(out, "file")):
            raise UsageError("not a file of the served folder")
        header, rows = analyses.read_analysis(out)
        if header is None:
            return None, about                            # empty: an analysis writes it anew
        if replayed.stopped is not None or header["record"] != analyses.record_hash(replayed.game):
            raise UsageError(f"an analysis of another game (its source: {excerpt(header['source'], 60)})")
        view.check_analysis(rec, header, rows, replayed.moves)
    except (UsageError, RecordError) as e:
        problem = str(e).replace(str(out), out.name)
        return None, dict(about, state="refused", problem=problem)
    done = len(rows) >= header["decisions"]
    return (header, rows), dict(about, state="complete" if done else "partial", analysed=len(rows),
                                decisions=header["decisions"], iterations=header.get("iterations"),
                                seconds=header.get("seconds"))
