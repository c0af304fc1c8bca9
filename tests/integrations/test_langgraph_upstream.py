"""LangGraph's own store tests, run against MemdeskStore where they are importable.

LangGraph does not ship its tests in its wheels, so CI skips this module. To run it, point
``MEMDESK_LANGGRAPH_TESTS`` at a LangGraph source checkout and install the SQLite store package its test module
imports (``pip install langgraph-checkpoint-sqlite``): the store-agnostic tests of
``libs/checkpoint-sqlite/tests/test_store.py`` then run here with MemdeskStore in place of SqliteStore (its
``store`` fixture and its ``create_vector_store`` helper yield a MemdeskStore; memdesk embeds with its own
model, so the tests that check LangGraph's fake embeddings' scores or SqliteStore's SQL are not among them).
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import os
from pathlib import Path

import pytest

UPSTREAM = os.environ.get("MEMDESK_LANGGRAPH_TESTS")
TEST_FILE = Path(UPSTREAM or ".") / "libs" / "checkpoint-sqlite" / "tests" / "test_store.py"
pytestmark = pytest.mark.skipif(
    not UPSTREAM or not TEST_FILE.exists(),
    reason="LangGraph's tests are not importable: set MEMDESK_LANGGRAPH_TESTS to a LangGraph checkout",
)

#: the tests that exercise the BaseStore contract (values, namespaces, filters, pages, batches); not
#: test_sql_injection_vulnerability, which wants SqliteStore's refusal of filter keys it cannot put in SQL
#: (memdesk matches filters on the values, with no SQL to inject into)
STORE_TESTS = [
    "test_batch_order", "test_batch_get_ops", "test_batch_put_ops", "test_batch_search_ops",
    "test_batch_list_namespaces_ops", "test_basic_store_operations", "test_list_namespaces_operations",
    "test_search_items", "test_sql_injection_filter_values",
    "test_numeric_filter_safety", "test_boolean_filter_safety", "test_filter_keys_with_hyphens_and_digits",
    "test_non_ascii", "test_search_namespace_segment_boundary", "test_search_namespace_wildcard_chars_are_literal",
    "test_search_namespace_is_case_sensitive", "test_list_namespaces_segment_boundary",
    "test_search_empty_prefix_is_unconstrained", "test_namespace_labels_with_trailing_newline",
    "test_list_namespaces_metacharacter_labels", "TestSqliteStore.test_basic_store_ops",
    "TestSqliteStore.test_list_namespaces", "TestSqliteStore.test_search",
]


@pytest.fixture(scope="module")
def upstream():
    pytest.importorskip("langgraph.store.sqlite")
    spec = importlib.util.spec_from_file_location("langgraph_upstream_test_store", TEST_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def memdesk_store(tmp_path, monkeypatch, upstream):
    from memdesk.conversation.memory import build_memory
    from memdesk.integrations.langgraph import MemdeskStore
    from memdesk.settings import Settings

    opened = []

    @contextlib.contextmanager
    def store(*args, **kwargs):
        memory = build_memory(Settings(database_url=f"sqlite:///{tmp_path}/up{len(opened)}.db"))
        opened.append(memory)
        with MemdeskStore(memory) as s:
            yield s

    class Factory:  # SqliteStore.from_conn_string(...) in the class-based tests
        from_conn_string = staticmethod(store)

    monkeypatch.setattr(upstream, "create_vector_store", store)
    monkeypatch.setattr(upstream, "SqliteStore", Factory)
    yield store
    for m in opened:
        m.close()


@pytest.mark.parametrize("name", STORE_TESTS)
def test_langgraph_store_test(name, upstream, memdesk_store):
    owner, _, attr = name.rpartition(".")
    fn = getattr(getattr(upstream, owner)(), attr) if owner else getattr(upstream, name)
    params = inspect.signature(fn).parameters
    with memdesk_store() as store:
        kwargs = {}
        if "store" in params:
            kwargs["store"] = store
        if "fake_embeddings" in params:
            kwargs["fake_embeddings"] = upstream.CharacterEmbeddings(dims=500)
        for mark in getattr(fn, "pytestmark", []):  # a parametrized test: its first parameter set
            if mark.name == "parametrize":
                kwargs[mark.args[0]] = mark.args[1][0]
        fn(**kwargs)
