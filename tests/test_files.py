"""tigris.files: targets that are read, or are not regular files, are refused; writes are
whole or not at all."""

import os
import socket
import stat

import pytest

from tigris import files
from tigris.errors import UsageError


def test_a_new_file_is_written_with_the_usual_rights(tmp_path):
    path = files.write_text(tmp_path / "a.json", "{}\n")
    assert path.read_text() == "{}\n"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    assert os.listdir(tmp_path) == ["a.json"]


def test_an_existing_file_keeps_its_rights(tmp_path):
    path = tmp_path / "a.json"
    path.write_text("old")
    path.chmod(0o640)
    files.write_text(path, "new")
    assert path.read_text() == "new" and stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_link_is_never_written_through(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    with pytest.raises(UsageError, match="link.json: it is a symbolic link"):
        files.write_text(link, "new")
    with pytest.raises(UsageError, match="link.json: it is a symbolic link"):
        files.check_target(link, option="--out")
    with pytest.raises(UsageError, match="link.json: it is a symbolic link"):
        files.open_append(link)
    assert link.is_symlink() and real.read_text() == "old"
    assert sorted(os.listdir(tmp_path)) == ["link.json", "real.json"]   # no temporary file left


@pytest.mark.parametrize("make, kind", [
    (lambda p: p.mkdir(), "a folder"),
    (lambda p: os.mkfifo(p), "a pipe"),
])
def test_what_is_not_a_regular_file_is_refused_and_left_alone(tmp_path, make, kind):
    target = tmp_path / "t"
    make(target)
    with pytest.raises(UsageError, match=f"is not a regular file \\({kind}\\)"):
        files.write_text(target, "x")
    assert not stat.S_ISREG(os.stat(target).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["t"]       # no temporary file left


def test_a_device_and_a_socket_are_refused(tmp_path):
    with pytest.raises(UsageError, match=r"/dev/null is not a regular file \(a device\)"):
        files.write_text("/dev/null", "x")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "s"))
    try:
        with pytest.raises(UsageError, match=r"\(a socket\)"):
            files.check_target(tmp_path / "s")
    finally:
        sock.close()


def test_a_file_that_is_read_is_refused_also_through_a_link_or_as_file_k(tmp_path):
    games = tmp_path / "games.jsonl"
    games.write_text("{}\n")
    link = tmp_path / "other-name"
    link.symlink_to(games)
    for reads in ([games], [str(games) + ":3"], [link], [None, tmp_path / "missing", games]):
        with pytest.raises(UsageError, match="is the file this command reads"):
            files.check_target(games, reads=reads, option="--out")
    assert files.check_target(tmp_path / "new.html", reads=[games]) == tmp_path / "new.html"


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path):
    path = tmp_path / "a.json"
    path.write_text("old")
    with pytest.raises(UnicodeEncodeError):
        files.write_text(path, "lone \udc80 surrogate")
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["a.json"]


def test_an_unwritable_folder_is_named_by_the_target(tmp_path):
    if os.geteuid() == 0:
        target = "/proc/tigris-no-such-file"      # root may write anywhere else
    else:
        folder = tmp_path / "ro"
        folder.mkdir()
        folder.chmod(0o500)
        target = str(folder / "a.json")
    with pytest.raises(OSError) as info:
        files.write_text(target, "x")
    assert info.value.filename == str(target)


def test_source_file():
    assert files.source_file("t/games.jsonl:3") == "t/games.jsonl"
    assert files.source_file("g.json") == "g.json"
    assert files.source_file("a:b") == "a:b"
