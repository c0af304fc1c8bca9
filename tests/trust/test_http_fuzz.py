"""The HTTP API fuzzed (hypothesis): no request gets a 500, and a rejected write leaves the database as it was.

Requests go to every route (the reasoning banks' too) with bodies and query strings built from well-formed values mixed with hostile
ones: lone UTF-16 surrogates (as JSON escapes), NUL, control characters, oversized text, wrong types, deep
nesting, NaN, unknown fields, malformed JSON and bytes that are not UTF-8; the app runs with small limits
(:class:`~memdesk.server.limits.ServerLimits`) so that bodies, fields and metadata past them are among the inputs. After each request the whole
SQLite database (every table, dumped) is compared with its state before: any status >= 400 must leave it
byte-for-byte equal.
"""

from __future__ import annotations

import json
import sqlite3
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memdesk.llm import ScriptedChatModel
from memdesk.reasoning import ReasoningBanks
from memdesk.server import ApiKeys, create_app
from memdesk.server.limits import ServerLimits

from tests.server.conftest import sqlite_memory

from .conftest import ADMIN_KEY, KeyTable

AUTH = {"Authorization": f"Bearer {ADMIN_KEY}", "Content-Type": "application/json"}

HOSTILE = st.sampled_from(
    ["\ud800", "a\udfff", "\x00", "ok\x00ok", "\x1b[31m", " ", "", "a" * 300, "ana", "é", "𝄞", "\u202e", "null",
     "b" * 5_000]  # past the fixture's limits: field length, request characters, body bytes
)
TEXT = st.one_of(st.text(max_size=20), HOSTILE, st.builds(lambda a, b: a + b, st.text(max_size=5), HOSTILE))  # 2/3 hostile
JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)),
    max_leaves=8,
)
SCOPE_VALUE = st.one_of(st.none(), st.sampled_from(["ana", "ben"]), TEXT)
MESSAGE = st.one_of(
    TEXT,
    st.fixed_dictionaries(
        {"content": TEXT},
        optional={
            "speaker": TEXT, "role": st.sampled_from(["user", "assistant", "robot"]) | TEXT, "id": TEXT,
            "timestamp": st.sampled_from(["2024-05-01T10:00:00Z", "yesterday", "2024-13-45"]) | TEXT,
            "image_caption": TEXT, "metadata": JSON, "extra": JSON,
        },
    ),
    JSON,
)
FIELDS = {
    "messages": st.lists(MESSAGE, min_size=1, max_size=3) | st.lists(MESSAGE, max_size=3) | JSON,
    "query": TEXT | JSON,
    "k": st.integers(-2, 2000) | JSON,
    "K": st.integers(-2, 2000) | JSON,
    "types": st.lists(st.sampled_from(["episodic", "semantic", "procedural", "emotional"])) | JSON,
    "speaker": TEXT | JSON,
    "mode": st.sampled_from(["typed", "untyped", "other"]) | JSON,
    "merge": st.sampled_from(["score", "round_robin", "x"]) | JSON,
    "hybrid": st.booleans() | JSON,
    "timestamp": TEXT | JSON,
    "question_time": TEXT | JSON,
    "text": TEXT | JSON,
    "fields": st.dictionaries(st.sampled_from(["title", "temporal_anchor", "metadata", "fact", "id", "type"]) | TEXT, JSON),
    "user_id": SCOPE_VALUE, "agent_id": SCOPE_VALUE, "run_id": SCOPE_VALUE,
}
PARAM_FIELDS = {
    "user_id": SCOPE_VALUE, "agent_id": SCOPE_VALUE, "run_id": SCOPE_VALUE, "types": st.sampled_from(["episodic", "x"]),
    "offset": st.integers(-1, 5), "limit": st.integers(-1, 20000), "speaker": TEXT,
}
# a well-formed request per route; the fuzzer replaces or drops one or two of its fields, so most requests
# get past the first check and hostile values reach deep into the code
_SEARCH = {"user_id": "ana", "query": "bees", "k": 5, "K": 5, "types": ["semantic"], "speaker": "Ana", "mode": "typed",
           "merge": "score", "hybrid": True}
_EXAMPLE = {"problem": "Ana has 3 hives and buys 4. How many hives?", "answer": "7", "solution": "3 + 4 = 7. \\boxed{7}",
            "tags": None, "group": "bees", "source": "agent"}
ROUTES = {
    ("POST", "/v1/memories"): (
        {"user_id": "ana", "run_id": "r1", "messages": [{"content": "I keep bees.", "speaker": "Ana"}],
         "timestamp": "2024-05-01T10:00:00Z", "speaker": "Ana"},
        {},
    ),
    ("POST", "/v1/memories/search"): (_SEARCH, {}),
    ("POST", "/v1/memories/evidence"): (_SEARCH, {}),
    ("POST", "/v1/memories/answer"): ({**_SEARCH, "question_time": "2024-05-01"}, {}),
    ("GET", "/v1/memories"): (None, {"user_id": "ana", "types": "semantic", "offset": 0, "limit": 10, "speaker": "Ana"}),
    ("DELETE", "/v1/memories"): (None, {"user_id": "nobody"}),
    ("GET", "/v1/messages"): (None, {"user_id": "ana"}),
    ("GET", "/v1/memories/{id}"): (None, {"user_id": "ana"}),
    ("PATCH", "/v1/memories/{id}"): ({"text": "I keep wasps.", "fields": {"title": "t"}}, {"user_id": "ana"}),
    ("DELETE", "/v1/memories/{id}"): (None, {"user_id": "nobody"}),
    ("GET", "/v1/memories/{id}/history"): (None, {"user_id": "ana"}),
    ("GET", "/v1/banks"): (None, {"user_id": "ana"}),
    ("POST", "/v1/banks/{bank}/examples"): ({"user_id": "ana", "examples": [_EXAMPLE], "answer_kind": "number"}, {}),
    ("POST", "/v1/banks/{bank}/retrieve"): ({"user_id": "ana", "problem": "How many bees?", "k": 2, "format": "short"}, {}),
    ("POST", "/v1/banks/{bank}/solve"): ({"user_id": "ana", "problem": "How many bees?", "method": "cod", "k": 1}, {}),
    ("DELETE", "/v1/banks/{bank}/examples/{id}"): (None, {"user_id": "nobody"}),
    ("DELETE", "/v1/banks/{bank}"): (None, {"user_id": "nobody"}),
}


def mutated(base: dict, fields: dict) -> st.SearchStrategy[dict]:
    """``base`` with one or two of its fields replaced by drawn values (``fields``: name -> strategy) or
    dropped, or one unknown field added."""
    names = sorted(base) + ["unknown"]
    changes = st.lists(st.sampled_from(names), min_size=1, max_size=2, unique=True).flatmap(
        lambda chosen: st.fixed_dictionaries({n: st.one_of(st.none(), *[fields.get(n, JSON)] * 3) for n in chosen})
    )

    def apply(change: dict) -> dict:
        out = dict(base)
        for k, v in change.items():
            if v is None:
                out.pop(k, None)
            else:
                out[k] = v
        return out

    return changes.map(apply)


RAW_BODIES = st.sampled_from(
    [b"", b"{", b"[]", b"null", b'{"messages": ["\xff\xfe"]}', b'{"user_id": "ana", "messages": ["x"]}' + b"\x00",
     b"[" * 5000 + b"]" * 5000, b'{"query": NaN}', b'{"user_id": "ana", "messages": "\\ud800"}']
)


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory):
    from fastapi.testclient import TestClient

    path = tmp_path_factory.mktemp("fuzz") / "fuzz.db"
    memory = sqlite_memory(path)
    chat = ScriptedChatModel(lambda messages: "3 + 4 = 7. \\boxed{7}")  # solving goes all the way (501 is by design)
    banks = ReasoningBanks(memory.store, memory.embedder, chat=chat)
    # small limits, so fuzzed values reach them (413 / 422, never a 500, nothing written)
    limits = ServerLimits(max_body_bytes=4096, max_request_chars=400, max_metadata_bytes=64, max_field_chars=32, rate_per_s=0)
    app = create_app(memory, api_keys=ApiKeys([ADMIN_KEY], tenant_keys=KeyTable()), mcp=False, banks=banks, limits=limits)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, path, Seeded(memory)
    memory.close()


class Seeded:
    """Keeps some records of two users in the fuzzed database (a fuzzed delete may remove them)."""

    def __init__(self, memory) -> None:
        self.memory = memory

    @property
    def example_ids(self) -> list[str]:
        from memdesk.reasoning import ReasoningBanks

        banks, ana = ReasoningBanks(self.memory.store, self.memory.embedder), {"user_id": "ana"}
        if not banks.list_banks(scope=ana):
            banks.add_examples("arith", [_EXAMPLE, {**_EXAMPLE, "problem": "And 2 more?", "solution": "\\boxed{7}"}], scope=ana)
        return [e.id for e in banks.retrieve_examples("arith", "hives", scope=ana, k=10).examples]

    @property
    def ids(self) -> list[str]:
        ana, ben = {"user_id": "ana"}, {"user_id": "ben", "run_id": "r1"}
        if not self.memory.get_all(scope=ana):
            self.memory.add(["I keep bees.", "My sister lives in Porto."], scope=ana)
        if not self.memory.get_all(scope=ben):
            self.memory.add("I play the cello.", scope=ben)
        return [r.id for s in (ana, ben) for r in self.memory.get_all(scope=s)]


def wire(value):
    """A query-string value as the client can send it: text as (possibly invalid) UTF-8 bytes, percent-encoded."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    if isinstance(value, list):
        return [wire(v) for v in value if not isinstance(v, (list, dict))]
    if isinstance(value, dict):
        return json.dumps(value)
    return value


def dump(path) -> list[str]:
    """Every row of every table, read on a connection of its own."""
    with sqlite3.connect(path) as conn:
        return list(conn.iterdump())


def check(client, path, method: str, url: str, **kw) -> None:
    before = dump(path)
    r = client.request(method, url, **kw)
    assert r.status_code < 500, (method, url, r.status_code, r.text[:300])
    if r.status_code >= 400:
        body = r.json()
        assert isinstance(body["error"]["type"], str) and isinstance(body["error"]["message"], str)
        assert dump(path) == before, (method, url, r.status_code, r.text[:300])


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), route=st.sampled_from(sorted(ROUTES)))
def test_no_request_gets_a_500_and_rejected_writes_change_nothing(fuzzed, data, route):
    client, path, seeded = fuzzed
    ids = seeded.ids
    method, url = route
    base_body, base_params = ROUTES[route]
    body = data.draw(mutated(base_body, FIELDS) if base_body is not None else st.none(), label="body")
    params = data.draw(mutated(base_params, PARAM_FIELDS) if body is None or data.draw(st.booleans()) else st.just(base_params), label="params")
    if "{bank}" in url:
        ids = seeded.example_ids
        bank = data.draw(st.sampled_from(["arith", "other"]) | TEXT.filter(bool), label="bank")
        url = url.replace("{bank}", quote(bank.encode("utf-8", "surrogatepass"), safe=""))
    if "{id}" in url:
        # an index, not the id itself: which ids exist depends on what earlier examples deleted
        which = data.draw(st.integers(0, 9) | TEXT.filter(bool), label="id")
        record_id = ids[which % len(ids)] if isinstance(which, int) else which
        url = url.replace("{id}", quote(record_id.encode("utf-8", "surrogatepass"), safe=""))
    query = {k: wire(v) for k, v in params.items()}
    kw: dict = {"params": query, "headers": AUTH}
    if body is not None:
        kw["content"] = json.dumps(body).encode()  # ASCII JSON: a lone surrogate travels as a \\ud800 escape
    check(client, path, method, url, **kw)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(route=st.sampled_from(sorted(r for r in ROUTES if r[0] in ("POST", "PATCH"))), raw=RAW_BODIES)
def test_malformed_bodies_are_refused_cleanly(fuzzed, route, raw):
    client, path, seeded = fuzzed
    method, url = route
    check(client, path, method, url.replace("{id}", seeded.ids[0]).replace("{bank}", "arith") + "?user_id=ana", content=raw, headers=AUTH)


@pytest.mark.parametrize(
    "messages",
    [["a" * 50_001], [{"content": "ok", "image_caption": "b" * 50_000}], ["fine", "c" * 100_000]],  # under max_request_chars
    ids=["long", "long-caption", "one-long-among-short"],
)
def test_an_oversized_message_is_413_and_nothing_is_stored(fuzzed, messages):
    from fastapi.testclient import TestClient

    _, path, seeded = fuzzed
    before = dump(path)
    roomy = create_app(seeded.memory, api_keys=ApiKeys([ADMIN_KEY]), mcp=False)  # the default request limits
    with TestClient(roomy, raise_server_exceptions=False) as client:
        r = client.post("/v1/memories", content=json.dumps({"user_id": "ana", "messages": messages}), headers=AUTH)
    assert r.status_code == 413 and r.json()["error"]["type"] == "MessageTooLargeError"
    assert "max_message_chars" in r.json()["error"]["message"] and dump(path) == before
