"""Fetch Java artefacts (with their runtime dependencies) from Maven Central into a cache folder.

Uses the ``mvn`` client with a generated POM, so only Maven's own repository configuration is
involved. A folder is complete when its marker file holds the hash of the requested coordinates;
a complete folder is reused without any network access.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from dkg.errors import ArtifactFetchError

_MARKER = ".complete"


@dataclass(frozen=True)
class Artifact:
    group: str
    artifact: str
    version: str
    classifier: str | None = None

    @classmethod
    def parse(cls, coordinate: str) -> Artifact:
        parts = coordinate.split(":")
        if len(parts) not in (3, 4) or not all(parts):
            raise ArtifactFetchError(
                f"bad Maven coordinate {coordinate!r}; expected group:artifact:version[:classifier]"
            )
        return cls(*parts)  # type: ignore[arg-type]

    def __str__(self) -> str:
        return ":".join(p for p in (self.group, self.artifact, self.version, self.classifier) if p)

    def pom_dependency(self) -> str:
        classifier = f"<classifier>{escape(self.classifier)}</classifier>" if self.classifier else ""
        return (
            f"<dependency><groupId>{escape(self.group)}</groupId><artifactId>{escape(self.artifact)}</artifactId>"
            f"<version>{escape(self.version)}</version>{classifier}</dependency>"
        )


def _pom(artifacts: list[Artifact]) -> str:
    deps = "\n    ".join(a.pom_dependency() for a in artifacts)
    return f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dkg.local</groupId><artifactId>dkg-fetch</artifactId><version>0</version><packaging>pom</packaging>
  <dependencies>
    {deps}
  </dependencies>
</project>
"""


def fingerprint(coordinates: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(coordinates)).encode()).hexdigest()[:16]


def is_complete(dest: Path, coordinates: list[str]) -> bool:
    marker = dest / _MARKER
    return marker.is_file() and marker.read_text().strip() == fingerprint(coordinates)


def fetch_artifacts(coordinates: list[str], dest: Path, mvn_cmd: str = "mvn", timeout_s: float = 1800) -> Path:
    """Ensure ``dest/lib`` holds the jars of ``coordinates`` and their runtime dependencies.

    Returns the ``lib`` folder. Downloads into a temporary sibling folder and renames it into
    place only when complete, so an interrupted download never looks complete.
    """
    artifacts = [Artifact.parse(c) for c in coordinates]
    lib = dest / "lib"
    if is_complete(dest, coordinates):
        return lib
    mvn = shutil.which(mvn_cmd)
    if mvn is None:
        raise ArtifactFetchError(
            f"Maven ('{mvn_cmd}') is not installed, so {', '.join(coordinates)} cannot be fetched. "
            "Install it (Debian: apt-get install -y maven) or run the README's setup command."
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{dest.name}-", dir=dest.parent) as tmp:
        work = Path(tmp)
        (work / "pom.xml").write_text(_pom(artifacts))
        cmd = [
            mvn, "-B", "-q", "-f", str(work / "pom.xml"), "dependency:copy-dependencies",
            f"-DoutputDirectory={work / 'lib'}", "-DincludeScope=runtime",
        ]
        try:
            result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, check=False)
        except subprocess.TimeoutExpired as exc:
            raise ArtifactFetchError(f"downloading {', '.join(coordinates)} took over {timeout_s:.0f}s") from exc
        if result.returncode != 0:
            tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
            raise ArtifactFetchError(
                f"Maven could not fetch {', '.join(coordinates)} (exit {result.returncode}). "
                f"Check the network and the version numbers. Maven said:\n{tail}"
            )
        (work / _MARKER).write_text(fingerprint(coordinates))
        if dest.exists():
            shutil.rmtree(dest)
        work.rename(dest)
        # TemporaryDirectory's cleanup tolerates the folder having been moved away.
        work.mkdir()
    return lib
