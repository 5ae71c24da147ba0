"""The errors users see.  All are ValueErrors, so callers may catch either."""


class IllegalActionError(ValueError):
    """An action that is malformed, or not legal in the current position.  The message
    names the action and the rule it breaks."""


class PositionError(ValueError):
    """A position that is malformed or impossible; the message names the field."""


class RecordError(ValueError):
    """A game record that is malformed or does not replay; the message names the move."""
