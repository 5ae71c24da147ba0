"""Files the toolkit reads back: regular files only.

A pipe with no writer blocks its reader forever and a device such as ``/dev/zero`` never
ends, so every file a command reads (records, analyses, tuning histories, ...) is checked
with :func:`check_source` before it is opened.

>>> from tigris.sources import check_source
>>> check_source("/dev/zero")
Traceback (most recent call last):
    ...
tigris.errors.UsageError: /dev/zero: a device, not a file
"""

import json
import os
import stat
from pathlib import Path

from tigris.errors import UsageError
from tigris.files import kind_of, source_file

__all__ = ["check_source", "read_json"]


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
        return json.loads(path.read_bytes().decode("utf-8"))
    except OSError as e:
        raise error(f"{path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise error(f"{path}: not UTF-8 text") from None
    except (ValueError, RecursionError) as e:
        raise error(f"{path}: not JSON ({e})") from None
