"""Builds the compiled core (cython_core/*.pyx -> tigris._*, declarations in src/tigris/*.pxd)
and ships the bot configurations of bots/ inside the package as tigris.bot_configs."""

import glob
import os
import platform

from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup

# The core counts square sets with popcount: one instruction on every x86-64 processor
# since 2008 when the compiler may use it, a library call otherwise.
FLAGS = ["-O3"] + (["-mpopcnt"] if platform.machine().lower() in ("x86_64", "amd64") else [])

extensions = [
    Extension(
        "tigris." + os.path.splitext(os.path.basename(path))[0],
        [path],
        extra_compile_args=FLAGS,
    )
    for path in sorted(glob.glob("cython_core/*.pyx"))
]


def _declarations_changed():
    """True when a .pxd is newer than a generated C file.  cythonize follows what a .pyx
    cimports, but not the module's own .pxd (in src/tigris/, not beside the .pyx): after
    a change to one, every module is regenerated, or they would disagree on the layout."""
    newest = max(os.path.getmtime(p) for p in glob.glob("src/tigris/*.pxd"))
    generated = [os.path.splitext(p)[0] + ".c" for p in glob.glob("cython_core/*.pyx")]
    return any(not os.path.exists(c) or os.path.getmtime(c) < newest for c in generated)


setup(
    packages=find_packages("src") + ["tigris.bot_configs"],
    package_dir={"": "src", "tigris.bot_configs": "bots"},
    package_data={"tigris": ["*.pxd", "*.pyi", "py.typed", "calibration.json", "viewer.js", "viewer.css"],
                  "tigris.bot_configs": ["*.toml"]},
    ext_modules=cythonize(
        extensions,
        include_path=["src"],
        compiler_directives={"language_level": 3},
        force=_declarations_changed(),
    ),
)
