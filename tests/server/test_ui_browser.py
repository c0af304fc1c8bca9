"""The memory browser in a real headless Chromium (Debian's ``chromium`` + ``chromium-driver``, driven by Selenium)
against a live server over sockets, on the packaged sample conversation with the packaged MiniLM embedder.

CI skips this module cleanly unless Chromium and its driver are installed (``apt-get install chromium
chromium-driver``); on this project's machines they install from Debian's packages. Set
``MEMDESK_UI_SCREENSHOT=docs/ui.png`` to refresh the screenshot committed under ``docs/``, and
``MEMDESK_UI_SCREENSHOTS=<folder>`` to save a screenshot of every page the tests below check (``<name>.png``).
"""

from __future__ import annotations

import os
import shutil

import pytest

webdriver = pytest.importorskip("selenium.webdriver")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and DRIVER), reason="Chromium is not installed (apt-get install chromium chromium-driver)"
)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from memdesk.cli.demo import run_demo, sample_data  # noqa: E402
from memdesk.conversation.memory import build_memory  # noqa: E402
from memdesk.records import Scope  # noqa: E402
from memdesk.server import ApiKeys, create_app  # noqa: E402
from memdesk.settings import Settings  # noqa: E402

from .conftest import KEY, LiveServer  # noqa: E402


@pytest.fixture
def browser(tmp_path):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,900", f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()


def navigate(browser, action) -> None:
    """Run ``action`` (a click or a submit that loads a new page) and wait until the new page is loaded.

    WebDriver's click returns once the click is dispatched, not once the form's POST, its 303 and the next GET are
    done: reading the page straight after it races the navigation. The old page's window gets a mark; the new
    document's window has none. While the navigation runs, a script or an element query may fail in transient ways
    (Chromium's "Node with given id does not belong to the document", a destroyed context): the wait retries them."""
    browser.execute_script("window.memdeskOldPage = true")
    action()
    WebDriverWait(browser, 60, ignored_exceptions=(WebDriverException,)).until(
        lambda b: b.execute_script("return window.memdeskOldPage === undefined && document.readyState === 'complete'")
    )


@pytest.fixture
def server(tmp_path):
    memory = build_memory(Settings(database_url=f"sqlite:///{tmp_path}/ui.db"))
    run_demo(memory, sample_data(), n_questions=0)
    try:
        with LiveServer(create_app(memory, api_keys=ApiKeys([KEY]), mcp=False)) as live:
            yield live, memory
    finally:
        memory.close()


def test_browse_search_edit_and_delete_in_a_real_browser(browser, server):
    live, memory = server
    browser.get(f"{live.url}/ui")
    assert browser.current_url.endswith("/ui/login")
    browser.find_element(By.NAME, "key").send_keys(KEY)
    navigate(browser, browser.find_element(By.XPATH, "//button[.='open']").click)
    assert "user=demo,run=sample" in browser.find_element(By.TAG_NAME, "table").text
    navigate(browser, browser.find_element(By.LINK_TEXT, "user=demo,run=sample").click)
    headings = [h.text for h in browser.find_elements(By.TAG_NAME, "h2")]
    assert any(h.startswith("episodic") for h in headings) and any(h.startswith("procedural") for h in headings)
    box = browser.find_element(By.NAME, "q")
    box.send_keys("How does Maya make the lentil curry?")
    navigate(browser, box.submit)
    first = browser.find_elements(By.CSS_SELECTOR, "table tr")[1]
    # the score column is the read path's score (the default fused path: a calibrated z-score, not a cosine)
    assert "lentil curry" in first.text and "by cosine" in first.text and float(first.text.split()[0]) > 0
    if os.environ.get("MEMDESK_UI_SCREENSHOT"):
        browser.save_screenshot(os.environ["MEMDESK_UI_SCREENSHOT"])
    # open the best hit, edit it, then delete it
    navigate(browser, first.find_element(By.TAG_NAME, "a").click)
    record_id = browser.current_url.split("/ui/memory/")[1].split("?")[0]
    text = browser.find_element(By.NAME, "text")
    text.clear()
    text.send_keys("Maya's lentil curry: onion, garlic, ginger, curry powder, red lentils, coconut milk.")
    navigate(browser, browser.find_element(By.XPATH, "//button[starts-with(., 'save')]").click)
    assert "UPDATE" in browser.find_element(By.XPATH, "//h2[.='history']/following-sibling::table").text
    assert "coconut milk" in memory.get(record_id, scope=Scope(user_id="demo", run_id="sample")).embed_text()
    # delete asks first, on a page of its own; the page after it says what was deleted
    navigate(browser, browser.find_element(By.CSS_SELECTOR, "button.danger").click)
    assert "Delete this memory?" in browser.find_element(By.CLASS_NAME, "confirm").text
    shot(browser, "confirm-delete")
    assert record_id in {r.id for r in memory.get_all(scope=Scope(user_id="demo", run_id="sample"))}
    navigate(browser, browser.find_element(By.XPATH, "//button[.='delete it']").click)
    assert "/ui/scope" in browser.current_url
    notice = browser.find_element(By.CLASS_NAME, "notice")
    assert notice.is_displayed() and notice.text.startswith("Deleted the ") and "coconut milk" in notice.text
    shot(browser, "deleted-notice")
    assert record_id not in {r.id for r in memory.get_all(scope=Scope(user_id="demo", run_id="sample"))}
    browser.refresh()
    assert not browser.find_elements(By.CLASS_NAME, "notice")  # once


def shot(browser, name: str) -> None:
    """Save a screenshot of the page as ``<MEMDESK_UI_SCREENSHOTS>/<name>.png`` when that folder is set."""
    folder = os.environ.get("MEMDESK_UI_SCREENSHOTS")
    if folder:
        os.makedirs(folder, exist_ok=True)
        browser.save_screenshot(os.path.join(folder, f"{name}.png"))


def log_in(browser, live) -> None:
    browser.get(f"{live.url}/ui")
    browser.find_element(By.NAME, "key").send_keys(KEY)
    navigate(browser, browser.find_element(By.XPATH, "//button[.='open']").click)


@pytest.fixture
def moved(tmp_path):
    """ana's memories (offline rules, hashing embedder): she lived in Bristol, then moved to Bath (which supersedes
    it); metadata with a nested value; two reasoning banks."""
    from memdesk.conversation.memory import Memory
    from memdesk.embed import HashingEmbedder
    from memdesk.factory import build_processor
    from memdesk.reasoning import ReasoningBanks
    from memdesk.store import open_store

    memory = Memory(open_store(f"sqlite:///{tmp_path}/moved.db"), HashingEmbedder(256), build_processor(Settings(processor="rules")))
    ana = Scope(user_id="ana")
    memory.add([{"content": "I live in Bristol with my cat Mochi.", "speaker": "Ana",
                 "metadata": {"app": "web", "device": {"os": "ios", "version": [17, 2]}}}], scope=ana)
    memory.add([{"content": "I moved to Bath last week, the flat is near the river.", "speaker": "Ana"}], scope=ana)
    banks = ReasoningBanks(memory.store, memory.embedder)
    tags = {"knowledge_domains": ["arithmetic"], "solution_strategies": ["multiplication"], "problem_type": "word problem",
            "problem_context": "shopping", "complexity": {"difficulty": "easy", "steps": 2, "computation": "light"}}
    banks.add_examples("arith", [
        {"problem": "A pen costs $2. How much do 3 pens cost?", "answer": "6",
         "solution": "Each pen costs $2.\nSo 3 pens cost 3 * 2 = 6 dollars. \\boxed{6}", "group": "shopping"},
        {"problem": "Tom has 5 apples and eats 2. How many are left?", "answer": "3",
         "solution": "He had 5 and ate 2, so 5 - 2 = 3 are left. \\boxed{3}"},
    ], scope=ana)
    banks.add_examples("tutor-notes", [{"problem": "A bus ticket is $4. What do 2 tickets cost?", "answer": "8",
                                        "solution": "2 * 4 = 8. \\boxed{8}", "tags": tags}], scope=Scope(user_id="ana", agent_id="tutor"))
    try:
        with LiveServer(create_app(memory, api_keys=ApiKeys([KEY]), mcp=False, banks=banks)) as live:
            yield live, memory
    finally:
        memory.close()


def test_superseded_memories_source_words_and_metadata_in_a_real_browser(browser, moved):
    live, memory = moved
    log_in(browser, live)
    navigate(browser, browser.find_element(By.LINK_TEXT, "user=ana").click)
    # superseded: left out by default (the cat's memory still quotes the words it came from, which name Bristol)
    assert "lives in Bristol" not in browser.find_element(By.TAG_NAME, "main").text
    said = browser.find_element(By.CSS_SELECTOR, "blockquote.said")
    assert said.is_displayed() and "I moved to Bath last week, the flat is near the river." in said.text
    navigate(browser, browser.find_element(By.PARTIAL_LINK_TEXT, "show 1 superseded").click)
    old = browser.find_element(By.CSS_SELECTOR, ".memory.superseded")
    assert "superseded" in old.find_element(By.CSS_SELECTOR, ".badge.old").text
    assert "line-through" in old.find_element(By.CSS_SELECTOR, ".text").value_of_css_property("text-decoration")
    assert "superseded by Ana moved to Bath" in old.text
    # metadata folds into a key/value table that opens without a script
    table = old.find_element(By.CSS_SELECTOR, "table.kv")
    assert not table.is_displayed()
    old.find_element(By.TAG_NAME, "summary").click()
    assert table.is_displayed()
    rows = {r.find_element(By.TAG_NAME, "th").text: r.find_element(By.TAG_NAME, "td").text for r in table.find_elements(By.TAG_NAME, "tr")}
    assert rows["app"] == "web" and rows["device"] == "os: ios, version: [17, 2]"
    shot(browser, "scope-superseded")
    navigate(browser, old.find_element(By.CSS_SELECTOR, "a .text").click)  # the old memory's own page
    assert browser.find_element(By.CSS_SELECTOR, ".badge.old").is_displayed()
    words = browser.find_element(By.XPATH, "//h2[.='said in']/following-sibling::table[1]").text
    assert "I live in Bristol with my cat Mochi." in words and "Ana" in words
    shot(browser, "memory-superseded")
    navigate(browser, browser.find_element(By.PARTIAL_LINK_TEXT, "Ana moved to Bath").click)  # to its successor
    assert not browser.find_elements(By.CSS_SELECTOR, ".badge.old")
    assert "Bath" in browser.find_element(By.NAME, "text").get_attribute("value")


def test_reasoning_bank_pages_in_a_real_browser(browser, moved):
    live, memory = moved
    log_in(browser, live)
    navigate(browser, browser.find_element(By.CSS_SELECTOR, "header").find_element(By.LINK_TEXT, "banks").click)
    listing = browser.find_element(By.TAG_NAME, "table").text
    assert "arith" in listing and "tutor-notes" in listing and "user=ana, agent=tutor" in listing
    shot(browser, "banks")
    navigate(browser, browser.find_element(By.LINK_TEXT, "arith").click)
    assert "examples 1-2 of 2" in browser.find_element(By.TAG_NAME, "main").text
    long_form = browser.find_element(By.CSS_SELECTOR, "table.examples").text
    assert "Each pen costs $2." in long_form and "\\boxed{6}" in long_form
    box = browser.find_element(By.NAME, "problem")
    box.send_keys("A cup costs $3. How much do 4 cups cost?")
    navigate(browser, box.submit)
    nearest = browser.find_element(By.ID, "nearest")
    assert nearest.find_elements(By.TAG_NAME, "tr")[1].text.split()[0].startswith("0.") and "pens cost" in nearest.text
    shot(browser, "bank")
    navigate(browser, browser.find_element(By.LINK_TEXT, "short").click)
    assert browser.find_element(By.CSS_SELECTOR, "p.muted strong").text == "short"
    navigate(browser, browser.find_element(By.LINK_TEXT, "← banks").click)
    navigate(browser, browser.find_element(By.LINK_TEXT, "tutor-notes").click)
    tags = browser.find_element(By.CSS_SELECTOR, "table.examples table.kv").text
    assert "knowledge_domains arithmetic" in tags and "complexity difficulty: easy, steps: 2, computation: light" in tags
