"""Files the toolkit writes: never over a file it reads, never over anything that is not a
regular file, never through a link, and never half written.

Every command that writes a file it was given (``view --out``, the human seat's record,
``tune``'s bot file, ...) checks the target with :func:`check_target` before it does any
work (and :func:`check_new` where an existing file is refused unless the user says
``--force``), and writes it with :func:`write_text` (or :func:`write_bytes`): the content
goes to a temporary file beside the target, which then replaces it in one step, so a
reader (or a crash) sees the old file or the new one, never a mixture.  A file a run
appends to (``games.jsonl``, an analysis, a log) is opened by :func:`open_append` (or
:func:`open_update` to cut a torn line off), which refuse a link, a file with a second
name (a hard link: appending would change the other name too) and whatever is not a
regular file, on the open descriptor itself.

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
>>> os.symlink(record, os.path.join(folder, "link.json"))
>>> write_text(os.path.join(folder, "link.json"), "{}\\n")
Traceback (most recent call last):
    ...
tigris.errors.UsageError: cannot write ...link.json: it is a symbolic link (a link is never written through); name the file itself
"""

import errno
import fcntl
import os
import re
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from tigris.errors import UsageError

__all__ = ["split_source", "source_file", "kind_of", "check_target", "check_new", "write_text",
           "write_bytes", "open_append", "open_update", "utf8_text"]

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
    """`path` as a Path, once it is fit to be written: missing, or a regular file (not a
    link to one) that is none of the files in `reads` (sources such as ``FILE:K`` name
    FILE; a file read through a link is that file).  With `in_folder`, a missing `path`
    must be in an existing folder (for a file written in a folder that nothing creates:
    found out before the work, not after).  Else UsageError naming `option` and the path."""
    path = Path(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if in_folder and not path.absolute().parent.is_dir():
            raise UsageError(f"{option} {path}: no folder {path.parent} to write it in; "
                             f"create it first") from None
        return path
    except OSError as e:
        raise UsageError(f"{option} {path}: {e.strerror}") from None
    if stat.S_ISLNK(st.st_mode):
        raise UsageError(f"{option} {path}: it is a symbolic link (a link is never written "
                         f"through); name the file itself")
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


def check_new(path: "_PathLike", option: str, force: bool = False,
              reads: Iterable["_PathLike | None"] = (), in_folder: bool = True) -> Path:
    """:func:`check_target`, and an existing `path` refused unless `force`: the one rule
    of every command that writes a file the user names (``play --record``, ``view
    --out``, ``calibrate --out``, ...), checked before the work.

    >>> import tempfile, os
    >>> from tigris.files import check_new
    >>> taken = os.path.join(tempfile.mkdtemp(), "taken.html")
    >>> open(taken, "w").close()
    >>> check_new(taken, "--out")
    Traceback (most recent call last):
        ...
    tigris.errors.UsageError: --out ...taken.html exists; name a new file, or add --force to replace it
    """
    path = check_target(path, reads=reads, option=option, in_folder=in_folder)
    if not force and os.path.lexists(path):
        raise UsageError(f"{option} {path} exists; name a new file, or add --force to "
                         f"replace it")
    return path


def write_bytes(path: "_PathLike", data: bytes) -> Path:
    """Write `data` to `path` in one piece: into a temporary file beside it, then moved
    over it.  A target that is a link or not a regular file is refused (UsageError) and
    left as it was (the move itself replaces a name, never what a link points to).  An
    error or interruption leaves the old file and no temporary one.  Returns the path."""
    path = Path(path)
    target = check_target(path, option="cannot write")
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


def open_append(path: "_PathLike", text: bool = False):
    """`path` opened to append to (created if missing), binary or with `text` as UTF-8
    text.  A link, a file with a second name (a hard link) or anything but a regular
    file is refused (UsageError naming it), on the open descriptor itself."""
    return _open_own(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, "a" if text else "ab")


def open_update(path: "_PathLike"):
    """An existing `path` opened to read and write in binary (to cut a torn last line
    off), refused as :func:`open_append` refuses."""
    return _open_own(path, os.O_RDWR, "r+b")


def _open_own(path, flags, mode):
    """`path` opened with `flags` (never through a link, never waiting for a pipe), once
    it is a regular file with no other name; the file object of `mode`."""
    path = Path(path)
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise UsageError(f"cannot write {path}: it is a symbolic link (a link is never "
                             f"written through); name the file itself") from None
        if e.errno == errno.ENXIO:          # a pipe that nothing reads
            raise UsageError(f"cannot write {path}: it is not a regular file (a pipe)") from None
        raise UsageError(f"cannot write {path}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UsageError(f"cannot write {path}: it is not a regular file ({kind_of(st.st_mode)})")
        if st.st_nlink > 1:
            raise UsageError(f"cannot write {path}: it has another name too (a hard link), "
                             f"which writing it would change; give it a file of its own")
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return os.fdopen(fd, mode, **({"encoding": "utf-8", "newline": ""} if "b" not in mode else {}))
    except BaseException:
        os.close(fd)
        raise


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
