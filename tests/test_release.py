"""What a release promises: one version number everywhere, the MIT license in the
metadata, and type information that agrees with the code (mypy over the package and its
examples; stubtest holding the .pyi stubs to the compiled modules)."""

import importlib.metadata
import os
import re
import subprocess
import sys

import pytest

import tigris
from tigris import commands

from processes import ROOT

COMPILED = ["tigris._core", "tigris._game", "tigris._search", "tigris._eval", "tigris._net", "tigris._bench"]


def test_the_version_is_one_number_everywhere(capsys):
    assert re.fullmatch(r"\d+\.\d+\.\d+", tigris.__version__)
    assert importlib.metadata.version("tigris-euphrates") == tigris.__version__
    assert commands.main(["--version"]) == 0
    assert capsys.readouterr().out == f"tigris {tigris.__version__}\n"


def test_every_message_names_the_distribution_not_the_taken_name():
    """Issue 42: another project is published as "tigris" in the public package index, so
    a message saying pip install 'tigris[plot]' would fetch it."""
    from tigris.errors import DISTRIBUTION, install_hint

    assert importlib.metadata.metadata(DISTRIBUTION)["Name"] == DISTRIBUTION
    assert install_hint("serve") == f"pip install '{DISTRIBUTION}[serve]'"
    files = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"),
             *(ROOT / "src" / "tigris").rglob("*.py")]
    said = [str(f) for f in files if re.search(r"""['"]tigris\[""", f.read_text(encoding="utf-8"))]
    assert said == []


def test_the_changelog_says_what_this_version_added():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (\d+\.\d+\.\d+)", changelog, flags=re.M)
    assert headings and headings[0] == tigris.__version__


def test_the_license_is_mit_in_the_file_and_the_metadata():
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    meta = importlib.metadata.metadata("tigris-euphrates")
    assert meta["License-Expression"] == "MIT"


def test_the_release_ships_every_generation_of_networks():
    """A bot may name any shipped generation: the package data and the source distribution
    take the networks folder's files, and tools/check_dist.sh holds the release to each."""
    from tigris import network

    setup = (ROOT / "setup.py").read_text(encoding="utf-8")
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
    check = (ROOT / "tools" / "check_dist.sh").read_text(encoding="utf-8")
    assert '"networks/*.npz"' in setup
    assert re.search(r"^recursive-include src/tigris .*\*\.npz", manifest, flags=re.M)
    assert all(network.default(n) in network.generations(n) for n in (2, 3, 4))
    files = {network.generation_file(name, n) for n in (2, 3, 4) for name in network.generations(n)}
    assert files == set(network.NETWORKS.iterdir())         # nothing else in the folder
    for path in files:
        pattern = path.name.replace(".", r"\.")
        assert f"'src/tigris/networks/{pattern}'" in check and f"'tigris/networks/{pattern}'" in check, pattern


def test_every_compiled_module_has_its_stub_and_the_package_is_typed():
    package = ROOT / "src" / "tigris"
    assert (package / "py.typed").exists()
    for module in COMPILED:
        assert (package / f"{module.split('.')[1]}.pyi").exists(), module


def _python_m(*args, env=None):
    """``python -m ARGS`` in the checkout; the CompletedProcess (text output)."""
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=600, env=env)


@pytest.mark.slow
def test_mypy_finds_no_error_in_the_package_and_the_examples():
    done = _python_m("mypy", "--no-incremental")    # files and settings: pyproject.toml
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout


def _stubtest(stubs, *modules):
    """mypy.stubtest of the compiled `modules` as imported here against the stubs in the
    folder `stubs` (given explicitly: an editable install hides the package from mypy,
    and stubtest then compares nothing and reports success)."""
    return _python_m("mypy.stubtest", "--mypy-config-file", "pyproject.toml",
                     "--allowlist", "tests/stubtest-allowlist.txt", *modules,
                     env={**os.environ, "MYPYPATH": str(stubs)})


@pytest.mark.slow
def test_the_stubs_agree_with_the_compiled_modules():
    done = _stubtest(ROOT / "src", *COMPILED)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"no issues found in {len(COMPILED)} modules" in done.stdout


LIES = [("def state_size()", "def state_size(x: int)"),      # a parameter that is not there
        ("def copy_time(", "def copy_times(")]                # a function that is not there


@pytest.mark.slow
def test_stubtest_catches_a_stub_that_lies(tmp_path):
    """The check above is not vacuous: the same run passes on the true stub and fails on
    one that disagrees, naming each lie (both in one run: stubtest takes seconds).  The
    stubs' folder holds the one module checked beside an empty package, so mypy reads
    that alone (the package's own sources took it some 15 seconds)."""
    text = (ROOT / "src" / "tigris" / "_bench.pyi").read_text(encoding="utf-8")
    lying = text
    for lie in LIES:
        assert lie[0] in lying
        lying = lying.replace(*lie)
    said = []
    for name, stub in (("true", text), ("lying", lying)):
        stubs = tmp_path / name / "tigris"
        stubs.mkdir(parents=True)
        (stubs / "__init__.pyi").write_text("")
        (stubs / "_bench.pyi").write_text(stub, encoding="utf-8")
        # the allowlist's entries for the other modules go unused here
        said.append(_stubtest(stubs.parent, "tigris._bench", "--ignore-unused-allowlist"))
    true, lies = said
    assert true.returncode == 0, true.stdout + true.stderr
    assert lies.returncode != 0
    for lie in LIES:
        assert lie[0].split("(")[0].removeprefix("def ") in lies.stdout


def test_the_citation_names_this_version_and_license():
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert f"\nversion: {tigris.__version__}\n" in citation
    assert "\nlicense: MIT\n" in citation


def test_the_formats_page_lists_every_field_of_a_tournament_spec():
    from dataclasses import fields

    from tigris.tournament import Spec

    page = (ROOT / "docs" / "FORMATS.md").read_text(encoding="utf-8")
    section = page[page.index("## Tournament specs"):page.index("## Results folders")]
    rows = re.findall(r"^\| `(\w+)` \|", section, flags=re.M)
    assert rows == [f.name for f in fields(Spec)]


def test_the_readme_first_screen_gives_the_two_commands_for_a_fresh_machine():
    """The demo needs no test tools; the test command brings them; a reader is told how to
    get the bare `tigris` the rest of the guide uses."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_screen = readme[:readme.index("\n## ")]
    blocks = re.findall(r"```sh\n(.*?)\n```", first_screen, flags=re.S)
    assert blocks == ["python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/tigris demo",
                      ".venv/bin/pip install '.[test]' && .venv/bin/python -m pytest"]
    assert ". .venv/bin/activate" in first_screen
    # issue 55: what the pages' tests need, and how to install it (as .ci/run does)
    assert "apt-get install chromium chromium-driver" in " ".join(first_screen.split())
    assert re.search(r"about \d+ minutes", first_screen)        # how long the tests take
    assert "the issue" not in readme.lower()                     # written for users


def test_the_readme_names_every_shipped_bot_and_no_other():
    """Issue 55: the README's list named `hint` (renamed `ismcts-calibrated`) and missed
    the bot it became."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = " ".join(readme[readme.index("\n## Bots\n"):].split())
    listed = section[section.index("shipped with the package (") + 26:section.index(";")]
    names = set(re.findall(r"`([\w.-]+)`", listed))
    first, last = re.search(r"`level-(\d+)` to `level-(\d+)`", listed).groups()
    names |= {f"level-{k}" for k in range(int(first), int(last) + 1)}
    shipped = {path.stem for path in (ROOT / "bots").glob("*.toml")}
    assert names == shipped


def test_the_readme_is_a_short_guide_and_the_measurements_are_on_the_results_page():
    """The README tours the toolkit; the figures live on the site's results page."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    assert "](docs/results.md" in readme
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    toctrees = re.findall(r"```\{toctree\}\n(.*?)```", index, flags=re.S)
    entries = [line.strip() for tree in toctrees for line in tree.splitlines()
               if line.strip() and not line.startswith(":")]
    assert "results" in entries
    assert (ROOT / "docs" / "results.md").is_file()
