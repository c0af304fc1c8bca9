"""Opt-in: the write rules with a real chat model (a local one behind an OpenAI-compatible server).

Runs only when ``MEMDESK_TEST_LLM_BASE_URL`` and ``MEMDESK_TEST_LLM_MODEL`` are set (e.g. a llama.cpp server
with a small instruct model); otherwise skipped. What it checks holds whatever the model answers, because
the LLM processor's records go through :mod:`memdesk.conversation.llm_tidy`: small talk makes no record,
a move closes the address and not the cat, the course date is in the coming year.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone

import pytest

from memdesk.conversation.llm_processor import LLMProcessor
from memdesk.conversation.memory import Memory
from memdesk.embed.hashing import HashingEmbedder
from memdesk.llm.openai_compat import OpenAICompatChatModel
from memdesk.records import Scope
from memdesk.store import open_store

BASE_URL = os.environ.get("MEMDESK_TEST_LLM_BASE_URL")
MODEL = os.environ.get("MEMDESK_TEST_LLM_MODEL")
pytestmark = pytest.mark.skipif(not (BASE_URL and MODEL), reason="set MEMDESK_TEST_LLM_BASE_URL and MEMDESK_TEST_LLM_MODEL")

S = Scope(user_id="nadia")
MAR = datetime(2025, 3, 18, 9, 0, tzinfo=timezone.utc)
JUN = datetime(2025, 6, 2, 9, 0, tzinfo=timezone.utc)


def test_the_write_rules_hold_with_a_real_model(tmp_path) -> None:
    assert BASE_URL and MODEL
    model = OpenAICompatChatModel(MODEL, BASE_URL, timeout_s=120.0)
    mem = Memory(open_store(f"sqlite:///{tmp_path}/live.db"), HashingEmbedder(), LLMProcessor(model))
    said = [
        ("Desk", "assistant", "Good morning! How can I help today?", MAR),
        ("Nadia", "user", "I live in a flat in Leith with my cat, Biscuit.", MAR),
        ("Nadia", "user", "I accepted a place on a pottery course last week, starting on 15 April.", MAR),
        ("Desk", "assistant", "Congratulations on the pottery course!", MAR),
        ("Nadia", "user", "We moved to Portobello.", JUN),
    ]
    for speaker, role, text, when in said:
        mem.add([{"content": text, "speaker": speaker, "role": role, "timestamp": when}], scope=S)
    records = mem.get_all(scope=S)
    assert not [r for r in records if r.role == "assistant"]  # both of Desk's messages are small talk
    assert not any("Leith" in r.text() for r in records)
    assert any("Biscuit" in r.text() for r in records)
    course = [r for r in records if "course" in r.text().lower() and r.event_time is not None]
    assert not any(r.event_time.year == 2024 for r in course)  # type: ignore[union-attr]
    mem.close()
