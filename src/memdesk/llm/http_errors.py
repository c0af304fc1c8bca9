"""How an OpenAI-compatible server's HTTP errors map onto memdesk's typed errors.

Used by :class:`~memdesk.llm.openai_compat.OpenAICompatChatModel` (which retries what is retryable
first, waiting as long as :func:`retry_after_s` says the server asked), streaming or not, so every
call names the same failure the same way.
"""

from __future__ import annotations

import email.utils
import json
import time

import httpx2
import openai

from ..errors import LLMAuthError, LLMContextLengthError, LLMError, LLMRateLimitError

CONTEXT_MARKERS = (
    "context_length_exceeded",
    "exceed_context_size",
    "maximum context length",
    "context length",
    "context window",
    "context size",
    "too many tokens",
    "prompt is too long",
    "input is too long",
)


def error_text(e: openai.APIStatusError, *, with_body: bool = True) -> str:
    """What the server said (message, code, type and, if asked, the whole body), lower-cased."""
    parts = [str(getattr(e, "message", "") or ""), str(e.code or ""), str(getattr(e, "type", "") or "")]
    if with_body and e.body is not None:
        parts.append(e.body if isinstance(e.body, str) else json.dumps(e.body, default=str))
    return " ".join(parts).lower()


def error_detail(e: openai.APIStatusError) -> str:
    """The server's message for humans; the body when the SDK found no message in it."""
    msg = str(getattr(e, "message", "") or "")
    if msg.startswith("Error code:") and e.body is not None:
        body = e.body if isinstance(e.body, str) else json.dumps(e.body, default=str)
        return f"{msg}: {body[:500]}"
    return msg


def terminal_status_error(e: openai.APIStatusError, label: str) -> LLMError | None:
    """The typed error for an HTTP error no retry can fix (refused key, prompt over the context
    window, exhausted quota); None for anything else (the caller retries it or reports it)."""
    status = e.status_code
    if status in (401, 403):
        return LLMAuthError(
            f"{label} refused the API key (HTTP {status}: {error_detail(e)}); set MEMDESK_LLM_API_KEY to a valid key"
        )
    said = error_text(e, with_body=False)  # the body may echo the prompt: not searched here
    if status in (400, 413, 422) and any(m in said for m in CONTEXT_MARKERS):
        return LLMContextLengthError(
            f"the prompt is longer than the context window of {label} ({error_detail(e)}); "
            "retrieve fewer records (max_records), shorten the input or use a model with a larger context"
        )
    if status == 429 and (e.code == "insufficient_quota" or "insufficient_quota" in error_text(e)):
        return LLMRateLimitError(f"{label}: the account has no quota left ({error_detail(e)}); add credit or use another key")
    return None


def status_error(e: openai.APIStatusError, label: str) -> LLMError:
    """The typed error for an HTTP error that is not retried (or no longer): terminal, else generic."""
    terminal = terminal_status_error(e, label)
    if terminal is not None:
        return terminal
    hint = "; check MEMDESK_LLM_MODEL and MEMDESK_LLM_BASE_URL" if e.status_code == 404 else ""
    return LLMError(f"{label} answered HTTP {e.status_code}: {error_detail(e)}{hint}")


__all__ = ["CONTEXT_MARKERS", "error_detail", "error_text", "status_error", "terminal_status_error"]


def retry_after_s(headers: httpx2.Headers | None) -> float | None:
    """Seconds asked for by ``retry-after-ms`` / ``retry-after`` (seconds or an HTTP date)."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
