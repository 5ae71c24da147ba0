"""Bots: ``make`` one from a kind and knobs, or ``load`` a named configuration.

>>> from tigris import bots
>>> bot = bots.make("ismcts", iterations=1000, exploration=0.7, seed=1)
>>> bot = bots.load("ismcts-fast")          # bots/ismcts-fast.toml
>>> action = bot.choose(game)               # doctest: +SKIP

Every bot decides from what ``game.current_player`` may see (``cheat`` excepted: it is
a reference ceiling and has ``honest = False``).  Named configurations are looked up in
``./bots/`` first, then among those that come with the package.
"""

from contextlib import contextmanager
from pathlib import Path

from tigris.bots import config
from tigris.bots.search import CheatBot, ISMCTSBot, PIMCBot
from tigris.bots.simple import GreedyBot, RandomBot
from tigris.errors import ConfigError

CLASSES = {"random": RandomBot, "greedy": GreedyBot, "ismcts": ISMCTSBot, "pimc": PIMCBot,
           "cheat": CheatBot}
KINDS = tuple(CLASSES)


def make(kind, name=None, **params):
    """A bot of `kind` with these knobs (the rest default); a ConfigError lists the valid
    keys."""
    with _config_errors():
        checked = config.check(kind, params, where=f"bots.make({kind!r})")
    return CLASSES[kind](name=name or kind, **checked)


def load(name_or_path, **overrides):
    """A bot from a configuration file: a path, or a name in ./bots/ or the package's."""
    path = find(name_or_path)
    kind, params, _ = _read(path)
    if overrides:
        given = _given(path)
        # A budget given here replaces the file's budget of the other kind.
        for budget, other in (("seconds", "iterations"), ("iterations", "seconds")):
            if budget in overrides and other not in overrides:
                given.pop(other, None)
        with _config_errors():
            params = config.check(kind, {**given, **overrides}, where=str(path))
    bot = CLASSES[kind](name=Path(path).stem, **params)
    return bot


def _given(path):
    return {k: v for k, v in config.read_toml(path).items() if k not in config.META}


def _read(path):
    with _config_errors():
        return config.read(path)


@contextmanager
def _config_errors():
    """The configuration's checks raise ValueError: raise them as ConfigError."""
    try:
        yield
    except ConfigError:
        raise
    except ValueError as e:
        raise ConfigError(str(e)) from None


def find(name_or_path):
    """The file of a bot name or path; raises ConfigError listing the known names."""
    p = Path(name_or_path)
    if p.suffix == ".toml" or p.parent != Path("."):
        if p.is_file():
            return p
        raise ConfigError(f"bot file {name_or_path} does not exist")
    for folder in _folders():
        candidate = folder / f"{name_or_path}.toml"
        if candidate.is_file():
            return candidate
    raise ConfigError(f"unknown bot {name_or_path!r}; known bots: {', '.join(available())}")


def available():
    """Names of the bot configurations that ``load`` finds, sorted."""
    names = set()
    for folder in _folders():
        names.update(p.stem for p in folder.glob("*.toml"))
    return sorted(names)


def describe(name):
    """(kind, checked parameters, description) of a named configuration."""
    return _read(find(name))


PACKAGED = Path(__file__).resolve().parent.parent / "bot_configs"    # installed with the package
if not PACKAGED.is_dir():
    # An editable install (pip install -e) runs from the source tree, whose bots/ folder
    # is the one the package ships.
    PACKAGED = Path(__file__).resolve().parents[3] / "bots"


def _folders():
    local = Path.cwd() / "bots"
    folders = [local] if local.is_dir() else []
    if PACKAGED.is_dir() and (not folders or PACKAGED != local.resolve()):
        folders.append(PACKAGED)
    return folders
