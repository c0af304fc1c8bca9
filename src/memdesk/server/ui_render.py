"""The memory browser's HTML pieces: a memory with its metadata, source words and validity; a history; a style sheet.

Pure functions from records to HTML, shared by the pages of :mod:`.ui` and :mod:`.ui_banks`. Every value that
comes from the store (text, metadata keys and values, ids, speakers, message contents) is escaped here, once,
where it is written into the page; what they return is safe to place in a page as it is.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from html import escape
from typing import Any
from urllib.parse import urlencode

from ..records import HistoryEntry, RawMessage, Scope, utcnow

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
.notice{background:#e2f3e6;border-left:4px solid #2f8a4a;padding:.5em .8em}
.badge{font-size:.75em;padding:.1em .45em;border-radius:.3em;background:#eee;color:#444;margin-left:.3em}
.superseded .text{text-decoration:line-through;color:#687083}.badge.old{background:#fde2e2;color:#a11}
.said{margin:.25em 0 0;padding:.1em .6em;border-left:3px solid #c9cfda;color:#3b4252;font-size:.9em}
table.kv{width:auto;margin:.3em 0;font-size:.85em;background:#fafbfc}table.kv th{background:none;font-weight:600;
color:#4a5163;white-space:nowrap}table.kv td,table.kv th{padding:.15em .5em}details summary{cursor:pointer}
.content{white-space:pre-wrap;font-size:.9em;margin:.2em 0}nav.sub a{margin-right:.8em}.confirm{background:#fff;
padding:1em;border:1px solid #e3e6eb}
"""

_MAX_VALUE = 300  # characters of a metadata value shown before the rest folds away
_MAX_SAID = 240  # characters of a source message quoted beside a memory in a listing


@dataclass(frozen=True)
class Pages:
    """What a module of pages needs from the browser's router (:func:`memdesk.server.ui.ui_router`): its page
    frame ``page(request, title, body, status=200)``, its login guard (which also turns memdesk errors and refused
    forms into error pages), who is calling, the scope a page may use ``scope_of(request, ids, access, record_id)``
    (as the API decides), a form's hidden token field, the checked fields of a submitted form (an awaitable) and
    who the browser is (``browser(request)``: a string for one login, to address notices to)."""

    page: Callable[..., Any]
    guarded: Callable[[Callable[..., Any]], Callable[..., Any]]
    caller: Callable[[Any], Any]
    scope_of: Callable[..., Scope]
    csrf_field: Callable[[Any], str]
    form: Callable[[Any], Awaitable[dict[str, str]]]
    browser: Callable[[Any], str]


def scope_params(scope: Scope) -> dict[str, str]:
    return {k: v for k, v in scope.model_dump(exclude_none=True).items()}


def link(path: str, **params: Any) -> str:
    """A ``/ui`` address with its query string (not escaped: pass it through :func:`href`)."""
    query = urlencode({k: v for k, v in params.items() if v not in (None, "")})
    return f"/ui{path}" + (f"?{query}" if query else "")


def href(path: str, **params: Any) -> str:
    """A ``/ui`` address ready for an ``href`` attribute."""
    return escape(link(path, **params))


def hidden(name: str, value: str) -> str:
    return f'<input type="hidden" name="{escape(name)}" value="{escape(value)}">'


def when(moment: datetime | None) -> str:
    return "" if moment is None else f"{moment:%Y-%m-%d %H:%M}"


# --- metadata ---------------------------------------------------------------------------------------
def compact(value: Any, *, nested: bool = False) -> str:
    """A metadata value in a few plain words, not escaped: scalars as they are, a list's items joined with ``, ``
    (lists of objects with `` · ``), an object as ``key: value, ...``; lists and objects inside others in
    brackets, an empty string inside them as ``""``."""
    if isinstance(value, str):
        return value if value or not nested else '""'
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    if isinstance(value, Mapping):
        inner = ", ".join(f"{k}: {compact(v, nested=True)}" for k, v in value.items())
        return f"{{{inner}}}" if nested else inner
    if isinstance(value, (list, tuple)):
        objects = any(isinstance(v, Mapping) for v in value)
        inner = (" · " if objects and not nested else ", ").join(compact(v, nested=nested or not objects) for v in value)
        return f"[{inner}]" if nested else inner
    return str(value)


def _value_cell(value: Any) -> str:
    text = compact(value)
    if len(text) <= _MAX_VALUE:
        return escape(text)
    return f"<details><summary>{escape(text[:_MAX_VALUE])}…</summary>{escape(text)}</details>"


def metadata_table(metadata: Mapping[str, Any]) -> str:
    """A small key/value table of a record's metadata (empty string when it has none)."""
    if not metadata:
        return ""
    rows = "".join(f"<tr><th>{escape(str(k))}</th><td>{_value_cell(v)}</td></tr>" for k, v in metadata.items())
    return f"<table class=kv>{rows}</table>"


# --- a memory ---------------------------------------------------------------------------------------
def record_facts(record: Any) -> str:
    """The line of what a memory carries: anchor, speaker, role, source, scope, when stored."""
    facts = [
        ("anchor", record.temporal_anchor),
        ("speaker", record.speaker),
        ("role", getattr(record, "role", None)),
        ("source", getattr(record, "source", None)),
        ("from messages", ", ".join(record.provenance) or None),
        ("scope", str(record.scope)),
        ("stored", when(record.ingest_time)),
    ]
    return " · ".join(f"{name}: {escape(str(value))}" for name, value in facts if value)


def is_old(record: Any, now: datetime | None = None) -> bool:
    """Whether the memory is closed at ``now`` (default: the moment of the call): :meth:`RecordBase.closed_at`, the one
    reading of it the read paths share (a change said ahead of its date closes the memory from then)."""
    return record.closed_at(now or utcnow())


def superseded_note(record: Any, params: Mapping[str, str], newer: Any | None) -> str:
    """"superseded by <the newer memory> on <date>" for a closed memory, "current until <date>, then superseded by ..."
    for one closed from a later date ("" for a current one)."""
    if record.superseded_by is None and record.valid_to is None:
        return ""
    by = ""
    if record.superseded_by is not None:
        label = escape(newer.embed_text()) if newer is not None else escape(record.superseded_by)
        by = f' by <a href="{href(f"/memory/{record.superseded_by}", **params)}">{label}</a>'
    if not is_old(record):
        return f"<div class=muted>current until {when(record.valid_to)}, then superseded{by}</div>"
    on = f" on {when(record.valid_to)}" if record.valid_to is not None else ""
    return f"<div class=muted>superseded{by}{on}</div>"


def said_quotes(record: Any, sources: Mapping[str, RawMessage], *, skip_same: bool = True) -> str:
    """The words of the record's source messages, quoted (short); ``skip_same``: not when they are the record's text."""
    quotes = []
    for message_id in record.provenance:
        message = sources.get(message_id)
        if message is None or (skip_same and message.content.strip() == record.embed_text().strip()):
            continue
        words = message.content if len(message.content) <= _MAX_SAID else message.content[:_MAX_SAID] + "…"
        who = f"{escape(message.speaker or message.role)}: " if (message.speaker or message.role) else ""
        quotes.append(f"<blockquote class=said>{who}“{escape(words)}”</blockquote>")
    return "".join(quotes)


def record_cell(
    record: Any, params: Mapping[str, str], *, linked: bool = True, sources: Mapping[str, RawMessage] | None = None,
    newer: Any | None = None,
) -> str:
    """One memory: its type, text (struck through when superseded), what it carries, its source words and metadata."""
    old = is_old(record)
    text = f"<span class=text>{escape(record.embed_text())}</span>"
    if linked:
        text = f'<a href="{href(f"/memory/{record.id}", **params)}">{text}</a>'
    badge = "<span class='badge old'>superseded</span>" if old else ""
    meta = metadata_table(record.metadata)
    if meta and linked:
        meta = f"<details><summary class=muted>metadata ({len(record.metadata)})</summary>{meta}</details>"
    elif meta:
        meta = f"<div class=muted>metadata</div>{meta}"
    return (
        f"<div class='memory{' superseded' if old else ''}'><span class='type {escape(record.type)}'>{escape(record.type)}"
        f"</span>{badge} {text}{superseded_note(record, params, newer)}"
        f"{said_quotes(record, sources or {}) if linked else ''}<div class=muted>{record_facts(record)}</div>{meta}</div>"
    )


def source_messages(record: Any, messages: Iterable[RawMessage]) -> dict[str, RawMessage]:
    """The record's source messages by id, from ``messages``: only those logged under the record's own scope."""
    wanted = set(record.provenance)
    return {m.id: m for m in messages if m.id in wanted and m.scope == record.scope}


def sources_by_record(records: Sequence[Any], messages: Iterable[RawMessage]) -> dict[str, dict[str, RawMessage]]:
    """For each record id, its source messages (as :func:`source_messages`), reading ``messages`` once."""
    index: dict[tuple[str, str], RawMessage] = {(m.scope.key(), m.id): m for m in messages}
    out: dict[str, dict[str, RawMessage]] = {}
    for record in records:
        key = record.scope.key()
        out[record.id] = {i: index[(key, i)] for i in record.provenance if (key, i) in index}
    return out


def source_table(record: Any, sources: Mapping[str, RawMessage]) -> str:
    """The memory page's "said in" section: each provenance id with its message's words, or a note that the raw
    log has no message of that id (e.g. an id from an imported dataset)."""
    if not record.provenance:
        return ""
    rows = []
    for message_id in record.provenance:
        m = sources.get(message_id)
        if m is None:
            rows.append(f"<tr><td class=muted>{escape(message_id)}</td><td colspan=3 class=muted>not in the raw log</td></tr>")
            continue
        said = when(m.timestamp) or f"logged {when(m.ingest_time)}"
        who = escape(m.speaker or "") + (f" <span class=muted>({escape(m.role)})</span>" if m.role else "")
        rows.append(
            f"<tr><td class=muted>{escape(m.id)}</td><td class=muted>{escape(said)}</td><td>{who}</td>"
            f"<td><div class=content>{escape(m.content)}</div></td></tr>"
        )
    return (
        "<h2>said in</h2><table class=sources><tr><th>message</th><th>when</th><th>who</th><th>words</th></tr>"
        + "".join(rows) + "</table>"
    )


def history_table(entries: Sequence[HistoryEntry]) -> str:
    rows = "".join(
        f"<tr><td>v{e.version}</td><td>{e.event.value}</td><td class=muted>{e.changed_at:%Y-%m-%d %H:%M:%S}</td>"
        f"<td>{'' if e.record is None else escape(e.record.embed_text())}</td></tr>"
        for e in entries
    )
    return f"<h2>history</h2><table><tr><th>version</th><th>event</th><th>when</th><th>text</th></tr>{rows}</table>"


def notice(text: str | None) -> str:
    return f'<p class=notice role=status>{escape(text)}</p>' if text else ""
