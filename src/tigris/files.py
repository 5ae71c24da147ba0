"""Files the toolkit writes: never over a file it reads, never over anything that is not a
regular file, and never half written.

Every command that writes a file it was given (``view --out``, the human seat's record,
``tune``'s bot file, ...) checks the target with :func:`check_target` before it does any
work, and writes it with :func:`write_text` (or :func:`write_bytes`): the content goes to
a temporary file beside the target, which then replaces it in one step, so a reader (or a
crash) sees the old file or the new one, never a mixture.

>>> import tempfile, os
>>> from tigris.files import check_target, write_text
>>> folder = tempfile.mkdtemp()
>>> record = os.path.join(folder, "g.json")
>>> write_text(record, "{}\\n")
PosixPath('...g.json')
>>> check_target(record, reads=[record], option="--out")
Traceback (most recent call last):
    ...
tigris.errors.UsageError: --out ...g.json is the file this command reads; name another file
>>> check_target("/dev/null")
Traceback (most recent call last):
    ...
tigris.errors.UsageError: --out /dev/null is not a regular file (a device); name a file
"""

import os
import re
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from tigris.errors import UsageError

__all__ = ["split_source", "source_file", "kind_of", "check_target", "write_text", "write_bytes", "utf8_text"]

_PathLike = str | os.PathLike[str]      # a file named as text or as a path

_KINDS = [(stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
          (stat.S_ISFIFO, "a pipe"), (stat.S_ISSOCK, "a socket")]


def split_source(source: "_PathLike") -> tuple[str, str | None]:
    """``(FILE, K)`` of a source ``FILE:K`` (line K of a JSON-lines file: K in the digits
    0-9, as text), else ``(source, None)``; every reader of a source splits it here.

    >>> from tigris.files import split_source
    >>> split_source("results/t/games.jsonl:3"), split_source("g.json")
    (('results/t/games.jsonl', '3'), ('g.json', None))
    """
    head, sep, index = str(source).rpartition(":")
    if sep and head and index.isascii() and index.isdigit():
        return head, index
    return str(source), None


def source_file(source: "_PathLike") -> str:
    """The file a source names: FILE of ``FILE:K`` (line K of a JSON-lines file), else
    the source itself."""
    return split_source(source)[0]


def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words ("a folder", "a pipe", ...)."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def check_target(path: "_PathLike", reads: Iterable["_PathLike | None"] = (),
                 option: str = "--out", in_folder: bool = False) -> Path:
    """`path` as a Path, once it is fit to be written: missing, or a regular file (through
    any links) that is none of the files in `reads` (sources such as ``FILE:K`` name
    FILE).  With `in_folder`, a missing `path` must be in an existing folder (for a file
    written in a folder that nothing creates: found out before the work, not after).
    Else UsageError naming `option` and the path."""
    path = Path(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if in_folder and not path.absolute().parent.is_dir():
            raise UsageError(f"{option} {path}: no folder {path.parent} to write it in; "
                             f"create it first") from None
        return path
    except OSError as e:
        raise UsageError(f"{option} {path}: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"{option} {path} is not a regular file ({kind_of(st.st_mode)}); "
                         f"name a file")
    for source in reads:
        if source is None:
            continue
        try:
            other = os.stat(source_file(source))
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
            raise UsageError(f"{option} {path} is the file this command reads; "
                             f"name another file")
    return path


def write_bytes(path: "_PathLike", data: bytes) -> Path:
    """Write `data` to `path` in one piece: into a temporary file beside it, then moved
    over it.  A link is followed (the file it points to is replaced, the link kept); a
    target that is not a regular file is refused (UsageError) and left as it was.  An
    error or interruption leaves the old file and no temporary one.  Returns the path."""
    path = Path(path)
    target = check_target(path, option="cannot write")
    if target.is_symlink():
        target = target.resolve()
    try:
        fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as e:                        # named by the target, not the temporary file
        raise OSError(e.errno, e.strerror, str(path)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:               # a new file: the usual rights
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temp, mode)
        check_target(target, option="cannot write")   # nothing else has taken its place
        os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    return path


def utf8_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD, so that it can be written as
    UTF-8: a file name that is not UTF-8 reaches Python as surrogates, and JSON may escape
    one (``"\\ud800"``).

    >>> from tigris.files import utf8_text
    >>> utf8_text("bad\\udcff name") == "bad\\ufffd name"
    True
    """
    return _SURROGATE.sub("\ufffd", text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def write_text(path: "_PathLike", text: str, encoding: str = "utf-8") -> Path:
    """:func:`write_bytes` of `text` encoded (UTF-8 by default)."""
    return write_bytes(path, text.encode(encoding))
