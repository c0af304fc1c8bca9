"""One exception tree for memdesk.

Every error memdesk raises on purpose derives from :class:`MemdeskError`. Two branches keep
caller mistakes (:class:`UsageError`: fix the call) apart from runtime failures
(:class:`RuntimeFailure`: the environment, a server or a model failed).
"""

from __future__ import annotations


class MemdeskError(Exception):
    """Root of every error memdesk raises on purpose."""


# --- caller mistakes -------------------------------------------------------------------------
class UsageError(MemdeskError, ValueError):
    """The call itself is wrong: fix the arguments or the input."""


class InvalidScopeError(UsageError):
    """A scope with no user_id, agent_id or run_id, or with an empty/invalid value."""


class UnknownScopeError(UsageError, LookupError):
    """A read on a scope that has never been written."""


class EmptyInputError(UsageError):
    """Empty text, an empty message list or an empty query."""


class InvalidInputError(UsageError):
    """Input of the wrong type or shape (a bad message, a bad timestamp, a bad record)."""


class MalformedFileError(InvalidInputError):
    """A conversation or data file that cannot be parsed; ``path`` and ``detail`` say where."""

    def __init__(self, path: str, detail: str) -> None:
        super().__init__(f"{path}: {detail}")
        self.path = path
        self.detail = detail


class DataNotFoundError(UsageError, LookupError):
    """A file or data folder that does not exist; ``path`` names it (a missing file is not a malformed one)."""

    def __init__(self, path: str, detail: str = "not found") -> None:
        super().__init__(f"{path}: {detail}")
        self.path = path
        self.detail = detail


class RecordNotFoundError(UsageError, LookupError):
    """No record with that id (in that scope)."""

    @classmethod
    def under(cls, record_id: object, scope: object) -> "RecordNotFoundError":
        """The one error for a missing record and for a record outside the caller's scope: the two read
        the same, so an id reveals nothing about another tenant."""
        return cls(f"no memory with id {record_id!r} under scope {scope}")


class UnknownBankError(UsageError, LookupError):
    """No reasoning bank of that name under the caller's scope (also: another tenant's bank, HTTP 404)."""

    @classmethod
    def under(cls, name: object, scope: object) -> "UnknownBankError":
        return cls(f"no reasoning bank {name!r} under scope {scope}")


class ForbiddenScopeError(UsageError):
    """A tenant's API key named another tenant's scope on a write (HTTP 403)."""


class MessageTooLargeError(InvalidInputError):
    """A message longer than the ``max_message_chars`` setting (HTTP 413)."""


class TooManyRequestsError(UsageError):
    """The caller is over a rate, concurrency or queue limit (HTTP 429); ``retry_after``: seconds to wait."""

    def __init__(self, message: str, *, retry_after: int = 1) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class QuotaExceededError(UsageError):
    """The tenant is at or past its storage quota (settings ``quota_records`` / ``quota_bytes``) and tried to add
    (HTTP 413: retrying does not help; delete or forget what it no longer needs, or ask for a larger quota). Reads,
    deletes and forget still work, and nothing stored is touched."""


class RemoteAuthError(UsageError):
    """A memdesk server refused the API key (HTTP 401)."""


class ConfigError(UsageError):
    """A setting is invalid (bad database URL, unknown backend, missing required option)."""


class NoChatModelError(ConfigError):
    """The call needs a chat model and none is configured (``MEMDESK_LLM_BASE_URL`` / ``MEMDESK_LLM_MODEL``;
    HTTP 501)."""


class ModelNotInstalledError(ConfigError):
    """The embedding model a setting names is not installed (run ``memdesk models install <name>``) or the
    file ``MEMDESK_EMBEDDER_MODEL`` names does not exist."""


class TermsNotAcceptedError(UsageError):
    """The model's licence is not an open one and its acceptance was not given (e.g. ``memdesk models install
    embeddinggemma --accept-gemma-terms``)."""


class EmbeddingMismatchError(UsageError):
    """The store was written by another embedding model or dimension; run ``memdesk reembed``."""

    def __init__(self, stored_model: str, stored_dim: int, model: str, dim: int) -> None:
        super().__init__(
            f"store was embedded with {stored_model!r} (dim {stored_dim}) but the embedder is "
            f"{model!r} (dim {dim}); use the same embedder or migrate with `memdesk reembed`"
        )
        self.stored_model, self.stored_dim, self.model, self.dim = stored_model, stored_dim, model, dim


class ReembedError(UsageError):
    """``memdesk reembed`` cannot (or did not yet) re-embed every vector; ``tables`` names where the rest are."""

    def __init__(self, message: str, tables: list[str]) -> None:
        super().__init__(message)
        self.tables = tables


class DataOverlapError(UsageError):
    """A reasoning bank overlaps the evaluation set; ``items`` names the overlapping ids."""

    def __init__(self, message: str, items: list[str]) -> None:
        super().__init__(message)
        self.items = items


class ImportConflictError(UsageError):
    """An import would overwrite what the store holds (a record or history with the same id, a message
    with the same scope and id, a bank of the same name); ``items`` names some. Nothing was written:
    choose ``on_conflict="skip"`` or ``"replace"``."""

    def __init__(self, message: str, items: list[str]) -> None:
        super().__init__(message)
        self.items = items


# --- runtime failures ------------------------------------------------------------------------
class RuntimeFailure(MemdeskError, RuntimeError):
    """Something outside the caller's control failed."""


class RemoteServerError(RuntimeFailure):
    """A memdesk server could not be reached, or answered with something that is not a memdesk reply."""


class StoreError(RuntimeFailure):
    """The storage backend failed."""


class StoreLockedError(StoreError):
    """The database stayed locked by another process past the busy timeout."""


class CopyMismatchError(StoreError):
    """After ``memdesk copy`` the destination does not hold what the source holds (counts or checksums differ);
    ``source`` and ``destination`` are the two digests (:class:`memdesk.portability.copy.Digest`)."""

    def __init__(self, message: str, source: object, destination: object) -> None:
        super().__init__(message)
        self.source, self.destination = source, destination


class MigrationError(StoreError):
    """A schema migration failed; the database was left at its previous version."""


class ModelFileError(RuntimeFailure):
    """A model file assembled or found on disk is not the expected file (size or sha256 differ)."""


class ModelDownloadError(RuntimeFailure):
    """A model's registry packages could not be installed (no network, the index refused, pip failed)."""


class EmbedderError(RuntimeFailure):
    """The embedding model failed to load or to embed."""


class LLMError(RuntimeFailure):
    """A chat model call failed."""


class LLMConnectionError(LLMError):
    """The endpoint could not be reached (after retries)."""


class LLMAuthError(LLMError):
    """The endpoint refused the key."""


class LLMRateLimitError(LLMError):
    """Still rate-limited after all retries."""


class LLMContextLengthError(LLMError):
    """The prompt is longer than the model's context window."""


class LLMOutputError(LLMError):
    """The model's output failed its schema after all re-asks; ``raw`` keeps the text."""

    def __init__(self, message: str, raw: str) -> None:
        super().__init__(message)
        self.raw = raw


class ModelCallsForbiddenError(LLMError):
    """A real model call was attempted while real calls are forbidden (tests)."""
