"""The LLM processor keeps the rule extractor's write rules whatever the model answers (scripted model):
small talk, one speaker, one fact per record, dates beside the words, negations that close."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memdesk.conversation.base import Utterance
from memdesk.conversation.llm_processor import LLMProcessor
from memdesk.conversation.memory import Memory
from memdesk.conversation.supersede import Supersession
from memdesk.embed.hashing import HashingEmbedder
from memdesk.llm import ScriptedChatModel
from memdesk.llm.base import ChatMessage
from memdesk.records import Message, RouteMask, Scope
from memdesk.store import open_store

S = Scope(user_id="maya")
MAR = datetime(2025, 3, 18, 9, 0, tzinfo=timezone.utc)
JUN = datetime(2025, 6, 2, 9, 0, tzinfo=timezone.utc)


def utt(text: str, speaker: str = "Maya", role: str = "user", context: list[Message] | None = None, ts: datetime = MAR) -> Utterance:
    message = Message(id="m9", speaker=speaker, role=role, content=text, timestamp=ts)
    return Utterance(message_id="m9", message=message, scope=S, context=context or [])


def facts(*items: str, when: str | None = None) -> dict:
    return {"mask": "010", "semantic": [{"fact": f, "when": when} for f in items]}


def test_the_prompt_states_the_write_rules() -> None:
    model = ScriptedChatModel([facts("Maya likes tea.")])
    LLMProcessor(model).process([utt("I like tea.")])
    system = model.calls[0].system
    for rule in ("small talk", "One fact per record", "Only what this message's speaker says", "no longer", "coming year"):
        assert rule in system


def test_small_talk_makes_no_record_whatever_the_model_says() -> None:
    model = ScriptedChatModel([facts("Desk congratulated Maya on the pottery course.")])
    [p] = LLMProcessor(model).process([utt("Congratulations on the pottery course!", "Desk", "assistant")])
    assert p.mask == RouteMask() and p.records == []


def test_thanks_in_another_language_makes_no_record_whatever_the_model_says() -> None:
    model = ScriptedChatModel([facts("Maya thanked the assistant warmly.")])
    [p] = LLMProcessor(model).process([utt("Merci beaucoup, bonne soirée !")])
    assert p.records == []
    model = ScriptedChatModel([facts("Maya is moving to Lyon in May.")])
    [p] = LLMProcessor(model).process([utt("Je déménage à Lyon en mai.")])  # a statement: the model's record stays
    assert [r.text() for r in p.records] == ["Maya is moving to Lyon in May."]


def test_a_record_copied_from_the_earlier_turns_is_dropped() -> None:
    context = [Message(speaker="Ines", content="My brother just bought a sailing boat in Oban.", timestamp=MAR)]
    model = ScriptedChatModel([facts("Ines's brother bought a sailing boat in Oban.", "Maya has never sailed.")])
    [p] = LLMProcessor(model).process([utt("Lucky him, I have never sailed in my life.", context=context)])
    assert [r.text() for r in p.records] == ["Maya has never sailed."]


def test_a_compound_fact_becomes_one_record_per_statement() -> None:
    model = ScriptedChatModel([facts("Maya lives in a flat in Leith with her cat, Biscuit.")])
    [p] = LLMProcessor(model).process([utt("I live in a flat in Leith with my cat, Biscuit.")])
    assert [r.text() for r in p.records] == ["Maya lives in a flat in Leith.", "Maya's cat is called Biscuit."]
    assert len({r.id for r in p.records}) == 2
    residence = p.records[0].metadata["claims"]
    assert residence == [{"attribute": "residence", "slot": "", "value": "Leith", "op": "set"}]
    assert p.records[1].metadata["claims"] == [{"attribute": "pet", "slot": "biscuit", "value": "Biscuit", "op": "set"}]  # its own slot


def test_a_bracketed_date_leaves_the_text_and_a_wrong_year_is_corrected() -> None:
    reply = {"mask": "100", "episodic": [{"title": "Maya's course starts", "when": "2024-04-15",
                                          "summary": "Maya's pottery course starts on 15 April (2024-04-15)."}]}  # fmt: skip
    [p] = LLMProcessor(ScriptedChatModel([reply])).process([utt("My pottery course starts on 15 April.")])
    (record,) = p.records
    assert record.summary == "Maya's pottery course starts on 15 April."
    assert record.event_time == datetime(2025, 4, 15, tzinfo=timezone.utc) and record.temporal_anchor == "2025-04-15"
    assert record.metadata["when_corrected"] == "2025-04-15"


def _scripted(messages: list[ChatMessage]) -> dict:
    text = messages[-1].content.rsplit("Message from ", 1)[1].split(":\n", 1)[1].strip()
    return {
        "I work as a nurse at the Riverside clinic.": facts("Maya works as a nurse at the Riverside clinic."),
        "I live in a flat in Leith with my cat, Biscuit.": facts("Maya lives in a flat in Leith with her cat, Biscuit."),
        "I no longer work at the Riverside clinic; I'm at St Mary's now.":
            facts("Maya no longer works at the Riverside clinic.", "Maya works at St Mary's."),
        "We moved to Portobello.": facts("Maya moved to Portobello."),
    }[text]  # fmt: skip


def test_changes_close_what_they_replace_even_when_the_model_adds(tmp_path) -> None:
    """The model decides "add" every time (it shows no known facts here); the claims close the old facts."""
    mem = Memory(open_store(f"sqlite:///{tmp_path}/t.db"), HashingEmbedder(), LLMProcessor(ScriptedChatModel(_scripted), known_facts=0))
    said = [("I work as a nurse at the Riverside clinic.", MAR), ("I live in a flat in Leith with my cat, Biscuit.", MAR),
            ("I no longer work at the Riverside clinic; I'm at St Mary's now.", JUN), ("We moved to Portobello.", JUN)]  # fmt: skip
    for text, when in said:
        mem.add([{"content": text, "speaker": "Maya", "timestamp": when}], scope=S)
    current = [r.text() for r in mem.get_all(scope=S)]
    assert "Maya works as a nurse at the Riverside clinic." not in current
    assert "Maya lives in a flat in Leith." not in current
    assert "Maya's cat is called Biscuit." in current and "Maya works at St Mary's." in current
    mem.close()


def test_a_new_value_said_to_the_model_closes_the_old_value(tmp_path) -> None:
    """The LLM processor's records carry the rule claims too: a new value closes the old one (issue 28)."""
    model = ScriptedChatModel([facts("Maya's total budget for the extension is £40,000."), facts("Maya's extension budget is now £46,000.")])
    # the hashing embedder's cosines say little: no least similarity for a new value here
    mem = Memory(open_store(f"sqlite:///{tmp_path}/u.db"), HashingEmbedder(256), LLMProcessor(model), supersession=Supersession(update_min_score=0.0))
    mem.add({"content": "Our total budget for the extension is £40,000.", "speaker": "Maya", "timestamp": MAR}, scope=S)
    mem.add({"content": "The steel beams push our budget up to £46,000.", "speaker": "Maya", "timestamp": JUN}, scope=S)
    current = [r.text() for r in mem.get_all(scope=S)]
    assert current == ["Maya's extension budget is now £46,000."]


def test_the_prompt_states_the_new_small_talk_and_date_rules() -> None:
    model = ScriptedChatModel([facts("Maya likes tea.")])
    LLMProcessor(model).process([utt("I like tea.")])
    system = model.calls[0].system
    for rule in ("only takes up what the other person said", "encouragement of the person spoken to", "booked, moved or scheduled"):
        assert rule in system


@pytest.mark.parametrize(
    "text,said",
    [("I'll try it.", "Maya will try it."), ("We do that already.", "Maya's household does that already."),
     ("Your support means a lot.", "Ines's support means a lot to Maya."), ("How have you been lately?", "Maya asked how Ines has been.")],
)  # fmt: skip
def test_replies_praise_and_small_talk_questions_make_no_record_whatever_the_model_says(text: str, said: str) -> None:
    context = [Message(speaker="Ines", content="You could stretch before each run.", timestamp=MAR)]
    [p] = LLMProcessor(ScriptedChatModel([facts(said)])).process([utt(text, context=context)])
    assert p.mask == RouteMask() and p.records == []


def test_a_booked_date_takes_the_coming_year_whatever_the_model_says() -> None:
    reply = {"mask": "100", "episodic": [{"title": "Maya booked a test", "when": "2024-06-21", "summary": "Maya booked her driving test for 21 June."}]}
    [p] = LLMProcessor(ScriptedChatModel([reply])).process([utt("I booked my driving test for 21 June.", ts=datetime(2025, 5, 12, tzinfo=timezone.utc))])
    (record,) = p.records
    assert record.event_time == datetime(2025, 6, 21, tzinfo=timezone.utc) and record.temporal_anchor == "2025-06-21"
    assert record.summary == "Maya booked her driving test for 21 June."
