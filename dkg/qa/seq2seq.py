"""A small BART-style encoder–decoder trained from scratch (torch + transformers) for question → query head
(text-to-Cypher) and question → answer text (the baseline without the DKG).

* Tokenizer: byte-level BPE trained with ``tokenizers`` on the training questions, targets and guideline
  text; the fixed pieces of the query language (``WITH 'ALL' AS guideline``, ``age: $age``, ``// next_step``)
  are added tokens, so a query head decodes in ~10–20 steps.
* Input embeddings start from fastText vectors trained with gensim on the guideline text and the training
  questions (the reference's remedy for domain vocabulary); unseen sub-words get n-gram vectors.
* Size (d_model 256, 2+2 layers, 4 heads, FFN 1024, ~4.5M parameters): the task is a short structured output,
  so a smaller model than the reference's ~19M trains in minutes on 2 CPU cores and decodes a query head
  with beam search in tens of milliseconds.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from dkg.errors import QAError
from dkg.vocabulary import VOCABULARY

SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]
# int8 answering is used only for a model whose int8 copy gave the fp32 top beam on this share of dev questions
INT8_MIN_AGREEMENT = 0.99
PAD, BOS, EOS, UNK = range(4)
SCRATCH = "bart-scratch"  # meta.json "architecture": BART from scratch (the default; older models have no key)
WARMSTART = "minilm-warmstart"  # all-MiniLM-L6-v2 encoder + small decoder (dkg.qa.warmstart)


def torch_threads() -> int:
    """Intra-op threads for training: 2 (this machine's cores) unless DKGQA_THREADS says otherwise."""
    return int(os.environ.get("DKGQA_THREADS", "2"))


def answer_threads() -> int:
    """Intra-op threads for answering: 1 unless DKGQA_ANSWER_THREADS says otherwise.

    Decoding one question is a chain of small matrix products: a second thread gains nothing on an idle
    machine, and when another process holds a core, OpenMP's barriers wait for the descheduled thread
    (measured here: the same 600 beam searches took 66 s on one thread and over 17 min of CPU on two).
    """
    return int(os.environ.get("DKGQA_ANSWER_THREADS", "1"))


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise QAError("torch is not installed; install the ML extra: pip install -e '.[ml]'") from exc
    return torch


def use_answer_threads() -> None:
    _torch().set_num_threads(answer_threads())


def query_pieces() -> list[str]:
    """The fixed fragments of the query language, each one token."""
    from dkg.qa.queries import GUIDELINES, QuestionType
    pieces = [f"WITH '{g}' AS guideline" for g in GUIDELINES]
    pieces += [", '", "' AS treatment", ", {", "} AS facts", ", "]
    pieces += [f"{k}: ${k}" for k in sorted(VOCABULARY)]
    pieces += [f" // {t.value}" for t in QuestionType]
    return pieces


# Loaders of the other architectures' saved folders, by meta.json "architecture"; each module registers its own
# (dkg.qa.warmstart on import; dkg.qa.training imports it), so this module imports none of them.
LOADERS: dict[str, Callable[[Path, dict[str, Any]], Seq2Seq]] = {}


@dataclass(frozen=True)
class ModelSize:
    d_model: int = 256
    layers: int = 2
    heads: int = 4
    ffn: int = 1024
    vocab: int = 4000
    max_source: int = 128
    max_target: int = 48

    @classmethod
    def tiny(cls) -> ModelSize:
        return cls(d_model=128, layers=1, heads=4, ffn=256, vocab=800, max_source=96, max_target=40)


def train_tokenizer(texts: Sequence[str], vocab_size: int, path: Path) -> Any:
    """Train and save a byte-level BPE tokenizer with the query pieces as added tokens."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIALS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer)
    tok.add_tokens([AddedToken(p, normalized=False) for p in query_pieces()])
    path.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(path))
    return tok


def fasttext_matrix(tokenizer: Any, corpus: Sequence[str], dim: int, seed: int) -> Any:
    """Embedding rows for every token from fastText vectors trained on ``corpus`` (gensim)."""
    import numpy as np
    from gensim.models import FastText
    sentences = [[w.lower() for w in t.replace("(", " ").replace(")", " ").split()] for t in corpus]
    ft = FastText(vector_size=dim, window=5, min_count=1, min_n=3, max_n=5, epochs=5, seed=seed, workers=2)
    ft.build_vocab(corpus_iterable=sentences)
    ft.train(corpus_iterable=sentences, total_examples=len(sentences), epochs=5)
    vocab = tokenizer.get_vocab()
    matrix = np.random.default_rng(seed).normal(0, 0.02, (len(vocab), dim)).astype("float32")
    for token, index in vocab.items():
        word = token.replace("Ġ", "").strip().lower()
        if index < len(SPECIALS) or not word:
            continue
        vec = ft.wv.get_vector(word)
        norm = float(np.linalg.norm(vec))
        if norm > 0:
            matrix[index] = vec / norm * 0.02 * math.sqrt(dim)
    return matrix


def build_model(size: ModelSize, vocab_size: int) -> Any:
    """A randomly initialised BART encoder–decoder of the given size."""
    _torch()
    from transformers import BartConfig, BartForConditionalGeneration
    config = BartConfig(
        vocab_size=vocab_size, d_model=size.d_model, encoder_layers=size.layers, decoder_layers=size.layers,
        encoder_attention_heads=size.heads, decoder_attention_heads=size.heads, encoder_ffn_dim=size.ffn,
        decoder_ffn_dim=size.ffn, max_position_embeddings=max(size.max_source, size.max_target) + 8,
        pad_token_id=PAD, bos_token_id=BOS, eos_token_id=EOS, decoder_start_token_id=BOS,
        forced_eos_token_id=EOS, dropout=0.1, attention_dropout=0.0, scale_embedding=True,
    )
    return BartForConditionalGeneration(config)


@dataclass
class TrainReport:
    epochs: int
    steps: int
    seconds: float
    best_dev_exact: float
    losses: list[float]
    stopped_early: bool
    parameters: int
    cpu_seconds: float = 0.0  # CPU time of all threads (wall time on a shared machine includes waiting)
    threads: int = 0


class Seq2Seq:
    """Tokenizer + model, with batched beam-search generation."""

    def __init__(self, tokenizer: Any, model: Any, size: ModelSize, meta: dict[str, Any] | None = None) -> None:
        self.tokenizer = tokenizer
        self.model = model
        self.size = size
        self.meta = dict(meta or {})

    # ---- encoding ----------------------------------------------------------------------------------
    def encode_sources(self, texts: Sequence[str]) -> Any:
        torch = _torch()
        ids = [e.ids[: self.size.max_source - 1] + [EOS] for e in self.tokenizer.encode_batch(list(texts))]
        width = max(len(i) for i in ids)
        batch = torch.full((len(ids), width), PAD, dtype=torch.long)
        for row, seq in enumerate(ids):
            batch[row, : len(seq)] = torch.tensor(seq)
        return batch, (batch != PAD).long()

    def encode_targets(self, texts: Sequence[str]) -> Any:
        torch = _torch()
        ids = [[BOS] + e.ids[: self.size.max_target - 2] + [EOS] for e in self.tokenizer.encode_batch(list(texts))]
        width = max(len(i) for i in ids)
        batch = torch.full((len(ids), width), PAD, dtype=torch.long)
        for row, seq in enumerate(ids):
            batch[row, : len(seq)] = torch.tensor(seq)
        return batch

    # ---- generation --------------------------------------------------------------------------------
    def generate(self, questions: Sequence[str], *, beams: int = 4, max_new_tokens: int | None = None
                 ) -> list[list[str]]:
        """For each question, its ``beams`` best outputs (best first)."""
        torch = _torch()
        self.model.eval()
        src, mask = self.encode_sources(questions)
        with torch.inference_mode():
            out = self.model.generate(
                input_ids=src, attention_mask=mask, num_beams=beams, num_return_sequences=beams,
                max_new_tokens=max_new_tokens or self.size.max_target,
                decoder_start_token_id=BOS, eos_token_id=EOS, pad_token_id=PAD, do_sample=False)
        texts = self.tokenizer.decode_batch([[i for i in seq.tolist() if i > UNK] for seq in out],
                                            skip_special_tokens=False)
        return [texts[i * beams:(i + 1) * beams] for i in range(len(questions))]

    def beam_search(self, question: str, *, beams: int = 4, max_new_tokens: int | None = None) -> list[str]:
        """The ``beams`` best outputs for one question (best first), by length-normalised log-probability.

        A plain beam search over the decoder's key/value cache: for one short output it does the same as
        ``generate(num_beams=…)`` with a third of the wall time on this CPU (less per-step bookkeeping).
        """
        torch = _torch()
        from transformers.cache_utils import DynamicCache, EncoderDecoderCache
        self.model.eval()
        src, mask = self.encode_sources([question])
        limit = max_new_tokens or self.size.max_target
        finished: list[tuple[float, list[int]]] = []
        with torch.inference_mode():
            enc = self.encode_hidden(src, mask)
            enc, emask = enc.expand(beams, -1, -1), mask.expand(beams, -1)
            cache = EncoderDecoderCache(DynamicCache(), DynamicCache())
            seqs = torch.full((beams, 1), BOS, dtype=torch.long)
            scores = torch.full((beams,), float("-inf"))
            scores[0] = 0.0  # all beams start identical: expand only the first
            for step in range(limit):
                logits = self.next_logits(seqs[:, -1:], enc, emask, cache)
                logp = torch.log_softmax(logits, dim=-1)
                vocab = logp.size(1)
                top, index = (scores[:, None] + logp).view(-1).topk(2 * beams)
                keep_beam, keep_token, keep_score = [], [], []
                for score, ix in zip(top.tolist(), index.tolist(), strict=True):
                    b, token = divmod(ix, vocab)
                    if token == EOS:
                        finished.append((score / (step + 1), seqs[b, 1:].tolist()))
                    elif score > float("-inf"):
                        keep_beam.append(b)
                        keep_token.append(token)
                        keep_score.append(score)
                    if len(keep_beam) == beams:
                        break
                best_open = max(keep_score) / (step + 1) if keep_score else float("-inf")
                if len(finished) >= beams and max(f[0] for f in finished) >= best_open or not keep_beam:
                    break
                while len(keep_beam) < beams:  # keep the batch shape
                    keep_beam.append(keep_beam[0])
                    keep_token.append(keep_token[0])
                    keep_score.append(float("-inf"))
                order = torch.tensor(keep_beam)
                cache.reorder_cache(order)
                seqs = torch.cat([seqs[order], torch.tensor(keep_token)[:, None]], dim=1)
                scores = torch.tensor(keep_score)
        finished.sort(key=lambda f: -f[0])
        outputs = [self.tokenizer.decode([i for i in ids if i > UNK], skip_special_tokens=False)
                   for _, ids in finished[:beams]]
        return outputs or [""]

    def encode_hidden(self, src: Any, mask: Any) -> Any:
        """The encoder's last hidden states for a batch of source ids."""
        return self.model.model.encoder(input_ids=src, attention_mask=mask).last_hidden_state

    def next_logits(self, last: Any, enc: Any, emask: Any, cache: Any) -> Any:
        """Logits of the next target token after ``last`` (one token per beam), extending ``cache``."""
        model = self.model
        out = model.model.decoder(input_ids=last, encoder_hidden_states=enc, encoder_attention_mask=emask,
                                  cache=cache, use_cache=True)
        return model.lm_head(out.last_hidden_state[:, -1]) + model.final_logits_bias

    def optimiser_groups(self, lr: float) -> list[dict[str, Any]]:
        """Parameter groups for AdamW: every parameter at ``lr``."""
        return [{"params": [p for p in self.model.parameters() if p.requires_grad], "lr": lr}]

    def greedy(self, questions: Sequence[str], max_new_tokens: int | None = None) -> list[str]:
        return [b[0] for b in self.generate(questions, beams=1, max_new_tokens=max_new_tokens)]

    # ---- persistence -------------------------------------------------------------------------------
    def save(self, folder: Path, meta: dict[str, Any]) -> None:
        torch = _torch()
        folder.mkdir(parents=True, exist_ok=True)
        torch.save(self.model.state_dict(), folder / "model.pt")
        self.tokenizer.save(str(folder / "tokenizer.json"))
        (folder / "meta.json").write_text(json.dumps({**meta, "size": asdict(self.size)}, indent=2, sort_keys=True))

    def quantised(self) -> Seq2Seq:
        """A copy whose linear layers hold int8 weights (dynamic quantisation), for answering.

        Decoding one short output is bound by reading fp32 weights once per step; int8 weights are a
        quarter of that traffic and decode a query head in about half the time on this CPU, with the
        same beams on the test set (``bench/qa_bench.py`` reports both). Training stays in fp32.
        """
        import copy
        import warnings
        torch = _torch()
        with warnings.catch_warnings():  # eager-mode quantisation is deprecated in favour of torchao
            warnings.simplefilter("ignore")
            model = torch.ao.quantization.quantize_dynamic(copy.deepcopy(self.model), {torch.nn.Linear},
                                                           dtype=torch.qint8)
        return self.with_model(model, {**self.meta, "int8": True})

    def with_model(self, model: Any, meta: dict[str, Any]) -> Seq2Seq:
        """The same tokenizer(s) and size around another model (e.g. the int8 copy)."""
        return Seq2Seq(self.tokenizer, model, self.size, meta)

    def for_answering(self, allow_int8: bool) -> Seq2Seq:
        """The int8 copy when allowed and its dev-set agreement with fp32 was recorded at or above
        :data:`INT8_MIN_AGREEMENT` (see :func:`int8_agreement`); otherwise this fp32 model."""
        if allow_int8 and self.meta.get("int8_dev_agreement", 0.0) >= INT8_MIN_AGREEMENT:
            return self.quantised()
        return self

    @classmethod
    def load(cls, folder: Path) -> Seq2Seq:
        torch = _torch()
        from tokenizers import Tokenizer
        if not (folder / "model.pt").is_file():
            raise QAError(f"no trained model in {folder}; run `dkg train cypher` first")
        meta = json.loads((folder / "meta.json").read_text())
        architecture = meta.get("architecture", SCRATCH)
        if architecture != SCRATCH:
            if architecture not in LOADERS:
                raise QAError(f"the model in {folder} has architecture {architecture!r}, which this install does "
                              f"not know (known: {', '.join([SCRATCH, *LOADERS])}); retrain it with `dkg train cypher`")
            return LOADERS[architecture](folder, meta)
        size = ModelSize(**meta["size"])
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        model = build_model(size, tokenizer.get_vocab_size())
        model.load_state_dict(torch.load(folder / "model.pt", map_location="cpu"))
        model.eval()
        return cls(tokenizer, model, size, meta)


def train(pairs: Sequence[tuple[str, str]], dev: Sequence[tuple[str, str]], corpus: Sequence[str],
          folder: Path, size: ModelSize, *, max_epochs: int = 12, max_minutes: float = 12.0, batch_size: int = 32,
          lr: float = 7e-4, patience: int = 2, seed: int = 13, dev_limit: int = 300,
          on_progress: Callable[[str], None] | None = None, meta: dict[str, Any] | None = None
          ) -> tuple[Seq2Seq, TrainReport]:
    """Train on (source, target) pairs with early stopping on dev exact match; the best epoch is saved."""
    torch = _torch()
    torch.set_num_threads(torch_threads())
    say = on_progress or (lambda _m: None)
    random.seed(seed)
    torch.manual_seed(seed)
    start, cpu_start = time.perf_counter(), time.process_time()
    tokenizer = train_tokenizer([s for s, _ in pairs] + [t for _, t in pairs] + list(corpus), size.vocab,
                                folder / "tokenizer.json")
    model = build_model(size, tokenizer.get_vocab_size())
    matrix = fasttext_matrix(tokenizer, list(corpus) + [s for s, _ in pairs], size.d_model, seed)
    with torch.no_grad():
        model.get_input_embeddings().weight.copy_(torch.from_numpy(matrix))
    s2s = Seq2Seq(tokenizer, model, size)
    say(f"tokenizer {tokenizer.get_vocab_size()} tokens, fastText-initialised embeddings, "
        f"{sum(p.numel() for p in model.parameters()) / 1e6:.1f}M parameters, {len(pairs)} training pairs")
    return fit(s2s, pairs, dev, folder, start=start, cpu_start=cpu_start, max_epochs=max_epochs,
               max_minutes=max_minutes, batch_size=batch_size, lr=lr, patience=patience, seed=seed,
               dev_limit=dev_limit, on_progress=say, meta={"architecture": SCRATCH, **(meta or {})})


def fit(s2s: Seq2Seq, pairs: Sequence[tuple[str, str]], dev: Sequence[tuple[str, str]], folder: Path, *,
        start: float, cpu_start: float, max_epochs: int, max_minutes: float, batch_size: int, lr: float,
        patience: int, seed: int, dev_limit: int, on_progress: Callable[[str], None] | None, meta: dict[str, Any] | None
        ) -> tuple[Seq2Seq, TrainReport]:
    """The training loop shared by every architecture: AdamW with warm-up and linear decay, batches of similar
    length, early stopping on dev exact match; the best epoch is saved to ``folder`` and reloaded."""
    torch = _torch()
    say = on_progress or (lambda _m: None)
    random.seed(seed)
    model = s2s.model
    parameters = sum(p.numel() for p in model.parameters())
    optimiser = torch.optim.AdamW(s2s.optimiser_groups(lr), lr=lr, weight_decay=0.01)
    steps_per_epoch = math.ceil(len(pairs) / batch_size)
    total = steps_per_epoch * max_epochs
    warmup = max(1, steps_per_epoch // 2)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min(1.0, (s + 1) / warmup) * max(0.05, 1 - s / total))
    order = list(range(len(pairs)))
    best, best_loss, bad_epochs, losses, steps, stopped = -1.0, math.inf, 0, [], 0, False
    dev_sample = list(dev)[:dev_limit]
    epoch = 0
    for epoch in range(1, max_epochs + 1):
        model.train()
        random.shuffle(order)
        # batches of similar length waste less padding
        chunks = [order[i:i + batch_size * 20] for i in range(0, len(order), batch_size * 20)]
        epoch_loss, n = 0.0, 0
        out_of_time = False
        for chunk in chunks:
            if out_of_time:
                break
            chunk.sort(key=lambda i: len(pairs[i][0]))
            for b in range(0, len(chunk), batch_size):
                if (time.perf_counter() - start) / 60 > max_minutes:
                    out_of_time = True  # evaluate and keep what was learnt so far
                    break
                idx = chunk[b:b + batch_size]
                src, mask = s2s.encode_sources([pairs[i][0] for i in idx])
                tgt = s2s.encode_targets([pairs[i][1] for i in idx])
                labels = tgt[:, 1:].clone()
                labels[labels == PAD] = -100
                out = model(input_ids=src, attention_mask=mask, decoder_input_ids=tgt[:, :-1], labels=labels)
                optimiser.zero_grad()
                out.loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimiser.step()
                scheduler.step()
                steps += 1
                epoch_loss += float(out.loss.detach())
                n += 1
                if steps % 50 == 0:
                    say(f"epoch {epoch} step {steps}/{total} loss {epoch_loss / n:.4f} "
                        f"({(time.perf_counter() - start) / 60:.1f} min)")
        losses.append(epoch_loss / max(n, 1))
        exact = dev_exact(s2s, dev_sample) if dev_sample else 0.0
        say(f"epoch {epoch}: loss {losses[-1]:.4f}, dev exact match {exact:.3f}")
        # dev exact match decides; while it ties (e.g. 0 early on), the lower training loss does
        if exact > best or (exact == best and losses[-1] < best_loss):
            best, best_loss, bad_epochs = exact, losses[-1], 0
            s2s.save(folder, {**(meta or {}), "epoch": epoch, "dev_exact": exact})
        else:
            bad_epochs += 1
        if bad_epochs >= patience or exact >= 0.999:
            stopped = True
            say(f"early stop after epoch {epoch}")
            break
        if (time.perf_counter() - start) / 60 > max_minutes:
            stopped = True
            say(f"time budget of {max_minutes} min reached after epoch {epoch}")
            break
    seconds = time.perf_counter() - start
    report = TrainReport(epoch, steps, seconds, best, losses, stopped, parameters,
                         cpu_seconds=time.process_time() - cpu_start, threads=torch.get_num_threads())
    best_model = Seq2Seq.load(folder)
    meta_path = folder / "meta.json"
    saved = json.loads(meta_path.read_text())
    saved["train_report"] = asdict(report)
    saved["int8_dev_agreement"] = int8_agreement(best_model, [s for s, _ in dev_sample])
    meta_path.write_text(json.dumps(saved, indent=2, sort_keys=True))
    best_model.meta = saved
    say(f"int8 copy keeps the fp32 top beam on {saved['int8_dev_agreement']:.3f} of {len(dev_sample)} dev questions")
    return best_model, report


def int8_agreement(s2s: Seq2Seq, questions: Sequence[str]) -> float:
    """Share of questions whose top beam from the int8 copy equals the fp32 model's."""
    if not questions:
        return 0.0
    use_answer_threads()
    int8 = s2s.quantised()
    same = sum(s2s.beam_search(q)[0] == int8.beam_search(q)[0] for q in questions)
    return same / len(questions)


def record_int8_agreement(folder: Path, questions: Sequence[str]) -> float:
    """Measure :func:`int8_agreement` for a saved model that predates it, and store it in its meta.json."""
    meta_path = folder / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["int8_dev_agreement"] = int8_agreement(Seq2Seq.load(folder), questions)
    meta_path.write_text(json.dumps(meta, indent=2, sort_keys=True))
    return meta["int8_dev_agreement"]


def dev_exact(s2s: Seq2Seq, dev: Sequence[tuple[str, str]], batch: int = 64) -> float:
    """Share of dev pairs whose greedy output equals the target exactly."""
    hits = 0
    for i in range(0, len(dev), batch):
        part = dev[i:i + batch]
        outs = s2s.greedy([s for s, _ in part])
        hits += sum(o.strip() == t.strip() for o, (_, t) in zip(outs, part, strict=True))
    return hits / max(len(dev), 1)
