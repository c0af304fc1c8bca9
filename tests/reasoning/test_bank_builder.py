"""Bank building: disjointness guard, offline build, resume, LLM traces/tags/formats (scripted model)."""

from __future__ import annotations

import json

import pytest

from memdesk.embed import HashingEmbedder
from memdesk.errors import DataOverlapError, LLMOutputError, UsageError
from memdesk.llm.fake import ScriptedChatModel
from memdesk.reasoning.bank import MemoryBank
from memdesk.reasoning.bank_builder import BankBuilder, BuildConfig
from memdesk.reasoning.overlap import check_disjoint, find_overlap
from memdesk.reasoning.datasets import AnswerKind, Problem
from memdesk.reasoning.solved_examples import EmbeddingKind, MemoryFormat, TraceSource
from memdesk.reasoning.tags import LLMTagger, TagRepresentation
from tests.reasoning.mac_fakes import tags_for, user_text


def prob(i: int, question: str, answer: str, solution: str | None = None, bench: str = "gsm8k") -> Problem:
    return Problem(id=f"{bench}:{i}", benchmark=bench, question=question, answer=answer, solution=solution, split="train")


BANK = [
    prob(0, "Tom has 3 apples and buys 4 more. How many apples?", "7", "Tom has 3 + 4 = 7 apples. So the answer is 7."),
    prob(1, "A shirt costs $20 and is 25% off. What is the price?", "15", "The discount is 20 * 0.25 = 5 dollars.\nSo the price is 20 - 5 = 15."),
    prob(2, "A train travels 60 km in 1.5 hours. What is its speed?", "40", "Speed is 60 / 1.5 = 40 km per hour. The answer is 40."),
]
EVAL = [prob(100, "Sara has 5 pens and loses 2. How many pens are left?", "3", bench="gsm8k-test")]


def test_overlap_is_found_after_normalization_and_named() -> None:
    twin = prob(200, "  tom has 3 apples and buys 4 MORE.\nHow many apples?  ", "7", bench="eval")
    overlap = find_overlap(BANK, [twin, *EVAL])
    assert [(o.bank_id, o.eval_id) for o in overlap] == [("gsm8k:0", "eval:200")]
    with pytest.raises(DataOverlapError) as err:
        check_disjoint(BANK, [twin])
    assert err.value.items == ["gsm8k:0 == eval:200"]
    assert "gsm8k:0 == eval:200" in str(err.value)
    check_disjoint(BANK, EVAL)  # disjoint: no error


def test_builder_refuses_an_overlapping_bank_and_can_drop(store) -> None:
    twin = prob(200, BANK[1].question.upper(), "15", bench="eval")
    builder = BankBuilder(store, HashingEmbedder(64))
    with pytest.raises(DataOverlapError):
        builder.build("b", "gsm8k", BANK, [twin])
    assert MemoryBank(store, "b").count() == 0
    report = builder.build("b", "gsm8k", BANK, [twin], BuildConfig(on_overlap="drop"))
    bank = MemoryBank(store, "b")
    assert report.dropped_overlap == ["gsm8k:1 == eval:200"]
    assert bank.ids() == {"gsm8k:0", "gsm8k:2"}
    assert bank.manifest().dropped_overlap == ["gsm8k:1 == eval:200"]


def test_offline_build_formats_provenance_and_resume(store) -> None:
    no_solution = prob(3, "Which is larger, 2 or 3?", "3")
    builder = BankBuilder(store, HashingEmbedder(64), answer_kind=AnswerKind.NUMBER)
    report = builder.build("offline", "gsm8k", [*BANK, no_solution], EVAL, BuildConfig(batch_size=2))
    assert (report.added, report.absent_traces, report.skipped_existing) == (4, 1, 0)
    bank = MemoryBank(store, "offline")
    by_id = {e.id: e for e in bank.all()}
    ex = by_id["gsm8k:1"]
    assert ex.embedding_kind is EmbeddingKind.PROBLEM and ex.embedding_text == ex.problem and ex.tags is None
    assert ex.provenance.trace_source is TraceSource.DATASET and ex.provenance.verified
    assert ex.contents[MemoryFormat.LONG] == BANK[1].solution
    assert ex.contents[MemoryFormat.SHORT].endswith("So the price is 20 - 5 = 15.")
    assert ex.contents[MemoryFormat.SUMMARY].endswith("Answer: 15")
    absent = by_id["gsm8k:3"]
    assert absent.provenance.trace_source is TraceSource.ABSENT and not absent.provenance.verified
    assert absent.trace is None and absent.contents[MemoryFormat.LONG] == "Answer: 3"
    manifest = bank.manifest()
    assert manifest.embedding_model == "hashing-64" and manifest.eval_items_checked == 1
    # resume: nothing new to do
    again = builder.build("offline", "gsm8k", [*BANK, no_solution], EVAL, BuildConfig(batch_size=2))
    assert (again.added, again.skipped_existing, again.bank_size) == (0, 4, 4)
    # a different configuration of the same bank is refused
    with pytest.raises(UsageError):
        builder.build("offline", "gsm8k", BANK, EVAL, BuildConfig(formats=[MemoryFormat.LONG]))


def test_build_resumes_after_a_partial_run(store) -> None:
    builder = BankBuilder(store, HashingEmbedder(64))
    builder.build("part", "gsm8k", BANK, EVAL, BuildConfig(limit=1))
    assert MemoryBank(store, "part").ids() == {"gsm8k:0"}
    report = builder.build("part", "gsm8k", BANK, EVAL)
    assert (report.added, report.skipped_existing, report.bank_size) == (2, 1, 3)


def test_llm_build_verifies_generated_traces_tags_and_formats(store) -> None:
    aime = [
        prob(0, "Find the number of Ways to pick 2 of 5 items.", "10", bench="aime"),
        prob(1, "Find the Remainder of 17 divided by 5.", "2", bench="aime"),
    ]

    def reply(messages):
        text = user_text(messages)
        system = messages[0].content if messages[0].role == "system" else ""
        if "reasoning tags" in system:
            problem = text.split("Problem:\n", 1)[1]
            return tags_for(problem)
        if "condense" in system:
            return "C(5,2) = 10. \\boxed{10}" if "Ways" in text else "17 = 3*5 + 2. \\boxed{2}"
        if "summarize" in system:
            return "Count combinations. Answer: 10" if "Ways" in text else "Use division. Answer: 2"
        if "Ways" in text:
            return "There are 5*4/2 = 10 ways. \\boxed{10}"
        return "17 mod 5 is 3. \\boxed{3}"  # wrong: must be rejected

    chat = ScriptedChatModel(reply, model_id="fake-llm")
    builder = BankBuilder(
        store,
        HashingEmbedder(64),
        representation=TagRepresentation(LLMTagger(chat)),
        trace_model=chat,
        format_model=chat,
        answer_kind=AnswerKind.INTEGER,
    )
    report = builder.build("llm", "aime24", aime, [])
    assert (report.added, report.rejected, report.absent_traces) == (1, 1, 0)
    bank = MemoryBank(store, "llm")
    (ex,) = bank.all()
    assert ex.provenance.trace_source is TraceSource.GENERATED and ex.provenance.trace_model == "fake-llm"
    assert "'10'" in ex.provenance.verification
    assert ex.tags is not None and ex.tags.knowledge_domains == ["Find"]
    assert ex.embedding_kind is EmbeddingKind.TAGS and ex.embedding_text == ex.tags.to_text()
    assert ex.contents[MemoryFormat.SHORT].startswith("C(5,2)") and ex.provenance.format_sources[MemoryFormat.SHORT] == "llm:fake-llm"
    # the tagger saw the verified answer on the bank side
    tag_calls = [c for c in chat.calls if c.operation == "tag"]
    assert tag_calls and "Verified final answer: 10" in tag_calls[0].user
    assert set(report.usage) == {"trace", "format", "tag"}
    assert bank.manifest().usage["trace"].calls == 2
    # resume: the rejected item is not regenerated
    before = len(chat.calls)
    again = builder.build("llm", "aime24", aime, [])
    assert again.added == 0 and again.skipped_existing == 2 and len(chat.calls) == before


def test_short_format_that_loses_the_answer_falls_back_offline(store) -> None:
    def reply(messages):
        system = messages[0].content
        if "condense" in system:
            return "Some steps. \\boxed{99}"
        return "Strategy text. Answer: 7"

    chat = ScriptedChatModel(reply, model_id="fmt")
    builder = BankBuilder(store, HashingEmbedder(64), format_model=chat, answer_kind=AnswerKind.NUMBER)
    builder.build("fmt", "gsm8k", BANK[:1], EVAL)
    (ex,) = MemoryBank(store, "fmt").all()
    assert "lost the answer" in ex.provenance.format_sources[MemoryFormat.SHORT]
    assert ex.contents[MemoryFormat.SUMMARY] == "Strategy text. Answer: 7"


def test_failed_tagging_is_skipped_and_retried_on_resume(store) -> None:
    calls = {"n": 0}

    def reply(messages):
        calls["n"] += 1
        return "not json at all"

    chat = ScriptedChatModel(reply, model_id="bad", max_reasks=0)
    builder = BankBuilder(store, HashingEmbedder(64), representation=TagRepresentation(LLMTagger(chat)))
    report = builder.build("tags", "gsm8k", BANK[:2], EVAL)
    assert (report.added, report.failed) == (0, 2)
    good = ScriptedChatModel(lambda m: tags_for(user_text(m)), model_id="bad")
    builder = BankBuilder(store, HashingEmbedder(64), representation=TagRepresentation(LLMTagger(good)))
    assert builder.build("tags", "gsm8k", BANK[:2], EVAL).added == 2


def test_tag_query_never_sees_gold() -> None:
    chat = ScriptedChatModel(lambda m: tags_for(user_text(m)))
    rep = LLMTagger(chat).tag_query("Sara has 5 pens and loses 2. How many pens are left?")
    assert rep.tags is not None and rep.text.startswith("Knowledge domains: Sara")
    call = chat.last_call
    assert call.temperature == 0.0 and "Verified" not in call.prompt and "answer" not in call.user.lower()


def test_tagger_raises_after_reasks_with_raw_text() -> None:
    chat = ScriptedChatModel(["nope", "still nope"], max_reasks=1)
    with pytest.raises(LLMOutputError) as err:
        LLMTagger(chat).tag_query("Q?")
    assert "still nope" in err.value.raw


def test_bank_payload_round_trip(store) -> None:
    BankBuilder(store, HashingEmbedder(64)).build("rt", "gsm8k", BANK, EVAL)
    bank = MemoryBank(store, "rt")
    (ex,) = bank.get(["gsm8k:2"])
    assert json.loads(ex.model_dump_json())["answer"] == "40"
    hits = bank.search(HashingEmbedder(64).embed([BANK[2].question])[0], 2)
    assert hits[0].example.id == "gsm8k:2" and hits[0].score >= hits[1].score and hits[0].rank == 0
