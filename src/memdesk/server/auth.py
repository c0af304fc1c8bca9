"""API keys for the HTTP API and the MCP endpoint it mounts.

A request authenticates with ``Authorization: Bearer <key>`` or ``X-API-Key: <key>``. Keys are
compared in constant time. With no keys configured every request is allowed; ``memdesk serve``
refuses to listen beyond loopback that way unless told to.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable

from ..errors import ConfigError


class ApiKeys:
    """The set of keys a server accepts."""

    def __init__(self, keys: Iterable[str] = ()) -> None:
        self._keys = [k.encode() for k in keys]
        for k in self._keys:
            if len(k) < 16 or k != k.strip():
                raise ConfigError("an API key must be at least 16 characters, with no surrounding whitespace")

    @classmethod
    def parse(cls, value: str | None) -> "ApiKeys":
        """Keys from a comma-separated string (``MEMDESK_API_KEYS``)."""
        return cls(k.strip() for k in (value or "").split(",") if k.strip())

    @property
    def required(self) -> bool:
        return bool(self._keys)

    def allows(self, authorization: str | None, x_api_key: str | None) -> bool:
        """Whether a request with these header values may pass."""
        if not self._keys:
            return True
        offered = []
        if authorization and authorization[:7].lower() == "bearer ":
            offered.append(authorization[7:].strip())
        if x_api_key:
            offered.append(x_api_key.strip())
        # compare against every key, always: the time taken does not depend on which key matched
        ok = False
        for candidate in offered:
            c = candidate.encode()
            for key in self._keys:
                ok |= hmac.compare_digest(c, key)
        return ok
