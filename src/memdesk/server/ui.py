"""The memory browser at ``/ui``: server-rendered HTML pages over the same ``Memory`` and the same keys.

Pages: the scopes (with their record counts by type), one scope's memories by type (anchor, speaker, provenance,
metadata; filter by speaker or type), a search box whose hits show their score and why they matched, one memory
with its history, and forms to edit or delete it. No JavaScript and no build step: plain HTML forms and one inline
style sheet.

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
from urllib.parse import parse_qs, urlencode, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ..conversation.memory import Memory
from ..errors import InvalidInputError, MemdeskError
from ..records import ALL_TYPES, MemoryType, Scope
from ..tenants import Access, Caller
from .auth import ApiKeys
from .sessions import LOGIN_COOKIE, SESSION_COOKIE, UiSessions

STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:.6em 1.2em;display:flex;gap:1.5em;align-items:center}
header a{color:#fff;text-decoration:none;font-weight:600}main{padding:1em 1.4em;max-width:1100px}
table{border-collapse:collapse;width:100%;background:#fff}td,th{border-bottom:1px solid #e3e6eb;padding:.35em .6em;
text-align:left;vertical-align:top}th{background:#eef0f4}.type{font-size:.8em;padding:.1em .45em;border-radius:.3em;
background:#dfe7ff}.semantic{background:#dff5e6}.procedural{background:#fff0d6}.muted{color:#687083;font-size:.85em}
.why{font-family:ui-monospace,monospace;font-size:.82em;color:#5a4fb0}form.inline{display:inline}
input[type=text],textarea{font:inherit;padding:.3em;width:28em}textarea{width:100%;height:5em}
button{font:inherit;padding:.25em .8em;cursor:pointer}.danger{color:#a11}.error{background:#fde2e2;padding:.5em}
"""


def _scope_params(scope: Scope) -> dict[str, str]:
    return {k: v for k, v in scope.model_dump(exclude_none=True).items()}


def _link(path: str, **params: Any) -> str:
    query = urlencode({k: v for k, v in params.items() if v not in (None, "")})
    return f"/ui{path}" + (f"?{query}" if query else "")


def ui_router(memory: Memory, keys: ApiKeys, *, sessions: UiSessions | None = None) -> APIRouter:
    """The browser's routes (mounted by :func:`~memdesk.server.http.create_app` unless ``ui=False``)."""
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
            f'<header><a href="/ui">memdesk</a><span>{escape(title)}</span><span style="flex:1"></span>{logout}</header>'
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

    @router.get("")
    @guarded
    async def scopes(request: Request) -> Response:
        rows = []
        tenant = caller(request).tenant  # type: ignore[union-attr]
        for scope in memory.store.scopes():
            if tenant is not None and not tenant.scope().matches(scope):
                continue  # a tenant key lists its own scopes only
            counts = [memory.store.count(scope, t) for t in ALL_TYPES]
            label = escape(str(scope))
            rows.append(
                f'<tr><td><a href="{escape(_link("/scope", **_scope_params(scope)))}">{label}</a></td>'
                + "".join(f"<td>{n}</td>" for n in counts) + f"<td>{sum(counts)}</td></tr>"
            )
        head = "<tr><th>scope</th>" + "".join(f"<th>{t.value}</th>" for t in ALL_TYPES) + "<th>all</th></tr>"
        body = f"<p class=muted>{len(rows)} scopes</p><table>{head}{''.join(rows)}</table>" if rows else "<p>No memories yet.</p>"
        return page(request, "scopes", body)

    @router.get("/scope")
    @guarded
    async def scope_page(
        request: Request, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None,
        q: str | None = None, type: str | None = None, speaker: str | None = None,
    ) -> Response:
        scope = scope_of(request, {"user_id": user_id, "agent_id": agent_id, "run_id": run_id}, "read")
        params = _scope_params(scope)
        if type and type not in {t.value for t in MemoryType}:
            raise InvalidInputError(f"unknown memory type {type[:40]!r}: one of {[t.value for t in MemoryType]}")
        types = [MemoryType(type)] if type else None
        search = (
            f'<form method=get action=/ui/scope>{"".join(_hidden(k, v) for k, v in params.items())}'
            f'<input type="text" name="q" value="{escape(q or "")}" placeholder="search this scope"> <button>search</button></form>'
        )
        records = memory.get_all(scope=scope, types=types, speaker=speaker or None)
        speakers = sorted({r.speaker for r in memory.get_all(scope=scope) if r.speaker})
        nav = " · ".join(
            [f'<a href="{escape(_link("/scope", **params))}">all</a>']
            + [f'<a href="{escape(_link("/scope", **params, type=t.value))}">{t.value}</a>' for t in ALL_TYPES]
            + [f'<a href="{escape(_link("/scope", **params, speaker=s))}">{escape(s)}</a>' for s in speakers]
        )
        parts = [search, f"<p class=muted>{nav}</p>"]
        if q:
            hits = memory.search(q, scope=scope, types=types, speaker=speaker or None)
            rows = "".join(
                f"<tr><td>{h.score:.3f}</td><td>{_record_cell(h.record, params)}<div class=why>{escape(h.why)}</div></td></tr>"
                for h in hits
            )
            parts.append(
                f"<h2>{len(hits)} hits for “{escape(q)}”</h2><table><tr><th>score</th><th>memory · why it matched</th></tr>{rows}</table>"
                if hits else f"<p>No hits for “{escape(q)}”.</p>"
            )
        for t in ALL_TYPES:
            group = [r for r in records if r.type == t.value]
            if not group:
                continue
            rows = "".join(f"<tr><td>{_record_cell(r, params)}</td></tr>" for r in group)
            parts.append(f"<h2 id='{t.value}'>{t.value} ({len(group)})</h2><table>{rows}</table>")
        if not records:
            parts.append("<p>No memories under this scope.</p>")
        return page(request, str(scope), "".join(parts))

    @router.get("/memory/{record_id}")
    @guarded
    async def memory_page(request: Request, record_id: str, user_id: str | None = None, agent_id: str | None = None,
                          run_id: str | None = None) -> Response:
        scope = scope_of(request, {"user_id": user_id, "agent_id": agent_id, "run_id": run_id}, "record", record_id)
        entries = memory.history(record_id, scope=scope)  # missing, another tenant's or forgotten: 404
        params = _scope_params(scope)
        history = "".join(
            f"<tr><td>v{e.version}</td><td>{e.event.value}</td><td class=muted>{e.changed_at:%Y-%m-%d %H:%M:%S}</td>"
            f"<td>{'' if e.record is None else escape(e.record.embed_text())}</td></tr>"
            for e in entries
        )
        table = f"<h2>history</h2><table><tr><th>version</th><th>event</th><th>when</th><th>text</th></tr>{history}</table>"
        back = f"<p><a href=\"{escape(_link('/scope', **params))}\">← {escape(str(scope))}</a></p>"
        if entries[-1].record is None:  # deleted: its tombstone is all that is kept
            return page(request, f"memory {record_id}", f"{back}<p>Deleted; its content is not kept.</p>{table}")
        record = memory.get(record_id, scope=scope)
        hidden = "".join(_hidden(k, v) for k, v in params.items()) + csrf_field(request)
        body = (
            back
            + f"<table><tr><td>{_record_cell(record, params, link=False)}</td></tr></table>"
            f"<h2>edit</h2><form method=post action=\"/ui/memory/{escape(record_id)}/edit\">{hidden}"
            f"<textarea name=text>{escape(record.body())}</textarea><p><button>save (the old version stays in the history)</button></p></form>"
            f"<form method=post action=\"/ui/memory/{escape(record_id)}/delete\">{hidden}<button class=danger>delete</button></form>"
            + table
        )
        return page(request, f"memory {record_id}", body)

    @router.post("/memory/{record_id}/edit")
    @guarded
    async def edit(request: Request, record_id: str) -> Response:
        fields = await form(request)
        scope = scope_of(request, fields, "record", record_id)
        memory.update(record_id, fields.get("text", ""), scope=scope)
        return RedirectResponse(_link(f"/memory/{record_id}", **_scope_params(scope)), status_code=303)

    @router.post("/memory/{record_id}/delete")
    @guarded
    async def delete(request: Request, record_id: str) -> Response:
        fields = await form(request)
        scope = scope_of(request, fields, "record", record_id)
        memory.delete(record_id, scope=scope)
        return RedirectResponse(_link("/scope", **_scope_params(scope)), status_code=303)

    return router


class _Refused(Exception):
    """A form that fails the same-origin or token check."""


_SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def _hidden(name: str, value: str) -> str:
    return f'<input type="hidden" name="{escape(name)}" value="{escape(value)}">'


def _record_cell(record: Any, params: dict[str, str], *, link: bool = True) -> str:
    """One memory: type, text, anchor, speaker, provenance and the rest of what it carries."""
    text = escape(record.embed_text())
    if link:
        text = f'<a href="{escape(_link(f"/memory/{record.id}", **params))}">{text}</a>'
    facts = [
        ("anchor", record.temporal_anchor),
        ("speaker", record.speaker),
        ("role", getattr(record, "role", None)),
        ("source", getattr(record, "source", None)),
        ("from messages", ", ".join(record.provenance) or None),
        ("scope", str(record.scope)),
        ("stored", f"{record.ingest_time:%Y-%m-%d %H:%M}"),
        ("metadata", ", ".join(f"{k}={v}" for k, v in record.metadata.items()) or None),
    ]
    details = " · ".join(f"{name}: {escape(str(value))}" for name, value in facts if value)
    return f"<span class='type {record.type}'>{record.type}</span> {text}<div class=muted>{details}</div>"
