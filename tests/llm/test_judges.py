"""LoCoMo and LongMemEval judges against the scripted fake: prompts, verdicts, provenance."""

from __future__ import annotations

import pytest

from memdesk.errors import InvalidInputError, LLMOutputError
from memdesk.llm import ScriptedChatModel
from memdesk.llm.judge import LoCoMoJudge, LongMemEvalJudge, Verdict


def test_locomo_judge_prompt_and_verdict() -> None:
    model = ScriptedChatModel(['{"label": "CORRECT", "reason": "same day"}'], model_id="judge-m")
    judge = LoCoMoJudge(model)
    v = judge.judge("When did Tomas run his first half marathon?", "9 March 2024", "March 9th, 2024", category=2)
    assert isinstance(v, Verdict) and v.correct and v.score == 1.0
    assert v.judge_model == "judge-m" and v.prompt_version == judge.prompt_version
    assert v.prompt_version.startswith("judge_locomo/v2-") and v.question_type == "2"
    call = model.calls[0]
    assert "Gold answer: 9 March 2024" in call.user and "Generated answer: March 9th, 2024" in call.user
    assert "half marathon" in call.user and "CORRECT" in call.system and call.operation == "judge"
    assert model.ledger.get("judge").calls == 1 and v.usage.calls == 1


@pytest.mark.parametrize("raw,label", [('{"label": "wrong", "reason": "x"}', "WRONG"),
                                       ('```json\n{"label": "Yes", "reason": "x"}\n```', "CORRECT"),
                                       ('{"label": "CORRECT."}', "CORRECT")])
def test_labels_are_normalized(raw: str, label: str) -> None:
    assert LoCoMoJudge(ScriptedChatModel([raw])).judge("q", "g", "a").label == label


def test_a_judge_that_never_answers_raises_instead_of_scoring_wrong() -> None:
    model = ScriptedChatModel(["I think so."] * 3)
    with pytest.raises(LLMOutputError) as info:
        LoCoMoJudge(model).judge("q", "g", "a")
    assert info.value.raw == "I think so."


@pytest.mark.parametrize(
    "qtype,qid,needle",
    [
        ("temporal-reasoning", "t1", "off-by-one"),
        ("knowledge-update", "k1", "updated answer"),
        ("single-session-preference", "p1", "Rubric:"),
        ("single-session-user", "u1", "contains the correct answer"),
        ("multi-session", "m1", "contains the correct answer"),
        ("temporal-reasoning", "t2_abs", "unanswerable"),
    ],
)
def test_longmemeval_picks_the_template_per_type(qtype: str, qid: str, needle: str) -> None:
    model = ScriptedChatModel(['{"label": "CORRECT", "reason": "fine"}'])
    judge = LongMemEvalJudge(model)
    v = judge.judge("How many days between A and B?", "19 days", "20 days", qtype, question_id=qid)
    assert needle in model.calls[0].prompt
    assert v.question_type == qtype and v.abstention == qid.endswith("_abs")
    expected = judge.template_for(qtype, abstention=qid.endswith("_abs")).version
    assert v.prompt_version == expected
    assert "19 days" in model.calls[0].user and "20 days" in model.calls[0].user


def test_explicit_abstention_flag_and_unknown_types() -> None:
    model = ScriptedChatModel(['{"label": "WRONG", "reason": "answered anyway"}'])
    judge = LongMemEvalJudge(model)
    v = judge.judge("q", "never mentioned", "Paris", "single-session-user", abstention=True)
    assert not v.correct and v.abstention and v.prompt_version.startswith("judge_lme_abstention/")
    with pytest.raises(InvalidInputError, match="unknown LongMemEval question_type"):
        judge.judge("q", "g", "a", "made-up-type")
    lenient = LongMemEvalJudge(ScriptedChatModel(['{"label": "CORRECT", "reason": ""}']), strict_types=False)
    assert lenient.judge("q", "g", "a", "made-up-type").prompt_version.startswith("judge_lme_default/")


@pytest.mark.parametrize("raw,label,reason", [
    ('{"verdict": "correct", "explanation": "same city"}', "CORRECT", "same city"),
    ('{"grade": false, "rationale": null}', "WRONG", ""),
    ('{"reason": "' + "long " * 200 + '", "label": "WRONG"}', "WRONG", ("long " * 80).strip()),
])
def test_drifting_replies_keep_their_verdict_and_reason(raw: str, label: str, reason: str) -> None:
    v = LoCoMoJudge(ScriptedChatModel([raw])).judge("q", "g", "a")
    assert (v.label, v.reason) == (label, reason[:400])


def test_the_reply_schema_asks_for_the_reason_before_the_label() -> None:
    from memdesk.llm.judge import JudgeReply

    assert list(JudgeReply.model_json_schema()["properties"]) == ["reason", "label"]
