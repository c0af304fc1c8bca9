"""The deferred add of the paths in :mod:`.faces` (mixins): ``add(..., wait=False)`` logs a tenant's message
*pending* and returns at once (its message id, no record; HTTP answers 202), and the raw message log with each
message's status. ``name`` is as in :mod:`.faces`. The MCP tools take ``wait`` but list no raw log; the mem0
facade (``add`` has no ``wait``) and the memory browser at ``/ui`` (no add form) have no deferred add."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memdesk.client.remote import error_from_reply


@dataclass(frozen=True)
class Logged:
    """A raw log entry as a path shows it: the message id, whose scope, its status and its content."""

    id: str
    user_id: str | None
    status: str
    content: str


class InProcessLater:
    """``Memory`` (in process, or RemoteMemory over HTTP) with ``self._scope(name, run_id)``."""

    memory: Any
    _scope: Any

    def add_later(self, text: str, run_id: str | None, name: str | None) -> list[str]:
        got = self.memory.add(text, scope=self._scope(name, run_id), wait=False)
        assert got.records == [] and got.routes == {} and got.pending == got.message_ids, got
        return got.pending

    def log(self, name: str | None) -> list[Logged]:
        return [Logged(m.id, m.scope.user_id, m.status, m.content) for m in self.memory.messages(scope=self._scope(name))]


class HttpLater:
    """``POST /v1/memories`` with ``"wait": false`` (202) and ``GET /v1/messages`` on ``self.http``/``self._call``."""

    http: Any
    _call: Any

    def add_later(self, text, run_id, name):
        fields = {k: v for k, v in (("user_id", name), ("run_id", run_id)) if v is not None}
        r = self.http.post("/v1/memories", json={**fields, "messages": [text], "wait": False})
        if r.status_code >= 400:
            raise error_from_reply(r.status_code, r.json())
        got = r.json()
        assert r.status_code == 202 and got["records"] == [] and got["pending"] == got["message_ids"], (r.status_code, got)
        return got["pending"]

    def log(self, name):
        logged = self._call("GET", "/v1/messages", name=name)
        return [Logged(m["id"], m["scope"]["user_id"], _status(m), m["content"]) for m in logged]


def _status(m: dict[str, Any]) -> str:
    """A logged message's status from its JSON (as ``RawMessage.status``)."""
    return "pending" if m["pending"] else "processed" if m["route_mask"] is not None else "logged"


class McpLater:
    """The ``add_memory`` tool with ``wait: false`` through ``self._tool``."""

    _tool: Any

    def add_later(self, text, run_id, name):
        got = self._tool("add_memory", {"text": text, "run_id": run_id, "wait": False}, name)
        assert got["memories"] == [] and got["pending"] == got["message_ids"], got
        return got["pending"]
