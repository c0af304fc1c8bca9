"""The reasoning bank: solved examples in a Store collection, with their manifest and rejected items.

A bank named ``NAME`` lives in any :class:`~memdesk.store.base.Store`: the vector collection
``NAME`` (one item per :class:`~.solved_examples.SolvedExample`: id, JSON payload, unit vector and
the text it embeds, searched by the store's own exact cosine index, or by an approximate
:class:`~memdesk.store.ivf.IVFIndex` built from it with :meth:`MemoryBank.ivf_index`), and two
vector-free document sets: ``NAME::meta`` (the :class:`BankManifest`) and ``NAME::rejected``
(generated traces that failed verification, so a resumed build does not pay for them again).
:class:`~.bank_builder.BankBuilder` fills it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from datetime import datetime

import numpy as np
from pydantic import BaseModel, Field

from ..errors import EmptyInputError, InvalidInputError
from ..llm.base import Usage
from ..records import Scope, utcnow
from ..store.base import Store
from ..store.ivf import DEFAULT_ITERATIONS, IVFIndex
from .datasets import AnswerKind
from .solved_examples import EmbeddingKind, MemoryFormat, RetrievedMemory, SolvedExample

logger = logging.getLogger(__name__)

_META_ID = "manifest"


# --- the stored bank -----------------------------------------------------------------------------
class BankManifest(BaseModel):
    """What a bank was built from and with; kept in the ``NAME::meta`` collection."""

    name: str
    benchmark: str
    embedding_model: str
    embedding_dim: int
    embedding_kind: EmbeddingKind
    formats: list[MemoryFormat]
    answer_kind: AnswerKind | None = Field(
        default=None, description="How added solutions are checked (None: the benchmark's own answer kind)."
    )
    owner: Scope | None = Field(
        default=None, description="The tenant scope the bank belongs to (banks made through the API); None: unowned."
    )
    tag_model: str | None = None
    trace_model: str | None = None
    format_model: str | None = None
    eval_items_checked: int = 0
    dropped_overlap: list[str] = Field(default_factory=list)
    usage: dict[str, Usage] = Field(default_factory=dict, description="Cost account per operation, all runs.")
    build_seconds: float = 0.0
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class MemoryBank:
    """A bank of :class:`SolvedExample` in a store's vector collection, searched by its cosine index."""

    def __init__(self, store: Store, name: str) -> None:
        if not name or "::" in name:
            raise InvalidInputError(f"invalid bank name {name!r} (non-empty, without '::')")
        self.store = store
        self.name = name
        self.items = store.collection(name)

    @property
    def meta_collection(self) -> str:
        return f"{self.name}::meta"

    @property
    def rejected_collection(self) -> str:
        return f"{self.name}::rejected"

    def tables(self) -> list[str]:
        """The names of everything the bank keeps in the store: its collection and its two document sets."""
        return [self.name, self.meta_collection, self.rejected_collection]

    # manifest --------------------------------------------------------------------------------
    def manifest(self) -> BankManifest | None:
        rows = self.store.documents(self.meta_collection).get([_META_ID])
        return BankManifest.model_validate_json(rows[0][1]) if rows else None

    def write_manifest(self, manifest: BankManifest) -> None:
        manifest.updated_at = utcnow()
        self.store.documents(self.meta_collection).put([_META_ID], [manifest.model_dump_json()])

    # entries ---------------------------------------------------------------------------------
    def add(self, examples: Sequence[SolvedExample], vectors: np.ndarray) -> None:
        """Insert (or replace) entries with their vectors, atomically."""
        if len(examples) != len(vectors):
            raise InvalidInputError("one vector per example is required")
        self.items.put(
            [e.id for e in examples], [e.model_dump_json() for e in examples], vectors, [e.embedding_text for e in examples]
        )

    def count(self) -> int:
        return self.items.count()

    def ids(self) -> set[str]:
        return {i for i, _ in self.items.get()}

    def get(self, ids: Sequence[str]) -> list[SolvedExample]:
        return [SolvedExample.model_validate_json(p) for _, p in self.items.get(list(ids))]

    def all(self) -> list[SolvedExample]:
        """Every entry in insertion order."""
        return [SolvedExample.model_validate_json(p) for _, p in self.items.get()]

    def search(self, vector: np.ndarray, k: int) -> list[RetrievedMemory]:
        """The ``k`` entries nearest ``vector`` by cosine, best first."""
        return retrieved_memories(self.items.search(vector, k))

    def search_ids(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        """(id, score) of the ``k`` nearest entries, best first, without decoding payloads."""
        return [(i, float(s)) for i, _, s in self.items.search(vector, k)]

    def ivf_index(self, nlist: int | None = None, seed: int = 0, *, iterations: int = DEFAULT_ITERATIONS) -> IVFIndex:
        """An approximate :class:`~memdesk.store.ivf.IVFIndex` over the bank's current entries.

        A snapshot: entries added later are not in it (build it again). ``nlist`` defaults to about
        sqrt(entries). Raises EmptyInputError for an empty bank.
        """
        ids, payloads, matrix = self.items.export()
        if not ids:
            raise EmptyInputError(f"bank {self.name!r} has no entries to index")
        index = IVFIndex(ids, payloads, matrix, nlist=nlist, seed=seed, iterations=iterations)
        logger.info("IVF index of bank %s: %d entries in %d lists (%.2f s)", self.name, len(index), index.nlist, index.build_seconds)
        return index

    # rejected traces ---------------------------------------------------------------------------
    def rejected_ids(self) -> set[str]:
        return {i for i, _ in self.store.documents(self.rejected_collection).get()}

    def add_rejected(self, items: Sequence[tuple[str, str]]) -> None:
        """Remember (id, reason) of items whose generated trace failed verification."""
        if items:
            self.store.documents(self.rejected_collection).put(
                [i for i, _ in items], [json.dumps({"reason": r}) for _, r in items]
            )


def retrieved_memories(hits: Iterable[tuple[str, str, float]]) -> list[RetrievedMemory]:
    """(id, payload JSON, score) hits, best first, as ranked :class:`RetrievedMemory` s.

    Shared by exact search (the bank collection's ``search``) and :class:`~memdesk.store.ivf.IVFIndex`
    hits (a ``Hit`` is such a tuple).
    """
    return [
        RetrievedMemory(example=SolvedExample.model_validate_json(p), score=float(s), rank=r)
        for r, (_, p, s) in enumerate(hits)
    ]
