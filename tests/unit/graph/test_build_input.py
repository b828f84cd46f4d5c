from pathlib import Path

import pytest

from dkg.errors import BuildError
from dkg.graph.build_input import read_constrained_csv

HEADER = "head,head_constraints,tail,tail_constraints\n"


def _write(tmp_path: Path, body: str, name: str = "edges.csv") -> Path:
    path = tmp_path / name
    path.write_text(HEADER + body, encoding="utf-8")
    return path


def test_reads_nodes_edges_and_counts(tmp_path: Path) -> None:
    path = _write(tmp_path, '"Ph+ ALL, age 15–39","age in [15,39],ph=+",Clinical trial or TKI,NULL\n'
                            '"Ph+ ALL, age 15–39","age in [15,39],ph=+",Supportive care,NULL\n')
    build = read_constrained_csv(path, "T", "1")
    assert build.counts() == {"nodes": 3, "decision": 1, "relations": 2}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('a,ph=maybe,b,NULL\n', "line 2.*'maybe' is not a value of ph"),
        ('a,colour=red,b,NULL\n', "line 2.*unknown constraint key 'colour'"),
        ('a,age<abc,b,NULL\n', "line 2"),
        ('a,NULL,b\n', "line 2: wrong number of fields"),
        ('a,NULL,b,NULL,extra\n', "line 2: wrong number of fields"),
        (' ,NULL,b,NULL\n', "line 2: empty box text"),
        ('a,NULL,a,NULL\n', "to itself"),
        ('a,ph=+,b,NULL\na,ph=-,c,NULL\n', "line 3.*different constraints"),
        ('', "no rows"),
    ],
)
def test_bad_rows_are_named(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(BuildError, match=message):
        read_constrained_csv(_write(tmp_path, body), "T", "1")


def test_missing_columns_and_bad_encoding(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("head,tail\na,b\n")
    with pytest.raises(BuildError, match="missing column"):
        read_constrained_csv(path, "T", "1")
    path.write_bytes(HEADER.encode() + b"\xff\xfe,NULL,b,NULL\n")
    with pytest.raises(BuildError, match="not UTF-8"):
        read_constrained_csv(path, "T", "1")
