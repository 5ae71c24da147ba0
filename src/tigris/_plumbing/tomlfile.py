"""Reading the TOML files of the package (bot configurations and tournament specs), and
writing the strings of the one it writes (a tuned bot)."""

import tomllib

from tigris.errors import ConfigError
from tigris.files import utf8_text
from tigris.sources import read_source

__all__ = ["read_toml", "toml_string"]

# The short escapes of TOML basic strings; other control characters are written \uXXXX.
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
            "\r": "\\r"}


def read_toml(path, error=ConfigError):
    """The table of a TOML file.  A file that is missing or unreadable, not a regular
    file, not UTF-8 text (as TOML must be) or not valid TOML (also: nested too deeply
    for the parser, ``[[[[...]]]]``) raises `error` naming it."""
    data = read_source(path, error)       # a regular file, never a pipe or a device
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise error(f"{path}: not a TOML file (not UTF-8 text)") from None
    except tomllib.TOMLDecodeError as e:
        raise error(f"{path}: not valid TOML ({e})") from None
    except RecursionError:
        raise error(f"{path}: not valid TOML (nested too deeply)") from None


def toml_string(text):
    """`text` as a TOML basic string, quotes included: ``"`` and ``\\`` escaped, control
    characters (U+0000-U+001F, U+007F) as escapes, so no value can end the string or
    the line.  A lone surrogate (from a file name that is not UTF-8), which no TOML
    string can hold, becomes U+FFFD.

    >>> print(toml_string('say "hi"\\n'))
    "say \\"hi\\"\\n"
    """
    out = []
    for ch in utf8_text(str(text)):
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
