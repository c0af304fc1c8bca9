"""Login sessions of the memory browser (``/ui``): a random id in the cookie, never the API key.

``/ui/login`` checks the key once and opens a session: 32 random bytes (the cookie's value), kept server-side only
as their SHA-256 with the session's expiry and what the key was (an admin key, or a tenant key's digest). Each
request looks the session up and asks the key store again, so revoking a tenant key ends its sessions at once;
logout deletes it; it ends by itself after ``ttl_s``. Sessions live in the server's memory (a restart logs
everyone out) and at most ``max_sessions`` at a time (the oldest goes first).

The cookie is ``HttpOnly``, ``SameSite=Strict``, scoped to ``/ui``, and ``Secure`` as ``secure`` says: ``auto``
(when the request came over TLS, or through a trusted proxy that says so with ``X-Forwarded-Proto: https``),
``always`` or ``never``. The login form itself carries a token bound to a pre-login cookie (also ``SameSite=Strict``),
so another site cannot log a browser into the attacker's tenant (login CSRF).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Literal

from ..tenants import Caller
from .auth import ApiKeys

SESSION_COOKIE = "memdesk_ui_session"
LOGIN_COOKIE = "memdesk_ui_login"
CookieSecure = Literal["auto", "always", "never"]


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


class UiSessions:
    """The open sessions of one server (see the module docstring)."""

    def __init__(
        self, keys: ApiKeys, *, ttl_s: int = 8 * 3600, secure: CookieSecure = "auto", max_sessions: int = 10_000,
        clock: Callable[[], float] = time.time,
    ) -> None:  # fmt: skip
        self.keys, self.ttl_s, self.secure, self.max_sessions, self._clock = keys, ttl_s, secure, max_sessions, clock
        self.secret = secrets.token_bytes(32)  # binds form tokens to a session or a pre-login cookie
        self._open: OrderedDict[str, tuple[str, float]] = OrderedDict()  # sha256(id) -> (key handle, expires)
        self._lock = threading.Lock()

    def open(self, key: str) -> str | None:
        """A new session for ``key`` (its id, for the cookie), or None when the key is refused."""
        handle = self.keys.handle(key)
        if handle is None:
            return None
        session = secrets.token_urlsafe(32)
        with self._lock:
            self._open[_digest(session)] = (handle, self._clock() + self.ttl_s)
            while len(self._open) > self.max_sessions:
                self._open.popitem(last=False)
        return session

    def caller(self, session: str | None) -> Caller | None:
        """Who the session stands for; None when it is unknown, expired, or its key was revoked."""
        if not session:
            return None
        digest = _digest(session)
        with self._lock:
            found = self._open.get(digest)
            if found is not None and found[1] <= self._clock():
                del self._open[digest]
                found = None
        if found is None:
            return None
        caller = self.keys.recheck(found[0])
        if caller is None:  # the key was revoked: the session ends with it
            self.close(session)
        return caller

    def close(self, session: str | None) -> None:
        if session:
            with self._lock:
                self._open.pop(_digest(session), None)

    def token(self, bound_to: str) -> str:
        """A form token bound to a session id or a pre-login cookie value."""
        return hmac.new(self.secret, bound_to.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:32]

    def cookie_secure(self, scheme: str) -> bool:
        return self.secure == "always" or (self.secure == "auto" and scheme == "https")
