import pytest

from dkg.config import load_settings
from dkg.errors import ConfigError


def test_defaults_use_local_server(tmp_path) -> None:
    settings = load_settings(home=tmp_path)
    assert settings.uses_local_neo4j
    assert settings.neo4j_dir == tmp_path / "neo4j"


@pytest.mark.parametrize("uri", ["bolt://db.example:7687", "neo4j+s://abc.databases.neo4j.io", "neo4j://a:1"])
def test_external_uris_accepted(uri: str) -> None:
    settings = load_settings(neo4j_uri=uri)
    assert not settings.uses_local_neo4j


def test_bad_uri_scheme_is_named() -> None:
    with pytest.raises(ConfigError, match="DKG_NEO4J_URI.*http://x"):
        load_settings(neo4j_uri="http://x")


def test_bad_port_is_named() -> None:
    with pytest.raises(ConfigError, match="DKG_NEO4J_BOLT_PORT"):
        load_settings(neo4j_bolt_port=70000)


def test_environment_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DKG_NEO4J_HEAP", "2g")
    assert load_settings().neo4j_heap == "2g"


def test_config_file_is_read(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    config = tmp_path / "dkg.toml"
    config.write_text('neo4j_pagecache = "256m"\ncorenlp_port = 9123\n')
    monkeypatch.setenv("DKG_CONFIG", str(config))
    monkeypatch.delenv("DKG_CORENLP_PORT", raising=False)
    settings = load_settings()
    assert settings.neo4j_pagecache == "256m"
    assert settings.corenlp_port == 9123


def test_missing_config_file_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("DKG_CONFIG", str(tmp_path / "nope.toml"))
    with pytest.raises(ConfigError, match="nope.toml"):
        load_settings()
