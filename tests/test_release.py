"""What a release promises: one version number everywhere, the MIT license in the
metadata, and type information that agrees with the code (mypy over the package and its
examples; stubtest holding the .pyi stubs to the compiled modules)."""

import importlib.metadata
import os
import re
import subprocess
import sys

import tigris
from tigris import cli

from processes import ROOT

COMPILED = ["tigris._core", "tigris._game", "tigris._search", "tigris._eval", "tigris._bench"]


def test_the_version_is_one_number_everywhere(capsys):
    assert re.fullmatch(r"\d+\.\d+\.\d+", tigris.__version__)
    assert importlib.metadata.version("tigris") == tigris.__version__
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out == f"tigris {tigris.__version__}\n"


def test_the_changelog_says_what_this_version_added():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (\d+\.\d+\.\d+)", changelog, flags=re.M)
    assert headings and headings[0] == tigris.__version__


def test_the_license_is_mit_in_the_file_and_the_metadata():
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    meta = importlib.metadata.metadata("tigris")
    assert meta["License-Expression"] == "MIT"


def test_every_compiled_module_has_its_stub_and_the_package_is_typed():
    package = ROOT / "src" / "tigris"
    assert (package / "py.typed").exists()
    for module in COMPILED:
        assert (package / f"{module.split('.')[1]}.pyi").exists(), module


def _mypy(*args):
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


def test_mypy_finds_no_error_in_the_package_and_the_examples():
    done = _mypy("mypy", "--no-incremental")        # files and settings: pyproject.toml
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout


def test_the_stubs_agree_with_the_compiled_modules():
    done = _mypy("mypy.stubtest", *COMPILED)
    assert done.returncode == 0, done.stdout + done.stderr


def test_stubtest_would_catch_a_stub_that_lies(tmp_path):
    """The check above is not vacuous: a stub with a wrong parameter name fails it."""
    stub = (ROOT / "src" / "tigris" / "_bench.pyi").read_text(encoding="utf-8")
    lying = tmp_path / "tigris"
    lying.mkdir()
    (lying / "__init__.pyi").write_text("")
    (lying / "_bench.pyi").write_text(stub.replace("def state_size()", "def state_size(x: int)"))
    done = subprocess.run([sys.executable, "-m", "mypy.stubtest", "tigris._bench",
                           "--mypy-config-file", str(tmp_path / "none.ini")],
                          capture_output=True, text=True, cwd=ROOT, timeout=600,
                          env={**os.environ, "MYPYPATH": str(tmp_path)})
    assert done.returncode != 0
    assert "state_size" in done.stdout



def test_the_citation_names_this_version_and_license():
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert f"\nversion: {tigris.__version__}\n" in citation
    assert "\nlicense: MIT\n" in citation
