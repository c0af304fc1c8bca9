"""The memory browser's pages and forms (FastAPI's test client; the real browser is in test_ui_browser.py)."""

from __future__ import annotations

import re

import pytest

from memdesk.records import Scope
from memdesk.server import ApiKeys, create_app

from .conftest import KEY

ANA = Scope(user_id="ana")
FORM = {"content-type": "application/x-www-form-urlencoded"}


@pytest.fixture
def ui(mem):
    from fastapi.testclient import TestClient

    mem.add(["I moved to Lisbon.", "My cat is called Mochi.", "<script>alert(1)</script> is what I typed"], scope=ANA)
    with TestClient(create_app(mem, api_keys=ApiKeys([KEY]), mcp=False), follow_redirects=False) as c:
        yield c


def login(c, key=KEY):
    token = csrf(c.get("/ui/login").text)
    return c.post("/ui/login", content=f"key={key}&csrf={token}", headers=FORM)


def csrf(html: str) -> str:
    return re.search(r'name="csrf" value="([0-9a-f]+)"', html).group(1)


def test_pages_need_the_same_keys_as_the_api(ui):
    assert ui.get("/ui").headers["location"] == "/ui/login"
    assert login(ui, "wrong-key-0123456789").headers["location"] == "/ui/login?failed=1"
    r = login(ui)
    assert r.status_code == 303 and "httponly" in r.headers["set-cookie"].lower() and "samesite=strict" in r.headers["set-cookie"].lower()
    page = ui.get("/ui")
    assert page.status_code == 200 and "user=ana" in page.text and "default-src 'none'" in page.headers["content-security-policy"]


def test_scope_page_shows_memories_by_type_and_search_hits_with_score_and_why(ui, mem):
    login(ui)
    page = ui.get("/ui/scope", params={"user_id": "ana"}).text
    assert "semantic (3)" in page and "from messages:" in page and "Mochi" in page
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page  # escaped
    hits = ui.get("/ui/scope", params={"user_id": "ana", "q": "What is the cat called?"}).text
    assert re.search(r"<td>0\.\d{3}</td>", hits) and "by cosine" in hits


def test_edit_and_delete_with_the_form_token_only(ui, mem):
    login(ui)
    rid = next(r.id for r in mem.get_all(scope=ANA) if "Mochi" in r.embed_text())
    page = ui.get(f"/ui/memory/{rid}", params={"user_id": "ana"}).text
    token = csrf(page)
    r = ui.post(f"/ui/memory/{rid}/edit", content=f"user_id=ana&csrf={token}&text=My+cat+is+called+Pip.", headers=FORM)
    assert r.status_code == 303 and mem.get(rid, scope=ANA).embed_text() == "My cat is called Pip."
    assert "UPDATE" in ui.get(f"/ui/memory/{rid}", params={"user_id": "ana"}).text
    assert ui.post(f"/ui/memory/{rid}/delete", content="user_id=ana&csrf=forged", headers=FORM).status_code == 403
    foreign = {**FORM, "origin": "http://evil.example"}
    assert ui.post(f"/ui/memory/{rid}/delete", content=f"user_id=ana&csrf={token}", headers=foreign).status_code == 403
    assert ui.post(f"/ui/memory/{rid}/delete", content=f"user_id=bob&csrf={token}", headers=FORM).status_code == 404
    assert mem.get(rid, scope=ANA)  # nothing deleted by the refused forms
    assert ui.post(f"/ui/memory/{rid}/delete", content=f"user_id=ana&csrf={token}", headers=FORM).status_code == 303
    assert rid not in {r.id for r in mem.get_all(scope=ANA)}


def test_a_record_outside_the_named_scope_is_not_found(ui, mem):
    login(ui)
    rid = mem.get_all(scope=ANA)[0].id
    assert ui.get(f"/ui/memory/{rid}", params={"user_id": "bob"}).status_code == 404
    assert ui.get("/ui/memory/nope", params={"user_id": "ana"}).status_code == 404
