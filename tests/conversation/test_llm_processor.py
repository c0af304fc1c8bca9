"""LLMProcessor (ENGRAM's single call per utterance) against the scripted fake chat model."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from memdesk.conversation.base import (
    Extractor,
    Processor,
    RoutedExtraction,
    Router,
    Utterance,
)
from memdesk.conversation.llm_processor import (
    LLMProcessor,
    UtteranceExtraction,
    parse_when,
)
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.errors import LLMConnectionError, LLMOutputError
from memdesk.llm import ScriptedChatModel
from memdesk.records import (
    EpisodicRecord,
    Message,
    ProceduralRecord,
    RouteMask,
    Scope,
    SemanticRecord,
)

SCOPE = Scope(user_id="u1", run_id="chat-7")
TS = datetime(2024, 3, 11, 13, 56, tzinfo=timezone.utc)


def utt(mid: str, speaker: str, text: str, ts: datetime | None = TS, context: list[Message] | None = None) -> Utterance:
    return Utterance(message_id=mid, message=Message(id=mid, speaker=speaker, content=text, timestamp=ts),
                     scope=SCOPE, context=context or [])


CONTEXT = [
    Message(speaker="Ines", content="Morning Tomas, how was your weekend?", timestamp=TS),
    Message(speaker="Tomas", content="Tiring, in a good way.", timestamp=TS),
]
TOMAS = utt("m3", "Tomas", "I ran my first half marathon yesterday and my legs are jelly.", context=CONTEXT)

REPLY_110 = {
    "mask": "110",
    "episodic": [{"title": "Tomas ran his first half marathon",
                  "summary": "Tomas ran his first half marathon and his legs ached.", "when": "2024-03-10"}],
    "semantic": [{"fact": "Tomas is a runner.", "when": None}],
    "procedural": [],
}


def test_prompt_carries_date_speaker_utterance_and_context() -> None:
    model = ScriptedChatModel([REPLY_110], model_id="qwen-1.5b")
    proc = LLMProcessor(model, context_turns=1)
    assert isinstance(proc, Processor) and isinstance(proc, Router) and isinstance(proc, Extractor)
    [p] = proc.process([TOMAS])
    call = model.calls[0]
    assert "Message date: 2024-03-11 (Monday), 13:56" in call.user
    assert "Message from Tomas:" in call.user and "first half marathon yesterday" in call.user
    assert "Tomas: Tiring, in a good way." in call.user and "how was your weekend" not in call.user  # 1 context turn
    assert call.schema is UtteranceExtraction and call.operation == "ingest"
    assert "YYYY-MM-DD" in call.system and "mask" in call.system
    props = call.response_format["json_schema"]["schema"]["$defs"]["EpisodicItem"]["properties"]
    assert props["summary"]["maxLength"] == 400 and props["title"]["maxLength"] == 100
    assert p.mask == RouteMask(episodic=True, semantic=True)


def test_records_carry_provenance_speaker_scope_and_resolved_time() -> None:
    model = ScriptedChatModel([REPLY_110], model_id="qwen-1.5b")
    [p] = LLMProcessor(model).process([TOMAS])
    ep, sem = p.records
    assert isinstance(ep, EpisodicRecord) and isinstance(sem, SemanticRecord)
    assert ep.summary.startswith("Tomas ran") and ep.title == "Tomas ran his first half marathon"
    assert ep.event_time == datetime(2024, 3, 10, tzinfo=timezone.utc) and ep.temporal_anchor == "2024-03-10"
    assert sem.event_time == TS and sem.temporal_anchor == "2024-03-11"  # no "when": dated by the message
    for r in p.records:
        assert r.provenance == ["m3"] and r.speaker == "Tomas" and r.scope == SCOPE
        assert r.metadata["extractor"] == "llm" and r.metadata["model"] == "qwen-1.5b"
        assert r.metadata["prompt"].startswith("extract_utterance/v6-")


def test_mask_is_reconciled_with_the_lists_and_nothing_is_dropped() -> None:
    reply = {"mask": "001", "episodic": [{"title": "t", "summary": "Ravi opened a pottery studio.", "when": "2024-01"}],
             "semantic": [], "procedural": []}
    [p] = LLMProcessor(ScriptedChatModel([reply])).process([utt("m1", "Ravi", "I opened my studio in January!")])
    assert p.mask == RouteMask(episodic=True, procedural=True)
    ep = next(r for r in p.records if isinstance(r, EpisodicRecord))
    assert ep.event_time == datetime(2024, 1, 1, tzinfo=timezone.utc) and ep.temporal_anchor == "2024-01"
    proc = next(r for r in p.records if isinstance(r, ProceduralRecord))
    assert proc.content == "I opened my studio in January!" and proc.metadata["extraction"] == "verbatim"


def test_mask_given_as_a_number_is_accepted() -> None:
    reply = {"mask": 10, "semantic": [{"fact": "Lena likes jazz.", "when": None}]}
    [p] = LLMProcessor(ScriptedChatModel([reply])).process([utt("m1", "Lena", "I like jazz")])
    assert p.mask == RouteMask(semantic=True) and len(p.records) == 1


def test_small_talk_and_empty_messages() -> None:
    model = ScriptedChatModel([{"mask": "000"}])
    out = LLMProcessor(model).process([utt("m1", "A", "Hi! Thanks!"), utt("m2", "B", "   ")])
    assert [p.mask.bits for p in out] == [0, 0] and all(not p.records for p in out)
    assert len(model.calls) == 1  # the empty message costs no call


def test_without_a_message_date_the_prompt_says_so() -> None:
    model = ScriptedChatModel([{"mask": "100", "episodic": [{"title": "t", "summary": "A moved.", "when": "last year"}]}])
    [p] = LLMProcessor(model).process([utt("m1", "A", "I moved last year", ts=None)])
    assert "Message date: unknown" in model.calls[0].user
    assert p.records[0].event_time is None and p.records[0].temporal_anchor == "last year"


def test_invalid_output_is_reasked_then_raises_without_a_fallback() -> None:
    model = ScriptedChatModel(["The message is episodic.", {"mask": "2"}, {"mask": "abc"}])
    with pytest.raises(LLMOutputError) as info:
        LLMProcessor(model).process([TOMAS])
    assert len(model.calls) == 3 and info.value.raw == json.dumps({"mask": "abc"})


def test_fallback_processor_takes_over_invalid_output_visibly() -> None:
    model = ScriptedChatModel(["no json"] * 3 + [REPLY_110])
    proc = LLMProcessor(model, fallback=RawTurnProcessor())
    first, second = proc.process([utt("m1", "A", "I adopted a cat."), TOMAS])
    assert first.mask == RouteMask(semantic=True) and first.records[0].fact == "A: I adopted a cat."
    assert "LLMOutputError" in first.records[0].metadata["fallback_reason"]
    assert second.mask.bits == 0b110


def test_runtime_failures_are_never_swallowed_by_the_fallback() -> None:
    proc = LLMProcessor(ScriptedChatModel([LLMConnectionError("down")]), fallback=RawTurnProcessor())
    with pytest.raises(LLMConnectionError):
        proc.process([TOMAS])


def test_batching_sends_several_utterances_in_one_call() -> None:
    us = [utt("t1", "Ines", "Hi Tomas!"), utt("t2", "Tomas", "I painted a sunrise last week."),
          utt("t3", "Ines", "To make pottery, first wedge the clay.", ts=datetime(2024, 3, 12, tzinfo=timezone.utc))]
    reply = {"items": [
        {"id": "m1", "mask": "000"},
        {"id": "m2", "mask": "100", "episodic": [{"title": "Painted sunrise", "summary": "Tomas painted a sunrise.",
                                                  "when": "2024-03-04"}]},
        {"id": "m3", "mask": "001", "procedural": [{"title": "Pottery", "content": "Wedge the clay first.", "when": None}]},
    ]}
    model = ScriptedChatModel([reply])
    proc = LLMProcessor(model, batch_size=3)
    out = proc.process(us)
    assert len(model.calls) == 1
    prompt = model.calls[0].user
    assert "m2 | date 2024-03-11 (Monday), 13:56 | from Tomas: I painted a sunrise last week." in prompt
    assert "m3 | date 2024-03-12 (Tuesday), 00:00 | from Ines" in prompt
    assert [str(p.mask) for p in out] == ["000", "100", "001"]
    assert out[1].records[0].provenance == ["t2"] and out[2].records[0].provenance == ["t3"]
    assert out[2].records[0].temporal_anchor == "2024-03-12"
    assert out[1].records[0].metadata["prompt"].startswith("extract_batch/")


def test_a_message_missing_from_a_batch_is_extracted_alone() -> None:
    us = [utt("a", "A", "I love tea."), utt("b", "B", "I ran a marathon yesterday.")]
    model = ScriptedChatModel([
        {"items": [{"id": "m1", "mask": "010", "semantic": [{"fact": "A loves tea.", "when": None}]}]},
        {"mask": "100", "episodic": [{"title": "Marathon", "summary": "B ran a marathon.", "when": "2023-05-07"}]},
    ])
    out = LLMProcessor(model, batch_size=2).process(us)
    assert len(model.calls) == 2 and "Message from B:" in model.calls[1].user
    assert out[1].records[0].provenance == ["b"] and out[1].mask == RouteMask(episodic=True)


def test_route_then_extract_makes_one_call_and_honours_the_given_mask() -> None:
    model = ScriptedChatModel([REPLY_110])
    proc = LLMProcessor(model)
    out = RoutedExtraction(proc, proc).process([TOMAS])
    assert len(model.calls) == 1 and out[0].mask.bits == 0b110 and len(out[0].records) == 2
    only_semantic = proc.extract(TOMAS, RouteMask(semantic=True, procedural=True))
    assert [r.type for r in only_semantic] == ["semantic", "procedural"]
    assert only_semantic[1].metadata["extraction"] == "verbatim" and len(model.calls) == 1


@pytest.mark.parametrize("when,anchor,day", [
    ("2023-05-07", "2023-05-07", datetime(2023, 5, 7, tzinfo=timezone.utc)),
    ("2022", "2022", datetime(2022, 1, 1, tzinfo=timezone.utc)),
    ("May 2023", "May 2023", datetime(2023, 5, 1, tzinfo=timezone.utc)),
    ("yesterday", "2024-03-10", datetime(2024, 3, 10, tzinfo=timezone.utc)),
    ("someday", "someday", None),
    (None, None, None),
    ("null", None, None),
])
def test_parse_when(when: str | None, anchor: str | None, day: datetime | None) -> None:
    assert parse_when(when, TS) == (day, anchor)


def test_settings_configure_the_batch_size_and_the_known_facts(monkeypatch) -> None:
    from memdesk.errors import ConfigError
    from memdesk.factory import build_processor
    from memdesk.settings import Settings

    model = ScriptedChatModel([])
    default = build_processor(Settings.load(processor="llm"), model)
    assert (default.batch_size, default.known_facts) == (1, 5)
    monkeypatch.setenv("MEMDESK_LLM_BATCH_SIZE", "4")
    monkeypatch.setenv("MEMDESK_LLM_KNOWN_FACTS", "0")
    configured = build_processor(Settings.load(processor="llm"), model)
    assert (configured.batch_size, configured.known_facts) == (4, 0)
    monkeypatch.setenv("MEMDESK_LLM_KNOWN_FACTS", "-1")
    with pytest.raises(ConfigError, match="llm_known_facts"):
        Settings.load(processor="llm")
