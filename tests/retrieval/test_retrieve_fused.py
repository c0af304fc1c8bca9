"""The fused read path (memdesk's default): score fusion, per-type calibration, token budget."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memdesk.filters import RecordFilter
from memdesk.records import EpisodicRecord, MemoryType, Scope, SemanticRecord
from memdesk.retrieval.retrieve import Retriever, Serializer
from tests.retrieval_store import put, store, unit  # noqa: F401  (store: the fixture)

S = Scope(user_id="u")


def crowded(store):
    """Sixty facts all about as close to the query (cosine ~0.89), forty events far from it and one event
    that stands out among the events (cosine ~0.71); stores large enough that each type's own spread
    outweighs the scope-wide prior mixed into it (at ``type_prior=20``; the default 200 wants bigger stores)."""
    for i in range(60):
        put(store, SemanticRecord(scope=S, fact=f"Ana fact {i}", provenance=[f"s{i}"]), [2, 1, 0.01 * i])
    for i in range(40):
        put(store, EpisodicRecord(scope=S, title="", summary=f"Ana event {i}", provenance=[f"e{i}"]), [0, 1, 0.01 * i])
    put(store, EpisodicRecord(scope=S, title="", summary="Ana standout event", provenance=["hit"]), [1, 1, 0])


def test_typed_calibration_lifts_what_stands_out_in_its_own_store(store):
    crowded(store)
    r = Retriever.fused(store, k=100, K=3, type_prior=20)
    q = unit([1, 0, 0])
    typed = r.retrieve(q, S, query_text="unrelated words", mode="typed")
    assert typed[0].record.provenance == ["hit"]  # z ~ 1.8 among events beats z ~ 0.3 among facts
    untyped = r.retrieve(q, S, query_text="unrelated words", mode="untyped")
    assert [h.memory_type for h in untyped] == [MemoryType.SEMANTIC] * 3  # one pooled scale: raw order
    assert "z " in typed[0].why


def test_lexical_candidate_joins_with_its_cosine_and_bm25(store):
    for i in range(5):
        put(store, SemanticRecord(scope=S, fact=f"Ann likes generic thing {i}", provenance=[f"s{i}"]), [1, 0.01 * i, 0])
    put(store, SemanticRecord(scope=S, fact="Ann went camping by the lake", provenance=["camp"]), [0, 0, 1])
    r = Retriever.fused(store, k=2, K=3)
    q = unit([1, 0, 0])
    dense_only = r.retrieve(q, S, query_text="Where has Ann camped?", hybrid=False)
    assert "camp" not in {p for h in dense_only for p in h.record.provenance}
    hits = r.retrieve(q, S, query_text="Where has Ann camped?")
    camp = next(h for h in hits if h.record.provenance == ["camp"])  # "camped" meets "camping" by its stem
    assert "bm25 top-1" in camp.why
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_budget_bounds_the_block_and_the_index_follows_writes(store):
    for i in range(30):
        put(store, SemanticRecord(scope=S, fact=f"Ana remembers detail number {i} of the trip", provenance=[f"m{i}"]),
            [1, 0.02 * i, 0])
    ser = Serializer(group_by_anchor=True)
    r = Retriever.fused(store, k=40, K=100, token_budget=60, serializer=ser)
    hits = r.retrieve(unit([1, 0, 0]), S, query_text="trip detail")
    block = ser.serialize(hits)
    assert 0 < block.tokens <= 60 and 3 <= len(hits) < 30
    new = SemanticRecord(scope=S, fact="Ana bought a kayak", provenance=["new"])
    put(store, new, [0, 0, 1])
    index = r.indexes.get(S, (MemoryType.EPISODIC, MemoryType.SEMANTIC, MemoryType.PROCEDURAL), RecordFilter())
    assert index.lexical("kayak", 1)[1][0][0] == index.position[new.id]  # the index was rebuilt after the write
    hits = r.retrieve(unit([0.2, 0, 1]), S, query_text="kayak")
    assert hits[0].record.provenance == ["new"] and "bm25 top-1" not in hits[0].why  # dense found it too


def two_voices(store):
    """The same thing said by the user and by the assistant (equal vectors), and filler around them."""
    for i in range(20):
        put(store, SemanticRecord(scope=S, fact=f"filler note {i}", provenance=[f"f{i}"]), [0, 1, 0.05 * i])
    put(store, SemanticRecord(scope=S, fact="basil grows on the balcony", provenance=["said-by-user"]), [1, 0.2, 0])
    put(store, SemanticRecord(scope=S, fact="basil grows well on a balcony", provenance=["said-by-assistant"], role="assistant"),
        [1, 0.2, 0])  # fmt: skip


def test_a_first_person_question_puts_the_user_s_own_words_first(store):
    # calibrated=False: the raw standardized scores, to which the bonus is added in standard deviations
    two_voices(store)
    r = Retriever.fused(store, K=5, person_weight=0.3, calibrated=False)
    q = unit([1, 0.2, 0])  # dense only (hybrid=False): equal scores but for the bonus
    mine = r.retrieve(q, S, query_text="Where does my basil grow?", hybrid=False)
    assert mine[0].record.provenance == ["said-by-user"] and "incl. +0.30: whose words" in mine[0].why
    yours = r.retrieve(q, S, query_text="Where did you say basil grows?", hybrid=False)
    assert yours[0].score == pytest.approx(yours[1].score)  # "you": no side taken
    # the bonus is added to the standardized score: the gap is the weight itself
    z = {h.record.provenance[0]: h.score for h in mine}
    assert z["said-by-user"] - z["said-by-assistant"] == pytest.approx(0.3)
    plain = r.retrieve(q, S, query_text="Where does basil grow?", hybrid=False)
    assert [h.record.provenance[0] for h in plain[:2]] == ["said-by-user", "said-by-assistant"]  # third person
    assert plain[0].score == pytest.approx(z["said-by-assistant"])  # told as a penalty on the assistant's words
    assert plain[1].score == pytest.approx(z["said-by-assistant"] - 0.3)


def test_a_bonus_every_candidate_shares_changes_no_order(store):
    """Only the user's words in the scope: a first-person question ranks exactly as a third-person one."""
    for i in range(12):
        put(store, SemanticRecord(scope=S, fact=f"user fact {i}", provenance=[f"s{i}"]), [1, 0.1 * i, 0])
        put(store, EpisodicRecord(scope=S, title="", summary=f"user event {i}", provenance=[f"e{i}"]), [0.5, 1, 0.1 * i])
    r = Retriever.fused(store, K=8, calibrated=False, bonus_gate=0)  # ungated: every candidate gets the whole bonus
    q = unit([1, 0.4, 0.1])
    mine = r.retrieve(q, S, query_text="what did I note?", hybrid=False)
    plain = r.retrieve(q, S, query_text="what did Ana note?", hybrid=False)
    assert [h.record.id for h in mine] == [h.record.id for h in plain]
    assert [h.score for h in mine] == pytest.approx([h.score + 3.0 for h in plain])


def test_person_weight_zero_and_bad_values(store):
    two_voices(store)
    off = Retriever.fused(store, K=5, person_weight=0, calibrated=False)
    hits = off.retrieve(unit([1, 0.2, 0]), S, query_text="Where does my basil grow?", hybrid=False)
    assert hits[0].score == pytest.approx(hits[1].score) and "whose words" not in hits[0].why
    with pytest.raises(Exception, match="person_weight"):
        Retriever.fused(store, person_weight=-1)


def two_dates(store):
    """The same thing on two days (equal vectors), one more told on the later day about the earlier one,
    and filler around them."""
    for i in range(20):
        put(store, SemanticRecord(scope=S, fact=f"filler note {i}", provenance=[f"f{i}"]), [0, 1, 0.05 * i])
    for day, name in ((3, "early"), (24, "late")):
        rec = EpisodicRecord(scope=S, title="", summary=f"baked bread ({name})", provenance=[name],
                             event_time=datetime(2024, 6, day, 9, tzinfo=timezone.utc))  # fmt: skip
        put(store, rec, [1, 0.2, 0])
    told = EpisodicRecord(scope=S, title="", summary="baked bread (told later)", provenance=["told"],
                          event_time=datetime(2024, 5, 20, tzinfo=timezone.utc), metadata={"said_at": "2024-06-04T10:00:00"})  # fmt: skip
    put(store, told, [1, 0.2, 0])


def test_a_record_dated_when_the_question_points_ranks_first(store):
    two_dates(store)
    r = Retriever.fused(store, K=5, time_weight=0.4, person_weight=0, calibrated=False)
    q = unit([1, 0.2, 0])  # dense only: equal scores but for the bonus
    asked = datetime(2024, 6, 17, 12)  # a Monday: "two weeks ago" is the week of 2024-06-03
    hits = r.retrieve(q, S, query_text="When did I bake bread two weeks ago?", hybrid=False, asked_at=asked)
    z = {h.record.provenance[0]: h.score for h in hits}
    assert z["early"] - z["late"] == pytest.approx(0.4)  # its event time is in the window
    assert z["told"] == pytest.approx(z["early"])  # said inside the window, about a day outside it
    assert "incl. +0.40: dated in the question's week of 2024-06-03" in next(h.why for h in hits if h.record.provenance == ["early"])
    plain = r.retrieve(q, S, query_text="When did I bake bread two weeks ago?", hybrid=False)  # not told when it is asked
    assert len({round(h.score, 9) for h in plain[:3]}) == 1 and "dated" not in plain[0].why
    off = Retriever.fused(store, K=5, time_weight=0, person_weight=0, calibrated=False)
    hits = off.retrieve(q, S, query_text="When did I bake bread two weeks ago?", hybrid=False, asked_at=asked)
    assert len({round(h.score, 9) for h in hits[:3]}) == 1
    with pytest.raises(Exception, match="time_weight"):
        Retriever.fused(store, time_weight=-0.1)


def test_a_bm25_query_other_than_the_question_is_not_read_for_person_or_time(store):
    # the evidence shares no word with the question and ranks below three other records by cosine; a BM25
    # query that adds "surfing" gives it the whole lexical weight (0.3 of the top BM25 score)
    put(store, EpisodicRecord(scope=S, title="", summary="Spent the summer surfing", provenance=["surf"],
                              event_time=datetime(2024, 6, 16, tzinfo=timezone.utc)), [0.2, 1, 0])  # fmt: skip
    put(store, EpisodicRecord(scope=S, title="", summary="Bought new running shoes", provenance=["shoes"]), [0.3, 1, 0])
    for i in range(6):
        put(store, EpisodicRecord(scope=S, title="", summary=f"Met a friend for coffee {i}", provenance=[f"c{i}"]), [0.25, 1, 0.1 * i])
    r = Retriever.fused(store, K=3, person_weight=0, time_weight=0)
    q = unit([1, 0.2, 0])
    plain = r.retrieve(q, S, query_text="Which sports does Dana do?")
    assert "surf" not in [h.record.provenance[0] for h in plain]
    wider = r.retrieve(q, S, query_text="Which sports does Dana do?", lexical_text="Which sports does Dana do? surfing tennis")
    assert wider[0].record.provenance == ["surf"] and "bm25" in wider[0].why
    # only the question is read for when it asks about: "yesterday" in the BM25 query dates nothing
    asked = datetime(2024, 6, 17, 12, tzinfo=timezone.utc)
    timed = Retriever.fused(store, K=8, person_weight=0, time_weight=1.0)
    hits = timed.retrieve(q, S, query_text="Which sports?", lexical_text="sports surfing yesterday", asked_at=asked)
    assert not any("dated" in h.why for h in hits)
    hits = timed.retrieve(q, S, query_text="Which sports yesterday?", lexical_text="sports surfing", asked_at=asked)
    assert [h.record.provenance[0] for h in hits if "dated" in h.why] == ["surf"]


def test_a_gated_bonus_cannot_lift_an_unrelated_record_over_a_relevant_one(store):
    """The user's words far from the question (below their type's mean) get no first-person bonus; the
    assistant's relevant replies stay first. Ungated, the 3-standard-deviation bonus lifts them over."""
    for i in range(10):
        put(store, SemanticRecord(scope=S, fact=f"assistant answer {i}", provenance=[f"a{i}"], role="assistant"), [1, 0.3, 0.01 * i])
        put(store, SemanticRecord(scope=S, fact=f"user remark {i}", provenance=[f"u{i}"]), [0.5, 1, 0.01 * i])
    q = unit([1, 0, 0])
    gated = Retriever.fused(store, K=20, calibrated=False).retrieve(q, S, query_text="what did I say?", hybrid=False)
    assert [h.record.role for h in gated[:10]] == ["assistant"] * 10
    assert all("whose words" not in h.why for h in gated)  # every user record sits below the mean: no bonus
    ungated = Retriever.fused(store, K=20, bonus_gate=0).retrieve(q, S, query_text="what did I say?", hybrid=False)
    assert ungated[0].record.role == "user"  # what the gate prevents


def test_in_a_scope_of_few_records_a_lone_shared_word_does_not_outrank_meaning(store):
    """With ``lexical_prior`` (off by default) BM25's weight shrinks as n / (n + lexical_prior): three records cannot
    say whether "wedding" is rare."""
    put(store, SemanticRecord(scope=S, fact="a green dress was bought", provenance=["dress"]), [1, 0.35, 0])
    put(store, SemanticRecord(scope=S, fact="the wedding is postponed", provenance=["postponed"]), [1, 0.6, 0])
    put(store, SemanticRecord(scope=S, fact="Ana walks the dog", provenance=["dog"]), [0, 1, 1])
    q = unit([1, 0, 0])  # cosine: dress 0.94, postponed 0.86
    hits = Retriever.fused(store, K=3, lexical_prior=20).retrieve(q, S, query_text="What did Ana buy for the wedding?")
    assert hits[0].record.provenance == ["dress"] and "bm25" in hits[1].why
    flat = Retriever.fused(store, K=3, lexical_prior=0).retrieve(q, S, query_text="What did Ana buy for the wedding?")
    assert flat[0].record.provenance == ["postponed"]  # the whole weight, 0.3, for one shared word


def test_a_question_naming_the_user_puts_the_user_s_own_words_first(store):
    """"Where does Dana grow basil?" asks about the user Dana: the user's "I grow basil on the balcony" answers it, not
    the assistant's reply with the same meaning; the user's record scores as for a question naming nobody."""
    for i in range(20):
        put(store, SemanticRecord(scope=S, fact=f"filler note {i}", provenance=[f"f{i}"], speaker="Dana"),
            [0, 1, 0.05 * i])  # fmt: skip
    put(store, SemanticRecord(scope=S, fact="I grow basil on the balcony", provenance=["user"], speaker="Dana"), [1, 0.2, 0])
    put(store, SemanticRecord(scope=S, fact="basil does well on a balcony", provenance=["assistant"], role="assistant",
                              speaker="Desk"), [1, 0.2, 0])  # fmt: skip
    r = Retriever.fused(store, K=5, calibrated=False, head_weight=0)  # the person signal alone
    q = unit([1, 0.2, 0])
    named = r.retrieve(q, S, query_text="Where does Dana grow basil?", hybrid=False)
    assert named[0].record.provenance == ["user"] and "not the words of the person" in named[1].why
    asked = r.retrieve(q, S, query_text="Where do you think Dana should grow basil?", hybrid=False)
    assert asked[0].record.provenance == ["user"]  # "you" too, but Dana named: Dana's words first
    mixed = r.retrieve(q, S, query_text="Where did you tell me basil grows?", hybrid=False)
    assert mixed[0].score == pytest.approx(mixed[1].score)  # "you" and "me", nobody named: no side taken
    assert named[0].score == pytest.approx(mixed[0].score)  # the user's record keeps its score


def test_the_best_of_weak_lexical_matches_does_not_take_the_whole_weight(store):
    """Every record says "Ana"; the shortest holds it most densely and is BM25's best match, though it holds nothing
    else the question asks about. ``lexical_floor`` divides BM25 by at least that share of what a record holding every
    question term would score, so that match stays weak and meaning ranks."""
    put(store, SemanticRecord(scope=S, fact="Ana: thanks", provenance=["short"]), [1, 0.5, 0])
    put(store, SemanticRecord(scope=S, fact="Ana rents a room above the old bakery in town", provenance=["home"]),
        [1, 0.35, 0])  # fmt: skip
    for i in range(6):
        put(store, SemanticRecord(scope=S, fact=f"Ana noted another plain thing number {i}", provenance=[f"f{i}"]),
            [0, 1, 0.1 * i])  # fmt: skip
    q = unit([1, 0, 0])  # cosine: home 0.94, short 0.89
    floored = Retriever.fused(store, K=3, lexical_floor=0.5).retrieve(q, S, query_text="Where does Ana live?")
    assert floored[0].record.provenance == ["home"]
    flat = Retriever.fused(store, K=3, lexical_floor=0).retrieve(q, S, query_text="Where does Ana live?")
    assert flat[0].record.provenance == ["short"]  # the whole weight, 0.3, for the name every record holds
