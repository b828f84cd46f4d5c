"""Locate the Java runtime and compiler, with install hints instead of stack traces."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from dkg.errors import JavaNotFoundError

_INSTALL_HINT = (
    "Install Java 17 (Debian: apt-get install -y openjdk-17-jdk-headless) or run the README's setup command."
)


def find_java(java_cmd: str = "java", minimum_major: int = 17) -> Path:
    """Return the path of a ``java`` whose major version is at least ``minimum_major``."""
    path = shutil.which(java_cmd)
    if path is None:
        raise JavaNotFoundError(f"Java ('{java_cmd}') was not found on PATH. {_INSTALL_HINT}")
    try:
        out = subprocess.run([path, "-version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise JavaNotFoundError(f"'{path} -version' failed: {exc}. {_INSTALL_HINT}") from exc
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not match:
        raise JavaNotFoundError(f"cannot read the Java version from '{path} -version'. {_INSTALL_HINT}")
    major = int(match[1]) if match[1] != "1" else int(match[2] or 0)
    if major < minimum_major:
        raise JavaNotFoundError(f"{path} is Java {major}; Java {minimum_major}+ is needed. {_INSTALL_HINT}")
    return Path(path)


def find_javac(java: Path) -> Path:
    """Return the ``javac`` next to ``java`` (or on PATH)."""
    sibling = java.resolve().parent / "javac"
    if sibling.is_file():
        return sibling
    path = shutil.which("javac")
    if path is None:
        raise JavaNotFoundError(f"no Java compiler (javac) found beside {java}. {_INSTALL_HINT}")
    return Path(path)
