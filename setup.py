"""setup.py - builds libcrisp.so with the repository's Makefile and puts it
inside the `crisp` package (the rest of the packaging is pyproject.toml)."""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildWithLibrary(build_py):
    def run(self):
        subprocess.check_call(["make", "-C", HERE, "build/libcrisp.so"])
        super().run()
        target = os.path.join(self.build_lib, "crisp")
        os.makedirs(target, exist_ok=True)
        shutil.copy(os.path.join(HERE, "build", "libcrisp.so"), os.path.join(target, "libcrisp.so"))


class BinaryDistribution(Distribution):
    """The wheel holds a shared library: it is specific to the platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
