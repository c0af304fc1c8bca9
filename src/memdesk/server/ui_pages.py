"""The memory browser's memory pages: the scopes, one scope's memories and search, one memory, edit and delete.

A memory shows its metadata as a small key/value table, the words of the messages it came from (read from the raw
log under the memory's own scope, never another's), and, when a later memory superseded it, a badge, its text
struck through and a link to the newer memory with the date. Superseded memories are left out of a scope's
listing unless asked for (``?superseded=1``), as reads leave them out; a search may return them (ranked lower) and
marks them. Deleting asks first on a page of its own (no script), and the page the browser lands on says what was
deleted (:mod:`.ui_notices`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape as _e
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from ..conversation.memory import Memory
from ..errors import RecordNotFoundError
from ..conversation.inputs import as_types
from ..records import ALL_TYPES, Scope
from .ui_notices import Notices
from .ui_render import (
    Pages, hidden, history_table, href, is_old, link, notice, record_cell, scope_params, source_messages, source_table,
    sources_by_record,
)  # fmt: skip

_OLD = {"include_superseded": True}


def memory_pages(router: APIRouter, memory: Memory, kit: Pages, notices: Notices) -> None:
    """Add the memory pages to the browser's ``router``."""
    guarded, page = kit.guarded, kit.page

    def newer_of(records: Sequence[Any], scope: Scope) -> dict[str, Any]:
        """The memories that superseded those in ``records`` (under ``scope``), by id."""
        known = {r.id: r for r in records}
        out = {}
        for r in records:
            if r.superseded_by and r.superseded_by not in out:
                try:
                    out[r.superseded_by] = known.get(r.superseded_by) or memory.get(r.superseded_by, scope=scope)
                except RecordNotFoundError:
                    pass  # deleted since: the note names its id
        return out

    def cells(records: Sequence[Any], scope: Scope, params: Mapping[str, str]) -> list[str]:
        sources = sources_by_record(records, memory.messages(scope=scope)) if records else {}
        newer = newer_of(records, scope)
        return [
            record_cell(r, params, sources=sources.get(r.id), newer=newer.get(r.superseded_by or "")) for r in records
        ]

    @router.get("")
    @guarded
    async def scopes(request: Request) -> Response:
        rows = []
        tenant = kit.caller(request).tenant
        for scope in memory.store.scopes():
            if tenant is not None and not tenant.scope().matches(scope):
                continue  # a tenant key lists its own scopes only
            counts = [memory.store.count(scope, t) for t in ALL_TYPES]
            rows.append(
                f'<tr><td><a href="{href("/scope", **scope_params(scope))}">{_e(str(scope))}</a></td>'
                + "".join(f"<td>{n}</td>" for n in counts) + f"<td>{sum(counts)}</td></tr>"
            )
        head = "<tr><th>scope</th>" + "".join(f"<th>{t.value}</th>" for t in ALL_TYPES) + "<th>all</th></tr>"
        body = f"<p class=muted>{len(rows)} scopes</p><table>{head}{''.join(rows)}</table>" if rows else "<p>No memories yet.</p>"
        return page(request, "scopes", body)

    @router.get("/scope")
    @guarded
    async def scope_page(
        request: Request, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None,
        q: str | None = None, type: str | None = None, speaker: str | None = None, superseded: int = 0,
        notice_id: str | None = None,
    ) -> Response:
        scope = kit.scope_of(request, {"user_id": user_id, "agent_id": agent_id, "run_id": run_id}, "read")
        params = scope_params(scope)
        types = as_types(type) if type else None  # an unknown type: InvalidInputError, a 422 page
        search = (
            f'<form method=get action=/ui/scope>{"".join(hidden(k, v) for k, v in params.items())}'
            f'<input type="text" name="q" value="{_e(q or "")}" placeholder="search this scope"> <button>search</button></form>'
        )
        records = memory.get_all(scope=scope, types=types, speaker=speaker or None, filters=_OLD if superseded else None)
        current = [r for r in records if not is_old(r)]
        speakers = sorted({r.speaker for r in memory.get_all(scope=scope) if r.speaker})
        nav = " · ".join(
            [f'<a href="{href("/scope", **params)}">all</a>']
            + [f'<a href="{href("/scope", **params, type=t.value)}">{t.value}</a>' for t in ALL_TYPES]
            + [f'<a href="{href("/scope", **params, speaker=s)}">{_e(s)}</a>' for s in speakers]
        )
        old = len(records) - len(current) if superseded else _count_old(memory, scope, types, speaker)
        toggle = (
            f' · <a href="{href("/scope", **params, type=type, speaker=speaker, superseded=0 if superseded else 1)}">'
            f'{"hide" if superseded else "show"} {old} superseded</a>' if old else ""
        )
        banks = f' · <a href="{href("/banks", user_id=scope.user_id, agent_id=scope.agent_id)}">reasoning banks</a>' if scope.user_id else ""
        parts = [notice(notices.take(kit.browser(request), notice_id)), search, f"<p class=muted>{nav}{toggle}{banks}</p>"]
        if q:
            hits = memory.search(q, scope=scope, types=types, speaker=speaker or None)
            found = cells([h.record for h in hits], scope, params)
            rows = "".join(
                f"<tr><td>{h.score:.3f}</td><td>{cell}<div class=why>{_e(h.why)}</div></td></tr>" for h, cell in zip(hits, found)
            )
            parts.append(
                f"<section id=hits><h2>{len(hits)} hits for “{_e(q)}”</h2><table><tr><th>score</th>"
                f"<th>memory · why it matched</th></tr>{rows}</table></section>"
                if hits else f"<p>No hits for “{_e(q)}”.</p>"
            )
        listed = cells(records, scope, params)
        for t in ALL_TYPES:
            group = [cell for r, cell in zip(records, listed) if r.type == t.value]
            if group:
                rows = "".join(f"<tr><td>{cell}</td></tr>" for cell in group)
                parts.append(f"<h2 id='{t.value}'>{t.value} ({len(group)})</h2><table>{rows}</table>")
        if not records:
            parts.append("<p>No memories under this scope.</p>")
        return page(request, str(scope), "".join(parts))

    @router.get("/memory/{record_id}")
    @guarded
    async def memory_page(request: Request, record_id: str, user_id: str | None = None, agent_id: str | None = None,
                          run_id: str | None = None, notice_id: str | None = None) -> Response:
        scope = kit.scope_of(request, {"user_id": user_id, "agent_id": agent_id, "run_id": run_id}, "record", record_id)
        entries = memory.history(record_id, scope=scope)  # missing, another tenant's or forgotten: 404
        params = scope_params(scope)
        back = f'{notice(notices.take(kit.browser(request), notice_id))}<p><a href="{href("/scope", **params)}">← {_e(str(scope))}</a></p>'
        if entries[-1].record is None:  # deleted: its tombstone is all that is kept
            return page(request, f"memory {record_id}", f"{back}<p>Deleted; its content is not kept.</p>{history_table(entries)}")
        record = memory.get(record_id, scope=scope)
        sources = source_messages(record, memory.messages(scope=record.scope))
        newer = newer_of([record], scope).get(record.superseded_by or "")
        fields = "".join(hidden(k, v) for k, v in params.items())
        body = (
            back
            + f"<table><tr><td>{record_cell(record, params, linked=False, newer=newer)}</td></tr></table>"
            + source_table(record, sources)
            + f'<h2>edit</h2><form method=post action="/ui/memory/{_e(record_id)}/edit">{fields}{kit.csrf_field(request)}'
            f"<textarea name=text>{_e(record.body())}</textarea><p><button>save (the old version stays in the history)</button></p></form>"
            f'<form method=get action="/ui/memory/{_e(record_id)}/delete">{fields}<button class=danger>delete…</button></form>'
            + history_table(entries)
        )
        return page(request, f"memory {record_id}", body)

    @router.post("/memory/{record_id}/edit")
    @guarded
    async def edit(request: Request, record_id: str) -> Response:
        fields = await kit.form(request)
        scope = kit.scope_of(request, fields, "record", record_id)
        record = memory.update(record_id, fields.get("text", ""), scope=scope)
        token = notices.put(kit.browser(request), f"Saved: “{record.embed_text()}” (the old version is in the history).")
        return RedirectResponse(link(f"/memory/{record_id}", **scope_params(scope), notice_id=token), status_code=303)

    @router.get("/memory/{record_id}/delete")
    @guarded
    async def confirm_delete(request: Request, record_id: str, user_id: str | None = None, agent_id: str | None = None,
                             run_id: str | None = None) -> Response:
        scope = kit.scope_of(request, {"user_id": user_id, "agent_id": agent_id, "run_id": run_id}, "record", record_id)
        record = memory.get(record_id, scope=scope)
        params = scope_params(scope)
        body = (
            f"<div class=confirm><p><strong>Delete this memory?</strong> Its content goes from the store and from its "
            f"history (a tombstone stays); the messages it came from stay in the raw log.</p>"
            f"<table><tr><td>{record_cell(record, params, linked=False, newer=newer_of([record], scope).get(record.superseded_by or ''))}</td></tr></table>"
            f'<form method=post action="/ui/memory/{_e(record_id)}/delete">{"".join(hidden(k, v) for k, v in params.items())}'
            f'{kit.csrf_field(request)}<p><button class=danger>delete it</button> '
            f'<a href="{href(f"/memory/{record_id}", **params)}">cancel</a></p></form></div>'
        )
        return page(request, "delete memory?", body)

    @router.post("/memory/{record_id}/delete")
    @guarded
    async def delete(request: Request, record_id: str) -> Response:
        fields = await kit.form(request)
        scope = kit.scope_of(request, fields, "record", record_id)
        record = memory.get(record_id, scope=scope)
        memory.delete(record_id, scope=scope)
        token = notices.put(kit.browser(request), f"Deleted the {record.type} memory “{record.embed_text()}” ({record_id}).")
        return RedirectResponse(link("/scope", **scope_params(scope), notice_id=token), status_code=303)


def _count_old(memory: Memory, scope: Scope, types: Any, speaker: str | None) -> int:
    """How many superseded memories a listing leaves out."""
    every = memory.get_all(scope=scope, types=types, speaker=speaker or None, filters=_OLD)
    return sum(1 for r in every if is_old(r))
