"""Builds parts from :class:`~memdesk.settings.Settings`: the only place that reads settings."""

from __future__ import annotations

from .conversation.admission import AdmissionPolicy
from .conversation.base import Answerer, Processor, RoutedExtraction
from .conversation.memory import Memory
from .errors import ConfigError
from .settings import Settings


def build_processor(settings: Settings, chat_model=None) -> Processor:
    if settings.processor == "rules":
        from .conversation.extract import RuleExtractor
        from .conversation.router import RuleRouter

        if settings.extractor_views == "compact":
            return RoutedExtraction(RuleRouter(), RuleExtractor(context_views="none", turn_views=False))
        return RoutedExtraction(RuleRouter(), RuleExtractor())
    if settings.processor == "raw":
        from .conversation.raw import RawTurnProcessor

        return RawTurnProcessor()
    if settings.processor == "llm":
        if chat_model is None:
            raise ConfigError("processor 'llm' needs MEMDESK_LLM_BASE_URL and MEMDESK_LLM_MODEL")
        from .conversation.llm_processor import LLMProcessor

        return LLMProcessor(chat_model)
    raise ConfigError(f"unknown processor {settings.processor!r}")


def build_admission(settings: Settings) -> AdmissionPolicy:
    if settings.admission == "off":
        return AdmissionPolicy.off()
    return AdmissionPolicy(memorize_roles=frozenset(settings.admission_roles))


def build_answerer(chat_model=None) -> Answerer:
    from .conversation.answer import ExtractiveAnswerer, LLMAnswerer

    return LLMAnswerer(chat_model) if chat_model is not None else ExtractiveAnswerer()


def build_memory(settings: Settings) -> Memory:
    from .embed import make_embedder
    from .llm import make_chat_model
    from .retrieve import Retriever
    from .store import open_store

    chat_model = make_chat_model(settings)
    store = open_store(settings.database_url, busy_timeout_ms=settings.busy_timeout_ms, cache_max_rows=settings.cache_max_rows)
    try:
        return Memory(
            store,
            make_embedder(settings),
            build_processor(settings, chat_model),
            answerer=build_answerer(chat_model),
            admission=build_admission(settings),
            retriever=Retriever(store, k=settings.top_k, K=settings.max_records, hybrid=settings.hybrid),
        )
    except BaseException:
        store.close()
        raise
