"""tigris view: a game record (or a results folder) as HTML pages to step through."""

import sys
from pathlib import Path

from tigris.commands.games import load, reading, same_file
from tigris.commands.options import add_command, add_force
from tigris.errors import RecordError, UsageError, newer_format
from tigris.files import check_new, source_file

__all__ = ["DESCRIPTION", "add_to", "run"]


DESCRIPTION = """\
Write a game record (or FILE:K, the K-th game of a games.jsonl) as one HTML page that
opens offline: the board after every move, scores, hands, the move list, and with
--analysis the win chance over the game and the marked moves. For a results folder,
write an index (standings, head to head, the games) and a page per game into the folder
--out.  Existing pages are refused unless --force.
"""


def add_to(sub):
    p = add_command(sub, "view", run,
                    help="a game or a results folder as HTML pages to step through",
                    description=DESCRIPTION)
    p.add_argument("source", metavar="RECORD_OR_DIR", help="game record, games.jsonl:K, or results folder")
    p.add_argument("--analysis", metavar="FILE", help="an analysis of the record (a tigris analyse file, RECORD.analysis.jsonl)")
    p.add_argument("--out", metavar="PATH", required=True,
                   help="the HTML file of a record's page, or the folder of a results folder's pages")
    add_force(p, "the page(s)")


def run(args):
    """tigris view: a game record's page, or the index and game pages of a results folder."""
    if Path(args.source).is_dir():
        return _results_pages(args)
    from tigris import record as records, view

    out = Path(args.out)
    if out.is_dir():
        raise UsageError(f"--out {out} is a folder; name the HTML file to write (game.html)")
    _not_a_folder_file(out, args.source)
    check_new(out, "--out", args.force, reads=[args.source, args.analysis], in_folder=False)
    rec = load(args.source)
    with reading(args.source, RecordError):
        if not isinstance(rec, dict) or rec.get("format") != records.FORMAT:
            said = newer_format(rec.get("format") if isinstance(rec, dict) else None, records.FORMAT)
            raise RecordError(f"format: {said}" if said else f"not a game record ({records.FORMAT})")
        replayed = view.replay_steps(rec)      # the one replay: every move checked first
    analysis = _analysis(args.analysis, rec, replayed) if args.analysis else None
    title = view.game_title(rec) if "game" in rec else Path(args.source).name
    print(f"page written to {view.write_game(rec, out, analysis, title=title, replayed=replayed)}")


def _analysis(path, rec, replayed):
    """(header, rows) of the analysis file `path`, checked against the record replayed."""
    from tigris import analysis as analyses, view

    with reading(path, RecordError):
        analysis = analyses.read_analysis(path)
        view.check_analysis(rec, *analysis, replayed.moves)     # names the first move that differs
        if analysis[0].get("record") != analyses.record_hash(replayed.game):
            raise RecordError(f"the analysis is of another game (record "
                              f"{str(analysis[0].get('record'))[:40]!r}, this game's "
                              f"{analyses.record_hash(replayed.game)!r})")
    return analysis


def _results_pages(args):
    """The index and a page per game of a results folder, into the folder --out."""
    from tqdm import tqdm

    from tigris import view

    out = Path(args.out)
    if args.analysis:
        raise UsageError("--analysis goes with one game record, not a results folder")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file; a results folder's pages go to a folder")
    bars = []                        # opened at the first page: not before an error

    def progress(done, total):
        if not bars:
            bars.append(tqdm(total=total, desc="pages", unit="game", file=sys.stderr, leave=False))
        bars[0].update(done - bars[0].n)
    try:
        written = view.write_results(args.source, out, progress=progress, force=args.force)
    finally:
        for bar in bars:
            bar.close()
    print(f"{len(written['pages'])} game pages and their index written to {written['index']}")


def _not_a_folder_file(out, source):
    """Refuse an --out that is a file of the results folder a source such as
    DIR/games.jsonl:K belongs to (its spec or summaries): a page there breaks the folder."""
    from tigris import tournament

    file = Path(source_file(source))
    if file.name != tournament.GAMES_FILE or not out.exists():
        return
    for name in (tournament.SPEC_FILE, "summary.json", "summary.md"):
        if same_file(out, file.parent / name):
            raise UsageError(f"--out {out} is a file of the results folder {file.parent}; "
                             f"name another file")
