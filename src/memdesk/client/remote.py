"""``RemoteMemory``: a memdesk server (``memdesk serve``) behind the same methods as :class:`~memdesk.Memory`.

Agent code written against ``Memory`` runs against a shared server by swapping the object::

    mem = RemoteMemory("http://memory.internal:8000", api_key="...")
    mem.add("I moved to Lisbon last month.", scope=Scope(user_id="ana"))
    hits = mem.search("Where does Ana live?", scope=Scope(user_id="ana"))     # list[SearchHit]

Replies are parsed into the same pydantic models (the server's memory items, :class:`~memdesk.hits.MemoryItem`,
come back as their typed records, as ``Memory.get`` / ``get_all`` / ``update`` return them). Errors the server reports come back as the same memdesk
exception classes (``RecordNotFoundError``, ``InvalidScopeError``, ...); a refused key raises
:class:`~memdesk.errors.RemoteAuthError`, an unreachable server or a reply that is not memdesk's
:class:`~memdesk.errors.RemoteServerError`. Messages are validated here first, with the errors ``Memory`` raises.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import quote

import httpx2
from pydantic import TypeAdapter, ValidationError

from .. import errors
from ..runtime import aio
from ..runtime.closing import ClosesOnExit
from ..conversation.inputs import MessageInput, as_flag, as_scope, as_types, normalize_messages
from ..filters import RecordFilter
from .banks import RemoteBanks
from ..hits import Answer, Evidence, MemoryItem, SearchHit
from ..records import AddResult, HistoryEntry, MemoryRecord, MemoryType, RawMessage, Scope
from ..store.base import Forgotten
from ..text.textcheck import check_strings, check_text

_ADDED = TypeAdapter(AddResult)
_EVIDENCE = TypeAdapter(Evidence)
_ANSWER = TypeAdapter(Answer)
_ITEM = TypeAdapter(MemoryItem)
_ITEMS = TypeAdapter(list[MemoryItem])
_HITS = TypeAdapter(list[SearchHit])
_HISTORY = TypeAdapter(list[HistoryEntry])
_MESSAGES = TypeAdapter(list[RawMessage])
PAGE = 1000
NEXT_CURSOR = "X-Next-Cursor"
"""The response header of ``GET /v1/memories`` that carries the cursor of the next page (absent on the last)."""


def _scope_fields(scope: Scope | Mapping[str, Any]) -> dict[str, str]:
    return as_scope(scope).model_dump(exclude_none=True)


def _filter_fields(filters: Any, as_of: datetime | None) -> dict[str, Any]:
    """``filters`` and ``as_of`` as JSON values (a RecordFilter as its set fields; its own errors raised here)."""
    if isinstance(filters, Mapping):
        filters = RecordFilter(**filters)
    elif filters is not None and not isinstance(filters, RecordFilter):
        raise errors.InvalidInputError(f"filters must be a RecordFilter or a dict, not {type(filters).__name__}")
    if as_of is not None and not isinstance(as_of, datetime):
        raise errors.InvalidInputError("as_of must be a datetime")
    return {
        "filters": None if filters is None else filters.model_dump(mode="json", exclude_defaults=True),
        "as_of": None if as_of is None else as_of.isoformat(),
    }


def _id(record_id: str) -> str:
    if not isinstance(record_id, str) or not record_id:
        raise errors.InvalidInputError("a record id must be a non-empty string")
    check_text(record_id, "record id")
    # memdesk never issues these, and no route can carry them: "/" splits the path, and the URL
    # normalizes "." and ".." away (GET /v1/memories/.. would reach /v1)
    if "/" in record_id or record_id in (".", ".."):
        raise errors.RecordNotFoundError(f"no memory with id {record_id!r}")
    return quote(record_id, safe="")


def error_from_reply(status: int, body: Any) -> errors.MemdeskError:
    """The memdesk exception a server's error reply stands for."""
    detail = body.get("error") if isinstance(body, Mapping) else None
    if not isinstance(detail, Mapping) or not isinstance(detail.get("type"), str):
        return errors.RemoteServerError(f"server answered HTTP {status} without a memdesk error: {str(body)[:200]}")
    name, message = detail["type"], str(detail.get("message", ""))
    if status == 401:
        return errors.RemoteAuthError(message)
    cls = getattr(errors, name, None)
    if not (isinstance(cls, type) and issubclass(cls, errors.MemdeskError)):
        return errors.RemoteServerError(f"HTTP {status} {name}: {message}")
    err = cls.__new__(cls)  # some classes take structured arguments: keep the class and the server's message
    Exception.__init__(err, message)
    return err


class RemoteMemory(ClosesOnExit, RemoteBanks):
    """The HTTP API of a memdesk server, with :class:`~memdesk.Memory`'s methods and return types, and the
    reasoning banks' methods of :class:`~memdesk.reasoning.ReasoningBanks` (:mod:`memdesk.client.banks`)."""

    #: its only blocking work is HTTP, done through memdesk.runtime.aio.io: AsyncRemoteMemory runs it on the event loop
    async_ready = True

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        http_client: httpx2.Client | None = None,
        async_http_client: httpx2.AsyncClient | None = None,
    ) -> None:
        self._base_url = base_url.rstrip("/")
        self._timeout_s = timeout_s
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._owns_client = http_client is None
        self._http_client = http_client
        self._given_async_client = async_http_client
        self._async_clients = aio.PerLoop(lambda: httpx2.AsyncClient(base_url=self._base_url, timeout=self._timeout_s))

    @property
    def _http(self) -> httpx2.Client:
        if self._http_client is None:
            self._http_client = httpx2.Client(base_url=self._base_url, timeout=self._timeout_s)
        return self._http_client

    def _async_http(self) -> httpx2.AsyncClient:
        """The async client: the one passed in, else one per event loop (a pool cannot cross loops)."""
        return self._given_async_client or self._async_clients.get()

    def close(self) -> None:
        """Close the connection pools memdesk opened (clients passed in stay the caller's to close)."""
        if self._owns_client and self._http_client is not None:
            self._http_client.close()
        for client in self._async_clients.pop_all():
            aio.io(lambda: None, client.aclose)  # awaited under AsyncRemoteMemory; a sync close leaves them to GC

    # -- transport -------------------------------------------------------------------------------
    def _call(self, method: str, path: str, *, json: Any = None, params: Any = None) -> Any:
        return self._request(method, path, json=json, params=params)[0]

    def _request(self, method: str, path: str, *, json: Any = None, params: Any = None) -> tuple[Any, httpx2.Response]:
        """(parsed body, response) of a call that succeeded; the memdesk exception of one that did not."""
        # what Memory refuses (a lone surrogate, NUL) is refused here too, before it reaches the wire
        check_strings(json, "request")
        check_strings(params, "request")
        try:
            r = aio.io(
                lambda: self._http.request(method, path, json=json, params=params, headers=self._headers),
                lambda: self._async_http().request(method, path, json=json, params=params, headers=self._headers),
            )
        except httpx2.HTTPError as e:
            raise errors.RemoteServerError(f"{method} {path}: {type(e).__name__}: {e}") from e
        try:
            body = r.json()
        except ValueError:
            body = r.text
        if r.status_code >= 400:
            raise error_from_reply(r.status_code, body)
        return body, r

    def _parse(self, adapter: TypeAdapter, body: Any) -> Any:
        try:
            return adapter.validate_python(body)
        except ValidationError as e:
            raise errors.RemoteServerError(f"unexpected reply from the server: {e.errors()[0]}") from e

    # -- Memory's methods ------------------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        return self._call("GET", "/healthz")

    def add(
        self,
        messages: MessageInput | Sequence[MessageInput],
        *,
        scope: Scope | Mapping[str, Any],
        timestamp: datetime | None = None,
        speaker: str | None = None,
        wait: bool = True,
    ) -> AddResult:
        fields = _scope_fields(scope)  # the scope first, as Memory.add checks it
        as_flag("wait", wait)
        batch = normalize_messages(messages, timestamp=timestamp, speaker=speaker)
        body = {**fields, "messages": [m.model_dump(mode="json", exclude_none=True) for m in batch]}
        if not wait:
            body["wait"] = False
        return self._parse(_ADDED, self._call("POST", "/v1/memories", json=body))

    def _search_body(self, query: str, scope: Any, args: dict[str, Any]) -> dict[str, Any]:
        types = as_types(args.pop("types", None))
        args = {**args, **_filter_fields(args.get("filters"), args.get("as_of"))}
        if isinstance(args.get("asked_at"), datetime):
            args["asked_at"] = args["asked_at"].isoformat()
        body = {**_scope_fields(scope), "query": query, **{k: v for k, v in args.items() if v is not None}}
        if types is not None:
            body["types"] = [t.value for t in types]
        return body

    def search(self, query: str, *, scope: Scope | Mapping[str, Any], **search_args: Any) -> list[SearchHit]:
        """``k``, ``K``, ``types``, ``speaker``, ``mode``, ``merge``, ``hybrid``, ``as_of``, ``asked_at``, ``filters`` as in :meth:`Memory.search`."""
        return self._parse(_HITS, self._call("POST", "/v1/memories/search", json=self._search_body(query, scope, search_args)))

    def evidence(self, query: str, *, scope: Scope | Mapping[str, Any], **search_args: Any) -> Evidence:
        return self._parse(_EVIDENCE, self._call("POST", "/v1/memories/evidence", json=self._search_body(query, scope, search_args)))

    def answer(
        self, question: str, *, scope: Scope | Mapping[str, Any], question_time: str | None = None, **search_args: Any
    ) -> Answer:
        body = self._search_body(question, scope, {**search_args, "question_time": question_time})
        body["question"] = body.pop("query")
        return self._parse(_ANSWER, self._call("POST", "/v1/memories/answer", json=body))

    def get(self, record_id: str, *, scope: Scope | Mapping[str, Any]) -> MemoryRecord:
        """The record if it lies under ``scope`` (a tenant key: under its own), else RecordNotFoundError."""
        params = _scope_fields(scope)
        return self._parse(_ITEM, self._call("GET", f"/v1/memories/{_id(record_id)}", params=params)).record

    def get_all(
        self,
        *,
        scope: Scope | Mapping[str, Any],
        types: Sequence[MemoryType | str] | None = None,
        speaker: str | None = None,
        filters: Any = None,
        as_of: datetime | None = None,
    ) -> list[MemoryRecord]:
        params: dict[str, Any] = {**_scope_fields(scope), "limit": PAGE}
        where = _filter_fields(filters, as_of)
        if where.get("filters") is not None:
            params["filters"] = json.dumps(where["filters"])
        if where.get("as_of") is not None:
            params["as_of"] = where["as_of"]
        if types is not None:
            params["types"] = [t.value for t in as_types(types) or []]
        if speaker is not None:
            params["speaker"] = speaker
        out: list[MemoryRecord] = []
        while True:
            body, reply = self._request("GET", "/v1/memories", params=params)
            out.extend(item.record for item in self._parse(_ITEMS, body))
            cursor = reply.headers.get(NEXT_CURSOR)
            if cursor is None:
                return out
            params = {**params, "cursor": cursor}

    def messages(self, *, scope: Scope | Mapping[str, Any]) -> list[RawMessage]:
        return self._parse(_MESSAGES, self._call("GET", "/v1/messages", params=_scope_fields(scope)))

    def update(
        self, record_id: str, text: str | None = None, *, scope: Scope | Mapping[str, Any], **fields: Any
    ) -> MemoryRecord:
        params = _scope_fields(scope)
        body = {"text": text, "fields": TypeAdapter(dict[str, Any]).dump_python(fields, mode="json")}
        return self._parse(_ITEM, self._call("PATCH", f"/v1/memories/{_id(record_id)}", json=body, params=params)).record

    def delete(self, record_id: str, *, scope: Scope | Mapping[str, Any]) -> None:
        self._call("DELETE", f"/v1/memories/{_id(record_id)}", params=_scope_fields(scope))

    def forget(self, scope: Scope | Mapping[str, Any], *, wildcard: bool = False) -> Forgotten:
        """Erase the exact scope (every scope under it with ``wildcard``): see :meth:`Memory.forget`."""
        as_flag("wildcard", wildcard)
        params = {**_scope_fields(scope), "wildcard": "true" if wildcard else "false"}
        body = self._call("DELETE", "/v1/memories", params=params)
        return Forgotten(
            records=body["deleted"], messages=body["messages"], history=body["history"], scopes=body["scopes"],
            banks=body.get("banks", 0), keys=body.get("keys", 0),
        )

    def delete_all(self, *, scope: Scope | Mapping[str, Any], wildcard: bool = False) -> int:
        return self.forget(scope, wildcard=wildcard).records

    def history(self, record_id: str, *, scope: Scope | Mapping[str, Any]) -> list[HistoryEntry]:
        params = _scope_fields(scope)
        return self._parse(_HISTORY, self._call("GET", f"/v1/memories/{_id(record_id)}/history", params=params))
