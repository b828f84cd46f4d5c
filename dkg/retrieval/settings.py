"""Settings of the retrieval stage (environment prefix ``DKG_RETRIEVAL_``), kept apart from the platform's
:class:`dkg.config.Settings` so the retriever can be tuned without touching the shared settings."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from dkg.config import PROJECT_ROOT
from dkg.settings_loader import GroupSettings, build_settings


def _default_medquad_dir() -> Path:
    return PROJECT_ROOT / "datasets" / "medquad-cancergov"


class RetrievalSettings(GroupSettings):
    """Validated retrieval settings (GRAG parameters, data locations): ``DKG_RETRIEVAL_*``, or ``[retrieval]`` in
    dkg.toml."""

    model_config = SettingsConfigDict(env_prefix="DKG_RETRIEVAL_", extra="ignore", validate_default=True)
    toml_group = "retrieval"

    medquad_dir: Path = Field(default_factory=_default_medquad_dir,
                              description="Folder holding the MedQuAD CancerGov qa.jsonl")
    alpha: float = Field(default=0.6, ge=0.0, le=1.0, description="Weight of the node's own similarity")
    lam: float = Field(default=0.75, gt=0.0, le=1.0, description="Decay per hop of the subgraph term")
    hops: int = Field(default=2, ge=0, le=3, description="Neighbourhood radius h")
    seeds: int = Field(default=20, ge=1, le=200, description="Seed nodes taken from the vector index")
    top_k: int = Field(default=10, ge=1, le=100)
    intent_weight: float = Field(default=0.2, ge=0.0, le=1.0,
                                 description="β of the query-intent term (dkg/retrieval/intent.py); 0 = off")
    understanding: bool = Field(default=True, description="Read the question through the clinical-language "
                                "lexicon (dkg/lexicon): expansions, disease resolution, sub-queries")
    disease_weight: float = Field(default=0.2, ge=0.0, le=1.0,
                                  description="γ: boost of the nodes of the diseases a question names")
    hybrid_lexical_weight: float = Field(default=1.0, ge=0.0, le=1.0,
                                         description="Weight of the BM25 ranking in the hybrid's rank fusion "
                                                     "(GRAG's is 1)")
    model: str = Field(default="minilm", pattern="^(minilm|lsa|fasttext)$", description="Embedding used for retrieval")
    min_answer_score: float = Field(default=0.2, ge=-1.0, le=1.0,
                                    description="An answer needs a top result scoring at least this; below it "
                                                "the question is treated as unrelated to the graph (no answer)")
    max_query_chars: int = Field(default=2000, ge=10)
    embed_batch: int = Field(default=32, ge=1)


def load_retrieval_settings(**overrides: object) -> RetrievalSettings:
    """Retrieval settings from the environment and dkg.toml, or a :class:`ConfigError` naming each bad field."""
    return build_settings(RetrievalSettings, "retrieval settings", overrides)
