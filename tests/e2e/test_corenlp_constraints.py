"""The issue's examples end to end through the real CoreNLP server (started once for the module)."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from dkg.config import Settings, load_settings
from dkg.constraints.extractor import ConstraintExtractor
from dkg.constraints.run import extract_file, open_extractor
from dkg.errors import JavaNotFoundError, PortInUseError
from dkg.services.corenlp import CoreNLPServer, corenlp_dir, ensure_jars

pytestmark = pytest.mark.corenlp

ISSUE_EXAMPLES = [
    ("Age less than 65 and greater than 35", {"age>35", "age<65"}),
    ("≥65 y", {"age>=65"}),
    ("AYA (15–39 years)", {"age in [15,39]"}),
    ("Ph-negative ALL", {"ph=-"}),
    ("Philadelphia chromosome–positive ALL", {"ph=+"}),
    ("Persistent or rising MRD", {"mrd in {persistent,rising}"}),
    ("Without substantial comorbidities", {"comorbidity=none"}),
    ("Without comorbidities of diabetes and liver", {"comorbidity!=diabetes", "comorbidity!=liver"}),
    ("Ph-negative ALL, age 15–39 years, without substantial comorbidities",
     {"ph=-", "age in [15,39]", "comorbidity=none"}),
    ("Lung, bone or brain metastases", {"metastasis in {bone,brain,lung}"}),
    ("Clinical trial or TKI (Dasatinib is preferred; see discussion.) + hyper-CVAD", set()),
]

PORT = int(os.environ.get("DKG_TEST_CORENLP_PORT", "9031"))


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return load_settings(corenlp_port=PORT, home=tmp_path_factory.mktemp("dkg-home"))


@pytest.fixture(scope="module")
def extractor(settings: Settings) -> Iterator[ConstraintExtractor]:
    with open_extractor(settings) as ready:
        yield ready


def _listening_addresses(port: int) -> list[str]:
    """Local addresses of the sockets listening on ``port`` (from /proc/net/tcp and tcp6)."""
    addresses = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as fh:
            for line in fh.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                address, hex_port = local.split(":")
                if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                    addresses.append(address)
    return addresses


def test_the_server_listens_on_loopback_only(extractor: ConstraintExtractor, settings: Settings) -> None:
    addresses = _listening_addresses(settings.corenlp_port)
    assert addresses, f"nothing listens on port {settings.corenlp_port}"
    loopback = {"0100007F", "0000000000000000FFFF00000100007F"}  # 127.0.0.1 and ::ffff:127.0.0.1 (Java's dual stack)
    assert set(addresses) <= loopback, f"listening on {addresses}, not only on 127.0.0.1"


@pytest.mark.parametrize(("sentence", "expected"), ISSUE_EXAMPLES, ids=[s[:40] for s, _ in ISSUE_EXAMPLES])
def test_issue_examples(extractor: ConstraintExtractor, sentence: str, expected: set[str]) -> None:
    assert {str(c) for c in extractor.extract(sentence)} == expected


def test_parse_returns_one_tree_per_sentence(extractor: ConstraintExtractor) -> None:
    assert extractor.parser is not None
    trees = extractor.parser.parse(["Persistent or rising MRD", "", "Stage IV (see page 2)"])
    assert trees[0].startswith("(ROOT") and "MRD" in trees[0]
    assert trees[1] == "(ROOT)"
    assert "-LRB-" in trees[2]


def test_bad_input_through_the_server(extractor: ConstraintExtractor) -> None:
    sentences = ["", "Le patient présente une leucémie aiguë lymphoblastique", "chemotherapy " * 400,
                 "line one\nline two, age ≥ 18 years"]
    results = extractor.extract_many(sentences)
    assert results[0] == [] and results[1] == [] and results[2] == []
    assert {str(c) for c in results[3]} == {"age>=18"}


def test_cache_serves_reruns(extractor: ConstraintExtractor, settings: Settings) -> None:
    assert extractor.cache is not None
    sentence = "Relapsed or refractory B-cell ALL, age ≥ 18 years"
    first = extractor.extract(sentence)
    from dkg.constraints.preprocess import preprocess

    assert preprocess(sentence) in extractor.cache.get_many([preprocess(sentence)])
    assert extractor.extract(sentence) == first


def test_extract_file_through_server(extractor: ConstraintExtractor, tmp_path: Path) -> None:
    source = tmp_path / "edges.csv"
    source.write_text("head,tail,label\nAge 65 years or older?,Reduced-intensity regimen,YES\n")
    rows = extract_file(extractor, source, tmp_path / "out.csv")
    assert [str(c) for c in rows[0].head_constraints] == ["age>=65"]
    assert [str(c) for c in rows[0].label_constraints or []] == ["age>=65"]


def test_port_taken_is_a_clear_error(settings: Settings) -> None:
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        taken = blocker.getsockname()[1]
        with pytest.raises(PortInUseError, match=f"port {taken}.*DKG_CORENLP_PORT"):
            CoreNLPServer(settings.model_copy(update={"corenlp_port": taken})).start()


def test_missing_java_is_a_clear_error(settings: Settings) -> None:
    with pytest.raises(JavaNotFoundError, match="not installed"):
        CoreNLPServer(settings.model_copy(update={"java_cmd": "no-such-java-binary"})).start()


def test_missing_jars_without_download(settings: Settings, tmp_path: Path) -> None:
    from dkg.services.corenlp import CoreNLPJarsMissingError

    empty = settings.model_copy(update={"cache_dir": tmp_path})
    assert not corenlp_dir(empty).exists()
    with pytest.raises(CoreNLPJarsMissingError, match="not in"):
        ensure_jars(empty, download=False)



def test_the_server_properties_are_kept_in_the_data_folder(extractor: ConstraintExtractor, settings: Settings) -> None:
    """Given a dict, stanza writes the server properties to corenlp_server-<id>.props in the working directory
    (left behind when the process is killed): the server is started with a file in the data folder instead."""
    server = extractor.parser
    assert isinstance(server, CoreNLPServer)
    props = server.properties_file
    assert props.parent == settings.home / "corenlp"
    assert "annotators = tokenize,ssplit,pos,parse" in props.read_text()
    start = " ".join(str(part) for part in server._client.start_cmd)
    assert f"-serverProperties {props}" in start, start
