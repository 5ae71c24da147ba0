"""The errors users see.  All are ValueErrors, so callers may catch either."""


class IllegalActionError(ValueError):
    """An action that is malformed, or not legal in the current position.  The message
    names the action and the rule it breaks."""


class PositionError(ValueError):
    """A position that is malformed or impossible; the message names the field."""


class RecordError(ValueError):
    """A game record that is malformed or does not replay; the message names the move."""


def excerpt(value, limit=40):
    """A bad value as messages quote it: its repr, cut to about `limit` characters.  Huge
    integers are described by their size (Python refuses to print more than 4,300 digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * limit:
        return f"an integer of {value.bit_length()} bits"
    if isinstance(value, (str, bytes)) and len(value) > limit:
        value = value[:limit]               # no need to copy a huge string to cut it
        return repr(value)[:limit] + "..."
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
