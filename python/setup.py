"""Builds tarn's extension with the repository's CMake (the `tarn_python_package` target) and
packages it with the Python layer. Install with Debian's tools, no network:

    /usr/bin/python3 -m venv --system-site-packages .venv
    .venv/bin/pip install --no-build-isolation ./python

TARN_BUILD_DIR names the CMake build directory to use (default: the repository's `build`,
configured with the `release` preset when it has not been).
"""

import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent.parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = pathlib.Path(os.environ.get("TARN_BUILD_DIR", ROOT / "build"))
        if not (build / "CMakeCache.txt").exists():
            subprocess.check_call(["cmake", "--preset", "release", "-B", str(build)], cwd=ROOT)
        subprocess.check_call(["cmake", "--build", str(build), "--target", "tarn_python_package"],
                              cwd=ROOT)
        built = next((build / "python" / "tarn").glob("_tarn*.so"), None)
        if built is None:
            sys.exit(f"tarn: no extension in {build}/python/tarn (are pybind11-dev and "
                     "python3-dev installed? see docs/design/python.md)")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, target)


setup(ext_modules=[Extension("tarn._tarn", sources=[])], cmdclass={"build_ext": CMakeBuild})
