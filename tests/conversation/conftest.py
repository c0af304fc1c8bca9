"""Fixtures shared by the conversation tests."""

from __future__ import annotations

from datetime import timedelta

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


@pytest.fixture
def user_lines():
    """``user_lines(mem, scope, speaker, start, *lines)``: each line added to ``mem`` as the user ``speaker``'s message,
    a day apart from ``start``; returns the texts of the memories still current (``valid_to`` unset)."""

    def told(mem: Memory, scope, speaker: str, start, *lines: str) -> list[str]:
        for i, line in enumerate(lines):
            turn = {"content": line, "speaker": speaker, "role": "user", "timestamp": start + timedelta(days=i)}
            mem.add([turn], scope=scope)
        return [r.text() for r in mem.get_all(scope=scope) if r.valid_to is None]

    return told
