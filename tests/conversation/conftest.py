"""Fixtures shared by the conversation tests."""

from __future__ import annotations

import pytest

from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.memory import Memory
from memdesk.conversation.base import RoutedExtraction
from memdesk.conversation.router import RuleRouter
from memdesk.store import open_store


@pytest.fixture
def mem(tmp_path, minilm):
    """A Memory on a fresh SQLite store with the real MiniLM embedder and the offline rules (a test module may
    define its own ``mem``)."""
    m = Memory(open_store(f"sqlite:///{tmp_path}/mem.db"), minilm, RoutedExtraction(RuleRouter(), RuleExtractor()))
    yield m
    m.close()
