"""Questions generated for an onboarded guideline (issue #19 item 4): facts worded from its vocabulary file and
read back as the service reads them; the model update's tokenizer extension."""

from __future__ import annotations

import random

import pytest

from dkg.qa.dataset import GenConfig, _requirements
from dkg.qa.generated import VocabularyDatasetBuilder, _number_grid
from dkg.qa.queries import QuestionType, parse_model_output
from dkg.qa.templates import FRAMES, UNSEEN
from dkg.types import Constraint
from dkg.vocabulary import VOCABULARY, KeyKind


def _onboarded(kind: KeyKind, boolean: bool = False) -> str:
    return next(s.name for s in sorted(VOCABULARY.values(), key=lambda s: s.name)
                if s.source not in ("base",) and s.kind is kind and s.boolean == boolean
                and (kind is not KeyKind.NUMERIC or s.synonyms) and (kind is KeyKind.NUMERIC or s.values))


def _builder() -> VocabularyDatasetBuilder:
    return VocabularyDatasetBuilder(None, GenConfig(versions=()))  # type: ignore[arg-type]  # no graph needed here


def _guideline_of(key: str) -> str:
    return VOCABULARY[key].source


def test_numbers_are_sampled_around_the_paths_thresholds_inside_them() -> None:
    key = _onboarded(KeyKind.NUMERIC)
    reqs = _requirements([f"{key}>100"])
    assert reqs is not None
    grid = _number_grid(VOCABULARY[key], reqs[key])
    assert grid and min(grid) > 100 and max(grid) <= 170 and all(v.is_integer() for v in grid)
    small = _requirements([f"{key}<0.12"])
    assert small is not None
    fine = _number_grid(VOCABULARY[key], small[key])
    assert fine and max(fine) < 0.12 and any(not v.is_integer() for v in fine)


@pytest.mark.parametrize("constraints", [
    lambda n, b: [f"{n}>100", f"{b}=yes"],
    lambda n, b: [f"{n}<50", f"{b}=no"],
])
def test_sampled_facts_satisfy_the_path_and_questions_read_back_to_them(constraints: object) -> None:
    numeric, boolean = _onboarded(KeyKind.NUMERIC), _onboarded(KeyKind.CATEGORICAL, boolean=True)
    texts = constraints(numeric, boolean)  # type: ignore[operator]
    builder = _builder()
    reqs = _requirements(texts)
    assert reqs is not None
    rng = random.Random(5)
    guideline = _guideline_of(numeric)
    read_back = 0
    tried = 0
    for _ in range(20):
        sampled = builder.sample_facts(reqs, rng)
        assert sampled is not None
        facts, _bands = sampled
        for text in texts:
            c = Constraint.parse(text)
            value = facts[c.key]
            assert (value > c.value if c.op.value == ">" else value < c.value if c.op.value == "<"  # type: ignore[operator]
                    else value == c.value)
        for frame in sorted(f for f in FRAMES[QuestionType.NEXT_STEP.value] if f not in UNSEEN)[:6]:
            question = builder.render(QuestionType.NEXT_STEP, frame, guideline, rng, facts=facts)
            tried += 1
            read_back += builder.read_facts(question) == facts
    assert read_back >= tried // 2, f"only {read_back}/{tried} questions read back to their facts"


def test_a_generated_target_parses_for_a_hyphenated_guideline_name() -> None:
    numeric = _onboarded(KeyKind.NUMERIC)
    guideline = _guideline_of(numeric)
    sketch = parse_model_output(f"WITH '{guideline}' AS guideline, {{{numeric}: ${numeric}}} AS facts // next_step")
    assert sketch.guideline == guideline and sketch.keys == (numeric,)


def test_the_tokenizer_gains_the_missing_query_pieces_with_sub_word_mean_embeddings(tmp_path: object) -> None:
    torch = pytest.importorskip("torch")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    from dkg.qa.seq2seq import SPECIALS, ModelSize, Seq2Seq, build_model, query_pieces
    from dkg.qa.training_update import extend_tokenizer

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(["WITH 'x' AS guideline, {age: $age} AS facts // next_step"] * 3, trainers.BpeTrainer(
        vocab_size=300, special_tokens=SPECIALS, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    size = ModelSize.tiny()
    s2s = Seq2Seq(tok, build_model(size, tok.get_vocab_size()), size)
    piece = query_pieces()[0]
    parts = tok.encode(piece).ids
    expected = s2s.model.get_input_embeddings().weight[parts].mean(dim=0).detach().clone()
    added = extend_tokenizer(s2s)
    assert added == query_pieces()
    assert s2s.model.get_input_embeddings().weight.shape[0] == tok.get_vocab_size()
    assert tok.encode(piece).ids == [tok.token_to_id(piece)]
    assert torch.allclose(s2s.model.get_input_embeddings().weight[tok.token_to_id(piece)], expected)
    assert extend_tokenizer(s2s) == []
    s2s.greedy(["a question"], max_new_tokens=3)  # the grown model still decodes
