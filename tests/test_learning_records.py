"""The learning loops kept in the repository (learning/): each is a loop's record, which
goes on anywhere (docs/FORMATS.md, "Learning folders"; test_learn.py moves one), read and
checked as tigris learn reads it."""

import os
import shlex
from pathlib import Path

import pytest

from tigris import network
from tigris.runs import learn

LEARNING = Path(__file__).resolve().parents[1] / "learning"
LOOPS = sorted(path.parent for path in LEARNING.glob("*/learn.json"))


def test_the_repository_keeps_the_two_player_loop():
    assert {tuple(learn.folder_settings(out)["players"]) for out in LOOPS} >= {(2,)}
    assert any(learn.read_generations(out) for out in LOOPS)      # and generations of it


@pytest.mark.parametrize("out", LOOPS, ids=[out.name for out in LOOPS])
def test_a_kept_loop_is_a_whole_record_without_a_path_of_a_machine(out):
    s = learn.folder_settings(out)
    assert network.names_generation(s["start"])           # generation 0's network: shipped
    lines = learn.read_generations(out)     # none: a loop begun, its settings kept to go on by
    current = lines[-1]["current"] if lines else 0
    if current:                                           # the current network is kept
        assert network.load(out / f"gen-{current}" / "network.npz").has_policy
    for line in lines:
        k = line["generation"]
        assert learn._read_stages(out / f"gen-{k}" / "stages.json").keys() >= {"selfplay", "train"}
        assert learn._read_clock(out / f"gen-{k}" / "clock.json")
        entries = [line["selfplay"], line["train"], *line["gate"].values()]
        for entry in (e for e in entries if "command" in e):
            words = shlex.split(entry["command"])
            assert words[0] == "tigris" and not any(os.path.isabs(w) for w in words), entry["command"]
