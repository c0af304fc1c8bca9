"""memdesk's LLM layer: the ChatModel seam, one OpenAI-compatible client, a scripted fake, usage.

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
from .templates import PromptTemplate, load_prompt
from .usage import OPERATIONS, ModelPrice, PriceTable, TokenEstimator, UsageLedger

if TYPE_CHECKING:
    import httpx2

    from ..settings import Settings
    from .openai_compat import OpenAICompatChatModel

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
    "TokenEstimator",
    "Usage",
    "UsageLedger",
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
) -> "OpenAICompatChatModel | None":
    """The chat model the settings describe, or None when ``llm_base_url`` or ``llm_model`` is unset.

    Both must be set, also for OpenAI itself (``MEMDESK_LLM_BASE_URL=https://api.openai.com/v1``), so
    that no configuration silently sends data to a hosted API.
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
        max_retries=settings.llm_max_retries,
        concurrency=settings.llm_concurrency,
        price_table=price_table,
        supports_json_schema=supports_json_schema,
        ledger=ledger,
    )


def __getattr__(name: str) -> Any:
    if name == "OpenAICompatChatModel":
        from .openai_compat import OpenAICompatChatModel

        return OpenAICompatChatModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
