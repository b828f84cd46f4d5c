"""The answering engine behind ``/api/ask``: the hybrid route with the text-to-Cypher model and the retriever
loaded once, an answer cache keyed by the normalised question and the graph snapshot, identical concurrent
questions answered once, and uncached questions run on a worker pool sized to the CPU cores."""

from __future__ import annotations

import asyncio
import hashlib
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from dkg.answering import Answerer, GragAnswerer, HybridResult, route_answer
from dkg.answers import Answer
from dkg.graph.db import Graph, named_queries

_SPACE = re.compile(r"\s+")


def normalise_question(question: str) -> str:
    """The cache identity of a question: case-folded, whitespace collapsed, trailing punctuation dropped.

    >>> normalise_question("  What is   blinatumomab used for?? ")
    'what is blinatumomab used for'
    """
    return _SPACE.sub(" ", question).strip().rstrip("?!. ").casefold()


class AnswerCache:
    """A thread-safe LRU of answers, or of their rendered responses (0 entries = no caching)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple[Any, ...]) -> Any | None:
        with self._lock:
            value = self._items.get(key)
            if value is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key: tuple[Any, ...], value: Any) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


@dataclass
class AskOutcome:
    result: HybridResult
    cached: bool
    snapshot: str


@dataclass
class Engine:
    """Answers questions over one graph with preloaded models (see the module docstring)."""

    graph: Graph
    retriever: Any | None
    retriever_problem: str | None
    service: Answerer | None
    service_problem: str | None
    workers: int
    cache_size: int
    snapshot_ttl_s: float = 2.0
    cache: AnswerCache = field(init=False)
    rendered: AnswerCache = field(init=False)
    _pool: ThreadPoolExecutor = field(init=False)
    _inflight: dict[tuple[Any, ...], Future[HybridResult]] = field(default_factory=dict, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _snapshot: tuple[float, str] = (0.0, "")

    def __post_init__(self) -> None:
        self.cache = AnswerCache(self.cache_size)
        # the finished JSON of a cached answer, per exact question text: a hit skips model validation and encoding
        self.rendered = AnswerCache(self.cache_size)
        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="dkg-answer")
        self._q = named_queries("api")

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    # ---- graph snapshot ----------------------------------------------------------------------------------
    def read_snapshot(self) -> str:
        """A short hash of what answers depend on: the loaded guideline versions and the curation changes."""
        row = self.graph.read(self._q["snapshot"])[0]
        return hashlib.sha1(repr(sorted(row.items())).encode()).hexdigest()[:12]

    def snapshot(self, force: bool = False) -> str:
        at, value = self._snapshot
        if force or not value or time.monotonic() - at > self.snapshot_ttl_s:
            value = self.read_snapshot()
            self._snapshot = (time.monotonic(), value)
        return value

    def fresh_snapshot(self) -> str | None:
        """The snapshot if it was read within the TTL (no I/O), else None."""
        at, value = self._snapshot
        return value if value and time.monotonic() - at <= self.snapshot_ttl_s else None

    async def current_snapshot(self) -> str:
        fresh = self.fresh_snapshot()
        if fresh is not None:
            return fresh
        return await asyncio.to_thread(self.snapshot)

    def invalidate(self) -> None:
        """Re-read the snapshot now (after this process changed the graph)."""
        self.snapshot(force=True)

    # ---- answering ---------------------------------------------------------------------------------------
    def grag(self, question: str, k: int) -> Answer:
        if self.retriever is None:
            from dkg.api.errors import NotReadyError
            raise NotReadyError(f"the retriever is not loaded ({self.retriever_problem})")
        return self.retriever.answer(question, k)  # type: ignore[no-any-return]

    def answer_now(self, question: str, k: int, explain: bool) -> HybridResult:
        """Answer without the cache (runs in the caller's thread)."""
        return route_answer(question, self.service, GragAnswerer(self.grag, k), explain=explain,
                            text_to_cypher_problem=self.service_problem)

    async def ask(self, question: str, k: int = 5, explain: bool = False) -> AskOutcome:
        """The (cached) hybrid answer; identical questions in flight are computed once."""
        snapshot = await self.current_snapshot()
        key = (normalise_question(question), k, explain, snapshot)
        hit = self.cache.get(key)
        if hit is not None:
            return AskOutcome(self._for(hit, question), True, snapshot)
        future, joined = self._join_or_submit(key, question, k, explain)
        result = await asyncio.wrap_future(future)
        return AskOutcome(self._for(result, question), joined, snapshot)

    def _join_or_submit(self, key: tuple[Any, ...], question: str, k: int, explain: bool
                        ) -> tuple[Future[HybridResult], bool]:
        """The future answering ``key``: the one in flight (joined = True), else a new one on the pool.

        Nothing is called out while the lock is held: a future that has already finished runs its done
        callback at once in the registering thread, and that callback takes the same lock."""
        with self._lock:
            future = self._inflight.get(key)
            if future is not None:
                return future, True
            future = self._pool.submit(self.answer_now, question, k, explain)
            self._inflight[key] = future
        future.add_done_callback(lambda f: self._finish(key, f))
        return future, False

    def _finish(self, key: tuple[Any, ...], future: Future[HybridResult]) -> None:
        with self._lock:
            if self._inflight.get(key) is future:
                del self._inflight[key]
        if not future.cancelled() and future.exception() is None:
            self.cache.put(key, future.result())

    @staticmethod
    def _for(result: HybridResult, question: str) -> HybridResult:
        if result.answer.question == question:
            return result
        return HybridResult(result.answer.model_copy(update={"question": question}), result.cypher_answer,
                            result.grag_answer, result.notes)

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run CPU-heavy work (retrieval, pooling) on the worker pool."""
        return await asyncio.wrap_future(self._pool.submit(fn, *args))
