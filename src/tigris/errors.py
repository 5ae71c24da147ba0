"""The errors users see.  All but Interrupted are ValueErrors, so callers may catch either."""

import reprlib

from tigris._plumbing.release import VERSION

__all__ = ["IllegalActionError", "PositionError", "RecordError", "UsageError",
           "ConfigError", "TournamentError", "TuneError", "Interrupted", "excerpt", "difference",
           "DISTRIBUTION", "install_hint", "newer_format"]

EXCERPT = 40        # characters of a bad value that an error message quotes
# The name the package is published under (the import name is tigris): another project
# holds "tigris" in the public package index.
DISTRIBUTION = "tigris-euphrates"


def install_hint(extra):
    """How to install an optional extra, for the message of a command that needs it.

    >>> from tigris.errors import install_hint
    >>> install_hint("plot")
    "pip install 'tigris-euphrates[plot]'"
    """
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def newer_format(got, reads):
    """What to say of a file whose format is `got` where this tigris reads `reads`
    (``"tigris-game/1"``): if `got` is a later version of that format, that a newer
    tigris wrote it and which this one reads; else None.

    >>> from tigris.errors import newer_format
    >>> newer_format("tigris-game/2", "tigris-game/1")      # doctest: +ELLIPSIS
    'tigris-game/2 was written by a newer tigris; this one (...) reads tigris-game/1'
    >>> newer_format("tigris-game/1", "tigris-game/1") is None
    True
    """
    family, _, number = reads.rpartition("/")
    if not isinstance(got, str) or not got.startswith(family + "/"):
        return None
    later = got[len(family) + 1:]
    if not (later.isascii() and later.isdigit() and len(later) < 10 and int(later) > int(number)):
        return None
    return f"{got} was written by a newer tigris; this one ({VERSION}) reads {reads}"


class IllegalActionError(ValueError):
    """An action that is malformed, or not legal in the current position.  The message
    names the action and the rule it breaks."""


class PositionError(ValueError):
    """A position that is malformed or impossible; the message names the field."""


class RecordError(ValueError):
    """A game record that is malformed or does not replay; the message names the move."""


def _short_repr(limit):
    r = reprlib.Repr()
    r.maxstring = r.maxother = r.maxlong = limit
    r.maxlist = r.maxtuple = r.maxdict = r.maxset = r.maxfrozenset = 4
    r.maxlevel = 2
    return r


_REPR = _short_repr(EXCERPT)


def excerpt(value, limit=EXCERPT):
    """``repr(value)`` cut to about ``limit`` characters, for error messages that quote
    bad input: the input may be a 10 MB string, a huge list or a 5,000-digit number (whose
    ``repr`` Python refuses to write)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * limit:
        return f"a {value.bit_length() * 30103 // 100000 + 1}-digit number"
    try:
        text = (_REPR if limit == EXCERPT else _short_repr(limit)).repr(value)
    except Exception:               # e.g. a huge int inside a container
        return f"a {type(value).__name__}"
    if len(text) > limit + 10:
        text = text[:limit] + "..."
    if isinstance(value, (str, bytes)) and len(value) > limit:
        text += f" ({len(value)} characters)"
    return text


_MISSING = object()


def difference(ours, theirs, field):
    """``(field, ours, theirs)`` where two values (plain data) first differ, for a message
    that names it: into objects and lists of objects of one length
    (``result.scores[1].red``); a missing field is None.

    >>> from tigris.errors import difference
    >>> difference({"a": {"b": 1, "c": 2}}, {"a": {"b": 1, "c": 3}}, "settings")
    ('settings.a.c', 2, 3)
    """
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in (*ours, *(k for k in theirs if k not in ours)):
            if ours.get(key, _MISSING) != theirs.get(key, _MISSING):
                name = key if isinstance(key, str) and len(key) <= 30 else excerpt(key, 30)
                return difference(ours.get(key), theirs.get(key), f"{field}.{name}")
    if (isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs)
            and all(isinstance(x, dict) for x in ours)):
        for i, (x, y) in enumerate(zip(ours, theirs)):
            if x != y:
                return difference(x, y, f"{field}[{i}]")
    return field, ours, theirs


# What the command line reports (as one line, exit status 1):
#
#   UsageError          an option or argument that cannot be used as given
#     ConfigError       a bot or tournament configuration: a file, a spec or a bot's knobs
#     TournamentError   a run that cannot go as asked: its results folder, resuming, a cluster
#       TuneError       a tuning run: its parameters, its saved run


class UsageError(ValueError):
    """A request that cannot be carried out as given: an option value out of range, or
    options that do not fit together.  The message names the option."""


class ConfigError(UsageError):
    """A bot or tournament configuration that cannot be used: a file that is missing or
    not valid TOML, an unknown bot, an unknown key, a knob or spec field out of range.
    The message names the file (or the option or call that gave it) and the key."""


class TournamentError(UsageError):
    """A tournament, match or tuning run that cannot go as asked: a results folder that
    cannot be written or resumed, a cluster that cannot be reached, a saved run that does
    not read.  The message says what and where."""


class TuneError(TournamentError):
    """A tuning run that cannot go as asked; the message names the parameter or file."""


class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C (or SIGTERM from the command line) after its workers were
    stopped; the message says what was kept and how to continue."""
