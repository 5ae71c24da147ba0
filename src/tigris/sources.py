"""Files the toolkit reads back: regular files only, and JSON that cannot exhaust the stack.

A pipe with no writer blocks its reader forever and a device such as ``/dev/zero`` never
ends, so every file a command reads (records, analyses, tuning histories, ...) is checked
with :func:`check_source` before it is opened.

JSON nested more deeply than Python's stack allows (``[[[[...]]]]`` 100,000 times) makes
the decoder raise RecursionError, which no reader expects: every JSON reader goes through
:func:`parse_json` (one error naming the file) or :func:`json_or_none` (a line that is
not JSON), which refuse it as any other text that is not JSON.  TOML goes through
``tomlfile.read_toml``, which does the same.

>>> from tigris.sources import check_source, parse_json
>>> check_source("/dev/zero")
Traceback (most recent call last):
    ...
tigris.errors.UsageError: /dev/zero: a device, not a file
>>> parse_json("[" * 100_000 + "]" * 100_000, where="deep.json")
Traceback (most recent call last):
    ...
tigris.errors.UsageError: deep.json: not JSON (nested too deeply)
"""

import json
import os
import stat
from pathlib import Path

from tigris.errors import UsageError
from tigris.files import kind_of, source_file

__all__ = ["check_source", "read_json", "parse_json", "json_or_none"]


def check_source(path, error=UsageError):
    """The file `path` names (FILE of ``FILE:K``) as a Path, once it is a regular file
    (through any links) or missing (opening it then says so).  Anything else -- a pipe, a
    device, a socket, a folder -- raises `error` naming the file and what it is."""
    file = Path(source_file(path))
    try:
        mode = os.stat(file).st_mode
    except OSError:
        return file                      # the reader's own error names it
    if not stat.S_ISREG(mode):
        raise error(f"{file}: {kind_of(mode)}, not a file")
    return file


def read_json(path, error=UsageError):
    """The JSON value of the file `path`, once :func:`check_source` has found it a regular
    file; a file that cannot be read, is not UTF-8 or is not JSON raises `error` naming it."""
    path = check_source(path, error)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise error(f"{path}: {e.strerror}") from None
    return parse_json(data, error, str(path))


def parse_json(data, error=UsageError, where="input"):
    """The JSON value of `data` (bytes as UTF-8, or text).  Bytes that are not UTF-8, text
    that is not JSON, or JSON nested too deeply for the decoder raise `error` naming
    `where`, on one line."""
    try:
        return json.loads(data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data)
    except UnicodeDecodeError:
        raise error(f"{where}: not UTF-8 text") from None
    except RecursionError:
        raise error(f"{where}: not JSON (nested too deeply)") from None
    except ValueError as e:
        raise error(f"{where}: not JSON ({_one_line(e)})") from None


def json_or_none(data):
    """The JSON value of `data` (a line of a JSON-lines file, bytes or text), or None when
    it is not JSON: not UTF-8, not JSON, or nested too deeply."""
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def _one_line(error):
    """A decoder's message, cut short and on one line."""
    text = " ".join(str(error).split())
    return text if len(text) <= 120 else text[:120] + "..."
