"""The rank metrics and the record checks of ``eval chats`` on small hand-made cases with known values."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from memdesk.eval import metrics as M
from memdesk.eval.chat_checks import (
    _metadata_spans,
    check_ref,
    date_spans,
    small_talk_records,
    supersession_checks,
    wrong_date_records,
)
from memdesk.eval.chat_run import ChatQuestionResult, ChatRunResult, ChatScopeResult, records_bucket
from memdesk.eval.chat_summary import ChatBlock, summarize_chats
from memdesk.eval.datasets.chats import Chat, RecordRef
from memdesk.records import EpisodicRecord, Scope, SemanticRecord

from .chat_fixtures import tiny_chat

SCOPE = Scope(user_id="k1")


def test_first_gold_rank_precision_and_reciprocal_rank():
    ranked = [["a"], ["b", "c"], [], ["d"]]
    assert M.first_gold_rank({"c"}, ranked) == 2
    assert M.first_gold_rank({"d"}, ranked) == 4 and M.first_gold_rank({"d"}, ranked, cutoff=3) is None
    assert M.first_gold_rank({"z"}, ranked) is None and M.first_gold_rank([], ranked) is None
    assert M.precision_at_1({"a", "z"}, ranked) == 1.0 and M.precision_at_1({"b"}, ranked) == 0.0
    assert M.precision_at_1([], ranked) is None and M.precision_at_1({"a"}, []) == 0.0
    assert M.reciprocal_rank({"c", "d"}, ranked) == 0.5
    assert M.reciprocal_rank({"d"}, ranked) == 0.25 and M.reciprocal_rank({"d"}, ranked, cutoff=3) == 0.0
    assert M.reciprocal_rank([], ranked) is None
    # MRR over three questions: ranks 1, 2 and none -> (1 + 1/2 + 0) / 3
    rr = [M.reciprocal_rank(g, ranked) for g in ({"a"}, {"b"}, {"z"})]
    assert M.mean(rr) == pytest.approx(0.5)


def test_accepted_is_a_case_insensitive_substring():
    assert M.accepted("Her exam is on 14 May (2025-05-14).", ["14 may"])
    assert M.accepted("2025-05-14", ["14 may", "2025-05-14"])
    assert not M.accepted("in May", ["14 may"]) and not M.accepted("anything", [])


def test_date_spans_reads_days_weeks_months():
    assert date_spans("starts on 15 April (2024-04-15).") == [(date(2024, 4, 15), date(2024, 4, 15))]
    assert date_spans("last week (week of 2025-03-10)") == [(date(2025, 3, 10), date(2025, 3, 16))]
    assert date_spans("in 2025-04") == [(date(2025, 4, 1), date(2025, 4, 30))]
    # a run of days the rules wrote is one span: a label on its first day overlaps it
    assert date_spans("for two weeks from Saturday (2031-03-15 to 2031-03-28)") == [(date(2031, 3, 15), date(2031, 3, 28))]
    assert date_spans("April 2025") == [(date(2025, 4, 1), date(2025, 4, 30))]
    assert date_spans("2019", bare_year=True) == [(date(2019, 1, 1), date(2019, 12, 31))]
    assert date_spans("2019") == [] and date_spans("call 0141 496 0732") == []
    assert date_spans("2025-02-30") == []  # not a day
    one = {"text": "last week", "label": "week of 2025-03-10", "start": "2025-03-10", "end": "2025-03-17"}
    assert _metadata_spans([one, "2024-01-02"]) == [(date(2025, 3, 10), date(2025, 3, 17)), (date(2024, 1, 2), date(2024, 1, 2))]


def _said(day: str) -> dict:
    return {"said_at": f"{day}T09:02:00+00:00"}


def test_wrong_dates_are_records_whose_date_no_label_allows():
    chat = Chat.model_validate(tiny_chat())  # k1-m3 labelled 2025-05-14, k1-m5 labelled 2025-03-17; said 2025-03-18
    right = SemanticRecord(scope=SCOPE, fact="Wren's exam is on 14 May (2025-05-14).", provenance=["k1-m3"],
                           temporal_anchor="2025-05-14", metadata=_said("2025-03-18"))
    wrong_year = SemanticRecord(scope=SCOPE, fact="Wren's exam is on 14 May (2024-05-14).", provenance=["k1-m3"],
                                temporal_anchor="2025-03-18", metadata=_said("2025-03-18"))
    fallback = EpisodicRecord(scope=SCOPE, title="moved", summary="Wren moved the hives to Callander.", provenance=["k1-m5"],
                              temporal_anchor="2025-03-18", metadata=_said("2025-03-18"))
    wrong_meta = EpisodicRecord(scope=SCOPE, title="moved", summary="Wren moved the hives yesterday.", provenance=["k1-m5"],
                                temporal_anchor="2025-03-17",
                                metadata={**_said("2025-03-18"), "time_expressions": [{"text": "yesterday", "label": "2025-03-16"}]})
    wrong_event = EpisodicRecord(scope=SCOPE, title="exam", summary="Wren's exam is on 14 May.", provenance=["k1-m3"],
                                 event_time=datetime(2024, 5, 14, tzinfo=timezone.utc), metadata=_said("2025-03-18"))
    interval = SemanticRecord(scope=SCOPE, fact="Wren's exam is on 14 May.", provenance=["k1-m3"], metadata={
        **_said("2025-03-18"), "embed_context": "Desk: good luck on 2024-01-01!",
        "time_expressions": [{"text": "on 14 May", "label": "2025-05-14", "start": "2025-05-14", "end": "2025-05-15"}]})
    unlabelled = SemanticRecord(scope=SCOPE, fact="Wren keeps bees (2020-01-01).", provenance=["k1-m2"])
    # a reply stored with the labelled turn it answers as context: its date may be its own, so it is not judged
    reply = SemanticRecord(scope=SCOPE, fact="Desk will remind Wren on 2025-04-01.", provenance=["k1-m4", "k1-m3"])
    both = SemanticRecord(scope=SCOPE, fact="Wren moved the hives; the exam is on 14 May.", provenance=["k1-m5", "k1-m3"],
                          temporal_anchor="2025-05-14", metadata=_said("2025-03-18"))
    records = [right, wrong_year, fallback, wrong_meta, wrong_event, interval, unlabelled, reply, both]
    checked, problems = wrong_date_records(records, chat)
    assert checked == 7  # the records of an unlabelled message, or with one in their provenance, are not judged
    # a half-open [start, end) interval holding the day is right; the context it was embedded with is not its date
    assert [(p.record_id, p.found, p.where) for p in problems] == [
        (wrong_year.id, "2024-05-14", "text"), (wrong_meta.id, "2025-03-16", "metadata"),
        (wrong_event.id, "2024-05-14", "event_time")]
    assert problems[0].expected == ["2025-05-14"]


def test_an_event_time_stands_for_its_anchor_and_a_written_year_is_the_speakers():
    chat = Chat.model_validate(tiny_chat())  # k1-m3 labelled 2025-05-14
    mid_may = {"text": "in mid-May", "label": "mid-May 2025", "start": "2025-05-11", "end": "2025-05-21"}
    stretch = EpisodicRecord(scope=SCOPE, title="exam", summary="Wren's exam is in mid-May.", provenance=["k1-m3"],
                             event_time=datetime(2025, 5, 11, tzinfo=timezone.utc),
                             metadata={**_said("2025-03-18"), "time_expressions": [mid_may]})
    bare = EpisodicRecord(scope=SCOPE, title="exam", summary="Wren's exam is in mid-May.", provenance=["k1-m3"],
                          event_time=datetime(2025, 5, 11, tzinfo=timezone.utc), metadata=_said("2025-03-18"))
    built = {"text": "in 1998", "label": "1998", "start": "1998-01-01", "end": "1999-01-01"}
    written = SemanticRecord(scope=SCOPE, fact="Wren's exam hall was built in 1998.", provenance=["k1-m3"],
                             metadata={**_said("2025-03-18"), "time_expressions": [built]})
    inferred = {"text": "in May", "label": "May 2024", "start": "2024-05-01", "end": "2024-06-01"}
    guessed = SemanticRecord(scope=SCOPE, fact="Wren's exam is in May.", provenance=["k1-m3"],
                             metadata={**_said("2025-03-18"), "time_expressions": [inferred]})
    unlabelled = {"text": "on Friday", "label": "2025-03-21", "start": "2025-03-21", "end": "2025-03-22"}
    other = SemanticRecord(scope=SCOPE, fact="Wren's exam is on 14 May; revision on Friday (2025-03-21).", provenance=["k1-m3"],
                           metadata={**_said("2025-03-18"), "time_expressions": [unlabelled]})
    checked, problems = wrong_date_records([stretch, bare, written, guessed, other], chat)
    assert checked == 5
    # a day only an expression the author left unlabelled gives is not judged ("on Friday" beside a labelled "on 14 May")
    assert [(p.record_id, p.found, p.where) for p in problems] == [
        (bare.id, "2025-05-11", "event_time"), (guessed.id, "2024-05-01/2024-06-01", "metadata")]


def test_an_unlabelled_expressions_anchor_is_not_judged():
    chat = Chat.model_validate(tiny_chat())  # k1-m3 labelled 2025-05-14 ("on 14 May")
    late = {"text": "end of June", "label": "end of June 2025", "start": "2025-06-21", "end": "2025-07-01"}
    record = SemanticRecord(scope=SCOPE, fact="Wren's exam is on 14 May; lessons until end of June.", provenance=["k1-m3"],
                            temporal_anchor="end of June 2025", event_time=datetime(2025, 6, 21, tzinfo=timezone.utc),
                            metadata={**_said("2025-03-18"), "time_expressions": [late]})
    # the anchor is the unlabelled expression's label, read as June 2025: nothing to judge it by, like its days
    assert wrong_date_records([record], chat) == (1, [])


def test_small_talk_records_and_supersession_items():
    chat = Chat.model_validate(tiny_chat())
    greeting = SemanticRecord(scope=SCOPE, fact="Desk asked how it can help.", provenance=["k1-m1"], role="assistant")
    glued = SemanticRecord(scope=SCOPE, fact="Wren keeps bees in Dunblane. Desk: Thanks, noted!", provenance=["k1-m4", "k1-m2"])
    address = SemanticRecord(scope=SCOPE, fact="Wren keeps bees in an orchard in Dunblane.", provenance=["k1-m2"])
    goat = SemanticRecord(scope=SCOPE, fact="Wren has a goat, Parsnip.", provenance=["k1-m2", "k1-m1"])  # greeting as context
    records = [greeting, glued, address, goat]
    assert [r.id for r in small_talk_records(records, chat)] == [greeting.id, glued.id]

    move = chat.messages[4]
    current = {greeting.id, glued.id, goat.id}  # the address closed, the glued record (also Dunblane) not
    close, keep = supersession_checks(chat, move, records, current)
    assert (close.expect, close.matching, close.current, close.ok) == ("closed", 2, 1, False)
    assert (keep.expect, keep.matching, keep.current, keep.ok) == ("current", 1, 1, True)
    assert supersession_checks(chat, chat.messages[0], records, current) == []  # no label on that message
    # a keeps item needs a record; a closes item with none holds (counted apart as vacuous)
    none = RecordRef.model_validate({"from": "k1-m3", "contains": "exam"})
    assert not check_ref(none, "current", "k1-m5", records, current).ok
    assert check_ref(none, "closed", "k1-m5", records, current).ok


def _q(chat: str, qid: str, p1: float, rr: float, budget: bool, correct: bool, bucket: str, kind: str = "date") -> ChatQuestionResult:
    return ChatQuestionResult(
        chat_id=chat, question_id=qid, kind=kind, question="?", gold_message_ids=["m"], records_bucket=bucket,
        messages_bucket="1-15", first_gold_rank=None if rr == 0 else round(1 / rr), precision_at_1=p1,
        reciprocal_rank=rr, in_budget=budget, evidence_hits=3, evidence_tokens=100, answer="a", correct=correct,
        accept=["a"], search_ms=1.0,
    )  # fmt: skip


def test_blocks_by_scope_size():
    small = ChatScopeResult(chat_id="a", messages=10, records=8, current_records=7, records_bucket=records_bucket(8),
                            messages_bucket="1-15", dates_checked=2)
    big = ChatScopeResult(chat_id="b", messages=50, records=70, current_records=60, records_bucket=records_bucket(70),
                          messages_bucket="41+", dates_checked=5)
    questions = [_q("a", "a1", 1, 1, True, True, "1-15"), _q("a", "a2", 0, 0.5, True, False, "1-15", "list"),
                 _q("b", "b1", 0, 0, False, False, "61+"), _q("b", "b2", 1, 1, True, True, "61+"),
                 _q("b", "b3", 1, 1, True, True, "61+")]  # fmt: skip
    assert (records_bucket(0), records_bucket(15), records_bucket(16), records_bucket(60), records_bucket(61)) == (
        "1-15", "1-15", "16-60", "16-60", "61+")
    block = ChatBlock.of([small, big], questions)
    assert (block.chats, block.questions, block.messages, block.records) == (2, 5, 60, 78)
    assert block.precision_at_1 == 0.6 and block.mrr_at_10 == 0.7 and block.recall_in_budget == 0.8
    assert block.answer_accuracy == 0.6 and block.records_per_message == 1.3 and block.dates_checked == 7
    summary = summarize_chats(ChatRunResult(scopes=[small, big], questions=questions), data="x", config={})
    assert list(summary.by_records) == ["1-15", "61+"]
    assert summary.by_records["1-15"].precision_at_1 == 0.5 and summary.by_records["61+"].mrr_at_10 == pytest.approx(0.6667)
    assert summary.by_kind["list"].questions == 1
    t = summary.targets
    assert t["precision_at_1_every_bucket"]["measured"] == {"1-15": 0.5, "61+": 0.6667} and not t["precision_at_1_every_bucket"]["met"]
    assert t["small_talk_records"]["met"] and t["supersession"]["measured"] is None and not t["supersession"]["met"]


def test_times_in_the_fixture_are_aware():
    chat = Chat.model_validate(tiny_chat())
    assert chat.messages[0].time == datetime(2025, 3, 18, 9, 0, tzinfo=timezone.utc)
