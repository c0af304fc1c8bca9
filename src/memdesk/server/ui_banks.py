"""The memory browser's reasoning-bank pages: a tenant's banks, and one bank's solved examples.

``/ui/banks`` lists the banks the caller may read (a tenant key: its own, its agents' included; an admin: every
owned bank, or one user's with ``?user_id=``), ``/ui/banks/{bank}?user_id=...`` shows a bank (answer kind, what
is embedded and by which model, its formats) and its examples a page at a time, in a chosen format, with their
tags and how each was verified; a problem typed in its box shows the examples nearest it, as ``retrieve`` ranks
them. The owner is decided as on the API (:meth:`memdesk.tenants.Caller.bank_owner`): another tenant's bank
reads as missing (404), a listing naming another tenant as an unknown scope (404).
"""

from __future__ import annotations

from html import escape
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..errors import MemdeskError
from ..reasoning.service import ReasoningBanks
from ..reasoning.service_models import BankInfo
from ..reasoning.solved_examples import EmbeddingKind, MemoryFormat
from .ui_render import Pages, hidden, href, metadata_table, when

PAGE = 25
_FOLD = 600  # characters of an example's content shown before the rest folds away


def bank_pages(router: APIRouter, banks: ReasoningBanks, kit: Pages) -> None:
    """Add the bank pages to the browser's ``router``."""
    guarded, page = kit.guarded, kit.page

    @router.get("/banks")
    @guarded
    async def bank_list(request: Request, user_id: str | None = None, agent_id: str | None = None) -> Response:
        who = kit.caller(request)
        if who.is_admin and not (user_id or agent_id):
            found, title = banks.all_banks(), "reasoning banks"
        else:
            owner = who.bank_owner(user_id or None, agent_id or None, access="read")
            found, title = banks.list_banks(scope=owner), f"reasoning banks of {owner}"
        pick = (
            '<form method=get action=/ui/banks><input type="text" name="user_id" placeholder="user_id" '
            f'value="{escape(user_id or "")}"> <button>show this user\'s banks</button></form>' if who.is_admin else ""
        )
        if not found:
            return page(request, title, f"{pick}<p>No reasoning banks here yet (see docs/banks.md to grow one).</p>")
        head = "<tr><th>bank</th><th>owner</th><th>answers</th><th>examples</th><th>embedded</th><th>formats</th><th>updated</th></tr>"
        return page(request, title, f"{pick}<p class=muted>{len(found)} banks</p><table>{head}{''.join(map(_bank_row, found))}</table>")

    @router.get("/banks/{bank}")
    @guarded
    async def bank_page(
        request: Request, bank: str, user_id: str | None = None, agent_id: str | None = None,
        format: str = MemoryFormat.LONG.value, offset: int = 0, problem: str | None = None, k: int = 5,
    ) -> Response:
        owner = kit.caller(request).bank_owner(user_id or None, agent_id or None, access="read", bank=bank)
        listing = banks.list_examples(bank, scope=owner, offset=max(offset, 0), limit=PAGE)
        info = listing.bank
        fmt = MemoryFormat(format) if format in {f.value for f in info.formats} else info.formats[0]
        ids = {"user_id": info.user_id, "agent_id": info.agent_id}
        tabs = " ".join(
            f"<strong>{f.value}</strong>" if f is fmt else f'<a href="{href(f"/banks/{bank}", **ids, format=f.value)}">{f.value}</a>'
            for f in info.formats
        )
        search = (
            f'<form method=get action="/ui/banks/{escape(bank)}">{"".join(hidden(n, v) for n, v in ids.items() if v)}'
            f'{hidden("format", fmt.value)}<input type="text" name="problem" value="{escape(problem or "")}" '
            'placeholder="a problem: show the nearest examples"> <button>retrieve</button></form>'
            if info.embedding_kind is EmbeddingKind.PROBLEM or banks.chat is not None else
            "<p class=muted>This bank is embedded by reasoning tags: retrieving from it needs the problem's tags "
            "(the API's <code>tags</code>) or a chat model on the server.</p>"
        )
        parts = [
            f'<p><a href="{href("/banks", **ids)}">← banks</a></p>', _info_table(info), search,
            f"<p class=muted>format: {tabs}</p>",
        ]
        if problem:
            parts.append(_retrieved(banks, bank, problem, owner, k, fmt))
        first, last = listing.offset, listing.offset + len(listing.examples)
        pager = []
        if first > 0:
            pager.append(f'<a href="{href(f"/banks/{bank}", **ids, format=fmt.value, offset=max(first - PAGE, 0))}">← earlier</a>')
        if last < listing.total:
            pager.append(f'<a href="{href(f"/banks/{bank}", **ids, format=fmt.value, offset=last)}">later →</a>')
        parts.append(f"<h2>examples {first + 1 if last else 0}-{last} of {listing.total}</h2>")
        rows = "".join(_example_row(ex, fmt) for ex in listing.examples)
        parts.append(f"<table class=examples><tr><th>example</th><th>tags · provenance</th></tr>{rows}</table>")
        parts.append(f"<p>{' · '.join(pager)}</p>")
        return page(request, f"bank {bank}", "".join(parts))


def _bank_row(b: BankInfo) -> str:
    ids = {"user_id": b.user_id, "agent_id": b.agent_id}
    owner = ", ".join(f"{k}={escape(v)}" for k, v in (("user", b.user_id), ("agent", b.agent_id)) if v)
    return (
        f'<tr><td><a href="{href(f"/banks/{b.name}", **ids)}">{escape(b.name)}</a></td><td>{owner}</td>'
        f"<td>{b.answer_kind.value}</td><td>{b.entries}</td><td>{b.embedding_kind.value} "
        f"<span class=muted>({escape(b.embedding_model)})</span></td><td>{', '.join(f.value for f in b.formats)}</td>"
        f"<td class=muted>{when(b.updated_at)}</td></tr>"
    )


def _info_table(b: BankInfo) -> str:
    return metadata_table({
        "owner": ", ".join(f"{k}={v}" for k, v in (("user", b.user_id), ("agent", b.agent_id)) if v),
        "built from": b.benchmark, "answers checked as": b.answer_kind.value, "examples": b.entries,
        "embedded": f"{b.embedding_kind.value} text, by {b.embedding_model}", "formats": [f.value for f in b.formats],
        "created": when(b.created_at), "updated": when(b.updated_at),
    })  # fmt: skip


def _content(text: str) -> str:
    if len(text) <= _FOLD:
        return f"<div class=content>{escape(text)}</div>"
    return f"<details><summary class=content>{escape(text[:_FOLD])}…</summary><div class=content>{escape(text)}</div></details>"


def _example_row(ex: Any, fmt: MemoryFormat) -> str:
    """One solved example: problem, answer, its content in ``fmt``; its tags and where it came from."""
    content = ex.contents.get(fmt)
    shown = _content(content) if content is not None else f"<p class=muted>no {fmt.value} content in this bank</p>"
    tags = metadata_table(ex.tags.model_dump()) if ex.tags is not None else "<p class=muted>no tags</p>"
    prov = ex.provenance
    facts = {"id": ex.id, "source": ex.source, "group": ex.group, "verified": prov.verified,
             "verification": prov.verification, "trace": prov.trace_source.value, "added": when(prov.created_at)}
    facts = metadata_table({k: v for k, v in facts.items() if v is not None})
    return (
        f"<tr><td><div class=content><strong>{escape(ex.problem)}</strong></div><p>answer: <strong>{escape(ex.answer)}</strong></p>"
        f"{shown}</td><td>{tags}{facts}</td></tr>"
    )


def _retrieved(banks: ReasoningBanks, bank: str, problem: str, owner: Any, k: int, fmt: MemoryFormat) -> str:
    """The examples nearest ``problem`` with their scores, or why they cannot be retrieved (e.g. a bank embedded by
    tags with no tags and no chat model)."""
    try:
        got = banks.retrieve_examples(bank, problem, scope=owner, k=k, format=fmt)
    except MemdeskError as e:
        return f'<p class="error">{escape(type(e).__name__)}: {escape(str(e))}</p>'
    rows = "".join(
        f"<tr><td>{ex.score:.3f}</td><td><div class=content><strong>{escape(ex.problem)}</strong></div>"
        f"<p>answer: <strong>{escape(ex.answer)}</strong></p>{_content(ex.content)}</td>"
        f"<td class=muted>{escape(ex.id)}</td></tr>"
        for ex in got.examples
    )
    return (
        f"<section id=nearest><h2>{len(got.examples)} nearest to “{escape(problem)}”</h2>"
        f"<table><tr><th>score</th><th>example</th><th>id</th></tr>{rows}</table></section>"
    )
