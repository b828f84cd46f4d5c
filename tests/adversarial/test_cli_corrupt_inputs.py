"""Corrupt PDFs, CSVs and YAMLs given to the CLI: a one-line error, a non-zero exit, no traceback and no
partial output (issue 21, standing adversarial suite)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.api.adversarial import CORRUPT_FILES, corrupt_cli_case, run_cli_case

pytestmark = [pytest.mark.adversarial, pytest.mark.slow]

# Known defects owned by other work; strict, so a fix shows up as XPASS (a failure) until the mark is removed.
KNOWN: dict[str, str] = {}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN[n]))
                                  if n in KNOWN else n for n in CORRUPT_FILES])
def test_corrupt_input_is_refused_cleanly(name: str, tmp_path: Path) -> None:
    outcome = run_cli_case(corrupt_cli_case(name, tmp_path))
    assert outcome.problems == [], f"{outcome.case.name}: {', '.join(outcome.problems)}\n{outcome.text[-2000:]}"
