"""The errors users see.  All but Interrupted are ValueErrors, so callers may catch either."""


class IllegalActionError(ValueError):
    """An action that is malformed, or not legal in the current position.  The message
    names the action and the rule it breaks."""


class PositionError(ValueError):
    """A position that is malformed or impossible; the message names the field."""


class RecordError(ValueError):
    """A game record that is malformed or does not replay; the message names the move."""


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
