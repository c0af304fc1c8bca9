"""memdesk's LLM layer: the ChatModel seam, one OpenAI-compatible client (streaming with time to
first token when asked, server-side timings when the server gives them), a scripted fake, usage.

``make_chat_model(settings)`` builds the configured client (or None when no endpoint is configured,
in which case memdesk runs its offline rules). The ``openai`` SDK is imported only when a client is
built, so ``import memdesk.llm`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import ChatMessage, ChatModel, Completion, Usage
from .batch import ChatRequest, run_many
from .fake import ScriptedCall, ScriptedChatModel, ScriptedReply
from .guard import ALLOW_ENV, model_requests_allowed
from .server_timings import ServerTimings, VLLMMetricsProbe
from .templates import PromptTemplate, load_prompt
from .usage import OPERATIONS, ModelPrice, PriceTable, TokenEstimator, UsageLedger

if TYPE_CHECKING:
    import httpx2

    from ..settings import Settings
    from .openai_compat import OpenAICompatChatModel
    from .server_timings import MetricsProbe

__all__ = [
    "ALLOW_ENV",
    "OPERATIONS",
    "ChatMessage",
    "ChatModel",
    "ChatRequest",
    "Completion",
    "ModelPrice",
    "OpenAICompatChatModel",
    "PriceTable",
    "PromptTemplate",
    "ScriptedCall",
    "ScriptedChatModel",
    "ScriptedReply",
    "ServerTimings",
    "TokenEstimator",
    "Usage",
    "UsageLedger",
    "VLLMMetricsProbe",
    "load_prompt",
    "make_chat_model",
    "model_requests_allowed",
    "run_many",
]


def make_chat_model(
    settings: "Settings",
    *,
    ledger: UsageLedger | None = None,
    http_client: "httpx2.Client | None" = None,
    price_table: PriceTable | None = None,
    supports_json_schema: bool | None = None,
    stream: bool = False,
    metrics_probe: "MetricsProbe | None" = None,
    max_retries: int | None = None,
) -> "OpenAICompatChatModel | None":
    """The chat model the settings describe, or None when ``llm_base_url`` or ``llm_model`` is unset.

    Both must be set, also for OpenAI itself (``MEMDESK_LLM_BASE_URL=https://api.openai.com/v1``), so
    that no configuration silently sends data to a hosted API. ``stream``, ``metrics_probe`` and
    ``max_retries`` (default the setting) are the latency probe's options (see
    :class:`~memdesk.llm.openai_compat.OpenAICompatChatModel`).
    """
    if not settings.llm_base_url or not settings.llm_model:
        return None
    from .openai_compat import OpenAICompatChatModel

    key = settings.llm_api_key.get_secret_value() if settings.llm_api_key is not None else None
    return OpenAICompatChatModel(
        settings.llm_model,
        settings.llm_base_url,
        key or None,
        http_client=http_client,
        timeout_s=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries if max_retries is None else max_retries,
        concurrency=settings.llm_concurrency,
        price_table=price_table,
        supports_json_schema=supports_json_schema,
        ledger=ledger,
        stream=stream,
        metrics_probe=metrics_probe,
    )


def __getattr__(name: str) -> Any:
    if name == "OpenAICompatChatModel":
        from .openai_compat import OpenAICompatChatModel

        return OpenAICompatChatModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
