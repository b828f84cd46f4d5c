"""`dkg onboard --effective-from/--effective-to` and `--domain`: checked before any work, with errors that say
what to give."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dkg.cli.main import app
from dkg.cli.onboard_cmd import effective_period
from dkg.graph.drafts import OnboardingError, period_of
from dkg.types import EffectivePeriod


def test_no_dates_is_an_undated_version_and_two_dates_a_closed_period() -> None:
    assert effective_period(None, None) is None
    assert effective_period("2030-01-01", "2030-12-31") == EffectivePeriod(start=date(2030, 1, 1),
                                                                           end=date(2030, 12, 31))


@pytest.mark.parametrize(("start", "end", "message"), [
    (None, "2030-12-31", "--effective-to needs --effective-from"),
    ("1 Jan 2030", None, "--effective-from '1 Jan 2030': "),
    ("2030-02-01", "2030-01-31", "effective end 2030-01-31 is before its start 2030-02-01"),
])
def test_a_bad_period_is_refused_naming_the_option(start: str | None, end: str | None, message: str) -> None:
    with pytest.raises(OnboardingError, match="nothing was written") as info:
        effective_period(start, end)
    assert message in str(info.value)


def test_the_cli_refuses_a_bad_date_before_reading_the_pdf(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["onboard", str(tmp_path / "absent.pdf"), "-g", "probe", "-v", "1.2030",
                                      "--effective-from", "2030-13-01"])
    assert result.exit_code != 0
    assert "--effective-from '2030-13-01'" in result.output and "YYYY-MM-DD" in result.output


def test_a_row_without_a_start_has_no_period() -> None:
    assert period_of({"effective_start": None, "effective_end": None}) is None
    assert period_of({"effective_start": "2030-01-01", "effective_end": None}) == EffectivePeriod(
        start=date(2030, 1, 1))


def test_the_cli_refuses_an_unknown_domain_naming_the_defined_ones(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["onboard", str(tmp_path / "absent.pdf"), "-g", "probe", "-v", "1.2030",
                                      "--domain", "oncolgy"])
    assert result.exit_code != 0
    assert "unknown domain(s) 'oncolgy'; the base vocabulary defines: oncology" in result.output
