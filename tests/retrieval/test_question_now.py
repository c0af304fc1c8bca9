"""A question about what holds now ranks the later of two records on one topic first (memdesk.retrieval.question_now)."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from memdesk.records import Scope, SemanticRecord
from memdesk.retrieval.question_now import asks_now, asks_then, held_at, later_on_topic
from memdesk.retrieval.question_time import question_windows
from memdesk.retrieval.retrieve import Retriever
from tests.retrieval_store import put, store, unit  # noqa: F401  (store: the fixture)

S = Scope(user_id="u")


@pytest.mark.parametrize(
    "question, now",
    [
        ("What bike does Dana ride now?", True),
        ("Who is Dana's main client these days?", True),
        ("Is Dana still at the Corran clinic?", True),
        ("Which gym does Dana currently use?", True),
        ("Does Dana eat meat any more?", True),
        ("Which venue did Dana book in the end?", True),  # the outcome of a change: what held last
        ("What did Dana finally call the puppy?", True),
        ("Which flight did Dana end up taking?", True),
        ("Where does Dana live?", False),  # may never have changed: the ranking's order
        ("What did Dana cook on Sunday?", False),
        ("", False),
    ],
)
def test_a_question_asks_what_holds_now_by_its_words(question, now):
    assert asks_now(question) is now


def test_of_two_relevant_records_on_one_topic_the_earlier_is_penalised():
    z = np.array([3.0, 2.8, 2.5, 0.5])
    v = np.array([unit([1, 0.2, 0]), unit([1, 0.3, 0]), unit([0, 1, 0]), unit([1, 0.25, 0])])
    said = np.array([10.0, 20.0, 30.0, 40.0])
    penalty = later_on_topic(z, v, said, gate=1.0, weight=1.5)
    # 0 is followed by 1 (same topic, later); 2 is on another topic; 3 is below the gate and so neither penalised
    # nor a reason to penalise; 1 is the latest on its topic
    assert penalty.tolist() == [1.5, 0.0, 0.0, 0.0]
    assert not later_on_topic(z, v, np.full(4, np.nan), gate=1.0, weight=1.5).any()  # no times: no order


def test_a_memory_narrowed_by_a_later_one_is_on_its_topic_whatever_their_cosine():
    # "works nights at the depot" (its old hours cut) and "moving to days, 7am to 7pm, same depot" sit far apart
    z = np.array([3.0, 2.8, 2.5])
    v = np.array([unit([1, 0, 0]), unit([0, 1, 0]), unit([0, 0, 1])])
    said = np.array([10.0, 20.0, 30.0])
    links = {0: ("b", "a"), 1: (None, "b"), 2: (None, "c")}  # a narrowed by b
    assert later_on_topic(z, v, said, gate=1.0, weight=1.5, narrowing=links.__getitem__).tolist() == [1.5, 0.0, 0.0]
    assert not later_on_topic(z, v, said, gate=1.0, weight=1.5).any()  # by cosine alone: three topics
    # narrowed by a memory said before it (an older statement cannot be the later word): no penalty
    assert not later_on_topic(z, v, said[::-1].copy(), gate=1.0, weight=1.5, narrowing=links.__getitem__).any()


def test_a_question_about_a_past_time_reads_what_was_current_then():
    now = datetime(2025, 6, 10, tzinfo=timezone.utc)
    march = question_windows("What did the cheese cost in March?", now)
    then = held_at("What did the cheese cost in March?", march, now)
    assert datetime(2025, 3, 31, tzinfo=timezone.utc) < then < datetime(2025, 4, 3, tzinfo=timezone.utc)
    assert held_at("What does the cheese cost now?", question_windows("What does the cheese cost now?", now), now) == now
    assert held_at("What does the cheese cost?", [], now) == now  # no time named: what holds now
    ahead = question_windows("Where is the market in July?", now)
    assert held_at("Where is the market in July?", ahead, now) == now  # a time still ahead


def test_a_memory_closed_after_the_time_asked_about_is_not_demoted(store):
    """"The cheese is 24 euros a kilo" (March), closed in May by "The cheese goes to 27 euros a kilo": asked what it cost
    in March, the old price is what held then (not demoted as superseded); asked what it costs, the new one."""
    old = SemanticRecord(scope=S, fact="The cheese is 24 euros a kilo", provenance=["old"], metadata=_said(5))
    new = SemanticRecord(scope=S, fact="The cheese goes to 27 euros a kilo", provenance=["new"],
                         metadata={"said_at": datetime(2025, 5, 5, tzinfo=timezone.utc).isoformat()})  # fmt: skip
    put(store, old.model_copy(update={"valid_to": datetime(2025, 5, 5, tzinfo=timezone.utc), "superseded_by": new.id}), [1, 0.30, 0])
    put(store, new, [1, 0.36, 0])
    for i in range(8):
        put(store, SemanticRecord(scope=S, fact=f"Kasia noted an unrelated errand {i}", provenance=[f"f{i}"]), [0, 1, 0.1 * i])
    q, asked = unit([1, 0.2, 0]), datetime(2025, 6, 10, tzinfo=timezone.utc)
    then = Retriever.fused(store, K=10).retrieve(q, S, query_text="What did the cheese cost in March?", asked_at=asked, hybrid=False)
    assert then[0].record.provenance == ["old"] and "superseded" not in then[0].why
    plain = Retriever.fused(store, K=10).retrieve(q, S, query_text="What does the cheese cost?", asked_at=asked, hybrid=False)
    assert plain[0].record.provenance == ["new"]


def _said(day: int) -> dict:
    return {"said_at": datetime(2025, 3, day, tzinfo=timezone.utc).isoformat()}


def test_asked_what_holds_now_the_later_statement_ranks_first(store):
    """"Dana rides an old steel tourer" (a little closer to the question) and, later, "Dana bought a carbon road bike":
    asked what Dana rides now, the later ranks first and says why; asked without "now", the ranking's order stays."""
    put(store, SemanticRecord(scope=S, fact="Dana rides an old steel tourer", provenance=["old"], metadata=_said(1)),
        [1, 0.30, 0])  # fmt: skip
    put(store, SemanticRecord(scope=S, fact="Dana bought a carbon road bike", provenance=["new"], metadata=_said(20)),
        [1, 0.36, 0])  # fmt: skip
    for i in range(8):
        put(store, SemanticRecord(scope=S, fact=f"Dana noted an unrelated errand {i}", provenance=[f"f{i}"]),
            [0, 1, 0.1 * i])  # fmt: skip
    q = unit([1, 0.2, 0])
    now = Retriever.fused(store, K=10).retrieve(q, S, query_text="What bike does Dana ride now?", hybrid=False)
    assert now[0].record.provenance == ["new"]
    assert "a later record on its topic follows it" in next(h.why for h in now if h.record.provenance == ["old"])
    scores = [h.score for h in now]
    assert all(0 <= s <= 1 for s in scores) and scores == sorted(scores, reverse=True)
    plain = Retriever.fused(store, K=10).retrieve(q, S, query_text="What bike does Dana ride?", hybrid=False)
    assert plain[0].record.provenance == ["old"]
    off = Retriever.fused(store, K=10, now_weight=0).retrieve(q, S, query_text="What bike does Dana ride now?", hybrid=False)
    assert off[0].record.provenance == ["old"]


def test_asked_what_held_before_the_earlier_statement_ranks_first(store):
    """"Kasia pays 1,100 a month for the flat" and, later and a little closer to the question, "The landlord put the
    flat up to 1,250 a month" (the write side closed neither): asked what the flat cost before the rise, the earlier
    ranks first and the later says why it was passed over; asked what it costs now, the later ranks first."""
    put(store, SemanticRecord(scope=S, fact="Kasia pays 1,100 a month for the flat", provenance=["old"], metadata=_said(1)),
        [1, 0.36, 0])  # fmt: skip
    put(store, SemanticRecord(scope=S, fact="The landlord put the flat up to 1,250 a month", provenance=["new"],
                              metadata=_said(20)), [1, 0.30, 0])  # fmt: skip
    for i in range(8):
        put(store, SemanticRecord(scope=S, fact=f"Kasia noted an unrelated errand {i}", provenance=[f"f{i}"]),
            [0, 1, 0.1 * i])  # fmt: skip
    q = unit([1, 0.2, 0])
    before = Retriever.fused(store, K=10).retrieve(q, S, query_text="What did the flat cost before the rise?", hybrid=False)
    assert before[0].record.provenance == ["old"]
    assert "an earlier record on its topic precedes it" in next(h.why for h in before if h.record.provenance == ["new"])
    now = Retriever.fused(store, K=10).retrieve(q, S, query_text="What does the flat cost now?", hybrid=False)
    assert now[0].record.provenance == ["new"]


@pytest.mark.parametrize(
    "question", ["Would Dana still train as a nurse if the course were dearer?", "How long has Dana had her current bike?"]
)
def test_a_hypothetical_or_an_adjective_current_asks_no_current_state(question):
    assert not asks_now(question)


@pytest.mark.parametrize(
    "question, then",
    [
        ("Where did Dana work before she moved to Leeds?", True),
        ("What date was the fitting first booked for?", True),
        ("What did the flat cost originally?", True),
        ("Who did Dana use to live with?", True),
        ("What was Dana's previous phone?", True),
        ("Where does Dana work now, and where before?", False),  # "now" asks what holds now
        ("How old is Dana's son?", False),
        ("Where does Dana work?", False),
    ],
)
def test_a_question_asks_what_held_before_a_change_by_its_words(question, then):
    assert asks_then(question) is then


def test_asked_what_held_before_a_change_the_superseded_record_is_not_demoted(store):
    """"Dana works at the Corran clinic" was closed by "Dana started at St Mary's": asked where Dana worked before,
    the closed record ranks as it scores (not halved); asked where Dana works, the current one comes first."""
    now = datetime(2025, 3, 20, tzinfo=timezone.utc)
    new = SemanticRecord(scope=S, fact="Dana started at St Mary's hospital", provenance=["new"], metadata=_said(20))
    old = SemanticRecord(scope=S, fact="Dana works at the Corran clinic", provenance=["old"], valid_to=now,
                         superseded_by=new.id, metadata=_said(1))  # fmt: skip
    put(store, old, [1, 0.30, 0])
    put(store, new, [1, 0.45, 0])
    for i in range(8):
        put(store, SemanticRecord(scope=S, fact=f"Dana noted an unrelated errand {i}", provenance=[f"f{i}"]),
            [0, 1, 0.1 * i])  # fmt: skip
    q = unit([1, 0.2, 0])
    before = Retriever.fused(store, K=10).retrieve(q, S, query_text="Where did Dana work before St Mary's?", hybrid=False)
    assert before[0].record.provenance == ["old"] and "superseded" not in before[0].why
    current = Retriever.fused(store, K=10).retrieve(q, S, query_text="Where does Dana work?", hybrid=False)
    assert current[0].record.provenance == ["new"]


def test_asked_what_held_before_a_change_what_replaced_it_ranks_lower(store):
    """The record that closed the answer ("Dana switched to soy milk", closer to the question here) is demoted for a
    question about what held before, as a superseded record is for any other question."""
    now = datetime(2025, 3, 20, tzinfo=timezone.utc)
    new = SemanticRecord(scope=S, fact="Dana switched to soy milk", provenance=["new"], metadata=_said(20))
    old = SemanticRecord(scope=S, fact="Dana drinks oat milk in her coffee", provenance=["old"], valid_to=now,
                         superseded_by=new.id, metadata=_said(1))  # fmt: skip
    put(store, new, [1, 0.25, 0])
    put(store, old, [1, 0.40, 0])
    for i in range(8):
        put(store, SemanticRecord(scope=S, fact=f"Dana noted an unrelated errand {i}", provenance=[f"f{i}"]),
            [0, 1, 0.1 * i])  # fmt: skip
    q = unit([1, 0.2, 0])
    before = Retriever.fused(store, K=10).retrieve(q, S, query_text="Which milk did Dana use before?", hybrid=False)
    assert before[0].record.provenance == ["old"]
    plain = Retriever.fused(store, K=10).retrieve(q, S, query_text="Which milk does Dana use?", hybrid=False)
    assert plain[0].record.provenance == ["new"]


@pytest.mark.parametrize(
    ("question", "then"),
    [
        ("What did the flat cost when Noor first asked?", True),
        ("When was the recital first planned for?", True),
        ("What was Noor's old van called?", True),
        ("What did tulips cost before the latest increase?", True),
        ("What was the first step of the plan?", False),
        ("When is Noor's first exam?", False),
        ("How old is Noor's van?", False),
        ("What does the flat cost now?", False),
    ],
)
def test_a_question_about_what_held_before_a_change(question, then):
    assert asks_then(question) is then
def test_asked_what_holds_now_a_record_telling_a_change_ranks_over_a_slightly_closer_one(store):
    """"The rent is 800 euros a month" (a little closer to the question, on another line of words than the change) and
    "The landlord raised the rent to 900 euros" (a value given with a word of change): asked what the rent is now, the
    change ranks first; with ``change_weight=0`` the closer one does."""
    put(store, SemanticRecord(scope=S, fact="The rent is 800 euros a month", provenance=["old"], metadata=_said(1)),
        [1, 0.25, 0.1])  # fmt: skip
    put(store, SemanticRecord(scope=S, fact="The landlord raised the rent to 900 euros", provenance=["new"],
                              metadata=_said(20)), [1, 0.2, -0.9])  # fmt: skip
    for i in range(8):
        put(store, SemanticRecord(scope=S, fact=f"Dana noted an unrelated errand {i}", provenance=[f"f{i}"]),
            [0, 1, 0.1 * i])  # fmt: skip
    q = unit([1, 0.2, -0.2])
    question = "What is the rent now?"
    now = Retriever.fused(store, K=10, now_weight=0, lexical_weight=0).retrieve(q, S, query_text=question, hybrid=False)
    off = Retriever.fused(store, K=10, now_weight=0, lexical_weight=0, change_weight=0).retrieve(q, S, query_text=question, hybrid=False)
    assert off[0].record.provenance == ["old"]
    assert now[0].record.provenance == ["new"]
    scores = [h.score for h in now]
    assert all(0 <= s <= 1 for s in scores) and scores == sorted(scores, reverse=True)
