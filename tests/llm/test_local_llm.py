"""Opt-in: the LLM processor, answerer and judge against a real local model behind an
OpenAI-compatible server (llama.cpp's llama-server or ``python -m llama_cpp.server``).

Run with::

    MEMDESK_TEST_LLM_BASE_URL=http://127.0.0.1:8080/v1 MEMDESK_TEST_LLM_MODEL=local \
        python -m pytest -m local_llm tests/llm/test_local_llm.py -q

See docs/llm.md for starting a server with the GGUF models that ship inside PyPI packages.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone

import pytest

from memdesk.conversation.answer import ABSTAIN, LLMAnswerer
from memdesk.conversation.base import Utterance
from memdesk.conversation.llm_processor import LLMProcessor
from memdesk.llm.judge import LoCoMoJudge
from memdesk.records import (
    EpisodicRecord,
    MemoryType,
    Message,
    Scope,
)
from memdesk.hits import Evidence, SearchHit

pytestmark = [
    pytest.mark.local_llm,
    pytest.mark.skipif(not os.environ.get("MEMDESK_TEST_LLM_BASE_URL"), reason="MEMDESK_TEST_LLM_BASE_URL not set"),
]

SCOPE = Scope(user_id="local-test")
#: The least share of update scenarios whose current value ranks first. Qwen2.5-Coder-1.5B (Q4_K_M, the smallest
#: model docs/llm.md sets up) measured 5/9 (bench/results/updates/llm-qwen2.5-coder-1.5b.json); a weaker result
#: means the prompts, the decisions or their plumbing broke on a real model.
CURRENT_FIRST_AT_LEAST = 0.5
TS = datetime(2024, 3, 14, 18, 30, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def model():
    from memdesk.llm.openai_compat import OpenAICompatChatModel

    m = OpenAICompatChatModel(
        os.environ.get("MEMDESK_TEST_LLM_MODEL", "local"),
        os.environ["MEMDESK_TEST_LLM_BASE_URL"],
        os.environ.get("MEMDESK_TEST_LLM_API_KEY"),
        timeout_s=300,
        max_retries=1,
        concurrency=1,
    )
    yield m
    m.close()


@pytest.fixture(autouse=True)
def _allow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMDESK_ALLOW_MODEL_REQUESTS", "1")


def utt(mid: str, speaker: str, text: str) -> Utterance:
    return Utterance(message_id=mid, message=Message(speaker=speaker, content=text, timestamp=TS), scope=SCOPE)


def test_processor_routes_and_extracts_with_a_real_model(model) -> None:
    proc = LLMProcessor(model, max_tokens=300)
    event, smalltalk = proc.process(
        [utt("m1", "Tomas", "I went to my first pottery class yesterday and it was so relaxing."),
         utt("m2", "Ines", "Hi! Thanks!")]
    )
    assert event.mask.episodic, event
    ep = [r for r in event.records if isinstance(r, EpisodicRecord)]
    assert ep and all(r.provenance == ["m1"] and r.speaker == "Tomas" for r in event.records)
    assert any(r.temporal_anchor == "2024-03-13" for r in ep), [r.temporal_anchor for r in ep]
    assert len(smalltalk.records) <= 1
    assert model.ledger.get("ingest").calls >= 2


def test_answerer_uses_the_anchor_and_abstains(model) -> None:
    rec = EpisodicRecord(scope=SCOPE, speaker="Tomas", title="Pottery class",
                         summary="Tomas went to his first pottery class.", temporal_anchor="2024-03-13")
    ev = Evidence(hits=[SearchHit(record=rec, score=0.7, memory_type=MemoryType.EPISODIC, rank=0, why="t")],
                  text="- [2024-03-13] Tomas (episodic) Pottery class: Tomas went to his first pottery class.",
                  tokens=25)
    a = LLMAnswerer(model).answer("When did Tomas go to the pottery class?", ev)
    assert any(s in a.answer for s in ("2024-03-13", "March 13", "13 March")), a.answer
    b = LLMAnswerer(model).answer("What is the name of Tomas's dog?", ev)
    assert b.answer == ABSTAIN, b.answer


def test_judge_gives_a_valid_verdict(model) -> None:
    v = LoCoMoJudge(model).judge("When did Tomas go to the pottery class?", "13 March 2024", "2024-03-13")
    assert v.label in {"CORRECT", "WRONG"} and v.judge_model == model.model_id


def test_update_scenarios_through_the_llm_processor_on_a_real_model(model, tmp_path) -> None:
    """The first written update scenario of each kind (tests/data/update_scenarios.jsonl) through the LLM processor
    on the real model, one add per session, so the second session's prompts list the first one's facts: every reply
    is usable (no fallback), and the current value ranks above the superseded one in most scenarios."""
    import importlib.util
    from pathlib import Path

    from memdesk.conversation.memory import Memory
    from memdesk.embed import MiniLMEmbedder
    from memdesk.store import open_store

    path = Path(__file__).resolve().parents[2] / "bench" / "update_scenarios.py"
    spec = importlib.util.spec_from_file_location("update_scenarios", path)
    bench = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(bench)  # type: ignore[union-attr]
    scenarios = bench.first_of_each_kind(bench.load(), 1)
    mem = Memory(open_store(f"sqlite:///{tmp_path}/u.db"), MiniLMEmbedder(), LLMProcessor(model))
    try:
        result = bench.run(mem, scenarios, by_session=True)
        records = [r for sc in scenarios for r in mem.get_all(scope={"user_id": sc["id"]}, filters={"include_superseded": True})]
    finally:
        mem.close()
    assert not [r for r in records if "fallback_reason" in r.metadata]
    assert result["current_first"] >= CURRENT_FIRST_AT_LEAST, result
