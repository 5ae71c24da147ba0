"""Builds the compiled core: cython_core/*.pyx -> tigris._* (declarations in src/tigris/*.pxd)."""

import glob
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension(
        "tigris." + os.path.splitext(os.path.basename(path))[0],
        [path],
        extra_compile_args=["-O3"],
    )
    for path in sorted(glob.glob("cython_core/*.pyx"))
]

setup(
    ext_modules=cythonize(
        extensions,
        include_path=["src"],
        compiler_directives={"language_level": 3},
    ),
)
