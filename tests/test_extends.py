"""Bot files that extend another (docs/FORMATS.md, "Bot files"): ``extends = "NAME"``
takes NAME's kind and knobs, the file's own knobs replacing them; a name that is no bot,
a cycle, a chain and a kind of another bot each refused in one line naming the file and
the field; and the shipped levels, written as ismcts-fast and what they change, play
with exactly the knobs their full files had."""

import tomllib
from pathlib import Path

import pytest

from tigris import bots
from tigris.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
# The level files as they were before they extended ismcts-fast: every knob written out.
BEFORE = Path(__file__).resolve().parent / "data" / "levels-before-extends"
LEVELS = [f"level-{k}" for k in range(2, 7)]


def write(folder, name, text):
    path = folder / f"{name}.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("name", LEVELS)
def test_a_level_resolves_to_the_knobs_of_its_full_file(name):
    old = tomllib.loads((BEFORE / f"{name}.toml").read_text(encoding="utf-8"))
    conf = bots.configuration(ROOT / "bots" / f"{name}.toml")
    assert conf.kind == old["kind"]
    assert conf.given == {k: v for k, v in old.items() if k not in ("kind", "summary", "description")}
    assert conf.params == bots.configuration(BEFORE / f"{name}.toml").params
    assert (conf.summary, conf.description) == (old["summary"], old["description"])


@pytest.mark.parametrize("name", LEVELS)
def test_a_level_lists_only_what_it_changes(name):
    data = tomllib.loads((ROOT / "bots" / f"{name}.toml").read_text(encoding="utf-8"))
    assert data["extends"] == "ismcts-fast"
    assert set(data) - {"extends", "summary", "description"} == {"iterations", "network"}


def test_a_file_takes_the_knobs_of_the_one_it_extends_its_own_replacing_them(tmp_path):
    write(tmp_path, "base", 'kind = "ismcts"\nsummary = "s"\ndescription = "d"\niterations = 50\n'
                            'exploration = 0.5\nrollout = "random"\n')
    conf = bots.configuration(write(tmp_path, "child", 'extends = "base"\nexploration = 0.9\n'))
    assert conf.kind == "ismcts" and conf.extends == "base"
    assert conf.given == {"iterations": 50, "exploration": 0.9, "rollout": "random"}
    assert conf.params["exploration"] == 0.9 and conf.params["iterations"] == 50
    assert (conf.summary, conf.description) == ("", "")        # the text is each file's own
    # a budget of the other kind replaces the one extended, as an override does
    timed = bots.configuration(write(tmp_path, "timed", 'extends = "base"\nseconds = 0.5\n'))
    assert timed.params["seconds"] == 0.5 and timed.params["iterations"] is None
    # the same kind may be said again
    assert bots.configuration(write(tmp_path, "same", 'kind = "ismcts"\nextends = "base"\n')).kind == "ismcts"


def test_a_shipped_bot_is_extended_when_no_file_beside_it_has_the_name(tmp_path):
    conf = bots.configuration(write(tmp_path, "mine", 'extends = "ismcts-fast"\niterations = 7\n'))
    fast = bots.configuration("ismcts-fast")
    assert conf.params == dict(fast.params, iterations=7)
    # a file beside it comes first
    write(tmp_path, "ismcts-fast", 'kind = "ismcts"\niterations = 3\nexploration = 0.1\n')
    assert bots.configuration(tmp_path / "mine.toml").params["exploration"] == 0.1


@pytest.mark.parametrize("files, said", [
    ({"a": 'extends = "nosuch"\n'}, r"a\.toml: extends: unknown bot 'nosuch'; known bots: "),
    ({"a": 'extends = 3\n'}, r"a\.toml: extends must be a bot's name"),
    ({"a": 'extends = "../x"\n'}, r"a\.toml: extends must be a bot's name"),
    ({"a": 'extends = "a"\n'}, r"a\.toml: extends: 'a' is this file itself \(a cycle\)"),
    ({"a": 'extends = "b"\n', "b": 'extends = "a"\n'},
     r"a\.toml: extends: 'b' extends this file in turn \(a cycle\)"),
    ({"a": 'extends = "b"\n', "b": 'extends = "c"\n', "c": 'kind = "greedy"\n'},
     r"a\.toml: extends: 'b' extends 'c' in turn; a bot file extends one that extends none"),
    ({"a": 'kind = "pimc"\nextends = "b"\n', "b": 'kind = "ismcts"\n'},
     r"a\.toml: kind: 'pimc', but 'b' is an ismcts bot; a file extends one of its own kind"),
    ({"a": 'extends = "b"\ndeterminizations = 4\n', "b": 'kind = "ismcts"\n'},
     r"a\.toml: unknown key 'determinizations' for an ismcts bot"),
    ({"a": 'extends = "b"\n', "b": 'iterations = 3\n'}, r"b\.toml: missing 'kind'"),
    ({"a": 'extends = "b"\n', "b": 'kind = "ismcts"\nwidth = 3\n'}, r"b\.toml: unknown key 'width'"),
])
def test_a_bad_extends_is_one_line_naming_the_file_and_the_field(tmp_path, files, said):
    for name, text in files.items():
        write(tmp_path, name, text)
    with pytest.raises(ConfigError, match=said) as e:
        bots.configuration(tmp_path / "a.toml")
    assert "\n" not in str(e.value)


def test_the_command_line_says_a_bad_extends_in_one_line(tmp_path, capsys):
    from tigris.commands import main

    write(tmp_path, "a", 'extends = "a"\n')
    assert main(["play", "--bots", str(tmp_path / "a.toml"), "random"]) != 0
    err = capsys.readouterr().err
    assert "a.toml: extends: 'a' is this file itself (a cycle)" in err and "Traceback" not in err
