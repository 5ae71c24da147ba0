"""Builds the compiled core (cython_core/tigris/*.pyx -> tigris._*, each module's
declarations in the .pxd beside it) and ships the bot configurations of bots/ inside the
package as tigris.bot_configs."""

import glob
import os
import platform

from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup
from setuptools.command.build_py import build_py

# cython_core/tigris/ mirrors the package: `cimport tigris._core` finds
# cython_core/tigris/_core.pxd through the include path, and each module's .pxd sits beside
# its .pyx, so cythonize follows every cimport and include and regenerates only what a
# change reaches.
COMPILED = "cython_core"
DECLARATIONS = glob.glob(os.path.join(COMPILED, "tigris", "*.pxd"))

# The core counts square sets with popcount: one instruction on every x86-64 processor
# since 2008 when the compiler may use it, a library call otherwise.
FLAGS = ["-O3"] + (["-mpopcnt"] if platform.machine().lower() in ("x86_64", "amd64") else [])

# Cython's translation and the C compiler run a module a core: the modules are independent
CORES = os.cpu_count() or 1

extensions = [
    Extension(
        "tigris." + os.path.splitext(os.path.basename(path))[0],
        [path],
        extra_compile_args=FLAGS,
    )
    for path in sorted(glob.glob(os.path.join(COMPILED, "tigris", "*.pyx")))
]


class BuildPyWithDeclarations(build_py):
    """Installs the .pxd files beside the compiled modules, so that other Cython code can
    cimport tigris._core as this package's modules do."""

    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "tigris")
        self.mkpath(target)
        for path in DECLARATIONS:
            self.copy_file(path, os.path.join(target, os.path.basename(path)))

    def get_outputs(self, include_bytecode=True):
        return super().get_outputs(include_bytecode) + [
            os.path.join(self.build_lib, "tigris", os.path.basename(p)) for p in DECLARATIONS]


setup(
    cmdclass={"build_py": BuildPyWithDeclarations},
    packages=find_packages("src") + ["tigris.bot_configs"],
    package_dir={"": "src", "tigris.bot_configs": "bots"},
    # Every stub, data file, network and page script or style sheet of the package, by
    # pattern: a new panel's script ships without a line here.
    package_data={"tigris": ["*.pyi", "py.typed", "*.json", "*.json.gz", "networks/*.npz", "*.js", "*.css"],
                  "tigris.web": ["static/*.js"],
                  "tigris.bot_configs": ["*.toml"]},
    ext_modules=cythonize(
        extensions,
        include_path=[COMPILED],
        compiler_directives={"language_level": 3},
        nthreads=CORES,
    ),
    options={"build_ext": {"parallel": CORES}},
)
