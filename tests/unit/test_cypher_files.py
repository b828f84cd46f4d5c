from dkg.graph.db import _IDEMPOTENT, CYPHER_DIR, split_statements


def test_split_statements_drops_comments() -> None:
    text = "// comment; with a semicolon\nCREATE INDEX a IF NOT EXISTS FOR (n:A) ON (n.x);\n\nRETURN 1;"
    assert split_statements(text) == ["CREATE INDEX a IF NOT EXISTS FOR (n:A) ON (n.x)", "RETURN 1"]


def test_every_schema_statement_is_idempotent() -> None:
    statements = [s for p in sorted(CYPHER_DIR.glob("schema*.cypher")) for s in split_statements(p.read_text())]
    assert statements, "no schema statements found"
    for statement in statements:
        assert _IDEMPOTENT.search(statement), statement


def test_schema_statements_must_be_idempotent_creates_or_drops() -> None:
    assert _IDEMPOTENT.search("CREATE INDEX a IF NOT EXISTS FOR (n:A) ON (n.x)")
    assert _IDEMPOTENT.search("DROP INDEX a IF EXISTS")
    assert not _IDEMPOTENT.search("CREATE INDEX a FOR (n:A) ON (n.x)")
    assert not _IDEMPOTENT.search("DROP INDEX a")
    assert not _IDEMPOTENT.search("MATCH (n) DETACH DELETE n // IF NOT EXISTS")
