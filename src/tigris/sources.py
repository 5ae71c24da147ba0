"""Files the toolkit reads back: regular files only, read in bounded pieces, and JSON
that cannot exhaust the stack.

A pipe with no writer blocks its reader forever and a device such as ``/dev/zero`` never
ends, so every file a command reads (records, positions, bot files, results folders,
analyses, tuning histories, self-play data, networks, checkpoints) is opened by
:func:`open_source`: opened without waiting (a pipe cannot block the open), then held to
be a regular file by the open descriptor itself (so nothing can take its place between a
check and the read), links followed.  A whole file is read by :func:`read_source`, at most
``MAX_BYTES`` of it; a file of JSON lines line by line, at most ``MAX_LINE`` a line
(``tigris._plumbing.jsonl``).  :func:`check_source` says the same before any work starts.

JSON nested more deeply than Python's stack allows (``[[[[...]]]]`` 100,000 times) makes
the decoder raise RecursionError, which no reader expects: every JSON reader goes through
:func:`parse_json` (one error naming the file) or :func:`json_or_none` (a line that is
not JSON), which refuse it as any other text that is not JSON.  TOML goes through
``tomlfile.read_toml``, which does the same.

>>> from tigris.sources import check_source, parse_json, read_source
>>> check_source("/dev/zero")
Traceback (most recent call last):
    ...
tigris.errors.UsageError: /dev/zero: a device, not a file
>>> read_source("/dev/zero")
Traceback (most recent call last):
    ...
tigris.errors.UsageError: /dev/zero: a device, not a file
>>> parse_json("[" * 100_000 + "]" * 100_000, where="deep.json")
Traceback (most recent call last):
    ...
tigris.errors.UsageError: deep.json: not JSON (nested too deeply)
"""

import errno
import fcntl
import json
import os
import stat
from pathlib import Path

from tigris.errors import UsageError
from tigris.files import kind_of, source_file

__all__ = ["MAX_BYTES", "MAX_LINE", "check_source", "open_source", "read_source", "read_json",
           "parse_json", "json_or_none"]

# The largest file read whole: a network's weights (some 1.5 MB), a long game's record (some
# 100 KB) and a bot file are far below it; a file above it is none of tigris's, and reading
# it would only fill the memory.
MAX_BYTES = 256 * 2**20
# The longest line of a file of JSON lines (a tournament game, a labelled position, a row
# of an analysis: some KB each).
MAX_LINE = 16 * 2**20
_BLOCK = 2**20


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


def open_source(path, error=UsageError):
    """The regular file `path` names (FILE of ``FILE:K``), opened for reading in binary,
    links followed.  The open never waits (a pipe with no writer cannot block it) and the
    open descriptor is what is checked, so nothing can take the file's place in between:
    a pipe, a device, a socket or a folder raises `error` naming the file and what it is,
    as does a file that cannot be opened (missing, no permission)."""
    file = Path(source_file(path))
    try:
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise error(f"{file}: {_reason(e, file)}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise error(f"{file}: {kind_of(mode)}, not a file")
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_source(path, error=UsageError, limit=MAX_BYTES):
    """The bytes of the regular file `path` names (:func:`open_source`), at most `limit`
    of them: a larger file raises `error` naming it, unread beyond the limit."""
    blocks, total = [], 0
    with open_source(path, error) as f:
        try:
            # a block at a time: read(limit + 1) would claim the whole limit's memory at once
            while block := f.read(min(_BLOCK, limit + 1 - total)):
                blocks.append(block)
                total += len(block)
                if total > limit:
                    raise error(f"{source_file(path)}: larger than {limit // 2**20} MB, not a "
                                f"file of tigris's")
        except OSError as e:
            raise error(f"{source_file(path)}: {_reason(e)}") from None
    return b"".join(blocks)


def read_json(path, error=UsageError):
    """The JSON value of the file `path` (:func:`read_source`); a file that cannot be
    read, is not UTF-8 or is not JSON raises `error` naming it."""
    return parse_json(read_source(path, error), error, source_file(path))


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


def _reason(e, file=None):
    """Why `file` could not be opened (the OSError `e`), in words, never a traceback: a
    link to nothing or in a loop, a socket, else the system's words ("No such file or
    directory", "Permission denied")."""
    if file is not None:
        try:
            st = os.stat(file)
        except FileNotFoundError:
            if os.path.islink(file):
                return "a link to nothing, not a file"
        except OSError as loop:
            if loop.errno == errno.ELOOP:
                return "a link in a loop, not a file"
        else:
            if not stat.S_ISREG(st.st_mode):
                return f"{kind_of(st.st_mode)}, not a file"
    return e.strerror or str(e)


def _one_line(error):
    """A decoder's message, cut short and on one line."""
    text = " ".join(str(error).split())
    return text if len(text) <= 120 else text[:120] + "..."
