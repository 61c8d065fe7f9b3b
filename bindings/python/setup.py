"""Build hooks of the `inactivity` package (setuptools; the metadata is in pyproject.toml).

The package is a ctypes binding: its one native part is libinactivity.so, the engine's C ABI,
built from the engine's Swift sources with the Swift toolchain. Three setuptools extension
points make `pip install ./bindings/python` (and an sdist) produce a package that carries it:

- ``build_swift``, a sub-command of ``build``: runs SwiftPM (release, Swift standard library
  linked statically, no RUNPATH into the toolchain, symbols stripped) and puts the library in
  the package directory, so the installed package loads it from there with no environment
  variable. ``INACTIVITY_BUNDLE_LIBRARY=/path/to/libinactivity.so`` bundles that file instead of
  building (scripts/build-wheel uses it to choose which build a wheel ships).
- ``sdist.make_release_tree``: an sdist carries the Swift package it builds from (Package.swift,
  Sources, Tests, include) under ``swift-package/``, since the package directory sits inside
  the repository and its sources are outside it.
- ``distclass`` and ``bdist_wheel``: the package holds native code, so it installs to platlib
  and its wheel is platform-specific; it is not tied to a Python version or ABI (ctypes loads
  the library), so the wheel is tagged ``py3-none-<platform>``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

from setuptools import Command, Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build import build
from setuptools.command.sdist import sdist
from setuptools.errors import ExecError, FileError, PlatformError

HERE = Path(__file__).resolve().parent
LIBRARY_NAME = "libinactivity.dylib" if sys.platform == "darwin" else "libinactivity.so"
BUNDLE_ENV = "INACTIVITY_BUNDLE_LIBRARY"
# Where an sdist carries the Swift package, and what of the repository that is. Tests/ is
# there because Package.swift declares test targets, and SwiftPM refuses a package whose
# declared target directories are missing even when it builds one product.
SDIST_SWIFT_DIR = "swift-package"
SWIFT_PACKAGE_PARTS = ("Package.swift", "Sources", "Tests", "include")
SWIFT_INSTALL_HINT = (
    "Install Swift 6.3 or later (https://www.swift.org/install/) and put its usr/bin on PATH, "
    "or install a prebuilt wheel of inactivity instead (scripts/build-wheel in the repository)."
)


def swift_package_dir() -> Path:
    """The Swift package to build: the sdist's copy, else the repository around this directory."""
    for candidate in (HERE / SDIST_SWIFT_DIR, HERE.parent.parent):
        if (candidate / "Package.swift").is_file() and (candidate / "include" / "inactivity.h").is_file():
            return candidate
    raise FileError(
        f"inactivity: cannot build {LIBRARY_NAME}: the engine's Swift sources are missing "
        f"(no {SDIST_SWIFT_DIR}/Package.swift in this source tree, and it is not inside the "
        "inactivity repository). Build from a checkout of the repository or from its sdist."
    )


class build_swift(Command):
    """Builds libinactivity.so with SwiftPM and bundles it in the package (a `build` sub-command)."""

    description = f"build {LIBRARY_NAME} from the engine's Swift sources and bundle it"
    user_options: List[tuple] = []

    def initialize_options(self) -> None:
        self.build_lib: Optional[str] = None
        self.build_temp: Optional[str] = None
        self.editable_mode = False  # set by setuptools for `pip install -e`

    def finalize_options(self) -> None:
        self.set_undefined_options("build", ("build_lib", "build_lib"), ("build_temp", "build_temp"))

    def _target(self) -> Path:
        # An editable install imports the package from src/, so the library goes there.
        base = HERE / "src" if self.editable_mode else Path(self.build_lib or "build/lib")
        return base / "inactivity" / LIBRARY_NAME

    def run(self) -> None:
        target = self._target()
        bundled = os.environ.get(BUNDLE_ENV)
        if bundled:
            library = Path(bundled)
            if not library.is_file():
                raise FileError(f"inactivity: ${BUNDLE_ENV} is {bundled!r}, which is not a file")
            self.announce(f"bundling {library} (${BUNDLE_ENV})", level=2)
        else:
            library = self._build_with_swiftpm()
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(library, target)
        os.chmod(target, 0o755)

    def _build_with_swiftpm(self) -> Path:
        package = swift_package_dir()
        swift = shutil.which("swift")
        if swift is None:
            raise PlatformError(
                f"inactivity: building {LIBRARY_NAME} from source needs the Swift toolchain, "
                f"and `swift` is not on PATH. {SWIFT_INSTALL_HINT}"
            )
        # In the repository, a scratch path of its own under .build keeps the build incremental
        # and never waits on the lock of the developer's debug build; an sdist builds in the
        # temporary build directory.
        if package == HERE / SDIST_SWIFT_DIR:
            scratch = Path(self.build_temp or "build/temp").resolve() / "swift"
        else:
            scratch = package / ".build" / "python-source"
        command = [
            swift, "build", "-c", "release", "--product", "inactivity",
            "--package-path", str(package), "--scratch-path", str(scratch),
            # The Swift standard library linked in: the package must work without the toolchain.
            # (SwiftPM's --static-swift-stdlib does not reach dynamic library products.)
            "-Xswiftc", "-static-stdlib",
            # ... and must not point into it (a RUNPATH to this machine's toolchain).
            "-Xswiftc", "-no-toolchain-stdlib-rpath",
            # Debug symbols and the static symbol table are not needed by ctypes.
            "-Xlinker", "--strip-all",
        ]
        self.announce("building " + LIBRARY_NAME + ": " + " ".join(command), level=2)
        try:
            subprocess.run(command, check=True)
            bin_dir = subprocess.run(
                command[:2] + ["-c", "release", "--package-path", str(package),
                               "--scratch-path", str(scratch), "--show-bin-path"],
                check=True, stdout=subprocess.PIPE, text=True,
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError) as exc:
            raise ExecError(
                f"inactivity: `swift build` of {LIBRARY_NAME} failed ({exc}); its output is above. "
                f"{SWIFT_INSTALL_HINT}"
            ) from None
        library = Path(bin_dir) / LIBRARY_NAME
        if not library.is_file():
            raise ExecError(f"inactivity: `swift build` reported success but made no {library}")
        return library

    # The sub-command protocol of setuptools' `build` (editable installs and sdists ask these).
    def get_source_files(self) -> List[str]:
        return []  # the Swift sources reach an sdist through sdist.make_release_tree below

    def get_outputs(self) -> List[str]:
        return [str(self._target())]

    def get_output_mapping(self) -> Dict[str, str]:
        return {}


class build_with_swift(build):
    sub_commands = build.sub_commands + [("build_swift", None)]


class sdist_with_swift(sdist):
    """An sdist that carries the Swift package libinactivity.so is built from."""

    def make_release_tree(self, base_dir: str, files: List[str]) -> None:
        super().make_release_tree(base_dir, files)
        package = swift_package_dir()
        dest = Path(base_dir) / SDIST_SWIFT_DIR
        ignore = shutil.ignore_patterns(".build", "__pycache__", "*.pyc", ".*")
        for part in SWIFT_PACKAGE_PARTS:
            source = package / part
            if source.is_dir():
                # symlinks=False: a symlink would become a copy, so the archive holds no link to
                # resolve (the package has none: CInactivity's module map names the header).
                shutil.copytree(source, dest / part, symlinks=False, ignore=ignore)
            elif source.is_file():
                dest.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, dest / part)
            else:
                raise FileError(f"inactivity: the sdist needs {source}, which is missing")


class BinaryDistribution(Distribution):
    """A distribution with native code: installed to platlib, its wheel is platform-specific."""

    def has_ext_modules(self) -> bool:
        return True


class bdist_wheel_platform(bdist_wheel):
    """Tags the wheel py3-none-<platform>: it carries a native library but no extension module."""

    def get_tag(self) -> tuple:
        _, _, platform = super().get_tag()
        return "py3", "none", platform


setup(
    distclass=BinaryDistribution,
    cmdclass={
        "build": build_with_swift,
        "build_swift": build_swift,
        "sdist": sdist_with_swift,
        "bdist_wheel": bdist_wheel_platform,
    }
)
