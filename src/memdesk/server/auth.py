"""API keys for the HTTP API and the MCP endpoint it mounts.

A request authenticates with ``Authorization: Bearer <key>`` or ``X-API-Key: <key>``. Keys are
compared in constant time. With no keys configured every request is allowed; ``memdesk serve``
refuses to listen beyond loopback that way unless told to.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import ConfigError
from .statuses import error_response


class ApiKeys:
    """The set of keys a server accepts."""

    def __init__(self, keys: Iterable[str] = ()) -> None:
        keys = list(keys)
        for k in keys:
            if len(k) < 16 or k != k.strip():
                raise ConfigError("an API key must be at least 16 characters, with no surrounding whitespace")
        # digests, so a comparison takes the same time whatever the offered key's length
        self._keys = [_digest(k) for k in keys]

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
            c = _digest(candidate)
            for key in self._keys:
                ok |= hmac.compare_digest(c, key)
        return ok


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()


LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def host_of(header: str) -> str:
    """The host of a Host header, without the port (``[::1]:8000`` -> ``::1``)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class HostGuard:
    """ASGI middleware: refuse requests whose Host header is not allowed (DNS rebinding protection).

    A server without API keys must only answer for its loopback names: otherwise any web page the user
    visits can rebind its own domain to 127.0.0.1 and read or write every memory. ``"*"`` allows all.
    """

    def __init__(self, app: Any, allowed: Sequence[str]) -> None:
        self.app = app
        self.allowed = None if "*" in allowed else {h.lower() for h in allowed}

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if self.allowed is not None and scope["type"] in ("http", "websocket"):
            host = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"host"), "")
            if host_of(host) not in self.allowed:
                message = f"host {host!r} is not allowed: a server without API keys answers only on loopback"
                await error_response(400, "UntrustedHost", message)(scope, receive, send)
                return
        await self.app(scope, receive, send)
