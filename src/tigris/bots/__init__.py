"""Bots: ``make`` one from a kind and knobs, or ``load`` a named configuration.

>>> from tigris import bots
>>> bot = bots.make("ismcts", iterations=1000, exploration=0.7, seed=1)
>>> bot = bots.load("ismcts-fast")          # bots/ismcts-fast.toml
>>> conf = bots.configuration("pimc")       # the file read: kind, knobs, summary, description
>>> bot = conf.bot(seed=3)                  # a bot of it, a knob replaced
>>> import tigris
>>> game = tigris.Game(players=2, seed=1)
>>> game.is_legal(bot.choose(game))         # decides for game.current_player
True

Every bot decides from what ``game.current_player`` may see (``cheat`` excepted: it is
a reference ceiling and has ``honest = False``).  Named configurations are looked up in
``./bots/`` first, then among those that come with the package.
"""

import os
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tigris import files, knobs
from tigris.bots.openspiel import OpenSpielBot
from tigris.bots.search import CheatBot, ISMCTSBot, PIMCBot
from tigris.bots.simple import GreedyBot, RandomBot
from tigris.errors import ConfigError, excerpt
from tigris._plumbing.tomlfile import read_toml
from tigris.sources import open_source

if TYPE_CHECKING:
    from tigris._game import Game

__all__ = ["Bot", "CLASSES", "DEFAULT", "KINDS", "make", "load", "Configuration", "configuration",
           "find", "available", "describe", "check_network", "PACKAGED", "Shelf"]


class Bot(Protocol):
    """What every bot is: ``choose(game)`` returns the action id it plays for
    ``game.current_player``; ``name`` (its configuration's), ``kind``, ``params`` (every
    knob, checked) and ``honest`` (False only for ``cheat``, which reads hidden tiles)."""

    name: str
    kind: str
    params: dict[str, Any]
    honest: bool

    def choose(self, game: "Game") -> int:
        """The action id to play."""


CLASSES: dict[str, Callable[..., Bot]] = {
    "random": RandomBot, "greedy": GreedyBot, "ismcts": ISMCTSBot, "pimc": PIMCBot,
    "cheat": CheatBot, "openspiel": OpenSpielBot}
KINDS = tuple(CLASSES)
DEFAULT = "ismcts-fast"      # the opponent a game seats unless told otherwise


def make(kind: str, name: str | None = None, **params: Any) -> Bot:
    """A bot of `kind` with these knobs (the rest default); a ConfigError lists the valid
    keys."""
    with _config_errors():
        checked = knobs.check(kind, params, where=f"bots.make({kind!r})")
    check_network(checked, where=f"bots.make({kind!r})")
    return CLASSES[kind](name=name or kind, **checked)


def load(name_or_path: str | Path, **overrides: Any) -> Bot:
    """A bot from a configuration file: a path, or a name in ./bots/ or the package's;
    `overrides` replace knobs of the file (see Configuration.bot)."""
    return configuration(name_or_path).bot(**overrides)


@dataclass(frozen=True)
class Configuration:
    """A bot configuration file, read and checked: ``name`` (the file's stem), ``path``,
    ``kind``, ``given`` (the knobs the file sets, with those of the file it extends),
    ``params`` (every knob of the kind, checked: the file's, else the defaults),
    ``description`` (how it searches), ``summary`` (a line for players: its strength in
    words, its measured Elo) and ``extends`` (the name of the bot it extends, or "")."""

    name: str
    path: Path
    kind: str
    given: dict
    params: dict
    description: str
    summary: str = ""
    extends: str = ""

    def bot(self, **overrides: Any) -> Bot:
        """A bot of this configuration, with `overrides` replacing knobs; a budget given
        here (iterations or seconds) replaces the file's budget of the other kind."""
        params = self.params
        if overrides:
            given = dict(self.given)
            for budget, other in (("seconds", "iterations"), ("iterations", "seconds")):
                if budget in overrides and other not in overrides:
                    given.pop(other, None)
            with _config_errors():
                params = knobs.check(self.kind, {**given, **overrides}, where=str(self.path))
        return CLASSES[self.kind](name=self.name, **params)


def configuration(name_or_path: str | Path, network: bool = True) -> Configuration:
    """The Configuration of a bot name or file, read once and checked whole (with the file
    it extends, ``extends``), the network it names read and verified too
    (``check_network``; with `network` False that is left to the caller: a server reads it
    from the folder it serves); a ConfigError names the file and what is wrong.  Each call
    reads the file again (a run reads its bots once: ``Shelf``)."""
    return Shelf().configuration(name_or_path, network)


class Shelf:
    """The bot files of one run, each read and checked once: ``configuration(name)`` is
    read the first time it is asked for, then given again as it was; a file that several
    extend is read once too.  A tournament, a match or a tuning run holds one, so its
    checks and its play share one reading of every file."""

    def __init__(self) -> None:
        self._tables: dict[str, dict] = {}
        self._configurations: dict[str, Configuration] = {}
        self._networks: set[str] = set()

    def configuration(self, name_or_path: str | Path, network: bool = True) -> Configuration:
        """As ``bots.configuration``, read and checked once per name or path given."""
        key = str(name_or_path)
        if key not in self._configurations:
            path = find(name_or_path)
            data = self.table(path)
            kind, given, parent = _resolved(path, data, self.table)
            with _config_errors():
                params = knobs.check(kind, given, where=str(path))
            self._configurations[key] = Configuration(
                name=Path(path).stem, path=Path(path), kind=kind, given=given, params=params,
                description=_line(data, "description", path), summary=_line(data, "summary", path),
                extends=parent)
        conf = self._configurations[key]
        if network and key not in self._networks:
            check_network(conf.params, where=str(conf.path))
            self._networks.add(key)
        return conf

    def settings(self, names: list[str]) -> dict[str, tuple[str, dict]]:
        """{name: (kind, params)} of bot names or files, as the runners give them to their
        workers."""
        confs = {name: self.configuration(name) for name in names}
        return {name: (conf.kind, conf.params) for name, conf in confs.items()}

    def table(self, path: Path) -> dict:
        """The TOML table of the bot file `path`, read once."""
        key = os.path.realpath(path)
        if key not in self._tables:
            self._tables[key] = read_toml(path)
        return self._tables[key]


def _resolved(path, data, read):
    """(kind, the knobs it sets, the name of the file it extends or "") of a bot file's
    table `data`: a file that ``extends`` another takes its kind and knobs, its own
    replacing them (a budget of either kind replacing the other's, as ``Configuration.bot``
    does); the one it extends is read and checked, and must extend none."""
    own = {k: v for k, v in data.items() if k not in knobs.META}
    name = data.get("extends")
    if name is None:
        if "kind" not in data:
            raise ConfigError(f"{path}: missing 'kind' (one of {', '.join(knobs.KINDS)})")
        return data["kind"], own, ""
    parent_path = _extended(path, name)
    parent = read(parent_path)
    if "extends" in parent:
        again = parent["extends"]
        if isinstance(again, str) and _is_name(again) and _same(_beside(parent_path, again), path):
            raise ConfigError(f"{path}: extends: {name!r} extends this file in turn (a cycle)")
        raise ConfigError(f"{path}: extends: {name!r} extends {excerpt(again)} in turn; a bot file "
                          f"extends one that extends none")
    kind, base, _ = _resolved(parent_path, parent, read)
    with _config_errors():
        knobs.check(kind, base, where=str(parent_path))
    if "kind" in data and data["kind"] != kind:
        article = "an" if kind[:1] in "aeiou" else "a"
        raise ConfigError(f"{path}: kind: {excerpt(data['kind'])}, but {name!r} is {article} {kind} "
                          f"bot; a file extends one of its own kind")
    for budget, other in (("seconds", "iterations"), ("iterations", "seconds")):
        if budget in own and other not in own:
            base.pop(other, None)
    return kind, {**base, **own}, name


def _is_name(name):
    """Whether `name` is a bot's name: no folder in it, no ``.toml``."""
    return bool(name) and not any(sep in name for sep in ("/", "\\")) and not name.endswith(".toml") \
        and name not in (".", "..")


def _beside(path, name):
    """The file of bot `name` as one in `path`'s folder extends it: the file beside it, if
    there is one, else the package's; None when neither exists."""
    for folder in (Path(path).parent, PACKAGED):
        candidate = folder / f"{name}.toml"
        if os.path.lexists(candidate):
            return candidate
    return None


def _same(a, b):
    """Whether the paths `a` and `b` (either may be None) are the same file."""
    try:
        return a is not None and b is not None and os.path.samefile(a, b)
    except OSError:
        return False


def _extended(path, name):
    """The file that the bot file `path` extends by its ``extends = name``, or a
    ConfigError naming the file and the field."""
    if not isinstance(name, str) or not _is_name(name):
        raise ConfigError(f"{path}: extends must be a bot's name (a file beside it or one the "
                          f"package ships, without .toml), not {excerpt(name)}")
    found = _beside(path, name)
    if found is None:
        known = sorted({p.stem for folder in (Path(path).parent, PACKAGED) if folder.is_dir()
                        for p in folder.glob("*.toml")} - {Path(path).stem})
        raise ConfigError(f"{path}: extends: unknown bot {name!r}; known bots: {', '.join(known)}")
    if _same(found, path):
        raise ConfigError(f"{path}: extends: {name!r} is this file itself (a cycle)")
    return found


def _line(data, key, path):
    """A bot file's `key` (text about the bot, "" when absent), or a ConfigError naming
    the file and the key."""
    text = data.get(key, "")
    if not isinstance(text, str):
        raise ConfigError(f"{path}: {key} must be a string (a line about the bot), not {excerpt(text)}")
    return text


def check_network(params: dict[str, Any], where: str) -> None:
    """The weights file a bot's checked knobs `params` name (``network``, read by
    ``evaluator = "net"``), read and verified now: a bot whose file is missing, not a
    network or without the policy head ``priors = "net"`` needs is refused as it is
    loaded (ConfigError naming `where`), not as every game it plays fails; a generation's
    name (``network.path_of``) must be one the package ships, its files read for every
    number of players.  The default networks (an empty ``network``) are the package's own."""
    from tigris import network

    name = params.get("network")
    if not name or params.get("evaluator") != "net":
        return
    # a generation: its file of each line it ships (a game of another line says so)
    counts = [p for p in (2, 3, 4) if not network.names_generation(name)
              or name in network.generations(p)] or [2]
    try:
        nets = [network.load(path) for path in
                dict.fromkeys(network.path_of(name, players) for players in counts)]
    except ValueError as e:
        raise ConfigError(f"{where}: network: {e}") from None
    if params.get("priors") == "net" and not all(net.has_policy for net in nets):
        raise ConfigError(f"{where}: network {excerpt(name)}: priors = \"net\" needs a network "
                          f"with a policy head")


@contextmanager
def _config_errors():
    """The configuration's checks raise ValueError: raise them as ConfigError."""
    try:
        yield
    except ConfigError:
        raise
    except ValueError as e:
        raise ConfigError(str(e)) from None


def find(name_or_path: str | Path) -> Path:
    """The file of a bot name or path; raises ConfigError listing the known names."""
    p = Path(name_or_path)
    if p.suffix == ".toml" or p.parent != Path("."):
        if p.is_file():
            return p
        if p.exists():
            raise ConfigError(f"bot file {name_or_path} is not a regular file "
                              f"({files.kind_of(p.stat().st_mode)})")
        raise ConfigError(f"bot file {name_or_path} does not exist")
    for folder in _folders():
        candidate = folder / f"{name_or_path}.toml"
        if candidate.is_file():
            return candidate
        if os.path.lexists(candidate):           # a pipe, a device, a link to nothing: said
            with open_source(candidate, ConfigError):
                pass
    raise ConfigError(f"unknown bot {name_or_path!r}; known bots: {', '.join(available())}")


def available() -> list[str]:
    """Names of the bot configurations that ``load`` finds, sorted."""
    names: set[str] = set()
    for folder in _folders():
        names.update(p.stem for p in folder.glob("*.toml"))
    return sorted(names)


def describe(name):
    """(kind, checked parameters, description) of a named configuration."""
    c = configuration(name)
    return c.kind, c.params, c.description


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
