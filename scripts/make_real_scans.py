"""Write the scanned variants of the real guideline pages (deterministic; see dkg/corpus/real_scans.py).

Run: ``.venv/bin/python scripts/make_real_scans.py [--dpi 200 ...] [--out datasets/realpdfs/scans]``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dkg.corpus.real_scans import RealScanSettings, write_real_scans  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, default=ROOT / "datasets" / "realpdfs")
    parser.add_argument("--out", type=Path, default=ROOT / "datasets" / "realpdfs" / "scans")
    parser.add_argument("--dpi", type=int, action="append", help="resolution (repeatable); default 150, 200, 300")
    args = parser.parse_args()
    dpis = tuple(args.dpi) if args.dpi else RealScanSettings().dpis
    for path in write_real_scans(args.root, args.out, dpis=dpis):
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}  {path.stat().st_size // 1024} KiB")


if __name__ == "__main__":
    main()
