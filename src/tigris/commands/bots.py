"""tigris bots: the bot configurations and their settings, or every knob of every kind."""

from tigris.commands.options import add_command

__all__ = ["DESCRIPTION", "add_to", "run"]


DESCRIPTION = """\
List the bot configurations found in ./bots/ and among those that come with tigris, with
their kind, a line for players (their strength in words and measured Elo), how they
search and their settings (the evaluator's weights only where they differ from the
defaults); --knobs lists every knob of every kind instead.
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
            conf = bots.configuration(name)
        except ValueError as e:          # listed below the good ones, one line each
            broken.append(str(e))
            continue
        settings = ", ".join(f"{k}={v}" for k, v in conf.params.items()
                             if v is not None and not knobs.is_default_weight(k, v))
        lines = [text for text in (conf.summary, conf.description, settings) if text]
        for k, text in enumerate(lines):
            print(f"{name if k == 0 else '':<16} {conf.kind if k == 0 else '':<7} {text}")
    for message in broken:
        report("tigris bots", message)
    return 1 if broken else 0
