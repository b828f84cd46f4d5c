"""Parse trees cached by sentence in a small SQLite file, so reruns need no parser work."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from types import TracebackType


class ParseCache:
    """``sentence → bracketed tree`` for one parser configuration (the ``namespace``)."""

    def __init__(self, path: Path, namespace: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.namespace = namespace
        self._db = sqlite3.connect(str(path), timeout=30)
        self._db.execute("CREATE TABLE IF NOT EXISTS parses (key TEXT PRIMARY KEY, tree TEXT NOT NULL)")
        self._db.commit()

    def _key(self, sentence: str) -> str:
        return hashlib.sha256(f"{self.namespace}\n{sentence}".encode()).hexdigest()

    def get_many(self, sentences: list[str]) -> dict[str, str]:
        """Cached trees of those ``sentences`` that are in the cache."""
        found: dict[str, str] = {}
        keys = {self._key(s): s for s in sentences}
        items = list(keys)
        for start in range(0, len(items), 500):
            chunk = items[start:start + 500]
            rows = self._db.execute(
                f"SELECT key, tree FROM parses WHERE key IN ({','.join('?' * len(chunk))})", chunk
            ).fetchall()
            found.update({keys[key]: tree for key, tree in rows})
        return found

    def put_many(self, trees: dict[str, str]) -> None:
        """Store ``sentence → tree`` pairs."""
        self._db.executemany(
            "INSERT OR REPLACE INTO parses (key, tree) VALUES (?, ?)",
            [(self._key(s), t) for s, t in trees.items()],
        )
        self._db.commit()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ParseCache:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
