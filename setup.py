"""Builds the compiled core (cython_core/*.pyx -> tigris._*, declarations in src/tigris/*.pxd)
and ships the bot configurations of bots/ inside the package as tigris.bot_configs."""

import glob
import os

from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup

extensions = [
    Extension(
        "tigris." + os.path.splitext(os.path.basename(path))[0],
        [path],
        extra_compile_args=["-O3"],
    )
    for path in sorted(glob.glob("cython_core/*.pyx"))
]

setup(
    packages=find_packages("src") + ["tigris.bot_configs"],
    package_dir={"": "src", "tigris.bot_configs": "bots"},
    package_data={"tigris": ["*.pxd"], "tigris.bot_configs": ["*.toml"]},
    ext_modules=cythonize(
        extensions,
        include_path=["src"],
        compiler_directives={"language_level": 3},
    ),
)
