"""ExtractiveAnswerer and LLMAnswerer against the scripted fake."""

from __future__ import annotations

from datetime import datetime, timezone

from memdesk.conversation.answer import (
    ABSTAIN,
    ExtractiveAnswerer,
    LLMAnswerer,
    is_abstention,
)
from memdesk.conversation.base import Answerer
from memdesk.llm import ScriptedChatModel
from memdesk.records import (
    EpisodicRecord,
    MemoryType,
    Scope,
    SemanticRecord,
)
from memdesk.hits import Evidence, SearchHit

SCOPE = Scope(user_id="u")


def hit(record, score: float, rank: int = 0) -> SearchHit:
    return SearchHit(record=record, score=score, memory_type=MemoryType(record.type), rank=rank, why="test")


EP = EpisodicRecord(
    scope=SCOPE, speaker="Priya", title="Pottery class", summary="Priya went to her first pottery class.",
    temporal_anchor="2023-05-07", event_time=datetime(2023, 5, 7, tzinfo=timezone.utc),
)
SEM = SemanticRecord(
    scope=SCOPE, speaker="Tomas", fact="Tomas bakes rye bread.", event_time=datetime(2023, 5, 8, tzinfo=timezone.utc)
)
EVIDENCE = Evidence(
    hits=[hit(SEM, 0.19), hit(EP, 0.73)],
    text="- [2023-05-08] Tomas (semantic) Tomas bakes rye bread.\n"
         "- [2023-05-07] Priya (episodic) Pottery class: Priya went to her first pottery class.",
    tokens=30,
)
EMPTY = Evidence(hits=[], text="", tokens=0)


def test_extractive_answer_is_the_best_evidence_labelled() -> None:
    a = ExtractiveAnswerer()
    assert isinstance(a, Answerer)
    ans = a.answer("When did Priya go to the pottery class?", EVIDENCE)
    assert ans.extractive and ans.model is None and ans.evidence is EVIDENCE
    assert ans.answer == "[extractive: best evidence] Priya went to her first pottery class. (2023-05-07)"
    one = Evidence(hits=[hit(SEM, 0.2)], text="x", tokens=1)
    assert ExtractiveAnswerer(label="").answer("What does Tomas bake?", one).answer == "Tomas bakes rye bread. (2023-05-08)"
    assert a.answer("q", EMPTY).answer == ABSTAIN


def test_llm_answer_prompt_carries_evidence_anchors_and_question_time() -> None:
    model = ScriptedChatModel(["Answer: 7 May 2023"], model_id="qwen")
    ans = LLMAnswerer(model).answer("When did Priya go to the pottery class?", EVIDENCE, question_time="2023-06-01")
    call = model.calls[0]
    assert "[2023-05-07] Priya (episodic)" in call.user and "[2023-05-08] Tomas" in call.user
    assert "Question date: 2023-06-01" in call.user and "When did Priya go" in call.user
    assert ABSTAIN in call.system and call.operation == "answer" and call.max_tokens == 96
    assert ans.answer == "7 May 2023" and not ans.extractive and ans.model == "qwen"
    assert model.ledger.get("answer").calls == 1


def test_llm_abstention_is_normalized_and_no_evidence_costs_no_call() -> None:
    model = ScriptedChatModel(["It is not mentioned in the conversation."])
    assert LLMAnswerer(model).answer("What is Bob's cat called?", EVIDENCE).answer == ABSTAIN
    ans = LLMAnswerer(model).answer("q", EMPTY)
    assert ans.answer == ABSTAIN and len(model.calls) == 1
    assert "Question date: not given" in model.calls[0].user


def test_is_abstention_only_for_short_replies() -> None:
    assert is_abstention("Not mentioned in the conversation.")
    assert not is_abstention("Paris")
    assert not is_abstention("Her dog's name is not mentioned in the conversation, but she has a cat named Luna "
                             "and a hamster called Bob")
