"""tigris bots: the bot configurations and their settings, or every knob of every kind."""

from tigris.commands.options import add_command

__all__ = ["DESCRIPTION", "add_to", "run"]


DESCRIPTION = """\
List the bot configurations found in ./bots/ and among those that come with tigris, with
their kind, description and settings (the evaluator's weights only where they differ
from the defaults); --knobs lists every knob of every kind instead.
"""


def add_to(sub):
    p = add_command(sub, "bots", run, help="list the bot configurations and their settings",
                    description=DESCRIPTION)
    p.add_argument("--knobs", action="store_true",
                   help="list every knob a bot file may set: kind, name, default and meaning")


def run(args):
    """tigris bots: the named bot configurations, or with --knobs every knob of every kind."""
    from tigris import bots, knobs
    from tigris.commands import report

    if args.knobs:                      # the table of knobs (tigris.knobs), kind by kind
        for kind, kind_knobs in knobs.KINDS.items():
            print(f"{kind}:")
            for key, (typ, default, meaning) in kind_knobs.items():
                shown = '""' if default == "" else str(default)       # an empty string stays visible
                print(f"  {key:<20} {typ.__name__:<5} {shown:<6} {meaning}")
        return 0
    broken = []
    for name in bots.available():
        try:
            kind, params, description = bots.describe(name)
        except ValueError as e:          # listed below the good ones, one line each
            broken.append(str(e))
            continue
        settings = ", ".join(f"{k}={v}" for k, v in params.items()
                             if v is not None and not knobs.is_default_weight(k, v))
        print(f"{name:<16} {kind:<7} {description}")
        print(f"{'':<16} {'':<7} {settings}")
    for message in broken:
        report("tigris bots", message)
    return 1 if broken else 0
