"""HTML pages of games and tournament results (``tigris view``).

A game page is one HTML file that opens offline: its style, its script and the game are
inlined (no network, no server, no other file).  The board is drawn as SVG from the
position after every move, which the page holds as ``tigris-position/1`` data; so the
"copy position" button gives exactly the position ``tigris hint`` reads.  With an
analysis (``tigris-analysis/3``: a header and one row per analysed move), the page also
draws every player's win chance over the game (they add up to 100% at each move) and marks the moves (?! ? ??).

>>> from tigris import record, view
>>> rec = record.load("game.json")                           # doctest: +SKIP
>>> view.write_game(rec, "game.html")                        # doctest: +SKIP
>>> html = view.game_page(rec, analysis=(header, rows))      # doctest: +SKIP
>>> view.write_results("results/demo", "results/demo/pages") # doctest: +SKIP

``write_results`` writes ``index.html`` (standings, head to head, the list of games) and
``game-K.html`` for every game K of the folder (K as in games.jsonl's ``"game"`` field).
A game that stopped with an error gets a page up to its last good move, with the error
shown; a record that does not even set up a game is listed with its error and no page.

Everything taken from a record (bot and tournament names are free text) is HTML-escaped,
and the data is embedded as JSON in a ``<script type="application/json">`` element with
``<``, ``>`` and ``&`` written as ``\\u003c``, ``\\u003e``, ``\\u0026``, so no value can
end the element.  The page's script and style are ``viewer.js`` and ``viewer.css`` beside
this module (package data, inlined into every page).
"""

import html
import json
import math
import os
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

from tigris import boards, record as records
from tigris.constants import COLOURS, COLS, LEADERS, ROWS, TILE_NAMES
from tigris.errors import IllegalActionError, RecordError, UsageError, excerpt
from tigris.files import check_new, check_target, utf8_text, write_text
from tigris.notation import public, square_name, str_to_action
from tigris.sources import check_source

__all__ = ["write_game", "write_results", "game_page", "position_page", "index_page", "plain_page",
           "check_analysis", "script_json", "game_title", "read_results", "replay_steps", "game_data"]

POSITION_FORMAT = "tigris-position/1"
ANALYSIS_FORMAT = "tigris-analysis/3"
MARKS = ("inaccuracy", "mistake", "blunder")
INDEX_FILE = "index.html"
CONTINUATION = 4          # moves of an analysis row's expected continuation shown


def page_name(k):
    """The file name of game K's page in a results folder's pages."""
    return f"game-{k}.html"


# ---------------------------------------------------------------------------------------
# The data a game page draws from
# ---------------------------------------------------------------------------------------

class Replayed(NamedTuple):
    """One replay of a record, as a page draws it: ``steps`` (the page's data after 0, 1,
    2, ... moves), ``moves`` (player, notation and forced follow-ups of each), ``game``
    (the game after the last good move) and ``stopped`` (why the replay stopped early, or
    None)."""
    steps: list
    moves: list
    game: Any
    stopped: str | None


def replay_steps(rec, partial=False, viewer=None, since=None):
    """The record replayed once for its page (see ``Replayed``), every move and the result
    checked: RecordError names the first that is wrong, unless ``partial``: then the
    steps stop at the last good move and ``stopped`` says why (the result is not
    checked).  A record that does not even set up its game raises RecordError.  With
    `viewer`, the positions are as that player saw them (the others' hands and the bag
    hidden): a person's page at a table.  ``since``: the Replayed (for the same `viewer`,
    not stopped) of an earlier record of this game whose moves are the first of `rec`'s:
    only the moves after them are replayed (a game under way, a move at a time)."""
    squares_before, steps, moves = {}, [], []
    game, start = None, None
    if since is not None:
        steps, moves, game = list(since.steps), list(since.moves), since.game
        squares_before = game.to_position(viewer)["squares"]
        start = (len(moves), game)
    try:
        for n, game in records.steps(rec, start):
            if n:
                action, player, forced, _ = game.history[-1]
                text = game.action_str(action)
                if viewer is not None and player != viewer:
                    text = public(text)          # another's swap: its discards are face down
                moves.append({"player": player, "text": text,
                              "forced": [game.action_str(f) for f in forced]})
            step, squares_before = _step(game, squares_before, viewer)
            steps.append(step)
        if not partial:
            records.check_result(rec, game)
    except RecordError as e:
        if not partial or game is None:
            raise
        return Replayed(steps, moves, game, str(e))
    return Replayed(steps, moves, game, None)


def _adjudicated(rec):
    """Whether the record's result ends the game before its rules do (a resignation, a
    turn limit): its ``adjudicated`` says why."""
    said = rec.get("result")
    return isinstance(said, dict) and isinstance(said.get("adjudicated"), str)


def game_data(rec, analysis=None, partial=False, replayed=None):
    """The JSON-ready data of a game page: the setup, the board layout, the moves, and
    after every move the position (each step's squares as the change from the step
    before, to keep the page small), the player to decide and each player's final score
    so far.  ``analysis`` is ``(header, rows)`` or None, checked against the record
    (``check_analysis``).  A record that does not replay raises RecordError naming the
    move, unless ``partial``: then the data stops at the last good move and says why in
    ``"stopped"``.  ``replayed``: the record's ``replay_steps`` if the caller has them
    (else the record is replayed here)."""
    steps, moves, game, stopped = replayed or replay_steps(rec, partial)
    rivers = boards.layout(game.board)[0]
    bots = rec.get("bots")
    bots = [str(b) for b in bots] if isinstance(bots, list) else []
    data = {
        "format": POSITION_FORMAT,
        "board": game.board,
        "variants": list(game.variants),
        "players": game.players,
        "bots": bots,
        "rivers": sorted(map(square_name, rivers)),
        "moves": moves,
        "steps": steps,
        # the result (checked by the replay) once the game is over, or ended early by a
        # resignation or a turn limit (its "adjudicated" says which)
        "result": rec.get("result") if stopped is None and (game.is_over or _adjudicated(rec)) else None,
        "error": str(rec["error"]) if rec.get("error") else None,
        "stopped": stopped,
        "analysis": None,
        "luck": None,
    }
    if analysis is not None:
        header, rows = analysis
        check_analysis(rec, header, rows, moves)
        data["analysis"] = [_analysis_row(r) for r in rows]
        data["luck"] = header.get("luck")
    return data


def position_page(game, title="a position", back=None, extra=""):
    """The HTML of a page of one position (a loaded ``game``, what it leaves unknown
    unknown): the board, the players and the supply as a game page draws them, without
    moves.  ``extra`` as ``game_page`` takes it."""
    step, _ = _step(game, {})
    data = {"format": POSITION_FORMAT, "board": game.board, "variants": list(game.variants),
            "players": game.players, "bots": [], "moves": [], "steps": [step], "result": None,
            "rivers": sorted(map(square_name, boards.layout(game.board)[0])), "error": None,
            "stopped": None, "analysis": None}
    return _viewer_page(data, title, (back, "the folders"), [], extra)


def _step(game, squares_before, viewer=None):
    """One step of the page's data -- the position (as `viewer` sees it) without its
    constant fields, its squares as the change from `squares_before` (null: emptied) --
    and its squares."""
    pos = game.to_position(viewer)
    for key in ("format", "board", "variants"):
        del pos[key]
    squares = pos.pop("squares")
    delta = {sq: token for sq, token in squares.items() if squares_before.get(sq) != token}
    delta.update({sq: None for sq in squares_before if sq not in squares})
    step = {"sq": delta, "pos": pos, "who": game.current_player, "decision": game.decision,
            "final": [game.final_score(p) for p in range(game.players)]}
    return step, squares


def check_analysis(rec, header, rows, moves=None):
    """Raise RecordError unless `rows` analyse this record: the header's format, and
    every row's move number, player and played move those of the record (a row names
    its move: 1-based, the position before it is after move - 1 moves).  `moves` are
    the page's moves if already replayed."""
    if header is None and not rows:
        raise RecordError("the analysis is empty")
    if not isinstance(header, dict) or header.get("format") != ANALYSIS_FORMAT:
        got = header.get("format") if isinstance(header, dict) else header
        raise RecordError(f"analysis format: expected {ANALYSIS_FORMAT!r}, got {excerpt(got)}")
    if moves is None:
        moves = _record_moves(rec)
    if not isinstance(rows, (list, tuple)):
        raise RecordError(f"analysis rows: expected a list, not {excerpt(rows)}")
    for row in rows:
        if not isinstance(row, dict):
            raise RecordError(f"analysis row: expected an object, not {excerpt(row)}")
        n = row.get("move")
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= len(moves):
            raise RecordError(f"analysis move {excerpt(n)}: the record has moves 1 to "
                              f"{len(moves)}; is the analysis of another game?")
        move = moves[n - 1]
        played = row.get("played")
        try:
            same = isinstance(played, str) and str_to_action(played) == str_to_action(move["text"])
        except IllegalActionError:
            same = False
        if not same or row.get("player", move["player"]) != move["player"]:
            raise RecordError(f"analysis move {n}: it has player {excerpt(row.get('player'))} "
                              f"playing {excerpt(played)}, the record player {move['player']} "
                              f"playing {move['text']!r}: an analysis of another game")
        for key in ("win_before", "win_after", "margin_before", "margin_after", "drop"):
            value = row.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not math.isfinite(value)):
                raise RecordError(f"analysis move {n}: {key} is a number, not {excerpt(value)}")
        chances = row.get("chances")
        if chances is not None and not (
                isinstance(chances, list) and len(chances) == rec.get("players")
                and all(isinstance(c, (int, float)) and not isinstance(c, bool)
                        and math.isfinite(c) and 0 <= c <= 1 for c in chances)
                and abs(math.fsum(chances) - 1) <= 0.001):
            raise RecordError(f"analysis move {n}: chances must be every player's chance from "
                              f"0 to 1, adding up to 1, not {excerpt(chances)}")
        if row.get("mark") is not None and row["mark"] not in MARKS:
            raise RecordError(f"analysis move {n}: mark is null or one of {', '.join(MARKS)}, "
                              f"not {excerpt(row['mark'])}")
    for entry in header.get("luck") or []:
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], int)
                and 1 <= entry[0] <= len(moves) and entry[1] in range(rec.get("players") or 0)
                and isinstance(entry[2], (int, float)) and math.isfinite(entry[2])):
            raise RecordError(f"analysis luck {excerpt(entry)}: not [move of the record, "
                              f"player, luck]; is the analysis of another game?")


def _record_moves(rec):
    """The record's moves as the page lists them: player and notation."""
    moves = []
    for n, game in records.steps(rec):
        if n:
            action, player = game.history[-1][:2]
            moves.append({"player": player, "text": game.action_str(action)})
    return moves


def _analysis_row(row):
    """What the page shows of an analysis row: the moves, the win chances, the score
    margins, the mark, and the start of the engine's expected continuation."""
    keys = ("move", "player", "played", "chances", "win_before", "win_after", "margin_before",
            "margin_after", "drop", "mark")  # checked
    out = {k: row.get(k) for k in keys}
    out["best"] = None if row.get("best") is None else str(row["best"])
    rank = row.get("rank")
    out["rank"] = rank if isinstance(rank, int) and not isinstance(rank, bool) else None
    line = row.get("continuation")
    out["continuation"] = ([str(m) for m in line[:CONTINUATION]] if isinstance(line, list) else [])
    out["forced"] = row.get("after_from") == "forced"
    out["verdict"] = str(row.get("verdict") or "")     # tigris.analysis.verdict: read rows have it
    return out


# ---------------------------------------------------------------------------------------
# Pages
# ---------------------------------------------------------------------------------------

def _asset(name):
    return resources.files("tigris").joinpath(name).read_text(encoding="utf-8")


# What the pages' scripts know of the game, from the package's constants (never a copy).
RULES_DATA = {"colours": COLOURS, "leaders": LEADERS, "tiles": TILE_NAMES, "rows": ROWS, "cols": COLS}


def script_json(data):
    """`data` as JSON that is safe inside a ``<script>`` element: ``<``, ``>`` and ``&``
    (which only occur inside strings) are written as escapes."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")




def _e(text):
    return html.escape(str(text), quote=True)


def game_title(rec):
    """A game's title: its tournament and number when it has them."""
    name, k = rec.get("tournament"), rec.get("game")
    if isinstance(k, int) and not isinstance(k, bool):
        return f"{name} \u00b7 game {k}" if isinstance(name, str) and name else f"game {k}"
    return "Tigris & Euphrates game"


def game_page(rec, analysis=None, title=None, back=None, partial=False, replayed=None, extra="",
              viewer=None):
    """The HTML of a game's page.  ``analysis``: ``(header, rows)`` of an
    analysis file (``analysis.FORMAT``), or None; ``title``: the page's heading (default
    ``game_title(rec)``); ``back``: a link to an index page; ``partial`` and
    ``replayed``: see ``game_data``; ``extra``: HTML at the end of the body (a served
    page's scripts, which hear of each position shown by the event ``tigris:shown``);
    ``viewer``: the player whose view the page shows (``replay_steps``), else all."""
    data = game_data(rec, analysis, partial, replayed or (replay_steps(rec, partial, viewer)
                                                          if viewer is not None else None))
    notes = []
    if data["error"]:
        notes.append(f"The game stopped with an error: {data['error']}")
    if data["stopped"]:
        notes.append(f"The record does not replay beyond move {len(data['moves'])}: "
                     f"{data['stopped']}")
    return _viewer_page(data, game_title(rec) if title is None else title, (back, "all games"),
                        notes, extra)


def _viewer_page(data, title, back, notes, extra):
    """The viewer's page of `data` (``game_data``): its heading `title`, the setup and
    seats, a link ``back = (address or None, its text)``, `notes` (text) and `extra`
    (HTML at the end of the body)."""
    bots = data["bots"]
    seats = ", ".join(f"player {p}: {bots[p] if p < len(bots) else '?'}"
                      for p in range(data["players"]))
    setup = (f"{data['players']} players, {data['board']} board"
             + (f", variants: {', '.join(data['variants'])}" if data["variants"] else "")
             + (f"; {seats}" if bots else ""))
    href, text = back
    page = _GAME_PAGE.format(
        title=_e(title), setup=_e(setup), css=_asset("viewer.css"), js=_asset("viewer.js"),
        back=f'<a class="back" href="{_e(href)}">&larr; {text}</a>' if href else "",
        notes="".join(f'<p class="note">{_e(n)}</p>' for n in notes),
        rules=script_json(RULES_DATA), data=script_json(data))
    before, end, after = page.rpartition("</body>")
    return utf8_text(before + extra + end + after)


def write_game(rec, path, analysis=None, **kw):
    """Write a game's page to `path` (see ``game_page`` for the options); returns it."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{path} is a folder; name the HTML file to write")
    check_target(path, option="--out", in_folder=True)
    page = game_page(rec, analysis, **kw)
    write_text(path, page)              # in one piece: an old page stays until the new is whole
    return path


# The head of every page: its title and the inlined style sheet.
_HEAD = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
{css}
</style>
</head>
"""

_GAME_PAGE = _HEAD + """<body class="game-page">
<header>{back}<h1>{title}</h1><p class="setup">{setup}</p>{notes}</header>
<main id="viewer">
<section id="left">
  <div id="board-wrap"><svg id="board" role="img" aria-label="the board"></svg></div>
  <div id="controls">
    <button type="button" id="first" title="first position (Home)" aria-label="first"><svg viewBox="0 0 16 16"><path d="M2 2h2.5v12H2zM14 2v12L5 8z"/></svg></button>
    <button type="button" id="prev" title="previous move (left arrow)" aria-label="previous"><svg viewBox="0 0 16 16"><path d="M12 2v12L3 8z"/></svg></button>
    <input type="range" id="slider" min="0" max="0" value="0" aria-label="move">
    <button type="button" id="next" title="next move (right arrow)" aria-label="next"><svg viewBox="0 0 16 16"><path d="M4 2v12l9-6z"/></svg></button>
    <button type="button" id="last" title="last position (End)" aria-label="last"><svg viewBox="0 0 16 16"><path d="M2 2v12l9-6zM11.5 2H14v12h-2.5z"/></svg></button>
    <span id="where">move <b id="move-number">0</b> of <span id="move-count">0</span></span>
  </div>
  <div id="legend"></div>
  <div id="graph-wrap" hidden><h2>Each player's chance of finishing first <span class="hint">(they
    add up to 100%; dots: ?! inaccuracy, ? mistake, ?? blunder; click to go there)</span></h2><svg id="graph"></svg>
    <p id="luck" hidden></p></div>
</section>
<aside id="side">
  <div id="status"></div>
  <div id="players"></div>
  <div id="supply"></div>
  <h2>Moves</h2>
  <ol id="moves"></ol>
  <div id="copy">
    <button type="button" id="copy-position">Copy position</button>
    <span id="copy-status"></span>
    <textarea id="position-text" readonly rows="6" spellcheck="false" hidden
      aria-label="the shown position as tigris-position/1 JSON"></textarea>
  </div>
</aside>
</main>
<script type="application/json" id="rules-data">{rules}</script>
<script type="application/json" id="game-data">{data}</script>
<script>
{js}
</script>
</body>
</html>
"""


# ---------------------------------------------------------------------------------------
# Results folders
# ---------------------------------------------------------------------------------------

def read_results(results_dir):
    """``(summary, records)`` of a results folder (``tigris tournament`` or ``tigris
    match --out``): the standings recomputed from DIR/games.jsonl.  UsageError for a
    folder without games."""
    from tigris import ratings, tournament
    from tigris.play.results import scan

    d = Path(results_dir)
    if not d.is_dir():
        raise UsageError(f"{d}: {'not a folder' if os.path.lexists(d) else 'no such folder'}")
    games_file = d / tournament.GAMES_FILE
    if not os.path.lexists(games_file):
        raise UsageError(f"{d}: no {tournament.GAMES_FILE}; is this a tournament results folder?")
    check_source(games_file)                         # a pipe or a device: said here
    if (d / tournament.SPEC_FILE).exists():       # one reading: the records and the standings
        spec, _ = tournament.read_spec_file(d / tournament.SPEC_FILE)
        recs = []
        tally = scan(games_file, spec, repair=False, each=recs.append)
        if not recs:
            raise UsageError(f"{games_file}: no games yet")
        recs = tournament.last_lines(recs)         # a failed game played again: its replay
        return tournament.summarize(spec, tally), sorted(recs, key=lambda r: r["game"])
    recs = sorted(tournament.read_games(d, repair=False), key=lambda r: r["game"])
    if not recs:
        raise UsageError(f"{games_file}: no games yet")
    # a match folder: no spec, so the standings of whatever bots played
    try:
        games = tournament.results_of(recs)
        summary = {"tournament": {"name": d.name, "players": len(recs[0]["bots"]), "board": None,
                                  "seed": None, "bots": sorted({b for r in recs for b in r["bots"]})},
                   "games": len(recs), "scheduled": None,
                   "standings": ratings.standings(games),
                   "head_to_head": ratings.head_to_head([g for g in games if "error" not in g])}
    except (ValueError, TypeError, KeyError, IndexError) as e:
        raise UsageError(f"{games_file}: a game record is malformed ({e})") from None
    return summary, recs


def write_results(results_dir, out_dir, progress=None, force=True):
    """Write ``index.html`` and a page per game of a results folder into `out_dir`
    (created if needed); returns ``{"index": path, "pages": [paths], "unreadable":
    [game numbers without a page]}``.  ``progress(done, total)`` is called after each
    game.  Without `force`, a page that exists already is refused before any is
    written (``files.check_new``)."""
    summary, recs = read_results(results_dir)
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out} is a file; name a folder for the pages")
    games = Path(results_dir) / "games.jsonl"
    for k in [rec["game"] for rec in recs]:          # every target, before any is written
        check_new(out / page_name(k), "--out", force, reads=[games], in_folder=False)
    check_new(out / INDEX_FILE, "--out", force, reads=[games], in_folder=False)
    out.mkdir(parents=True, exist_ok=True)
    pages, entries, unreadable = [], [], []
    for i, rec in enumerate(recs, start=1):
        entry = {"rec": rec, "page": None, "problem": None}
        try:
            page = game_page(rec, back=INDEX_FILE, partial=True)
        except RecordError as e:         # not even the deal replays
            entry["problem"] = str(e)
            unreadable.append(rec["game"])
        else:
            path = out / page_name(rec["game"])
            write_text(check_target(path, reads=[games], option="--out"), page)
            pages.append(path)
            entry["page"] = path.name
        entries.append(entry)
        if progress:
            progress(i, len(recs))
    index = out / INDEX_FILE
    write_text(check_target(index, reads=[games], option="--out"), index_page(summary, entries))
    return {"index": index, "pages": pages, "unreadable": unreadable}


def index_page(summary, entries, refresh=None, back=None):
    """The HTML of a results folder's index: the standings, the head-to-head table and
    the games, each with a link to its page.  `entries`: per game ``{"rec", "page"
    (file name or None), "problem" (why there is no page, or None)}``; with `refresh`,
    the page reloads itself every that many seconds (a tournament still running); with
    `back`, ``(address, its text)``, a link back (``tigris serve``: to its folders)."""
    spec = summary["tournament"]
    played = summary["games"]
    about = [f"{played} game{'s' if played != 1 else ''}"
             + (f" of {summary['scheduled']}" if summary.get("scheduled") else "") + " played"]
    if spec.get("players"):
        about.append(f"{spec['players']} players")
    if spec.get("board"):
        about.append(f"{spec['board']} board")
    if spec.get("variants"):
        about.append("variants: " + ", ".join(map(str, spec["variants"])))
    if spec.get("seed") is not None:
        about.append(f"seed {spec['seed']}")
    link = f'<a class="back" id="back" href="{_e(back[0])}">&larr; {_e(back[1])}</a>' if back else ""
    body = [f"<header>{link}<h1>{_e(spec['name'])}</h1><p class=\"setup\">{_e('; '.join(about))}</p></header>",
            "<main id=\"index\">",
            "<h2>Standings</h2>", _standings_table(summary["standings"]),
            "<h2>Head to head</h2><p class=\"hint\">The row bot's score against the column "
            "bot, out of the seat pairs that met.</p>", _head_to_head_table(summary["head_to_head"]),
            "<h2>Games</h2>", _games_table(entries), "</main>"]
    if refresh:
        body.insert(1, f'<p class="note" id="running">The tournament is running: this page '
                       f'reloads every {int(refresh)} seconds.</p>')
    return plain_page(spec["name"], "\n".join(body),
                      head=f'<meta http-equiv="refresh" content="{int(refresh)}">' if refresh else "")


def plain_page(title, body, head=""):
    """A page in the viewer's style: `title` (escaped here), `body` (HTML, escaped by
    the caller), `head` (HTML for the page's head)."""
    return utf8_text(_INDEX_PAGE.format(title=_e(title), css=_asset("viewer.css"), body=body)
                     .replace("</head>", head + "</head>", 1))


def _standings_table(st):
    from tigris import ratings        # scipy's statistics: loaded by the pages of results alone

    head, rows = ratings.standings_cells(st)
    table = _table(head, rows, numeric=set(range(len(head))) - {1}, table_id="standings")
    model = {"bradley-terry": "Bradley-Terry", "plackett-luce": "Plackett-Luce"}.get(st.get("model"))
    if model:
        table += (f'<p class="hint">Elo: {model} maximum likelihood, '
                  f'{_e(ratings.zero_note(st))}; '
                  f'{_e(ratings.interval_note(st))} '
                  f'Win rate: first places, with Wilson\'s interval.'
                  + (" " + _e(ratings.FIRST_PLACE_NOTE) if st.get("model") == ratings.PLACKETT_LUCE
                     else "") + '</p>')
    if st.get("errors"):
        n = st["errors"]
        table += f'<p class="note">{n} game{"s" if n != 1 else ""} failed and {"are" if n != 1 else "is"} not rated.</p>'
    return table


def _head_to_head_table(matrix):
    from tigris import ratings

    names, rows = ratings.head_to_head_cells(matrix)
    if not names:
        return "<p>(no finished games)</p>"
    return _table([""] + names, rows, numeric=set(range(1, len(names) + 1)), table_id="head-to-head")


def _games_table(entries):
    rows = []
    for entry in entries:
        rec = entry["rec"]
        bots = rec["bots"]
        result = rec.get("result") if isinstance(rec.get("result"), dict) else None
        seats = "<br>".join(f"{p}: {_e(b)}" for p, b in enumerate(bots))
        if rec.get("error"):
            outcome = f'<span class="error">error: {_e(rec["error"])}</span>'
        elif result and result.get("ranking"):
            first = result["ranking"][0]
            outcome = ("shared: " if len(first) > 1 else "") + ", ".join(
                f"{_e(bots[s])} (player {s})" for s in first)
        else:
            outcome = "-"
        finals = ", ".join(map(str, result["final"])) if result and result.get("final") else "-"
        moves = rec.get("moves")
        link = (f'<a href="{_e(entry["page"])}">view</a>' if entry["page"] else
                f'<span class="error">no page: {_e(entry["problem"])}</span>')
        rows.append(f'<tr data-game="{rec["game"]}"><td class="num">{rec["game"]}</td><td>{seats}</td>'
                    f'<td>{outcome}</td><td class="num">{_e(finals)}</td>'
                    f'<td class="num">{len(moves) if isinstance(moves, list) else "-"}</td><td>{link}</td></tr>')
    head = "".join(f"<th>{h}</th>" for h in ("game", "seats", "winner", "final scores", "moves", "page"))
    return f'<table id="games"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _table(head, rows, numeric=(), table_id=None):
    """An HTML table of text cells (escaped here)."""
    def cells(tag, row):
        return "".join(f'<{tag}{" class=num" if c in numeric else ""}>{_e(t)}</{tag}>'
                       for c, t in enumerate(row))
    ident = f' id="{table_id}"' if table_id else ""
    return (f"<table{ident}><thead><tr>{cells('th', head)}</tr></thead><tbody>"
            + "".join(f"<tr>{cells('td', r)}</tr>" for r in rows) + "</tbody></table>")


_INDEX_PAGE = _HEAD + """<body class="index-page">
{body}
</body>
</html>
"""
