"""One pattern for guideline and version names, checked wherever a name enters (pipeline files, builds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.config import load_settings
from dkg.errors import BuildError
from dkg.graph.build_input import BuildInput, read_constrained_csv
from dkg.graph.load_csv import stage
from dkg.pipeline import PipelineSpec, load_pipeline
from dkg.types import InvalidNameError, check_guideline_name, check_version_name, path_under

BAD_VERSIONS = ["/../../../../tmp/x", "1|x", "..", "1..2", "../x", ".hidden", "", "1 2", "a/b", "x" * 21, "1\n2"]
BAD_GUIDELINES = ["../ALL", "ALL|x", "1ALL", "", "A" * 41, "ALL/x", "AL L", "ALL.x", "ALL~1"]


@pytest.mark.parametrize("name", ["ALL", "kidney", "bone", "ALL-00001", "a_b", "A" * 40])
def test_good_guideline_names(name: str) -> None:
    assert check_guideline_name(name) == name


@pytest.mark.parametrize("name", ["1.2026", "2.2026", "1", "v2", "2026-01_b", "1" * 20])
def test_good_version_names(name: str) -> None:
    assert check_version_name(name) == name


@pytest.mark.parametrize("name", BAD_GUIDELINES)
def test_bad_guideline_names_say_what_is_allowed(name: str) -> None:
    with pytest.raises(InvalidNameError, match=r"invalid guideline name .*: use a letter, then"):
        check_guideline_name(name)


@pytest.mark.parametrize("name", BAD_VERSIONS)
def test_bad_version_names_say_what_is_allowed(name: str) -> None:
    with pytest.raises(InvalidNameError, match=r"invalid version name .*: use a letter or digit"):
        check_version_name(name)


@pytest.mark.parametrize("version", BAD_VERSIONS)
def test_pipeline_files_refuse_bad_versions(tmp_path: Path, version: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(f"guideline: ALL\nversion: {version!r}\npdf: x.pdf\n")
    with pytest.raises(BuildError, match=r"version: .*invalid version name"):
        load_pipeline(path)


@pytest.mark.parametrize("guideline", BAD_GUIDELINES)
def test_pipeline_files_refuse_bad_guidelines(tmp_path: Path, guideline: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(f"guideline: {guideline!r}\nversion: '1.2026'\npdf: x.pdf\n")
    with pytest.raises(BuildError, match=r"guideline: .*invalid guideline name"):
        load_pipeline(path)


def test_the_work_folder_stays_in_the_data_folder(tmp_path: Path) -> None:
    settings = load_settings(home=tmp_path / "home")
    spec = PipelineSpec(guideline="ALL", version="1.2026", pdf=Path("x.pdf"))
    assert spec.work_dir(settings) == (tmp_path / "home" / "pipelines" / "ALL-1.2026").resolve()
    forged = spec.model_copy(update={"version": "/../../../../tmp/x"})  # model_copy skips validation
    with pytest.raises(BuildError, match="outside"):
        forged.work_dir(settings)


@pytest.mark.parametrize(("guideline", "version"), [("ALL", "1|x"), ("ALL", "/../../../../tmp/x"), ("A|B", "1")])
def test_builds_refuse_bad_names_before_anything_is_read(tmp_path: Path, guideline: str, version: str) -> None:
    with pytest.raises(BuildError, match="invalid (guideline|version) name.*nothing was built"):
        BuildInput(guideline, version)
    path = tmp_path / "c.csv"
    path.write_text("head,head_constraints,tail,tail_constraints\na,NULL,b,NULL\n")
    with pytest.raises(BuildError, match="invalid"):
        read_constrained_csv(path, guideline, version)


def test_staged_load_csv_files_stay_in_the_import_folder(tmp_path: Path) -> None:
    build = BuildInput("ALL", "1.2026")
    build.add_edge(build.add_node("a", [], "t"), build.add_node("b", [], "t"), "", [])
    assert stage(build, tmp_path).parent == tmp_path.resolve()
    object.__setattr__(build, "version", "../../../x")  # a forged input that skipped validation
    with pytest.raises(BuildError, match="outside"):
        stage(build, tmp_path)


def test_path_under_refuses_escapes(tmp_path: Path) -> None:
    assert path_under(tmp_path, "a-1") == tmp_path.resolve() / "a-1"
    for name in ("../x", "a/../../x", "/etc/passwd", "a/b", ".."):
        with pytest.raises(InvalidNameError):
            path_under(tmp_path, name)


def test_a_pipeline_file_that_is_not_utf8_is_a_build_error(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_bytes(b"guideline: ALL\nversion: '1.2026'\npdf: \xff\xfe.pdf\n")
    with pytest.raises(BuildError, match=r"not UTF-8 text .*save the pipeline as UTF-8"):
        load_pipeline(path)
