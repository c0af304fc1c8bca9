"""The paths into memdesk, each seen by one tenant: the same operations through every face.

A :class:`Face` is one tenant's handle on one path (in process, HTTP with a tenant key, RemoteMemory,
MCP over streamable HTTP with a tenant key, MCP bound to a tenant in process, the memory browser at ``/ui``); the bank
operations and the deferred add come from mixins (``bank_faces.py``, ``pending_faces.py``). Every operation returns
plain :class:`Item` values and raises the memdesk exception the path reports, so one state machine
(``test_isolation.py``) can drive them all and hold them to one model.

``name`` says which ``user_id`` a call names: ``None`` leaves it out (a tenant key fills its own in),
``own`` and anything else name that user. Only the keyed faces can leave it out or name another tenant
(``Face.keyed``); in process a caller is trusted with any scope, so the in-process face always names its own.
"""

from __future__ import annotations

import asyncio
import html as html_lib
import re
import concurrent.futures
import contextlib
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qs, quote, urlencode

import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from memdesk import errors
from memdesk.conversation.memory import Memory
from memdesk.reasoning import ReasoningBanks
from memdesk.records import Scope
from memdesk.client.remote import RemoteMemory, error_from_reply
from memdesk.server import create_mcp_server
from memdesk.tenants import Caller, Tenant

from .bank_faces import HttpBanks, InProcessBanks, McpBanks
from .export_faces import HttpExport, InProcessExport
from .pending_faces import HttpLater, InProcessLater, McpLater


@dataclass(frozen=True)
class Item:
    """A record as a face shows it: its id, whose it is (when the face says) and its text."""

    id: str
    user_id: str | None
    text: str


@dataclass(frozen=True)
class Found:
    """What a read returned: the records and any text the caller sees besides them (evidence, an answer)."""

    items: list[Item]
    text: str = ""


class Face(Protocol):
    user: str
    keyed: bool

    def add(self, text: str, run_id: str | None, name: str | None) -> list[str]: ...
    def search(self, query: str, name: str | None) -> Found: ...
    def evidence(self, query: str, name: str | None) -> Found: ...
    def answer(self, question: str, name: str | None) -> Found: ...
    def get(self, record_id: str, name: str | None) -> Item: ...
    def get_all(self, name: str | None) -> Found: ...
    def update(self, record_id: str, text: str, name: str | None) -> Item: ...
    def delete(self, record_id: str, name: str | None) -> None: ...
    def history(self, record_id: str, name: str | None) -> Found: ...
    def forget(self, wildcard: bool, name: str | None) -> None: ...
    def close(self) -> None: ...


def _item(record: Any) -> Item:
    return Item(record.id, record.scope.user_id, record.embed_text())


def _found(records: Any, text: str = "") -> Found:
    return Found([_item(r) for r in records], text)


def _versions(entries: Any) -> Found:
    """A record's history as items: a version's content, or no text for a tombstone (DELETE)."""
    return Found([_item(e.record) if e.record is not None else Item(e.record_id, e.scope.user_id, "") for e in entries])


class MemoryFace(InProcessBanks, InProcessLater, InProcessExport):
    """In process: ``Memory`` called with the tenant's own scope."""

    keyed = False

    def __init__(self, memory: Memory, user: str, banks: Any = None) -> None:
        self.memory, self.user = memory, user
        self.banks = banks if banks is not None else ReasoningBanks(memory.store, memory.embedder)

    def _scope(self, name: str | None, run_id: str | None = None) -> Scope:
        return Scope(user_id=name or self.user, run_id=run_id)

    def add(self, text, run_id, name):
        return [r.id for r in self.memory.add(text, scope=self._scope(name, run_id)).records]

    def search(self, query, name):
        return _found(h.record for h in self.memory.search(query, scope=self._scope(name)))

    def evidence(self, query, name):
        ev = self.memory.evidence(query, scope=self._scope(name))
        return _found((h.record for h in ev.hits), ev.text)

    def answer(self, question, name):
        ans = self.memory.answer(question, scope=self._scope(name))
        return _found((h.record for h in ans.evidence.hits), ans.answer + "\n" + ans.evidence.text)

    def get(self, record_id, name):
        return _item(self.memory.get(record_id, scope=self._scope(name)))

    def get_all(self, name):
        return _found(self.memory.get_all(scope=self._scope(name)))

    def update(self, record_id, text, name):
        return _item(self.memory.update(record_id, text, scope=self._scope(name)))

    def delete(self, record_id, name):
        self.memory.delete(record_id, scope=self._scope(name))

    def history(self, record_id, name):
        return _versions(self.memory.history(record_id, scope=self._scope(name)))

    def forget(self, wildcard, name):
        self.memory.forget(self._scope(name), wildcard=wildcard)

    def close(self) -> None:
        pass


class RemoteFace(MemoryFace):
    """RemoteMemory over a real socket with the tenant's key, naming its own scope (as Memory's signature asks)."""

    def __init__(self, url: str, key: str, user: str) -> None:
        remote = RemoteMemory(url, api_key=key)
        super().__init__(remote, user, banks=remote)  # type: ignore[arg-type]  # RemoteMemory has ReasoningBanks' methods

    def close(self) -> None:
        self.memory.close()


class HttpFace(HttpBanks, HttpLater, HttpExport):
    """The HTTP routes over a real socket with the tenant's key; scope ids in the body or the query string."""

    keyed = True

    def __init__(self, url: str, key: str, user: str) -> None:
        self.user = user
        self.http = httpx2.Client(base_url=url, timeout=60, headers={"Authorization": f"Bearer {key}"})

    def _call(
        self, method: str, path: str, *, body: Any = None, name: str | None = None, run_id: str | None = None,
        params: dict[str, str] | None = None,
    ) -> Any:
        fields = {k: v for k, v in (("user_id", name), ("run_id", run_id)) if v is not None} | (params or {})
        if method == "POST":  # the scope travels in the body
            r = self.http.request(method, path, json={**fields, **body})
        else:  # in the query string
            r = self.http.request(method, path, params=fields, json=body)
        if r.status_code >= 400:
            raise error_from_reply(r.status_code, r.json())
        return r.json()

    def add(self, text, run_id, name):
        return [r["id"] for r in self._call("POST", "/v1/memories", body={"messages": [text]}, name=name, run_id=run_id)["records"]]

    def search(self, query, name):
        hits = self._call("POST", "/v1/memories/search", body={"query": query}, name=name)
        return Found([_json_item(h["record"]) for h in hits])

    def evidence(self, query, name):
        ev = self._call("POST", "/v1/memories/evidence", body={"query": query}, name=name)
        return Found([_json_item(h["record"]) for h in ev["hits"]], ev["text"])

    def answer(self, question, name):
        ans = self._call("POST", "/v1/memories/answer", body={"question": question}, name=name)
        return Found([_json_item(h["record"]) for h in ans["evidence"]["hits"]], ans["answer"] + "\n" + ans["evidence"]["text"])

    def get(self, record_id, name):
        return _json_item(self._call("GET", f"/v1/memories/{record_id}", name=name)["record"])

    def get_all(self, name):
        return Found([_json_item(r["record"]) for r in self._call("GET", "/v1/memories", name=name)])

    def update(self, record_id, text, name):
        return _json_item(self._call("PATCH", f"/v1/memories/{record_id}", body={"text": text}, name=name)["record"])

    def delete(self, record_id, name):
        self._call("DELETE", f"/v1/memories/{record_id}", name=name)

    def history(self, record_id, name):
        entries = self._call("GET", f"/v1/memories/{record_id}/history", name=name)
        return Found([_json_item(e["record"]) if e["record"] else Item(e["record_id"], e["scope"]["user_id"], "") for e in entries])

    def forget(self, wildcard, name):
        self._call("DELETE", "/v1/memories", name=name, params={"wildcard": "true" if wildcard else "false"})

    def close(self) -> None:
        self.http.close()


class UiFace(HttpFace):
    """The memory browser at ``/ui`` with the tenant's key in its cookie: pages for lists, search, one memory
    (with its source messages' words) and its history, forms to edit and delete (through the confirmation page),
    the bank list and a bank's page (its examples, and those nearest a problem). It has no form to add, for
    evidence and answers or to change a bank: those go through the HTTP API with the same key (inherited)."""

    def __init__(self, url: str, key: str, user: str) -> None:
        super().__init__(url, key, user)
        self.ui = httpx2.Client(base_url=url, timeout=60, follow_redirects=False)
        token = re.search(r'name="csrf" value="([0-9a-f]+)"', self.ui.get("/ui/login").text).group(1)  # type: ignore[union-attr]
        r = self.ui.post("/ui/login", content=f"key={key}&csrf={token}", headers=_FORM)
        assert r.status_code == 303 and r.headers["location"] == "/ui", r.text

    def _page(self, path: str, params: dict[str, str]) -> str:
        r = self.ui.get(path, params=params)
        if r.status_code >= 400:
            raise _page_error(r.status_code, r.text)
        return r.text

    @staticmethod
    def _ids(html: str) -> list[Item]:
        return [Item(i, None, "") for i in dict.fromkeys(re.findall(r"/ui/memory/([0-9a-f]{32})", html))]

    def _params(self, name: str | None, **more: str) -> dict[str, str]:
        return {**({"user_id": name} if name is not None else {}), **more}

    def search(self, query, name):
        html = self._page("/ui/scope", self._params(name, q=query))
        hits = html.split("<section id=hits>", 1)[1].split("</section>", 1)[0] if "<section id=hits>" in html else ""
        return Found(self._ids(hits), html.replace(html_lib.escape(query), ""))  # the page echoes the query

    def get_all(self, name):
        html = self._page("/ui/scope", self._params(name))
        return Found(self._ids(html.split("</form>", 1)[1]), html)

    def _memory_page(self, record_id: str, name: str | None) -> str:
        """A current memory's page; a deleted one's shows its tombstone only, which reads as not found here."""
        html = self._page(f"/ui/memory/{record_id}", self._params(name))
        if "Deleted; its content is not kept." in html:
            raise errors.RecordNotFoundError(f"no record with id {record_id!r} (deleted)")
        return html

    def get(self, record_id, name):
        html = self._memory_page(record_id, name)
        text = re.search(r"<textarea name=text>(.*?)</textarea>", html, re.S).group(1)
        return Item(record_id, None, _unescape(text))

    def history(self, record_id, name):
        html = self._page(f"/ui/memory/{record_id}", self._params(name))
        rows = re.findall(r"<tr><td>v\d+</td><td>\w+</td><td class=muted>[^<]*</td><td>(.*?)</td></tr>", html, re.S)
        return Found([Item(record_id, None, _unescape(t)) for t in rows], html)

    def _form(self, record_id: str, action: str, name: str | None, **fields: str) -> None:
        """Send a memory's form as a browser does: edit from the memory's page, delete from its confirmation page."""
        if action == "delete":
            html = self._page(f"/ui/memory/{record_id}/delete", self._params(name))
            assert "Delete this memory?" in html
        else:
            html = self._memory_page(record_id, name)
        token = re.search(r'name="csrf" value="([0-9a-f]+)"', html).group(1)
        body = urlencode({**self._params(name), "csrf": token, **fields})
        r = self.ui.post(f"/ui/memory/{record_id}/{action}", content=body, headers=_FORM)
        if r.status_code >= 400:
            raise _page_error(r.status_code, r.text)

    def update(self, record_id, text, name):
        self._form(record_id, "edit", name, text=text)
        return self.get(record_id, name)

    def delete(self, record_id, name):
        self._form(record_id, "delete", name)

    def bank_list(self, name):
        html = self._page("/ui/banks", self._params(name))
        rows = re.findall(r'<tr><td><a href="/ui/banks/([^"?]+)\?([^"]*)">', html)
        return [(bank, parse_qs(html_lib.unescape(query)).get("user_id", [None])[0]) for bank, query in rows]

    def bank_retrieve(self, bank, problem, name):
        """The bank's page with the examples nearest ``problem``: its whole listing (a page holds more examples than
        the machine adds) as the items, the page (less the echoed problem) as the text."""
        html = self._page(f"/ui/banks/{quote(bank, safe='')}", self._params(name, problem=problem, k="50"))
        listing = html.split("<table class=examples>", 1)[1]
        rows = re.findall(r"<div class=content><strong>(.*?)</strong></div>.*?<tr><th>id</th><td>(.*?)</td>", listing, re.S)
        return Found([Item(_unescape(i), None, _unescape(p)) for p, i in rows], html.replace(html_lib.escape(problem), ""))

    def close(self) -> None:
        super().close()
        self.ui.close()


_FORM = {"content-type": "application/x-www-form-urlencoded"}


def _unescape(text: str) -> str:
    return html_lib.unescape(text)


def _page_error(status: int, html: str) -> errors.MemdeskError:
    """The memdesk exception an error page names (``<p class="error">RecordNotFoundError: ...``)."""
    m = re.search(r'<p class="error">(\w+): (.*?)</p>', html, re.S)
    if m is None:
        return errors.RemoteServerError(f"HTTP {status}: {html[:200]}")
    return error_from_reply(status, {"error": {"type": m.group(1), "message": _unescape(m.group(2))}})


def _json_item(record: dict) -> Item:
    from pydantic import TypeAdapter

    from memdesk.records import MemoryRecord

    return _item(TypeAdapter(MemoryRecord).validate_python(record))


class McpFace(McpBanks, McpLater):
    """The MCP tools: over streamable HTTP with the tenant's key (``url``), or in process on a server bound to
    the tenant (``memory``). One session stays open on a background event loop; calls go through it in turn."""

    def __init__(self, user: str, *, url: str | None = None, key: str | None = None, memory: Memory | None = None) -> None:
        self.user = user
        self.keyed = True  # a tenant key, or a server bound to the tenant
        self._url, self._key = url, key
        self._server = None if memory is None else create_mcp_server(memory, caller=Caller(tenant=Tenant(user_id=user)))
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._calls: asyncio.Queue | None = None
        self._worker = asyncio.run_coroutine_threadsafe(self._serve(), self._loop)

    async def _serve(self) -> None:
        self._calls = asyncio.Queue()
        async with contextlib.AsyncExitStack() as stack:
            if self._server is not None:
                client = await stack.enter_async_context(Client(self._server))
            else:
                hc = await stack.enter_async_context(
                    httpx2.AsyncClient(headers={"Authorization": f"Bearer {self._key}"}, timeout=60)
                )
                client = await stack.enter_async_context(Client(streamable_http_client(f"{self._url}/mcp", http_client=hc)))
            # as an MCP host does on opening a session: the client then validates each result against the tool's
            # output schema without asking again (asked lazily, after a forget that revoked the key, it gets 401)
            await client.list_tools()
            while (call := await self._calls.get()) is not None:
                tool, args, done = call
                try:
                    done.set_result(await client.call_tool(tool, args))
                except Exception as e:  # handed to the caller's thread
                    done.set_exception(e)

    def _tool(self, tool: str, args: dict[str, Any], name: str | None) -> Any:
        args = {k: v for k, v in args.items() if v is not None}
        if name is not None:
            args["user_id"] = name
        done: concurrent.futures.Future = concurrent.futures.Future()
        while self._calls is None:
            if self._worker.done():
                self._worker.result()  # the session failed to open: raise why
            time.sleep(0.01)
        self._loop.call_soon_threadsafe(self._calls.put_nowait, (tool, args, done))
        result = done.result(timeout=120)
        if result.is_error:
            raise _tool_error(result.content[0].text)
        return result.structured_content.get("result", result.structured_content)

    def close(self) -> None:
        if self._calls is not None:
            self._loop.call_soon_threadsafe(self._calls.put_nowait, None)
        try:
            self._worker.result(timeout=60)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=60)
            self._loop.close()

    def add(self, text, run_id, name):
        return [m["id"] for m in self._tool("add_memory", {"text": text, "run_id": run_id}, name)["memories"]]

    def search(self, query, name):
        return Found([_tool_item(m) for m in self._tool("search_memory", {"query": query, "limit": 100}, name)])

    def evidence(self, query, name):
        ev = self._tool("memory_evidence", {"query": query}, name)
        return Found([Item(i, None, "") for i in ev["memory_ids"]], ev["text"])

    def answer(self, question, name):  # MCP has no answer tool: the evidence is what a model answers from
        return self.evidence(question, name)

    def get(self, record_id, name):
        return _tool_item(self._tool("get_memory", {"memory_id": record_id}, name))

    def get_all(self, name):
        return Found([_tool_item(m) for m in self._tool("list_memories", {"limit": 1000}, name)])

    def update(self, record_id, text, name):
        return _tool_item(self._tool("update_memory", {"memory_id": record_id, "text": text}, name))

    def delete(self, record_id, name):
        self._tool("delete_memory", {"memory_id": record_id}, name)

    def history(self, record_id, name):
        versions = self._tool("memory_history", {"memory_id": record_id}, name)
        return Found([_tool_item(v["memory"]) if v["memory"] else Item(v["id"], None, "") for v in versions])

    def forget(self, wildcard, name):
        self._tool("forget_memories", {"wildcard": wildcard}, name)


def _tool_item(m: dict) -> Item:
    return Item(m["id"], None, m["text"])


def _tool_error(text: str) -> errors.MemdeskError:
    """The memdesk exception a tool error names ("Error executing tool x: RecordNotFoundError: ...")."""
    detail = text.split(": ", 1)[1] if text.startswith("Error executing tool") else text
    name, _, message = detail.partition(": ")
    return error_from_reply(400, {"error": {"type": name, "message": message}})
