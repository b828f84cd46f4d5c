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


def test_every_settings_group_reads_its_table_or_flat_keys(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from dkg.api.settings import load_api_settings
    from dkg.retrieval.settings import load_retrieval_settings

    config = tmp_path / "dkg.toml"
    config.write_text('neo4j_heap = "3g"\nretrieval_hops = 1\n\n[retrieval]\nalpha = 0.25\n\n[api]\ncache_size = 7\n')
    monkeypatch.setenv("DKG_CONFIG", str(config))
    for name in ("DKG_NEO4J_HEAP", "DKG_RETRIEVAL_HOPS", "DKG_RETRIEVAL_ALPHA", "DKG_API_CACHE_SIZE"):
        monkeypatch.delenv(name, raising=False)
    assert load_settings().neo4j_heap == "3g"
    retrieval = load_retrieval_settings()
    assert (retrieval.alpha, retrieval.hops) == (0.25, 1)
    assert load_api_settings().cache_size == 7
    monkeypatch.setenv("DKG_RETRIEVAL_ALPHA", "0.5")  # the environment wins over the file
    assert load_retrieval_settings().alpha == 0.5


@pytest.mark.parametrize(("text", "message"), [
    ("[retrieval]\nalpha = 7\n", "invalid retrieval settings: DKG_RETRIEVAL_ALPHA: Input should be less than"),
    ("api_cache_size = -1\n", "invalid API settings: DKG_API_CACHE_SIZE: Input should be greater than"),
    ("neo4j_bolt_port = 0\n", "invalid settings: DKG_NEO4J_BOLT_PORT: Input should be greater than"),
    ("[qa]\nbeams = 3\n", r"unknown table \[qa\]; the tables are \[retrieval\], \[api\]"),
    ("retrieval = [", "cannot read the settings file"),
])
def test_bad_settings_in_the_file_name_the_variable(monkeypatch: pytest.MonkeyPatch, tmp_path, text: str,
                                                     message: str) -> None:
    from dkg.api.settings import load_api_settings
    from dkg.retrieval.settings import load_retrieval_settings

    config = tmp_path / "dkg.toml"
    config.write_text(text)
    monkeypatch.setenv("DKG_CONFIG", str(config))
    for name in ("DKG_RETRIEVAL_ALPHA", "DKG_API_CACHE_SIZE", "DKG_NEO4J_BOLT_PORT"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match=message):
        load_settings()
        load_retrieval_settings()
        load_api_settings()
