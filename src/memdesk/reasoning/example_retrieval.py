"""Retrieving memories for a query: by embedding (tags or problem text) or by BM25.

:class:`VectorRetriever` is MAC's retriever: represent the query the way the bank was built (LLM
tags from the question alone, or the question text offline), embed it with the bank's embedder,
and take the store's exact cosine top-k (best first), or, given an :class:`~memdesk.store.ivf.IVFIndex`
of the bank, its approximate top-k (probing ``nprobe`` clusters). :class:`BM25Retriever` is the lexical
alternative of the paper's retriever ablation (Okapi BM25 over the problems, on
:class:`memdesk.retrieval.lexical.BM25Index`).
Both report their own timings (T_tag, T_emb, T_search).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, Field

from ..embed.base import Embedder
from ..errors import ConfigError, EmptyInputError, InvalidInputError, UsageError
from ..retrieval.lexical import BM25Index
from ..llm.base import Usage
from ..store.ivf import IVFIndex
from .bank import MemoryBank, retrieved_memories
from .solved_examples import EmbeddingKind, RetrievedMemory, SolvedExample, Tags
from .tags import Representation


class RetrievalTimings(BaseModel):
    """Seconds spent on the query side of retrieval."""

    t_tag_s: float = 0.0
    t_emb_s: float = 0.0
    t_search_s: float = 0.0

    @property
    def total_s(self) -> float:
        return self.t_tag_s + self.t_emb_s + self.t_search_s


class Retrieval(BaseModel):
    """The memories retrieved for one query (best first) and how they were found."""

    memories: list[RetrievedMemory]
    query_text: str = Field(description="What was embedded or matched for the query.")
    query_tags: Tags | None = None
    timings: RetrievalTimings
    usage: Usage = Usage()
    retriever: str


def _check_query(question: str, k: int) -> None:
    if not question.strip():
        raise EmptyInputError("the question is empty")
    if k < 1:
        raise InvalidInputError("k must be >= 1")


@runtime_checkable
class ExampleRetriever(Protocol):
    """Finds solved examples for a query (``memdesk.Retriever`` is the conversational one)."""

    name: str

    def retrieve(self, question: str, k: int) -> Retrieval:
        """The top-``k`` memories for ``question``, in descending score."""
        ...


class VectorRetriever:
    """Cosine top-k over the bank's vectors, with the query represented like the bank entries.

    Exact search through the store by default. With ``index`` (from :meth:`MemoryBank.ivf_index`),
    search goes through that approximate index instead, probing ``nprobe`` of its clusters; the
    name then reads ``vector:<kind>:ivf<nlist>/<nprobe>``.

    Raises :class:`UsageError` when the representation or embedder differs from the bank's
    (e.g. tag queries against an offline problem-embedded bank) or the index's dimension differs
    from the embedder's, ConfigError for ``nprobe < 1``.
    """

    def __init__(
        self,
        bank: MemoryBank,
        embedder: Embedder,
        representation: Representation,
        *,
        index: IVFIndex | None = None,
        nprobe: int = 8,
    ) -> None:
        manifest = bank.manifest()
        if manifest is None:
            raise UsageError(f"bank {bank.name!r} is empty or was not built (run `memdesk bank build`)")
        if manifest.embedding_kind is not representation.kind:
            raise UsageError(
                f"bank {bank.name!r} embeds {manifest.embedding_kind.value} but the query representation is "
                f"{representation.kind.value}: use the same representation on both sides"
            )
        if manifest.embedding_model != embedder.model_id:
            raise UsageError(
                f"bank {bank.name!r} was embedded with {manifest.embedding_model}, not {embedder.model_id}"
            )
        if isinstance(nprobe, bool) or not isinstance(nprobe, int) or nprobe < 1:
            raise ConfigError(f"nprobe must be an integer >= 1, got {nprobe!r}")
        if index is not None and index.dim != embedder.dim:
            raise UsageError(f"the IVF index has dimension {index.dim} but the embedder {embedder.model_id} has {embedder.dim}")
        self.bank = bank
        self.embedder = embedder
        self.representation = representation
        self.index = index
        self.nprobe = nprobe
        self.name = f"vector:{representation.kind.value}"
        if index is not None:
            self.name += f":ivf{index.nlist}/{nprobe}"

    def warm(self) -> None:
        """Load the embedder and the store's in-memory index (one-time costs, not per-query latency)."""
        vector = self.embedder.embed(["warm-up"])[0]
        if self.index is not None:
            self.index.search(vector, 1, self.nprobe)
        else:
            self.bank.search_ids(vector, 1)

    def search(self, vector: np.ndarray, k: int) -> list[RetrievedMemory]:
        """The ``k`` memories nearest an already embedded query, best first (exact, or through the index)."""
        if self.index is None:
            return self.bank.search(vector, k)
        return retrieved_memories(self.index.search(vector, k, self.nprobe))

    def retrieve(self, question: str, k: int) -> Retrieval:
        _check_query(question, k)
        t0 = time.perf_counter()
        rep = self.representation.query_text(question)
        t1 = time.perf_counter()
        vector = self.embedder.embed([rep.text])[0]
        t2 = time.perf_counter()
        memories = self.search(vector, k)
        t3 = time.perf_counter()
        return Retrieval(
            memories=memories,
            query_text=rep.text,
            query_tags=rep.tags,
            timings=RetrievalTimings(
                t_tag_s=(t1 - t0) if self.representation.kind is EmbeddingKind.TAGS else 0.0,
                t_emb_s=t2 - t1,
                t_search_s=t3 - t2,
            ),
            usage=rep.usage,
            retriever=self.name,
        )


_TOKEN = re.compile(r"\\[a-zA-Z]+|[a-zA-Z]+|\d+(?:\.\d+)?")


def bm25_tokens(text: str) -> list[str]:
    """Lower-cased words, numbers and LaTeX command names."""
    return [t.lower() for t in _TOKEN.findall(text)]


class BM25Retriever:
    """Okapi BM25 over the bank's problem texts (the paper's lexical retriever), on memdesk's one
    BM25 index (:class:`memdesk.retrieval.lexical.BM25Index`) with :func:`bm25_tokens` as its tokenizer."""

    def __init__(self, examples: Sequence[SolvedExample], *, k1: float = 1.5, b: float = 0.75) -> None:
        if not examples:
            raise UsageError("BM25Retriever needs a non-empty bank")
        self.examples = list(examples)
        self._index = BM25Index([e.problem for e in self.examples], k1=k1, b=b, tokenizer=bm25_tokens)
        self.name = "bm25"

    @classmethod
    def from_bank(cls, bank: MemoryBank, **kwargs: float) -> BM25Retriever:
        return cls(bank.all(), **kwargs)

    def warm(self) -> None:
        """Nothing to load: the index is built in the constructor."""

    def scores(self, question: str) -> np.ndarray:
        """The BM25 score of every bank example for ``question``."""
        return self._index.scores(question)

    def retrieve(self, question: str, k: int) -> Retrieval:
        _check_query(question, k)
        t0 = time.perf_counter()
        scores = self.scores(question)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        order = sorted(top.tolist(), key=lambda i: (-scores[i], self.examples[i].id))
        t1 = time.perf_counter()
        memories = [RetrievedMemory(example=self.examples[i], score=float(scores[i]), rank=r) for r, i in enumerate(order)]
        return Retrieval(
            memories=memories,
            query_text=question,
            timings=RetrievalTimings(t_search_s=t1 - t0),
            retriever=self.name,
        )
