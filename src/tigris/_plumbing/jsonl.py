"""Files of JSON lines that runs append to and read back: a tournament's or a match's
``games.jsonl``, self-play's ``positions.jsonl``, an analysis.  One record a line,
appended in one system call (``append``), so a run killed between two records leaves
whole lines; a run killed in the middle of a write (a full disk, a power cut) leaves a
torn last line, which ``Lines`` leaves out and reports, and ``settle`` cuts off so that a
resumed run appends after whole lines.

>>> import tempfile, pathlib
>>> from tigris._plumbing.jsonl import Lines, append
>>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.jsonl"
>>> with open(path, "ab") as f:
...     append(f, {"game": 1})
>>> with open(path, "ab") as f:
...     _ = f.write(b'{"game": 2, "mo')          # a write cut short
>>> lines = Lines(path)
>>> list(lines), lines.torn[:2]
([(1, {'game': 1})], (2, 12))
"""

import json
import os
import warnings
from pathlib import Path

from tigris.errors import UsageError
from tigris.files import open_update
from tigris.sources import MAX_LINE, json_or_none, open_source

__all__ = ["Lines", "append", "read", "settle", "cut_torn", "end_last_line"]


def append(f, rec):
    """Append one record as a line to a file opened with "ab", in one system call: a
    Ctrl-C or SIGTERM is handled once the call returns, so it cannot tear the line (a
    buffered write of a long record can be cut in the middle)."""
    data = (json.dumps(rec) + "\n").encode("utf-8")
    fd = f.fileno()
    while data:
        data = data[os.write(fd, data):]


class Lines:
    """The lines of a file written by ``append``, read one at a time: iterating gives
    ``(line number, value)`` for each line that is not blank (the value None for a line
    that is not JSON, nor UTF-8).  A last line that is not JSON -- a write cut short -- is
    not given: it is left in ``torn`` as ``(line number, offset, its bytes)`` once the
    iteration is over (else None).  The file is opened as ``sources.open_source`` opens
    (a pipe, a device or a folder raises `error` naming it), and a line longer than
    ``MAX_LINE`` bytes raises `error` naming its number, unread beyond that."""

    def __init__(self, path, error=UsageError):
        self.path = Path(path)
        self.error = error
        self.torn = None

    def __iter__(self):
        held = None                 # a line that is not JSON: torn if nothing follows it
        offset = 0
        with open_source(self.path, self.error) as f:
            for lineno, line in enumerate(iter(lambda: f.readline(MAX_LINE + 1), b""), start=1):
                if len(line) > MAX_LINE:
                    raise self.error(f"{self.path}: line {lineno} is longer than "
                                     f"{MAX_LINE // 2**20} MB, not a line of tigris's")
                start, offset = offset, offset + len(line)
                if not line.strip():
                    continue
                if held is not None:
                    yield held[0], None
                    held = None
                value = json_or_none(line)        # None: not JSON, nor UTF-8
                if value is None:
                    held = (lineno, start, line.rstrip(b"\n"))
                else:
                    yield lineno, value
        self.torn = held


def read(path, error=UsageError):
    """``(values, torn)`` of a whole file: the ``(line number, value)`` pairs of
    ``Lines`` in a list, and its ``torn``."""
    lines = Lines(path, error)
    values = list(lines)
    return values, lines.torn


def settle(path, torn, repair):
    """After reading `path`: a torn last line (``Lines.torn``, or None) is said in a
    warning and, if `repair`, cut off the file."""
    if torn is not None:
        warnings.warn(f"{path}: the last line is torn (an interrupted write); ignoring it")
        if repair:
            cut_torn(path, torn)


def cut_torn(path, torn):
    """Cut the torn last line that ``Lines`` found (``torn``: its line number and
    offset) off the file (never through a link: ``files.open_update``)."""
    with open_update(path) as f:
        f.truncate(torn[1])


def end_last_line(path):
    """End a last line whose newline was lost (a whole record, its write cut just
    before it), so that the next one appended starts a line of its own."""
    path = Path(path)
    if path.exists() and path.stat().st_size:
        with open_update(path) as f:          # never through a link
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                f.write(b"\n")
