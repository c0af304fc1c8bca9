"""Builds the parts of a :class:`~memdesk.conversation.memory.Memory` from :class:`~memdesk.settings.Settings`
(``Memory.open`` and ``build_memory`` assemble them).

Settings are loaded by the entry points (``Memory.open()``, the command line) and turned into parts
here and by the two builders of the parts with their own options (``embed.make_embedder``,
``llm.make_chat_model``); the library reads no settings anywhere else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from .conversation.admission import AdmissionPolicy
from .conversation.base import Answerer, Processor, RoutedExtraction
from .errors import ConfigError
from .settings import Settings

if TYPE_CHECKING:
    from .embed.base import Embedder
    from .llm.base import ChatModel
    from .reasoning.service import ReasoningBanks
    from .retrieval.retrieve import Retriever, Serializer
    from .store.base import Store


def build_processor(settings: Settings, chat_model: ChatModel | None = None) -> Processor:
    """The write path's processor: rules (offline), llm (needs ``chat_model``) or raw turns."""
    if settings.processor == "rules":
        from .conversation.extract import RuleExtractor
        from .conversation.router import RuleRouter

        from .conversation.filler import FillerTest

        filler = FillerTest.packaged()  # one learned small-talk test for the router and the extractor
        if settings.extractor_views == "compact":
            return RoutedExtraction(RuleRouter(filler=filler), RuleExtractor(context_views="none", turn_views=False, filler=filler))
        return RoutedExtraction(RuleRouter(filler=filler), RuleExtractor(filler=filler))
    if settings.processor == "raw":
        from .conversation.raw import RawTurnProcessor

        return RawTurnProcessor()
    if settings.processor == "llm":
        if chat_model is None:
            raise ConfigError("processor 'llm' needs MEMDESK_LLM_BASE_URL and MEMDESK_LLM_MODEL")
        from .conversation.llm_processor import LLMProcessor

        from .conversation.filler import FillerTest

        return LLMProcessor(
            chat_model, batch_size=settings.llm_batch_size, known_facts=settings.llm_known_facts, filler=FillerTest.packaged()
        )
    raise ConfigError(f"unknown processor {settings.processor!r}")


def build_admission(settings: Settings) -> AdmissionPolicy:
    """What becomes memory, by role and source (see :mod:`memdesk.conversation.admission`)."""
    if settings.admission == "off":
        return AdmissionPolicy.off()
    return AdmissionPolicy(memorize_roles=frozenset(settings.admission_roles))


def build_answerer(chat_model: ChatModel | None = None) -> Answerer:
    """An LLM answerer with a chat model, the extractive one without."""
    from .conversation.answer import ExtractiveAnswerer, LLMAnswerer

    return LLMAnswerer(chat_model) if chat_model is not None else ExtractiveAnswerer()


def build_serializer(settings: Settings) -> Serializer:
    """The evidence block's format: anchor-grouped for the fused read path, one anchor per line for engram."""
    from .retrieval.retrieve import Serializer

    return Serializer(group_by_anchor=settings.retrieval == "fused")


def build_retriever(settings: Settings, store: Store, embedder_id: str | None = None) -> Retriever:
    """The read path the settings name: ``fused`` (the default: dense + stemmed BM25 score fusion,
    per-type calibration, a token budget priced in :func:`build_serializer`'s block) or ``engram``
    (the paper's k, K and optional hybrid). ``embedder_id`` (the embedder's ``model_id``) picks the
    fused path's per-embedder parameters (:mod:`memdesk.retrieval.profiles`)."""
    from .retrieval.profiles import read_profile
    from .retrieval.retrieve import Retriever

    if settings.retrieval == "fused":
        profile = read_profile(embedder_id)
        return Retriever.fused(
            store, k=settings.top_k or 60, K=settings.max_records or 100, token_budget=settings.token_budget,
            serializer=build_serializer(settings), person_weight=settings.person_weight,
            time_weight=settings.time_weight, lexical_weight=profile.lexical_weight, type_prior=profile.type_prior,
            redundancy_penalty=profile.redundancy_penalty,
        )
    return Retriever(store, k=settings.top_k or 20, K=settings.max_records or 25, hybrid=settings.hybrid)


def memory_parts(
    settings: Settings,
    *,
    store: Store | None = None,
    embedder: Embedder | None = None,
    chat_model: ChatModel | None = None,
) -> tuple[dict[str, Any], bool]:
    """The constructor arguments of the Memory the settings describe, and whether its store was opened here
    (so the caller closes it if building the Memory fails).

    ``store``, ``embedder`` and ``chat_model`` replace the ones the settings would build (the
    evaluation harness passes its own store and caching embedder, so its ``memdesk-default`` system is
    this very Memory); a store passed in is left open if building fails.
    """
    from .embed import make_embedder
    from .llm import make_chat_model
    from .conversation.quota import StorageQuota
    from .store import open_store

    if chat_model is None:
        chat_model = make_chat_model(settings)
    owned = store is None
    if store is None:
        store = open_store(
            settings.database_url,
            busy_timeout_ms=settings.busy_timeout_ms,
            cache_max_rows=settings.cache_max_rows,
            ann_min_rows=settings.ann_min_rows or None,
            ann_ef_search=settings.ann_ef_search,
            ann_ef_construction=settings.ann_ef_construction,
        )
    try:
        if embedder is None:
            embedder = make_embedder(settings)
        parts = dict(
            store=store,
            embedder=embedder,
            processor=build_processor(settings, chat_model),
            answerer=build_answerer(chat_model),
            admission=build_admission(settings),
            serializer=build_serializer(settings),
            retriever=build_retriever(settings, store, embedder.model_id),
            max_message_chars=settings.max_message_chars,
            max_pending=settings.max_pending_messages,
            quota=StorageQuota(max_records=settings.quota_records, max_bytes=settings.quota_bytes),
        )
    except BaseException:
        if owned:
            store.close()
        raise
    return parts, owned


class HasStore(Protocol):
    """What the banks take from a Memory: its store and embedder."""

    store: Store
    embedder: Embedder


def build_banks(settings: Settings, memory: HasStore) -> "ReasoningBanks":
    """The reasoning banks a server serves: in the memory's store, embedded by its embedder, solved (and, for a
    tag-embedded bank without given tags, tagged) by the configured chat model, if any."""
    from .llm import make_chat_model
    from .reasoning.service import ReasoningBanks

    return ReasoningBanks(memory.store, memory.embedder, chat=make_chat_model(settings))
