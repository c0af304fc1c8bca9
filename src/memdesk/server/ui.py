"""The memory browser at ``/ui``: server-rendered HTML pages over the same ``Memory`` and the same keys.

Pages: the scopes (with their record counts by type), one scope's memories by type (anchor, speaker, provenance,
metadata as a small table, the source messages' words, superseded memories marked; filter by speaker or type), a
search box whose hits show their score and why they matched, one memory with its history, forms to edit it or
delete it (after a confirmation page; a notice says what was deleted) (:mod:`.ui_pages`), and a tenant's reasoning
banks with their examples (:mod:`.ui_banks`). No JavaScript and no build step: plain HTML forms and one inline
style sheet (:mod:`.ui_render`).

Access: when the server requires API keys, ``/ui/login`` takes a key and opens a session (:mod:`memdesk.server.sessions`:
a random id in an HttpOnly, ``SameSite=Strict`` cookie scoped to ``/ui``, never the key); every page checks the session
and its key as the API checks its header, and a tenant key
sees and changes only its own scopes (the same :meth:`~memdesk.tenants.Caller.scope` rule as the API). Every form that
changes something carries a token derived from a per-server secret and the session, and its ``Origin`` (when sent)
must be the server itself, so another site cannot submit it (also to a keyless loopback server).
"""

from __future__ import annotations

import functools
import hmac
import secrets
from collections.abc import Callable
from html import escape
from typing import Any
from urllib.parse import parse_qs, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ..conversation.memory import Memory
from ..errors import MemdeskError
from ..reasoning.service import ReasoningBanks
from ..records import Scope
from ..tenants import Access, Caller
from .auth import ApiKeys
from .sessions import LOGIN_COOKIE, SESSION_COOKIE, UiSessions
from .ui_banks import bank_pages
from .ui_notices import Notices
from .ui_pages import memory_pages
from .ui_render import STYLE, Pages


def ui_router(
    memory: Memory, keys: ApiKeys, *, sessions: UiSessions | None = None, banks: ReasoningBanks | None = None
) -> APIRouter:
    """The browser's routes (mounted by :func:`~memdesk.server.http.create_app` unless ``ui=False``); ``banks``:
    the reasoning banks shown under ``/ui/banks`` (default: those of the memory's store)."""
    sessions = sessions or UiSessions(keys)
    router = APIRouter(prefix="/ui", include_in_schema=False)

    def offered_key(request: Request) -> str | None:
        """The session id the browser sent (the cookie holds a session, never the key)."""
        return request.cookies.get(SESSION_COOKIE)

    def caller(request: Request) -> Caller | None:
        """Who the session stands for (its key checked again: a revoked key ends it); None: not logged in. A
        server that requires no key lets every loopback browser in, as its API does."""
        session = offered_key(request)
        return sessions.caller(session) if session else keys.caller(None, None)

    def allowed(request: Request) -> bool:
        return caller(request) is not None

    def scope_of(request: Request, ids: dict[str, str | None], access: Access, record_id: str | None = None) -> Scope:
        """The scope a page or form may use: a tenant key's own (filled in), as for the API."""
        who = caller(request)
        assert who is not None  # guarded pages run only for a known caller
        return who.scope(**{k: ids.get(k) or None for k in ("user_id", "agent_id", "run_id")}, access=access, record_id=record_id)

    def token(request: Request) -> str:
        return sessions.token(offered_key(request) or "")

    def page(request: Request, title: str, body: str, status: int = 200) -> HTMLResponse:
        logout = (
            f'<form class="inline" method="post" action="/ui/logout">{csrf_field(request)}<button>log out</button></form>'
            if keys.required and offered_key(request) and allowed(request) else ""
        )
        html = (
            f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)} · memdesk</title>'
            f'<meta name="viewport" content="width=device-width"><style>{STYLE}</style></head><body>'
            f'<header><a href="/ui">memdesk</a><a href="/ui">scopes</a><a href="/ui/banks">banks</a>'
            f'<span>{escape(title)}</span><span style="flex:1"></span>{logout}</header>'
            f"<main>{body}</main></body></html>"
        )
        return HTMLResponse(html, status_code=status, headers=_SECURITY_HEADERS)

    def csrf_field(request: Request) -> str:
        return f'<input type="hidden" name="csrf" value="{token(request)}">'

    async def form(request: Request) -> dict[str, str]:
        """The submitted form, after the same-origin and token checks (raises _Refused)."""
        origin = request.headers.get("origin")
        if origin and urlsplit(origin).netloc != request.headers.get("host"):
            raise _Refused("this form was sent from another site")
        fields = {k: v[-1] for k, v in parse_qs((await request.body()).decode("utf-8", "replace")).items()}
        if not hmac.compare_digest(fields.get("csrf", ""), token(request)):
            raise _Refused("the form's token is missing or stale: reload the page")
        return fields

    def guarded(handler: Callable[..., Any]) -> Callable[..., Any]:
        """Login first; memdesk errors and refused forms as a page, not a traceback."""

        @functools.wraps(handler)  # FastAPI reads the handler's parameters through __wrapped__
        async def run(request: Request, **kw: Any) -> Response:
            if not allowed(request):
                return RedirectResponse("/ui/login", status_code=303)
            try:
                return await handler(request, **kw)
            except _Refused as e:
                return page(request, "refused", f'<p class="error">{escape(str(e))}</p>', 403)
            except MemdeskError as e:
                from .statuses import status_for

                body = f'<p class="error">{escape(type(e).__name__)}: {escape(str(e))}</p><p><a href="/ui">scopes</a></p>'
                return page(request, "error", body, status_for(e))

        return run

    def cookie(response: Response, request: Request, name: str, value: str, max_age: int) -> None:
        # the pre-login nonce is no credential: Secure only over TLS, so `always` behind a TLS proxy still logs in
        secure = sessions.cookie_secure(request.url.scheme) if name == SESSION_COOKIE else request.url.scheme == "https"
        response.set_cookie(name, value, max_age=max_age, httponly=True, samesite="strict", path="/ui", secure=secure)

    @router.get("/login")
    async def login_form(request: Request, failed: int = 0) -> Response:
        note = '<p class="error">That key was refused.</p>' if failed else ""
        nonce = secrets.token_urlsafe(24)  # the login form's token is bound to this SameSite=Strict cookie
        body = (
            f'{note}<form method=post action=/ui/login><input type="hidden" name="csrf" value="{sessions.token(nonce)}">'
            "<p>API key (as for the HTTP API):</p>"
            '<p><input type="password" name="key" autocomplete="current-password" autofocus> <button>open</button></p></form>'
        )
        response = page(request, "log in", body)
        cookie(response, request, LOGIN_COOKIE, nonce, 3600)
        return response

    @router.post("/login")
    async def login(request: Request) -> Response:
        origin = request.headers.get("origin")
        if origin and urlsplit(origin).netloc != request.headers.get("host"):
            return page(request, "refused", '<p class="error">this form was sent from another site</p>', 403)
        fields = {k: v[-1] for k, v in parse_qs((await request.body()).decode("utf-8", "replace")).items()}
        nonce = request.cookies.get(LOGIN_COOKIE, "")
        if not nonce or not hmac.compare_digest(fields.get("csrf", ""), sessions.token(nonce)):
            body = '<p class="error">the login form\'s token is missing or stale: <a href="/ui/login">reload it</a></p>'
            return page(request, "refused", body, 403)
        session = sessions.open(fields.get("key", ""))
        if session is None:
            return RedirectResponse("/ui/login?failed=1", status_code=303)
        response = RedirectResponse("/ui", status_code=303)
        cookie(response, request, SESSION_COOKIE, session, sessions.ttl_s)
        response.delete_cookie(LOGIN_COOKIE, path="/ui")
        return response

    @router.post("/logout")
    @guarded
    async def logout(request: Request) -> Response:
        await form(request)
        sessions.close(offered_key(request))  # ended server-side: the cookie's id is worthless from now on
        response = RedirectResponse("/ui/login", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/ui")
        return response

    kit = Pages(page=page, guarded=guarded, caller=caller, scope_of=scope_of, csrf_field=csrf_field, form=form,
                browser=token)
    notices = Notices()
    memory_pages(router, memory, kit, notices)
    bank_pages(router, banks if banks is not None else ReasoningBanks(memory.store, memory.embedder), kit)

    return router


class _Refused(Exception):
    """A form that fails the same-origin or token check."""


_SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}

