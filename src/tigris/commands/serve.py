"""tigris serve: the server, a local web application over some folders."""

import sys

from tigris.commands.options import add_command, whole

__all__ = ["DESCRIPTION", "add_to", "run"]


DESCRIPTION = """\
Start a local web application and print its address: the results folders and game
records in the folders given (default: this one), each tournament's standings, head to
head and games (updated while it runs), every game on the board with a hint of the
shown position and an analysis of the whole game; a new game against the bots, played by
clicks, its record written after every move into --games (default: the folder games of
the first folder); a position to set up and ask hints of. Searches run in worker
processes. It reads only inside those folders and listens on 127.0.0.1 unless --host
says otherwise. It answers only at the addresses it prints (--name adds one) and only
its own pages may change anything: another site's page, or a name of another site that
leads here, gets nothing. A seat is a person or a bot by name: the shipped ones and the
.toml files of a served folder's bots folder (a network one names must be in that
folder). A game's record is held while it is played: no other server or terminal plays
it at once. A seat keeps its address across restarts (kept beside the record, readable
by the server alone); the front page links every seat to this machine's browser. Needs
Starlette and uvicorn: pip install 'tigris-euphrates[serve]'. Ctrl-C stops it, a bot's
move under way too.
"""


def add_to(sub):
    from tigris.web.app import DEFAULT_PORT

    p = add_command(sub, "serve", run, help="a server for the browser: play, hints, analyses, results",
                    description=DESCRIPTION)
    p.add_argument("folders", nargs="*", metavar="DIR", default=["."],
                   help="folders of results and game records to serve (default: this one)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1: this machine alone)")
    p.add_argument("--port", type=whole(0, 65535), default=DEFAULT_PORT,
                   help=f"the port (default {DEFAULT_PORT}; 0: any free one)")
    p.add_argument("--name", action="append", default=[], metavar="HOST[:PORT]",
                   help="another address the server answers at (a name other machines reach it "
                        "by, behind --host 0.0.0.0); repeat for more")
    p.add_argument("--games", metavar="DIR",
                   help="where the games played are saved (default: DIR/games of the first folder)")


def run(args):
    """tigris serve: serve the folders until Ctrl-C."""
    from tigris.web import app as serve

    serve.require_server()
    if args.host not in serve.LOCAL_HOSTS:
        print(f"warning: listening on {args.host}: other machines can reach this server and "
              f"read the folders it serves", file=sys.stderr)
    app = serve.create_app(args.folders, games=args.games)
    serve.run(app, host=args.host, port=args.port, announce=lambda line: print(line, flush=True),
              names=args.name)
