"""The memory browser escapes everything it shows (hypothesis): hostile text never becomes markup on any page.

Hostile strings (script tags, attribute breakouts, closing tags, comments) mixed with arbitrary text go into every
field a page shows: a memory's text, speaker, scope ids, metadata keys and nested values, a superseding memory's
text, the raw message's words, a reasoning bank's owner, problems, solutions, groups, sources and tags, a search
query, an edit (its notice) and a delete (its notice). Every page is then parsed: it may hold only the elements and
attributes the browser writes itself, every link and form points into ``/ui``, and no hostile element shows up.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memdesk.reasoning import ReasoningBanks
from memdesk.records import Scope, utcnow
from memdesk.server import ApiKeys, create_app

from tests.server.conftest import sqlite_memory

from .conftest import ADMIN_KEY

FORM = {"content-type": "application/x-www-form-urlencoded"}
HOSTILE = st.sampled_from([
    "<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "'><svg onload=alert(1)>", "</textarea><evil>",
    "</td></tr></table><evil>", "<!--", "javascript:alert(1)", "&lt;evil&gt;", "<evil a='1' b=\"2\">", "\u202e<evil>",
])  # fmt: skip
PLAIN = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=8)
TEXT = st.builds(lambda a, h, b: f"{a}{h}{b}", PLAIN, HOSTILE, PLAIN)
SHORT = TEXT.map(lambda t: t[:70])

TAGS = {"html", "head", "meta", "title", "style", "body", "header", "main", "a", "span", "form", "input", "button",
        "p", "table", "tr", "td", "th", "h2", "div", "blockquote", "details", "summary", "textarea", "section", "strong",
        "code"}  # fmt: skip
ATTRS = {"lang", "charset", "name", "content", "href", "class", "style", "method", "action", "type", "value", "id",
         "placeholder", "autocomplete", "autofocus", "colspan", "role"}  # fmt: skip


class Markup(HTMLParser):
    """The elements and attributes of a page, as a browser's parser sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.attrs: set[str] = set()
        self.targets: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        for name, value in attrs:
            self.attrs.add(name)
            if name in ("href", "action"):
                self.targets.append(value or "")


def check(page: str) -> None:
    markup = Markup()
    markup.feed(page)
    markup.close()
    assert markup.tags <= TAGS, markup.tags - TAGS
    assert markup.attrs <= ATTRS, markup.attrs - ATTRS
    assert all(t.startswith("/ui") for t in markup.targets), markup.targets
    assert "<evil" not in page and "<script>" not in page and "<!--" not in page


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from fastapi.testclient import TestClient

    memory = sqlite_memory(tmp_path_factory.mktemp("escape") / "escape.db")
    banks = ReasoningBanks(memory.store, memory.embedder)
    with TestClient(create_app(memory, api_keys=ApiKeys([ADMIN_KEY]), mcp=False), follow_redirects=False) as c:
        form = re.search(r'name="csrf" value="([^"]+)"', c.get("/ui/login").text)  # a login form's token, if it has one
        r = c.post("/ui/login", data={"key": ADMIN_KEY, **({"csrf": form.group(1)} if form else {})}, headers=FORM)
        assert r.status_code == 303
        yield c, memory, banks
    memory.close()


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(user=SHORT, words=TEXT, speaker=SHORT, key=SHORT, value=TEXT, newer=TEXT, query=TEXT, problem=TEXT,
       group=SHORT, tag=SHORT, edit=TEXT)
def test_every_page_escapes_what_it_shows(browser, user, words, speaker, key, value, newer, query, problem, group, tag, edit):
    c, memory, banks = browser
    scope = Scope(user_id=user)
    owner = {"user_id": user}
    (old,) = memory.add([{"content": words, "speaker": speaker}], scope=scope).records
    (new,) = memory.add([newer], scope=scope).records
    memory.update(old.id, scope=scope, metadata={key: {value: [value, 1, None]}, "k": value},
                  superseded_by=new.id, valid_to=utcnow())  # fmt: skip
    tags = {"knowledge_domains": [tag], "solution_strategies": [tag], "problem_type": tag, "problem_context": tag,
            "complexity": {"difficulty": "easy", "steps": 1, "computation": "light"}}  # fmt: skip
    solved = {"problem": problem, "answer": "7", "solution": f"{problem} \\boxed{{7}}", "group": group, "source": tag}
    banks.add_examples("plain", [solved], scope=scope)
    banks.add_examples("tagged", [{**solved, "tags": tags}], scope=scope)
    pages = [
        ("/ui", {}), ("/ui/scope", owner), ("/ui/scope", {**owner, "superseded": "1"}), ("/ui/scope", {**owner, "q": query}),
        (f"/ui/memory/{old.id}", owner), (f"/ui/memory/{old.id}/delete", owner), (f"/ui/memory/{new.id}", owner),
        ("/ui/banks", {}), ("/ui/banks", owner), ("/ui/banks/plain", {**owner, "problem": query}),
        ("/ui/banks/tagged", {**owner, "format": "short"}), ("/ui/banks/nope", {**owner, "problem": query}),
    ]  # fmt: skip
    for path, params in pages:
        r = c.get(path, params=params)
        assert r.status_code in (200, 404), (path, r.status_code)
        check(r.text)
    token = re.search(r'name="csrf" value="([0-9a-f]+)"', c.get(f"/ui/memory/{new.id}", params=owner).text).group(1)
    edited = c.post(f"/ui/memory/{new.id}/edit", data={**owner, "csrf": token, "text": edit}, headers=FORM)
    assert edited.status_code == 303
    check(c.get(edited.headers["location"]).text)  # the notice quotes the new text
    deleted = c.post(f"/ui/memory/{old.id}/delete", data={**owner, "csrf": token}, headers=FORM)
    assert deleted.status_code == 303
    landed = c.get(deleted.headers["location"]).text
    assert "class=notice" in landed
    check(landed)  # the notice quotes the deleted text
