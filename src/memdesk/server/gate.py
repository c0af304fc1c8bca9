"""The server's front door (ASGI middleware): the key before the body, the body bounded while it is read.

For every request under ``/v1`` and ``/mcp`` the API key is checked from the headers alone (a tenant key's
database lookup off the event loop): a request with no key or a wrong one gets its 401 with its body unread.
Then the key's request rate and concurrency (:mod:`memdesk.server.ratelimit`: 429 with ``Retry-After``). Then,
for every route, the body: refused unread when its ``Content-Length`` is over the limit, else read chunk by chunk
and refused (413) as soon as it passes the limit, or (408) when the client takes longer than the read timeout.
The handler then gets the body from memory. Only a keyed request and a logged-in browser's form may send
``max_body_bytes``; every other request (``/ui/login``, a form without a session, ``/healthz``...) at most
``max_login_bytes``, so strangers hold at most a few kB of server memory each.

An MCP session (``Mcp-Session-Id``) belongs to the key that opened it: another key naming it gets 404, as for a
session that does not exist. The caller found here travels in the request's state (``memdesk_caller``), where
the routes' key dependency and the MCP tools read it.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from http.cookies import CookieError, SimpleCookie
from typing import Any

import anyio
import anyio.to_thread

from .auth import ApiKeys
from .limits import ServerLimits
from .mcp_common import CALLER_STATE
from .metrics import ServerMetrics
from .ratelimit import Concurrency, RateLimiter, retry_seconds
from .sessions import SESSION_COOKIE
from .statuses import error_response, unauthorized

MAX_MCP_SESSIONS = 100_000


def _keyed(path: str) -> bool:
    return path == "/v1" or path.startswith("/v1/") or path == "/mcp" or path.startswith("/mcp/")


class _TooLarge(Exception):
    pass


class RequestGate:
    """See the module docstring. ``metrics``: where each request is counted (None: nowhere)."""

    def __init__(
        self, app: Any, *, keys: ApiKeys, limits: ServerLimits, metrics: ServerMetrics | None = None,
        ui_session: Callable[[str], bool] | None = None,
    ) -> None:  # fmt: skip
        self.app, self.keys, self.limits, self.metrics, self.ui_session = app, keys, limits, metrics, ui_session
        self.rate = RateLimiter(limits.rate_per_s, limits.rate_burst)
        self.running = Concurrency(limits.max_concurrent)
        self._mcp_sessions: OrderedDict[str, str] = OrderedDict()  # session id -> key id that opened it

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status: list[int] = [500]

        async def counted_send(message: dict) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
                if self.metrics is not None and status[0] >= 400:
                    named = [v for k, v in message.get("headers", []) if k.lower() == b"x-memdesk-error"]
                    self.metrics.error(named[0].decode("latin-1") if named else f"HTTP{status[0]}")
            await send(message)

        try:
            await self._handle(scope, receive, counted_send)
        finally:
            if self.metrics is not None:
                self.metrics.request(scope, status[0], time.perf_counter() - started)

    async def _handle(self, scope: dict, receive: Any, send: Any) -> None:
        path, method = scope.get("path", ""), scope.get("method", "GET")
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        who: str | None = None
        if _keyed(path):
            authorization, x_api_key = headers.get("authorization"), headers.get("x-api-key")
            found = await anyio.to_thread.run_sync(self.keys.identify, authorization, x_api_key)
            if found is None:
                await unauthorized()(scope, receive, send)
                return
            caller, who = found  # who: the matched key's digest, however the headers spelt it
            scope.setdefault("state", {})[CALLER_STATE] = caller
            wait = self.rate.take(who)
            if wait > 0:
                message = f"this key is over its request rate ({self.limits.rate_per_s:g}/s): retry later"
                await error_response(429, "TooManyRequestsError", message, {"Retry-After": retry_seconds(wait)})(scope, receive, send)
                return
            if path.startswith("/mcp") and not self._mcp_session_ok(headers.get("mcp-session-id"), who):
                await error_response(404, "NotFound", "no such MCP session")(scope, receive, send)
                return
        limit = await self._body_limit(path, who, headers)
        declared = headers.get("content-length")
        if declared is not None and (not declared.strip().isdigit() or int(declared) > limit):
            await self._too_large(scope, receive, send, limit)
            return
        try:
            with anyio.fail_after(self.limits.body_timeout_s):
                body, more = await self._read(receive, limit)
        except _TooLarge:
            await self._too_large(scope, receive, send, limit)
            return
        except TimeoutError:
            message = f"the request body did not arrive within {self.limits.body_timeout_s:g} s"
            await error_response(408, "RequestTimeout", message, {"Connection": "close"})(scope, receive, send)
            return
        if more:  # the client went away before its body was complete
            return
        replay = _Replay(body, receive)
        counted = who is not None and not (path.startswith("/mcp") and method == "GET")  # an SSE stream lasts
        if counted and not self.running.enter(who):  # type: ignore[arg-type]
            message = f"this key has {self.limits.max_concurrent} requests in progress already: retry shortly"
            await error_response(429, "TooManyRequestsError", message, {"Retry-After": "1"})(scope, receive, send)
            return
        try:
            await self.app(scope, replay, self._binding_send(send, who) if path.startswith("/mcp") else send)
        finally:
            if counted:
                self.running.leave(who)  # type: ignore[arg-type]

    async def _body_limit(self, path: str, who: str | None, headers: dict[str, str]) -> int:
        """A keyed request (checked above) and a logged-in browser's form may send ``max_body_bytes``; anything
        else (the login form, and routes that take no body from strangers) at most ``max_login_bytes``."""
        if who is not None:
            return self.limits.max_body_bytes
        if path.startswith("/ui/") and path != "/ui/login" and self.ui_session is not None:
            cookies = SimpleCookie()
            try:
                cookies.load(headers.get("cookie", ""))
            except CookieError:
                cookies = SimpleCookie()
            session = cookies.get(SESSION_COOKIE)
            if await anyio.to_thread.run_sync(self.ui_session, session.value if session is not None else ""):
                return self.limits.max_body_bytes
        return self.limits.max_login_bytes

    async def _read(self, receive: Any, limit: int) -> tuple[bytes, bool]:
        """The whole body (at most ``limit`` bytes), or raise :class:`_TooLarge` as soon as it passes it."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: let the app see it
                return b"".join(chunks), True
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise _TooLarge()
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks), False

    async def _too_large(self, scope: dict, receive: Any, send: Any, limit: int) -> None:
        message = f"the request body is larger than {limit:,} bytes (setting max_body_bytes)"
        await error_response(413, "RequestTooLargeError", message, {"Connection": "close"})(scope, receive, send)

    def _mcp_session_ok(self, session: str | None, who: str) -> bool:
        if not session:
            return True
        owner = self._mcp_sessions.get(session)
        return owner is None or owner == who  # unknown ids are the MCP SDK's to refuse

    def _binding_send(self, send: Any, who: str | None) -> Any:
        async def bind(message: dict) -> None:
            if message["type"] == "http.response.start" and who is not None:
                for k, v in message.get("headers", []):
                    if k.lower() == b"mcp-session-id":
                        self._mcp_sessions.setdefault(v.decode("latin-1"), who)
                        while len(self._mcp_sessions) > MAX_MCP_SESSIONS:
                            self._mcp_sessions.popitem(last=False)
            await send(message)

        return bind


class _Replay:
    """An ASGI ``receive`` that hands out a body read already, then the real one (for the disconnect)."""

    def __init__(self, body: bytes, receive: Any) -> None:
        self.body, self.receive, self.sent = body, receive, False

    async def __call__(self) -> dict:
        if not self.sent:
            self.sent = True
            return {"type": "http.request", "body": self.body, "more_body": False}
        return await self.receive()
