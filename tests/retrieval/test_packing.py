"""Budgeted packing: records are kept best first while the serialized block fits the budget."""

import pytest

from memdesk.errors import InvalidInputError
from memdesk.retrieval.packing import BudgetPacker
from memdesk.records import EpisodicRecord, MemoryType, Scope, SemanticRecord
from memdesk.hits import SearchHit
from memdesk.retrieval.retrieve import Serializer

S = Scope(user_id="u")


def hit(record, score=1.0):
    return SearchHit(record=record, score=score, memory_type=MemoryType(record.type), rank=0, why="test")


def fact(text, prov, anchor="2023-05-07"):
    return hit(SemanticRecord(scope=S, fact=text, provenance=prov, temporal_anchor=anchor))


def test_block_never_exceeds_the_budget_and_short_records_fill_the_rest():
    ser = Serializer()
    long = fact("Ana talked at length about " + "many different things " * 10, ["m1"])
    short = [fact(f"Ana likes tea {i}", [f"s{i}"]) for i in range(3)]
    header = ser.token_counter.count("Facts (semantic):") + 1
    one_short = ser.token_counter.count(ser.line(short[0])) + 1
    budget = header + 2 * one_short  # room for two short lines, not for the long one
    packed = BudgetPacker(ser, budget).pack([long, *short])
    assert [h.record.provenance for h in packed] == [["s0"], ["s1"]]  # the long one is skipped, order kept
    assert ser.serialize(packed).tokens <= budget


def test_covered_provenance_and_duplicates_are_skipped():
    ser = Serializer()
    pair = fact("Ben asked about the trip. Ana: it was great", ["m2", "m1"])
    covered = fact("Ana: it was great", ["m1"])
    dup_text = fact("ben asked about the trip  ana  it was great", ["m9"])
    other = fact("Ana moved to Porto", ["m3"])
    packed = BudgetPacker(ser, 500).pack([pair, covered, dup_text, other])
    assert [h.record.provenance for h in packed] == [["m2", "m1"], ["m3"]]
    keep_all = BudgetPacker(ser, 500, cover_dedupe=False).pack([pair, covered, other])
    assert len(keep_all) == 3


def test_max_records_caps_the_count():
    hits = [fact(f"fact {i}", [f"p{i}"]) for i in range(5)]
    assert len(BudgetPacker(Serializer(), 1000, max_records=2).pack(hits)) == 2


def test_grouped_block_writes_each_anchor_once_in_time_order():
    from datetime import datetime, timezone

    ser = Serializer(group_by_anchor=True)
    early = datetime(2023, 5, 1, tzinfo=timezone.utc)
    late = datetime(2023, 6, 1, tzinfo=timezone.utc)
    hits = [
        hit(SemanticRecord(scope=S, fact="Ana runs", provenance=["a"], temporal_anchor="June 2023", event_time=late)),
        hit(SemanticRecord(scope=S, fact="Ana swims", provenance=["b"], temporal_anchor="May 2023", event_time=early)),
        hit(SemanticRecord(scope=S, fact="Ana paints", provenance=["c"], temporal_anchor="June 2023", event_time=late)),
        hit(EpisodicRecord(scope=S, title="", summary="Ana moved", provenance=["d"], temporal_anchor="May 2023")),
    ]
    assert ser.serialize(hits).text.splitlines() == [
        "Events (episodic):",
        "[May 2023]",
        "- Ana moved",
        "Facts (semantic):",
        "[May 2023]",
        "- Ana swims",
        "[June 2023]",
        "- Ana runs",
        "- Ana paints",
    ]
    flat = Serializer().serialize(hits)
    assert ser.serialize(hits).tokens < flat.tokens  # June 2023 is written once, not twice
    assert ser.serialize(BudgetPacker(ser, 25).pack(hits)).tokens <= 25


def test_bad_budget():
    with pytest.raises(InvalidInputError):
        BudgetPacker(Serializer(), 0)
