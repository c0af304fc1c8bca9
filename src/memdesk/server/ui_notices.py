"""One-time notices for the memory browser ("Deleted the memory ..."), shown on the page a form redirects to.

A form handler puts a notice for the browser that sent the form and gets a random token; the redirect carries only
the token (``?notice=...``), so what the notice says (a deleted memory's words) never goes into an address, a
server log or a cookie. The page the browser lands on takes the notice once, if the same browser asks (its
login, as the form token derives from it); an unknown, stale or foreign token shows nothing. Notices live in the
server process: with several worker processes the page may land on another one and show none.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict


class Notices:
    """At most ``keep`` notices, each for ``ttl_s`` seconds; oldest dropped first."""

    def __init__(self, *, keep: int = 256, ttl_s: float = 300.0) -> None:
        self.keep, self.ttl_s = keep, ttl_s
        self._held: OrderedDict[str, tuple[str, str, float]] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, owner: str, text: str) -> str:
        """Hold ``text`` for ``owner`` (who may read it); the token that names it."""
        token = secrets.token_urlsafe(16)
        with self._lock:
            self._held[token] = (owner, text, time.monotonic() + self.ttl_s)
            while len(self._held) > self.keep:
                self._held.popitem(last=False)
        return token

    def take(self, owner: str, token: str | None) -> str | None:
        """The notice ``token`` names if it is ``owner``'s and not stale (then it is gone); else None."""
        if not token:
            return None
        with self._lock:
            held = self._held.get(token)
            if held is None or not secrets.compare_digest(held[0], owner):
                return None
            del self._held[token]
        return held[1] if held[2] > time.monotonic() else None
