"""API keys for the HTTP API and the MCP endpoint it mounts, and the Host-header guard.

A request authenticates with ``Authorization: Bearer <key>`` or ``X-API-Key: <key>``. A key is either an
admin key (``MEMDESK_API_KEYS``: every scope) or a tenant key from the database (``memdesk keys create``:
one user's scopes, see :mod:`memdesk.tenants`). Admin keys are compared in constant time; tenant keys are
looked up by their SHA-256 digest. With no key configured anywhere every request is an admin request;
``memdesk serve`` refuses to listen beyond loopback that way unless told to. A key that is offered is
always checked, even when none is required.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import ConfigError
from ..tenants import Caller, TenantKeys, hash_key
from .statuses import error_response

ADMIN = Caller()


class ApiKeys:
    """The keys a server accepts: admin keys given here, tenant keys from ``tenant_keys`` (the database)."""

    def __init__(self, keys: Iterable[str] = (), *, tenant_keys: TenantKeys | None = None) -> None:
        keys = list(keys)
        for k in keys:
            if len(k) < 16 or k != k.strip():
                raise ConfigError("an API key must be at least 16 characters, with no surrounding whitespace")
        # digests, so a comparison takes the same time whatever the offered key's length
        self._keys = [_digest(k) for k in keys]
        self._tenant_keys = tenant_keys
        self._tenants_seen = False

    @classmethod
    def parse(cls, value: str | None, *, tenant_keys: TenantKeys | None = None) -> "ApiKeys":
        """Admin keys from a comma-separated string (``MEMDESK_API_KEYS``)."""
        return cls((k.strip() for k in (value or "").split(",") if k.strip()), tenant_keys=tenant_keys)

    @property
    def required(self) -> bool:
        """Whether a request must carry a key: admin keys are configured, or a tenant key exists (once one
        has existed, keys stay required for the life of the server, also if every key is revoked)."""
        if self._keys or self._tenants_seen:
            return True
        if self._tenant_keys is not None and self._tenant_keys.has_keys():
            self._tenants_seen = True
        return self._tenants_seen

    def caller(self, authorization: str | None, x_api_key: str | None) -> Caller | None:
        """Who a request with these header values is (None: refuse it with 401)."""
        found = self.identify(authorization, x_api_key)
        return found[0] if found is not None else None

    def identify(self, authorization: str | None, x_api_key: str | None) -> tuple[Caller, str] | None:
        """Who a request is, and which key it used: the SHA-256 hex of the matched key (``anonymous`` on a
        server that requires none), however the headers spell it. None: refuse it with 401."""
        offered = []
        if authorization and authorization[:7].lower() == "bearer ":
            offered.append(authorization[7:].strip())
        if x_api_key:
            offered.append(x_api_key.strip())
        if not offered:
            return None if self.required else (ADMIN, "anonymous")
        # compare against every admin key, always: the time taken does not depend on which key matched
        matched: bytes | None = None
        for candidate in offered:
            c = _digest(candidate)
            for key in self._keys:
                if hmac.compare_digest(c, key):
                    matched = key
        if matched is not None:
            return ADMIN, matched.hex()
        if self._tenant_keys is not None:
            for candidate in offered:
                digest = hash_key(candidate)
                info = self._tenant_keys.find_key(digest)
                if info is not None:
                    self._tenants_seen = True
                    return Caller(tenant=info.tenant), digest
        return None

    def handle(self, key: str) -> str | None:
        """A stable name for a key that :meth:`recheck` accepts while the key is valid (``admin``, or a tenant key's
        digest): what a UI session keeps instead of the key. None when the key is refused."""
        key = key.strip()
        caller = self.caller(f"Bearer {key}", None) if key else None
        if caller is None:
            return None
        return "admin" if caller.tenant is None else f"tenant:{hash_key(key)}"

    def recheck(self, handle: str) -> Caller | None:
        """The caller a :meth:`handle` stands for now (None: the tenant key was revoked, or keys became required)."""
        if handle == "admin":
            return ADMIN if (self._keys or not self.required) else None
        if handle.startswith("tenant:") and self._tenant_keys is not None:
            info = self._tenant_keys.find_key(handle[len("tenant:"):])
            return Caller(tenant=info.tenant) if info is not None else None
        return None


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()


LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


# RFC 3986 host [":" port]: a bracketed IPv6 literal, or a name / IPv4 of letters, digits, "-" and "."
_HOST = re.compile(r"(?:\[(?P<ip6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?))(?::(?P<port>[0-9]{1,5}))?")


def host_of(header: str) -> str | None:
    """The host of a Host header, without the port (``[::1]:8000`` -> ``::1``); None unless the whole header
    is one well-formed host and optional port (``localhost:80@evil.example`` is refused, not split)."""
    m = _HOST.fullmatch(header.strip().lower())
    if m is None:
        return None
    return m.group("ip6") or m.group("name")


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
            hosts = [v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"host"]
            host = hosts[0] if len(hosts) == 1 else ", ".join(hosts)  # none, or several: refused
            name = host_of(host) if len(hosts) == 1 else None
            if name is None or name not in self.allowed:
                message = f"host {host!r} is not allowed: a server without API keys answers only on loopback"
                await error_response(400, "UntrustedHost", message)(scope, receive, send)
                return
        await self.app(scope, receive, send)
