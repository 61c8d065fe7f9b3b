"""Loading: $INACTIVITY_LIBRARY, then the package directory, then the SwiftPM build tree; one
ImportError listing every place tried; a library of another major version is refused."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional

import pytest

import inactivity
from inactivity import _lib

PACKAGE_DIR = Path(inactivity.__file__).resolve().parent
REAL_LIBRARY = Path(inactivity.LIBRARY_PATH).resolve()


def copy_package(destination: Path) -> Path:
    """A copy of the inactivity package (without any bundled library) under `destination`."""
    target = destination / "inactivity"
    shutil.copytree(PACKAGE_DIR, target, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.dylib"))
    return target


def import_from(path: Path, env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in (_lib.LIBRARY_ENV, "PYTHONPATH")}
    environment.update(env or {})
    environment["PYTHONPATH"] = str(path)
    return subprocess.run(
        [sys.executable, "-c", "import inactivity; print(inactivity.LIBRARY_PATH)"],
        capture_output=True,
        text=True,
        env=environment,
        cwd=path,
        timeout=60,
    )


def test_the_environment_variable_names_the_library(tmp_path: Path) -> None:
    package = copy_package(tmp_path)
    shutil.copy(REAL_LIBRARY, package / _lib.LIBRARY_NAME)  # also bundled: the variable wins
    result = import_from(tmp_path, {_lib.LIBRARY_ENV: str(REAL_LIBRARY)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(REAL_LIBRARY)


def test_a_library_bundled_in_the_package_is_found(tmp_path: Path) -> None:
    package = copy_package(tmp_path)
    shutil.copy(REAL_LIBRARY, package / _lib.LIBRARY_NAME)
    result = import_from(tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(package / _lib.LIBRARY_NAME)


def test_the_swiftpm_build_tree_is_found_from_a_checkout(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    src = repo / "bindings" / "python" / "src"
    src.mkdir(parents=True)
    copy_package(src)
    (repo / "Package.swift").write_text("// swift-tools-version: 6.2\n")
    (repo / ".build" / "debug").mkdir(parents=True)
    built = repo / ".build" / "debug" / _lib.LIBRARY_NAME
    built.symlink_to(REAL_LIBRARY)
    result = import_from(src)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(built)


def test_failure_lists_every_place_tried(tmp_path: Path) -> None:
    copy_package(tmp_path)
    missing = tmp_path / "nowhere" / "libinactivity.so"
    result = import_from(tmp_path, {_lib.LIBRARY_ENV: str(missing)})
    assert result.returncode != 0
    message = result.stderr
    assert "ImportError" in message
    assert f"${_lib.LIBRARY_ENV}: {missing}: no such file" in message
    assert f"the package directory: {tmp_path / 'inactivity' / _lib.LIBRARY_NAME}: no such file" in message
    assert "the SwiftPM build tree" in message and "not inside a source checkout" in message


def build_fake_library(tmp_path: Path, source: str) -> Path:
    if shutil.which("cc") is None:
        pytest.skip("needs a C compiler")
    c_file = tmp_path / "fake.c"
    c_file.write_text(source)
    library = tmp_path / "libfake.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(library), str(c_file)], check=True)
    return library


def test_a_library_of_another_major_version_is_refused(tmp_path: Path) -> None:
    fake = build_fake_library(tmp_path, "unsigned inact_version_number(void) { return 20003; }\n")
    copy_package(tmp_path)
    result = import_from(tmp_path, {_lib.LIBRARY_ENV: str(fake)})
    assert result.returncode != 0
    assert "library version 2.0.3 is not ABI-compatible with this binding (needs major version 1)" in result.stderr


def test_a_library_missing_functions_is_refused(tmp_path: Path) -> None:
    fake = build_fake_library(tmp_path, "unsigned inact_version_number(void) { return 10000; }\n")
    copy_package(tmp_path)
    result = import_from(tmp_path, {_lib.LIBRARY_ENV: str(fake)})
    assert result.returncode != 0
    assert "not a compatible libinactivity" in result.stderr and "undefined symbol" in result.stderr


def test_an_unloadable_file_is_reported(tmp_path: Path) -> None:
    junk = tmp_path / "libinactivity.so"
    junk.write_bytes(b"not an ELF file")
    copy_package(tmp_path / "pkg")
    result = import_from(tmp_path / "pkg", {_lib.LIBRARY_ENV: str(junk)})
    assert result.returncode != 0
    assert f"${_lib.LIBRARY_ENV}: {junk}: " in result.stderr
