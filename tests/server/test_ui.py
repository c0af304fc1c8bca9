"""The memory browser's pages and forms (FastAPI's test client; the real browser is in test_ui_browser.py)."""

from __future__ import annotations

import re

import pytest

from memdesk.records import Scope
from memdesk.server import ApiKeys, create_app

from .conftest import KEY, OTHER_KEY

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


# --- readable metadata, source words, superseded memories, delete with a confirmation and a notice --------------
def rules_memory(path):
    """A Memory with the offline rules processor (its extractor closes superseded facts) and the hashing embedder."""
    from memdesk.conversation.memory import Memory
    from memdesk.embed import HashingEmbedder
    from memdesk.factory import build_processor
    from memdesk.settings import Settings
    from memdesk.store import open_store

    return Memory(open_store(f"sqlite:///{path}"), HashingEmbedder(256), build_processor(Settings(processor="rules")))


@pytest.fixture
def moved(tmp_path):
    """ana said where she lives, then that she moved: the first memory is superseded by the second."""
    from fastapi.testclient import TestClient

    mem = rules_memory(tmp_path / "rules.db")
    mem.add([{"content": "I live in Bristol.", "speaker": "Ana",
              "metadata": {"app": "web", "device": {"os": "ios", "version": [17, 2]}}}], scope=ANA)
    mem.add([{"content": "I moved to Bath last week.", "speaker": "Ana"}], scope=ANA)
    with TestClient(create_app(mem, api_keys=ApiKeys([KEY]), mcp=False), follow_redirects=False) as c:
        login(c)
        yield c, mem
    mem.close()


def records(mem, scope=ANA):
    every = mem.get_all(scope=scope, filters={"include_superseded": True})
    old = next(r for r in every if r.superseded_by)
    return old, next(r for r in every if r.id == old.superseded_by)


def test_metadata_is_a_key_value_table_with_nested_values_compact(moved):
    c, mem = moved
    old, _ = records(mem)
    page = c.get(f"/ui/memory/{old.id}", params={"user_id": "ana"}).text
    assert "<tr><th>app</th><td>web</td></tr>" in page
    assert "<tr><th>device</th><td>os: ios, version: [17, 2]</td></tr>" in page
    assert "{'" not in page and "&#x27;os&#x27;" not in page  # not a dict's repr


def test_a_superseded_memory_is_marked_with_its_successor_and_when(moved):
    c, mem = moved
    old, new = records(mem)
    listing = c.get("/ui/scope", params={"user_id": "ana"}).text
    assert old.id not in listing and "show 1 superseded" in listing  # left out by default, as reads do
    shown = c.get("/ui/scope", params={"user_id": "ana", "superseded": 1}).text
    block = shown.split(f"/ui/memory/{old.id}?", 1)[1].split("</td>", 1)[0]
    assert "memory superseded" in shown and "badge old'>superseded" in shown
    assert f'superseded by <a href="/ui/memory/{new.id}?user_id=ana">' in block and new.embed_text() in block
    assert f"on {old.valid_to:%Y-%m-%d %H:%M}" in block
    page = c.get(f"/ui/memory/{old.id}", params={"user_id": "ana"}).text
    assert "badge old'>superseded" in page and f"/ui/memory/{new.id}?user_id=ana" in page
    hits = c.get("/ui/scope", params={"user_id": "ana", "q": "Where does Ana live? Bristol"}).text.split("<section id=hits>")[1]
    if old.id in hits:  # a default search may return it, ranked lower: then it is marked there too
        assert "memory superseded" in hits.split(old.id)[0].rsplit("<tr>", 1)[1]


def test_the_source_message_words_are_shown_beside_a_memory(moved):
    c, mem = moved
    _, new = records(mem)
    listing = c.get("/ui/scope", params={"user_id": "ana"}).text
    assert "<blockquote class=said>Ana: “I moved to Bath last week.”</blockquote>" in listing
    page = c.get(f"/ui/memory/{new.id}", params={"user_id": "ana"}).text
    said = page.split("<h2>said in</h2>", 1)[1].split("</table>", 1)[0]
    assert new.provenance[0] in said and "I moved to Bath last week." in said


def test_another_tenants_message_with_the_same_id_is_never_shown(tmp_path):
    """bob logs a message under the very id of ana's: ana's memory shows ana's words, bob's never."""
    from fastapi.testclient import TestClient

    from memdesk.tenants import Tenant

    mem = rules_memory(tmp_path / "two.db")
    try:
        (rec,) = [r for r in mem.add([{"content": "I keep bees.", "id": "m-1"}], scope=ANA).records][:1]
        mem.add([{"content": "bob-secret-words", "id": "m-1"}], scope=Scope(user_id="bob"))
        mem.add([{"content": "ana-other-run", "id": "m-1"}], scope=Scope(user_id="ana", run_id="r2"))
        ana_key = mem.store.create_key(Tenant(user_id="ana")).key
        app = create_app(mem, api_keys=ApiKeys([KEY], tenant_keys=mem.store), mcp=False)
        for key in (ana_key, KEY):  # ana's key and an admin's, each in a browser of its own
            with TestClient(app, follow_redirects=False) as c:
                login(c, key)
                page = c.get(f"/ui/memory/{rec.id}", params={"user_id": "ana"}).text
                listing = c.get("/ui/scope", params={"user_id": "ana"}).text
                assert "I keep bees." in page.split("<h2>said in</h2>", 1)[1]
                assert "bob-secret-words" not in page + listing and "ana-other-run" not in page.split("<h2>said in</h2>", 1)[1]
    finally:
        mem.close()


def test_delete_asks_first_then_says_what_was_deleted_once(ui, mem):
    login(ui)
    rid = next(r.id for r in mem.get_all(scope=ANA) if "Mochi" in r.embed_text())
    page = ui.get(f"/ui/memory/{rid}", params={"user_id": "ana"}).text
    assert f'<form method=get action="/ui/memory/{rid}/delete">' in page  # the memory page's button asks first
    confirm = ui.get(f"/ui/memory/{rid}/delete", params={"user_id": "ana"})
    assert confirm.status_code == 200 and "Delete this memory?" in confirm.text and "My cat is called Mochi." in confirm.text
    assert mem.get(rid, scope=ANA)  # asking deletes nothing
    assert ui.get(f"/ui/memory/{rid}/delete", params={"user_id": "bob"}).status_code == 404
    r = ui.post(f"/ui/memory/{rid}/delete", content=f"user_id=ana&csrf={csrf(confirm.text)}", headers=FORM)
    assert r.status_code == 303 and "Mochi" not in r.headers["location"]  # the words never go into an address
    landed = ui.get(r.headers["location"]).text
    assert "<p class=notice role=status>Deleted the semantic memory “My cat is called Mochi.”" in landed
    assert "class=notice" not in ui.get(r.headers["location"]).text  # shown once
    assert rid not in {r.id for r in mem.get_all(scope=ANA)}


def test_a_notice_is_shown_only_to_the_browser_that_sent_the_form(mem):
    from fastapi.testclient import TestClient

    mem.add(["My cat is called Mochi."], scope=ANA)
    rid = mem.get_all(scope=ANA)[0].id
    app = create_app(mem, api_keys=ApiKeys([KEY, OTHER_KEY]), mcp=False)
    with TestClient(app, follow_redirects=False) as one, TestClient(app, follow_redirects=False) as two:
        login(one), login(two, OTHER_KEY)
        token = csrf(one.get(f"/ui/memory/{rid}/delete", params={"user_id": "ana"}).text)
        where = one.post(f"/ui/memory/{rid}/delete", content=f"user_id=ana&csrf={token}", headers=FORM).headers["location"]
        assert "class=notice" not in two.get(where).text
        assert "Deleted the semantic memory" in one.get(where).text


def test_an_edit_says_it_was_saved(ui, mem):
    login(ui)
    rid = next(r.id for r in mem.get_all(scope=ANA) if "Mochi" in r.embed_text())
    token = csrf(ui.get(f"/ui/memory/{rid}", params={"user_id": "ana"}).text)
    r = ui.post(f"/ui/memory/{rid}/edit", content=f"user_id=ana&csrf={token}&text=My+cat+is+called+Pip.", headers=FORM)
    assert "Saved: “My cat is called Pip.”" in ui.get(r.headers["location"]).text


# --- reasoning banks ---------------------------------------------------------------------------------------
TAGS = {"knowledge_domains": ["arithmetic"], "solution_strategies": ["multiplication"], "problem_type": "word problem",
        "problem_context": "shopping", "complexity": {"difficulty": "easy", "steps": 1, "computation": "light"}}


def example(problem, answer, **more):
    return {"problem": problem, "answer": answer, "solution": f"Worked out: \\boxed{{{answer}}}", **more}


@pytest.fixture
def banked(mem):
    """ana's two banks (one of her agent's, embedded by tags) and bob's bank of the same name, served with tenant keys."""
    from fastapi.testclient import TestClient

    from memdesk.reasoning import ReasoningBanks
    from memdesk.tenants import Tenant

    banks = ReasoningBanks(mem.store, mem.embedder)
    banks.add_examples("arith", [example("A pen costs $2. How much do 3 pens cost?", "6", group="pens"),
                                 example("Tom has 5 apples and eats 2. How many are left?", "3")], scope=ANA)
    banks.add_examples("tagged", [example("A bus ticket is $4. What do 2 cost?", "8", tags=TAGS)],
                       scope=Scope(user_id="ana", agent_id="tutor"))
    banks.add_examples("arith", [example("bob-private-problem: 2 + 2?", "4")], scope=Scope(user_id="bob"))
    keys = {u: mem.store.create_key(Tenant(user_id=u)).key for u in ("ana", "bob")}
    with TestClient(create_app(mem, api_keys=ApiKeys([KEY], tenant_keys=mem.store), mcp=False), follow_redirects=False) as c:
        yield c, keys


def another_browser(c):
    """A second browser (its own cookies) on the same server as the test client ``c``."""
    from fastapi.testclient import TestClient

    return TestClient(c.app, follow_redirects=False)


def test_the_bank_pages_list_a_tenants_banks_and_a_banks_examples(banked):
    c, keys = banked
    login(c, keys["ana"])
    assert '<a href="/ui/banks">banks</a>' in c.get("/ui").text  # in the navigation
    listing = c.get("/ui/banks").text
    assert '<a href="/ui/banks/arith?user_id=ana">arith</a>' in listing
    assert '<a href="/ui/banks/tagged?user_id=ana&amp;agent_id=tutor">tagged</a>' in listing
    assert "bob" not in listing
    page = c.get("/ui/banks/arith", params={"user_id": "ana", "format": "short"}).text
    assert "examples 1-2 of 2" in page and "A pen costs $2. How much do 3 pens cost?" in page
    assert "<strong>short</strong>" in page and 'format=long">long</a>' in page
    assert "<tr><th>group</th><td>pens</td></tr>" in page and "<tr><th>verified</th><td>true</td></tr>" in page
    assert "bob-private-problem" not in page
    tagged = c.get("/ui/banks/tagged", params={"agent_id": "tutor"}).text
    assert "<tr><th>knowledge_domains</th><td>arithmetic</td></tr>" in tagged
    assert "<tr><th>complexity</th><td>difficulty: easy, steps: 1, computation: light</td></tr>" in tagged
    assert "needs the problem's tags" in tagged and 'name="problem"' not in tagged  # no retrieve box without tags or a chat model
    nearest = c.get("/ui/banks/arith", params={"problem": "A cup costs $3. How much do 2 cups cost?", "k": 1}).text
    section = nearest.split("<section id=nearest>", 1)[1].split("</section>", 1)[0]
    assert "1 nearest to" in section and "pens cost" in section


def test_another_tenants_bank_reads_as_missing(banked):
    c, keys = banked
    login(c, keys["ana"])
    assert c.get("/ui/banks", params={"user_id": "bob"}).status_code == 404
    r = c.get("/ui/banks/arith", params={"user_id": "bob"})
    assert r.status_code == 404 and "UnknownBankError" in r.text and "bob-private-problem" not in r.text
    assert c.get("/ui/banks/nope").status_code == 404
    with another_browser(c) as bob:
        login(bob, keys["bob"])
        page = bob.get("/ui/banks/arith").text
        assert "bob-private-problem" in page and "pens" not in page


def test_an_admin_sees_every_owned_bank_or_one_users(banked):
    c, _ = banked
    login(c)
    every = c.get("/ui/banks").text
    assert "arith?user_id=ana" in every and "arith?user_id=bob" in every and "tagged?user_id=ana" in every
    bobs = c.get("/ui/banks", params={"user_id": "bob"}).text
    assert "arith?user_id=bob" in bobs and "user_id=ana" not in bobs


def test_bad_query_values_get_an_error_page_not_a_crash(ui):
    login(ui)
    r = ui.get("/ui/scope", params={"user_id": "ana", "type": "emotional"})
    assert r.status_code == 422 and "InvalidInputError" in r.text
    assert ui.get("/ui/banks/bad/name", params={"user_id": "ana"}).status_code == 404
    assert ui.get("/ui/banks/-bad", params={"user_id": "ana"}).status_code == 422
    assert ui.get("/ui/scope", params={"user_id": "ana", "notice_id": "forged"}).status_code == 200


def test_a_memory_closed_from_a_later_date_is_shown_current_until_then():
    """A change said ahead of its date closes the old memory only from that date: until then the browser shows it
    current (no strike, no badge) and says when it will be superseded; after that date it is marked as before."""
    from datetime import datetime, timedelta, timezone

    from memdesk.records import SemanticRecord
    from memdesk.server.ui_render import is_old, record_cell, superseded_note

    now = datetime.now(timezone.utc)
    bakery = SemanticRecord(scope=ANA, fact="Ana works at the corner bakery.", superseded_by="m-next",
                            valid_to=now + timedelta(days=30))
    assert not is_old(bakery) and is_old(bakery, now + timedelta(days=31))
    note = superseded_note(bakery, {"user_id": "ana"}, None)
    assert note.startswith("<div class=muted>current until ") and "then superseded by" in note
    assert "badge old" not in record_cell(bakery, {"user_id": "ana"})
    past = bakery.model_copy(update={"valid_to": now - timedelta(days=1)})
    assert is_old(past) and "badge old'>superseded" in record_cell(past, {"user_id": "ana"})
    assert superseded_note(past, {"user_id": "ana"}, None).startswith("<div class=muted>superseded by ")
