"""MAC reasoning memory: a bank of verified solved examples, retrieved by reasoning tags (or, offline,
by problem text) and injected before the query under compressed chain-of-thought methods.

Offline stage: :class:`BankBuilder` (traces, formats, tags, embeddings) into a :class:`MemoryBank`
(a collection of any :class:`~memdesk.store.base.Store`). Online stage: a :class:`VectorRetriever`
or :class:`BM25Retriever`, :func:`build_messages` with the memory block before the query, and
:func:`score_answer`. :class:`ReasoningHarness` runs benchmarks and sweeps. :class:`ReasoningBanks` is the face
the HTTP API, the MCP tools and ``RemoteMemory`` share: a tenant's banks, grown from verified solutions.
"""

from __future__ import annotations

from .bank import BankManifest, MemoryBank
from .bank_builder import BankBuilder, BuildConfig, BuildReport
from .overlap import check_disjoint, find_overlap
from .datasets import (
    BENCHMARK_NAMES,
    AnswerKind,
    Benchmark,
    Problem,
    get_benchmark,
)
from .harness import (
    ItemResult,
    ReasoningHarness,
    RetrievalQuality,
    RunSummary,
)
from .latency import LatencyBreakdown
from .methods import Method, PromptSpec, build_messages, serialize_memories
from .sweeps import EvalConfig, sweep_configs
from .solved_examples import (
    Complexity,
    EmbeddingKind,
    MemoryFormat,
    Provenance,
    RetrievedMemory,
    SolvedExample,
    Tags,
    TraceSource,
)
from .example_retrieval import BM25Retriever, ExampleRetriever, Retrieval, VectorRetriever
from .service import ReasoningBanks
from .service_models import AddedExamples, BankInfo, ExampleRetrieval, NewExample, RetrievedExample, Solution
from .scoring import ScoredAnswer, last_boxed, math_equal, score_answer
from .tags import GivenTags, LLMTagger, ProblemRepresentation, Representation, TagRepresentation

__all__ = [
    "Solution",
    "RetrievedExample",
    "ReasoningBanks",
    "NewExample",
    "GivenTags",
    "ExampleRetrieval",
    "BankInfo",
    "AddedExamples",
    "BENCHMARK_NAMES",
    "AnswerKind",
    "BM25Retriever",
    "BankBuilder",
    "BankManifest",
    "Benchmark",
    "BuildConfig",
    "BuildReport",
    "Complexity",
    "EmbeddingKind",
    "EvalConfig",
    "ExampleRetriever",
    "ItemResult",
    "LLMTagger",
    "LatencyBreakdown",
    "MemoryBank",
    "MemoryFormat",
    "Method",
    "Problem",
    "ProblemRepresentation",
    "PromptSpec",
    "Provenance",
    "ReasoningHarness",
    "Representation",
    "Retrieval",
    "RetrievalQuality",
    "RetrievedMemory",
    "RunSummary",
    "ScoredAnswer",
    "SolvedExample",
    "TagRepresentation",
    "Tags",
    "TraceSource",
    "VectorRetriever",
    "build_messages",
    "check_disjoint",
    "find_overlap",
    "get_benchmark",
    "last_boxed",
    "math_equal",
    "score_answer",
    "serialize_memories",
    "sweep_configs",
]
