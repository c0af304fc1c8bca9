"""The export of the paths in :mod:`.faces` that offer one (mixins): ``Memory.export`` in process and ``GET
/v1/export`` with the tenant's key (the right of access). Both export every scope under the named user
(wildcard). ``name`` is as in :mod:`.faces`; the result is the export's current records as items, its bank
examples' ids, and the whole file's text (for the marker check)."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any

from memdesk.client.remote import error_from_reply


@dataclass(frozen=True)
class Exported:
    records: Any  # a faces.Found
    examples: set[str]


def parse_export(text: str) -> Exported:
    from .faces import Found, Item  # faces.py imports these mixins

    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert lines[0]["kind"] == "header" and lines[-1]["kind"] == "end", text[:300]
    items = []
    for x in lines:
        if x["kind"] == "record":
            r = x["record"]
            body = r.get("fact") or r.get("summary") or r.get("content") or ""
            items.append(Item(r["id"], r["scope"]["user_id"], body))
    examples = {x["id"] for x in lines if x["kind"] == "bank_item"}
    return Exported(Found(items, text), examples)


class InProcessExport:
    memory: Any
    _scope: Any

    def export(self, name: str | None) -> Exported:
        out = io.StringIO()
        self.memory.export(self._scope(name), out, wildcard=True)
        return parse_export(out.getvalue())


class HttpExport:
    http: Any

    def export(self, name: str | None) -> Exported:
        r = self.http.get("/v1/export", params={} if name is None else {"user_id": name})
        if r.status_code >= 400:
            raise error_from_reply(r.status_code, r.json())
        return parse_export(r.text)
