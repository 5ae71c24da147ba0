"""The errors users see.  All but Interrupted are ValueErrors, so callers may catch either."""

import reprlib

EXCERPT = 40        # characters of a bad value that an error message quotes


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


class UsageError(ValueError):
    """A request that cannot be carried out as given: an option value out of range,
    options that do not fit together, a bot or spec file that does not load.  The
    message names the option or the file."""


class TournamentError(UsageError):
    """A tournament, match or tuning run that cannot go as asked; the message says what
    and where."""


class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C (or SIGTERM from the command line) after its workers were
    stopped; the message says what was kept and how to continue."""
