"""Reading the TOML files of the package: bot configurations and tournament specs."""

import tomllib
from pathlib import Path

from tigris.errors import ConfigError


def read_toml(path, error=ConfigError):
    """The table of a TOML file.  A file that is missing or unreadable, not UTF-8 text (as
    TOML must be) or not valid TOML raises `error` naming it."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise error(f"{path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise error(f"{path}: not a TOML file (not UTF-8 text)") from None
    except tomllib.TOMLDecodeError as e:
        raise error(f"{path}: not valid TOML ({e})") from None
