"""How memdesk's exception tree maps onto HTTP statuses (one table, used by the HTTP API)."""

from __future__ import annotations

from ..errors import (
    EmbeddingMismatchError,
    LLMError,
    LLMRateLimitError,
    MemdeskError,
    RecordNotFoundError,
    StoreLockedError,
    UnknownScopeError,
    UsageError,
)

# most specific first: the first class the error is an instance of decides
_STATUSES: tuple[tuple[type[MemdeskError], int], ...] = (
    (RecordNotFoundError, 404),
    (UnknownScopeError, 404),
    (EmbeddingMismatchError, 409),
    (UsageError, 422),
    (StoreLockedError, 503),
    (LLMRateLimitError, 503),
    (LLMError, 502),
)


def status_for(error: MemdeskError) -> int:
    """The HTTP status for a memdesk error: 4xx for a caller mistake, 5xx for a runtime failure."""
    for cls, status in _STATUSES:
        if isinstance(error, cls):
            return status
    return 500


def retry_after(error: MemdeskError) -> str | None:
    """A Retry-After value (seconds) for failures that pass on their own."""
    return "1" if isinstance(error, (StoreLockedError, LLMRateLimitError)) else None
