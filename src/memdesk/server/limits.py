"""What one request may ask of the server: body size, characters, metadata, short fields, request rate.

:class:`ServerLimits` holds the numbers (from settings: ``MEMDESK_MAX_BODY_BYTES`` ...; see docs/security.md);
:class:`~memdesk.server.gate.RequestGate` enforces the transport ones (body size while reading, read time, rate
and concurrency per key) before a handler runs, and the ``check_*`` functions here the per-field ones on a parsed
request, with a typed error: :class:`~memdesk.errors.MessageTooLargeError` (413) for too much text or metadata,
:class:`~memdesk.errors.InvalidInputError` (422) for an over-long short field. Filters are bounded where they are
checked for every face (:mod:`memdesk.metadata_conditions`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InvalidInputError, MessageTooLargeError
from ..records import Message

MiB = 1024 * 1024


class ServerLimits(BaseModel):
    """The bounds of one request and of one key's traffic (0 turns a rate or concurrency limit off)."""

    model_config = ConfigDict(frozen=True)

    max_body_bytes: int = Field(default=8 * MiB, ge=1024, description="Largest request body; 413 past it, unread.")
    max_login_bytes: int = Field(default=4096, ge=256, description="Largest body of a /ui/login form.")
    body_timeout_s: float = Field(default=30.0, gt=0, description="Longest time a client may take to send its body (408).")
    max_request_chars: int = Field(
        default=1_000_000, ge=1, description="Most characters of message text (content and captions) in one add."
    )
    max_metadata_bytes: int = Field(default=16_384, ge=2, description="Largest metadata of one message, as JSON (UTF-8).")
    max_field_chars: int = Field(
        default=512, ge=16, description="Longest short string: scope ids, speaker, source, message id, question_time."
    )
    rate_per_s: float = Field(default=200.0, ge=0, description="Requests per second one key may make on average.")
    rate_burst: int = Field(default=1000, ge=1, description="Requests one key may make at once before its rate applies.")
    max_concurrent: int = Field(default=16, ge=0, description="Requests of one key the server processes at once.")

    @classmethod
    def from_settings(cls, settings: Any) -> "ServerLimits":
        """The limits named in ``settings`` (a :class:`~memdesk.settings.Settings`)."""
        names = [n for n in cls.model_fields if hasattr(settings, n)]
        return cls(**{n: getattr(settings, n) for n in names})


def _short(name: str, value: object, limits: ServerLimits) -> None:
    if isinstance(value, str) and len(value) > limits.max_field_chars:
        raise InvalidInputError(f"{name} has {len(value):,} characters; at most {limits.max_field_chars:,}")


def check_scope_fields(fields: dict[str, str | None], limits: ServerLimits) -> None:
    for name, value in fields.items():
        _short(name, value, limits)


def metadata_bytes(metadata: Any) -> int:
    """The size of ``metadata`` as compact JSON in UTF-8 (what the store keeps)."""
    try:
        text = json.dumps(metadata, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError) as e:
        raise InvalidInputError(f"metadata is not JSON: {e}") from None
    return len(text.encode("utf-8", "surrogatepass"))


def check_messages(messages: Iterable[Message | str], limits: ServerLimits, *, speaker: str | None = None) -> None:
    """The bounds of an add: total characters, metadata bytes per message, short fields."""
    _short("speaker", speaker, limits)
    total = 0
    for i, m in enumerate(messages):
        if isinstance(m, str):
            total += len(m)
        else:
            total += len(m.content) + len(m.image_caption or "")
            for name in ("id", "speaker", "source"):
                _short(f"messages.{i}.{name}", getattr(m, name, None), limits)
            if m.metadata:
                size = metadata_bytes(m.metadata)
                if size > limits.max_metadata_bytes:
                    raise MessageTooLargeError(
                        f"messages.{i}.metadata is {size:,} bytes as JSON; at most {limits.max_metadata_bytes:,} "
                        "(setting max_metadata_bytes)"
                    )
        if total > limits.max_request_chars:
            raise MessageTooLargeError(
                f"the messages of one request hold more than {limits.max_request_chars:,} characters (setting "
                "max_request_chars): send them in several requests"
            )


def check_retrieval(req: Any, limits: ServerLimits) -> None:
    """The short fields of a search, evidence or answer request (``question_time`` included)."""
    check_scope_fields(req.scope_fields(), limits)
    for name in ("speaker", "question_time"):
        _short(name, getattr(req, name, None), limits)
