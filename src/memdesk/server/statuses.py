"""How memdesk's exception tree maps onto HTTP statuses (one table, used by the HTTP API), and the one
error envelope every failed request gets."""

from __future__ import annotations

from starlette.responses import JSONResponse

from ..text.redaction import mask_shortened

from ..errors import (
    EmbeddingMismatchError,
    ForbiddenScopeError,
    ImportConflictError,
    LLMError,
    LLMRateLimitError,
    MemdeskError,
    MessageTooLargeError,
    NoChatModelError,
    RecordNotFoundError,
    StoreLockedError,
    TooManyRequestsError,
    UnknownBankError,
    UnknownScopeError,
    UsageError,
)

# most specific first: the first class the error is an instance of decides
_STATUSES: tuple[tuple[type[MemdeskError], int], ...] = (
    (RecordNotFoundError, 404),
    (UnknownScopeError, 404),
    (UnknownBankError, 404),
    (ForbiddenScopeError, 403),
    (MessageTooLargeError, 413),
    (TooManyRequestsError, 429),
    (EmbeddingMismatchError, 409),
    (ImportConflictError, 409),
    (NoChatModelError, 501),
    (UsageError, 422),
    (StoreLockedError, 503),
    (LLMRateLimitError, 503),
    (LLMError, 502),
)


ERROR_TYPE_HEADER = "X-Memdesk-Error"
"""Also names the error's type in a header (read by the request gate for ``memdesk_errors_total``)."""
MESSAGE_CHARS = 1_000
"""The most characters of an error message a reply carries (a message may echo a field name or value)."""


def status_for(error: MemdeskError) -> int:
    """The HTTP status for a memdesk error: 4xx for a caller mistake, 5xx for a runtime failure."""
    for cls, status in _STATUSES:
        if isinstance(error, cls):
            return status
    return 500


def retry_after(error: MemdeskError) -> str | None:
    """A Retry-After value (seconds) for failures that pass on their own."""
    if isinstance(error, TooManyRequestsError):
        return str(error.retry_after)
    return "1" if isinstance(error, (StoreLockedError, LLMRateLimitError)) else None


def error_response(status: int, type_: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """``{"error": {"type": ..., "message": ...}}`` with ``status``: the body of every failed request. The
    message is made printable UTF-8 (a lone surrogate echoed from the input is escaped), cut to
    :data:`MESSAGE_CHARS` characters (it may echo the input) and has its secrets masked."""
    message = mask_shortened(message, MESSAGE_CHARS).encode("utf-8", "backslashreplace").decode("utf-8")
    headers = {**(headers or {}), ERROR_TYPE_HEADER: type_}
    return JSONResponse({"error": {"type": type_, "message": message}}, status_code=status, headers=headers)


def unauthorized() -> JSONResponse:
    """The answer to a missing or wrong API key (the API routes and the MCP endpoint alike)."""
    return error_response(401, "NotAuthenticated", "missing or wrong API key", {"WWW-Authenticate": "Bearer"})
