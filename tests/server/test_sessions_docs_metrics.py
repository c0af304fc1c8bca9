"""UI sessions (never the key in the cookie; logout, revocation and expiry end them; login CSRF), MCP sessions bound
to their key, /docs and /redoc offline, and /metrics scraped."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from memdesk.records import Scope
from memdesk.server import ApiKeys, create_app
from memdesk.server.sessions import LOGIN_COOKIE, SESSION_COOKIE, UiSessions
from memdesk.tenants import Tenant

from .conftest import AUTH, KEY, OTHER_KEY

FORM = {"content-type": "application/x-www-form-urlencoded"}


def csrf(html: str) -> str:
    return re.search(r'name="csrf" value="([0-9a-f]+)"', html).group(1)  # type: ignore[union-attr]


def login(c, key: str = KEY):
    return c.post("/ui/login", content=f"key={key}&csrf={csrf(c.get('/ui/login').text)}", headers=FORM)


@pytest.fixture
def store_keys(mem):
    return ApiKeys([KEY], tenant_keys=mem.store)


def test_the_session_cookie_holds_a_random_id_not_the_key_and_logout_ends_it_server_side(mem, store_keys):
    with TestClient(create_app(mem, api_keys=store_keys, mcp=False), follow_redirects=False) as c:
        r = login(c)
        cookie = r.headers["set-cookie"]
        assert KEY not in cookie and "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
        session = c.cookies.get(SESSION_COOKIE)
        assert session and len(session) >= 40 and c.get("/ui").status_code == 200
        c.post("/ui/logout", content=f"csrf={csrf(c.get('/ui').text)}", headers=FORM)
        c.cookies.set(SESSION_COOKIE, session, path="/ui")  # the old id replayed after logout
        assert c.get("/ui").headers["location"] == "/ui/login"


def test_revoking_the_key_ends_its_sessions(mem, store_keys):
    made = mem.store.create_key(Tenant(user_id="ana"))
    mem.add("I keep bees.", scope=Scope(user_id="ana"))
    with TestClient(create_app(mem, api_keys=store_keys, mcp=False), follow_redirects=False) as c:
        assert login(c, made.key).headers["location"] == "/ui"
        assert c.get("/ui").status_code == 200
        mem.store.revoke_key(made.info.key_id)
        assert c.get("/ui").headers["location"] == "/ui/login"


def test_sessions_expire_and_are_stored_hashed(store_keys):
    now = [1000.0]
    sessions = UiSessions(store_keys, ttl_s=60, clock=lambda: now[0])
    sid = sessions.open(KEY)
    assert sid and sessions.caller(sid) is not None
    assert sid not in repr(sessions._open) and KEY not in repr(sessions._open)
    now[0] += 61
    assert sessions.caller(sid) is None and sessions.open("not-a-key-0123456789") is None


def test_login_needs_the_form_token_bound_to_its_own_cookie(mem, store_keys):
    with TestClient(create_app(mem, api_keys=store_keys, mcp=False), follow_redirects=False) as c:
        assert c.post("/ui/login", content=f"key={KEY}", headers=FORM).status_code == 403  # a cross-site form: no token
        token = csrf(c.get("/ui/login").text)
        c.cookies.delete(LOGIN_COOKIE, path="/ui")  # another site's form cannot send the SameSite=Strict cookie
        assert c.post("/ui/login", content=f"key={KEY}&csrf={token}", headers=FORM).status_code == 403
        assert c.cookies.get(SESSION_COOKIE) is None
        foreign = {**FORM, "origin": "https://evil.example"}
        token = csrf(c.get("/ui/login").text)
        assert c.post("/ui/login", content=f"key={KEY}&csrf={token}", headers=foreign).status_code == 403


@pytest.mark.parametrize(("secure", "base", "flag"), [("auto", "http://testserver", False), ("auto", "https://testserver", True),
                                                      ("always", "http://testserver", True), ("never", "https://testserver", False)])  # fmt: skip
def test_the_secure_flag_follows_the_setting(mem, store_keys, secure, base, flag):
    app = create_app(mem, api_keys=store_keys, mcp=False, sessions={"secure": secure})
    with TestClient(app, base_url=base, follow_redirects=False) as c:
        cookie = next(h for h in login(c).headers.get_list("set-cookie") if h.startswith(SESSION_COOKIE))
        assert ("secure" in cookie.lower().split("; ")) is flag


def test_an_mcp_session_answers_only_the_key_that_opened_it(mem):
    app = create_app(mem, api_keys=ApiKeys([KEY, OTHER_KEY]))
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}  # fmt: skip
    accept = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    with TestClient(app) as c:
        r = c.post("/mcp", json=init, headers={**AUTH, **accept})
        assert r.status_code == 200, r.text
        session = r.headers["mcp-session-id"]
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        mine = c.post("/mcp", json=ping, headers={**AUTH, **accept, "mcp-session-id": session})
        assert mine.status_code == 200
        theirs = c.post("/mcp", json=ping, headers={"X-API-Key": OTHER_KEY, **accept, "mcp-session-id": session})
        assert theirs.status_code == 404


_HOST = re.compile(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//([^/"' >]+)|url\(\s*["']?(?:https?:)?//([^/"')]+)""", re.I)


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_docs_pages_load_nothing_from_another_host(client, page):
    r = client.get(page)
    assert r.status_code == 200 and "'self'" in r.headers["content-security-policy"]
    assert _HOST.findall(r.text) == []  # no third-party script, style, font or favicon
    assets = re.findall(r"""(/docs-assets/[\w.-]+)""", r.text)
    assert assets
    for path in assets:
        got = client.get(path)
        assert got.status_code == 200 and len(got.content) > 1000
    assert client.get("/docs-assets/..%2Fcore.py").status_code == 404


def test_metrics_are_scraped_by_admin_keys_only_and_count_what_happened(mem, store_keys):
    ana = mem.store.create_key(Tenant(user_id="ana")).key
    with TestClient(create_app(mem, api_keys=store_keys, mcp=False)) as c:
        assert c.post("/v1/memories", json={"messages": ["I keep bees."]}, headers={"X-API-Key": ana}).status_code == 201
        assert c.post("/v1/memories/search", json={"query": "bees"}, headers={"X-API-Key": ana}).status_code == 200
        c.post("/v1/memories", json={"user_id": "ben", "messages": ["x"]}, headers={"X-API-Key": ana})  # 403
        c.get("/v1/messages", headers={"X-API-Key": "wrong-key-0123456789"})  # 401
        assert c.get("/metrics").status_code == 401
        assert c.get("/metrics", headers={"X-API-Key": ana}).status_code == 403  # tenant names are not a tenant's
        r = c.get("/metrics", headers=AUTH)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    text = r.text
    assert 'memdesk_requests_total{method="POST",route="/v1/memories",status="201"} 1.0' in text
    assert "memdesk_adds_total 1.0" in text and "memdesk_searches_total 1.0" in text
    assert 'memdesk_errors_total{type="ForbiddenScopeError"} 2.0' in text  # the add and the tenant's scrape
    assert 'memdesk_errors_total{type="NotAuthenticated"}' in text
    assert 'memdesk_request_seconds_bucket{le="0.005",route="/v1/memories/search"}' in text
    assert "memdesk_pending_messages" in text and "/v1/messages?" not in text


def test_open_metrics_leave_tenant_names_out(mem):
    mem.add(["I keep bees."], scope=Scope(user_id="secret-tenant"), wait=False)
    with TestClient(create_app(mem, api_keys=ApiKeys([KEY]), mcp=False, metrics="open")) as c:
        text = c.get("/metrics").text
    assert "secret-tenant" not in text and "memdesk_pending_messages " in text
