"""Builds phasecheck._native with the project's CMake (the repository this directory belongs to)
and installs it with the package's Python files: pyproject.toml has the metadata.

Environment:
  PHASECHECK_SOURCE_DIR  the repository (default: this directory's parent)
  PHASECHECK_BUILD_DIR   a CMake build directory to build the module in (default: one under
                         setuptools' build_temp); the project's `build` reuses what is built there
"""

import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class CMakeExtension(Extension):
    def __init__(self) -> None:
        super().__init__("phasecheck._native", sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        here = os.path.dirname(os.path.abspath(__file__))
        source = os.environ.get("PHASECHECK_SOURCE_DIR", os.path.dirname(here))
        build = os.environ.get("PHASECHECK_BUILD_DIR") or os.path.join(
            os.path.abspath(self.build_temp), "cmake")
        if not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
            subprocess.run(["cmake", "-S", source, "-B", build, "-G", "Ninja",
                            "-DCMAKE_BUILD_TYPE=Release", f"-DPython_EXECUTABLE={sys.executable}",
                            "-DPHASECHECK_BUILD_TESTS=OFF", "-DPHASECHECK_BUILD_BENCHMARKS=OFF",
                            "-DPHASECHECK_BUILD_RUNNER=OFF"], check=True)
        subprocess.run(["cmake", "--build", build, "--target", "phasecheck_python"], check=True)
        built = glob.glob(os.path.join(build, "python", "package", "phasecheck", "_native*.so"))
        if len(built) != 1:
            raise RuntimeError(f"phasecheck: the native module was not built in {build}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


setup(ext_modules=[CMakeExtension()], cmdclass={"build_ext": CMakeBuild})
