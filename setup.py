"""Build script: declares the Cython extensions of pystagedtrees.

Every ``pystagedtrees/**/_*.pyx`` file becomes an extension module, so a new
kernel needs no edit here.  The kernels share declarations in
``pystagedtrees/kernels/*.pxd`` (types, R's summation, constants): cythonize
follows their ``cimport``s, so a changed ``.pxd`` regenerates and rebuilds
every module that uses it.  Set ``PYSTAGEDTREES_DEBUG=1`` to compile with
bounds checking switched on.
"""
import glob
import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("PYSTAGEDTREES_DEBUG", "") == "1"

DIRECTIVES = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": DEBUG,
    "nonecheck": False,
}


def _extensions():
    extensions = []
    for path in sorted(glob.glob("pystagedtrees/**/*.pyx", recursive=True)):
        module = os.path.splitext(path)[0].replace(os.sep, ".")
        extensions.append(
            Extension(
                module,
                [path],
                include_dirs=[np.get_include()],
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                # exact results (R parity) need no fused multiply-adds
                extra_compile_args=["-O3", "-ffp-contract=off"],
            )
        )
    return extensions


setup(ext_modules=cythonize(_extensions(), compiler_directives=DIRECTIVES))
