"""The QA service answers from the newest loaded version whatever its name: a curator may onboard version
``CY24`` (a valid name), which crashed the version look-up (int('CY24')) and with it every answer."""

from __future__ import annotations

from dkg.qa.service import TextToCypherService


class _Versions:
    def __init__(self, versions: list[str]) -> None:
        self.versions = versions

    def read(self, query: str, params: dict[str, object]) -> list[dict[str, object]]:
        return [{"v": v} for v in self.versions]


def test_the_newest_version_is_found_for_any_valid_version_name() -> None:
    for loaded, newest in ((["CY9", "CY24"], "CY24"), (["1.2026", "3.2025"], "1.2026"), (["2020", "2020a"], "2020")):
        service = TextToCypherService(graph=_Versions(loaded), rules_only=True)  # type: ignore[arg-type]
        assert service.version_of("g") == newest
