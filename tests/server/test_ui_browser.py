"""The memory browser in a real headless Chromium (Debian's ``chromium`` + ``chromium-driver``, driven by Selenium)
against a live server over sockets, on the packaged sample conversation with the packaged MiniLM embedder.

CI skips this module cleanly unless Chromium and its driver are installed (``apt-get install chromium
chromium-driver``); on this project's machines they install from Debian's packages. Set
``MEMDESK_UI_SCREENSHOT=docs/ui.png`` to refresh the screenshot committed under ``docs/``.
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

from memdesk.demo import run_demo, sample_data  # noqa: E402
from memdesk.factory import build_memory  # noqa: E402
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
    navigate(browser, browser.find_element(By.CSS_SELECTOR, "button.danger").click)
    assert "/ui/scope" in browser.current_url
    assert record_id not in {r.id for r in memory.get_all(scope=Scope(user_id="demo", run_id="sample"))}
