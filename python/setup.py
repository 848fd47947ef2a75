"""Records, in the built package, the checkout's build/ directory, so that a package installed by
`pip install ./python` finds the library built beside its sources (rocpd_ext/library.py). Every
other setting is in pyproject.toml."""
import os

from setuptools import setup
from setuptools.command.build_py import build_py

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class BuildPyWithLocation(build_py):
    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "rocpd_ext", "_location.py")
        with open(target, "w") as f:
            f.write("# Written by `pip install` (python/setup.py): the build tree beside the sources installed.\n"
                    f"BUILD_TREE = {os.path.join(CHECKOUT, 'build')!r}\n")


setup(cmdclass={"build_py": BuildPyWithLocation})
