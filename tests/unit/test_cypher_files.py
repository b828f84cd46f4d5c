from dkg.graph.db import CYPHER_DIR, split_statements


def test_split_statements_drops_comments() -> None:
    text = "// comment; with a semicolon\nCREATE INDEX a IF NOT EXISTS FOR (n:A) ON (n.x);\n\nRETURN 1;"
    assert split_statements(text) == ["CREATE INDEX a IF NOT EXISTS FOR (n:A) ON (n.x)", "RETURN 1"]


def test_every_schema_statement_is_idempotent() -> None:
    statements = [s for p in sorted(CYPHER_DIR.glob("schema*.cypher")) for s in split_statements(p.read_text())]
    assert statements, "no schema statements found"
    for statement in statements:
        assert "IF NOT EXISTS" in statement.upper(), statement
