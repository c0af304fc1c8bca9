"""Budgeted packing: records are kept best first while the serialized block fits the budget."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memdesk.errors import InvalidInputError
from memdesk.retrieval.packing import BudgetPacker, dedupe
from memdesk.records import EpisodicRecord, MemoryType, Scope, SemanticRecord
from memdesk.hits import SearchHit
from memdesk.retrieval.retrieve import Serializer

S = Scope(user_id="u")


def hit(record, score=1.0):
    return SearchHit(record=record, score=score, memory_type=MemoryType(record.type), rank=0, why="test")


def fact(text, prov, anchor="2023-05-07"):
    return hit(SemanticRecord(scope=S, fact=text, provenance=prov, temporal_anchor=anchor))


def test_dedupe_with_a_limit_keeps_the_first_distinct_hits_and_reads_no_further():
    ranked = [fact("Ana likes tea", ["m1"]), fact("ana LIKES tea.", ["m2"]), fact("Ben rows on Sundays", ["m3"]),
              fact("Cleo moved to Leeds", ["m4"])]
    read = []

    def lazily():
        for h in ranked:
            read.append(h)
            yield h
        raise AssertionError("read past the limit")

    kept = dedupe(lazily(), limit=2)
    assert [h.record.provenance for h in kept] == [["m1"], ["m3"]]  # the repeated text is skipped, not counted
    assert len(read) == 3
    assert dedupe(ranked) == [ranked[0], ranked[2], ranked[3]]


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


def _memory_over(tmp_path, records, serializer, budget):
    """A Memory on a real SQLite store holding ``records`` (hashing embedder), read by the fused path at ``budget``."""
    from memdesk.conversation.memory import Memory
    from memdesk.conversation.raw import RawTurnProcessor
    from memdesk.embed.hashing import HashingEmbedder
    from memdesk.retrieval.retrieve import Retriever
    from memdesk.store import open_store

    store, embedder = open_store(f"sqlite:///{tmp_path}/evidence.db"), HashingEmbedder(dim=64)
    memory = Memory(store, embedder, RawTurnProcessor(), serializer=serializer,
                    retriever=Retriever.fused(store, token_budget=budget))  # fmt: skip
    for r in records:
        store.write([r], embedder.embed([r.embed_text()]))
    return memory


_WORDS = ["Ana", "tea", "garden", "kiln", "Leith", "ferry", "budget", "£48,000", "2025-03-02", "naïve", "—",
          "x" * 30]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    texts=st.lists(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=12).map(" ".join), min_size=1, max_size=30),
    anchors=st.lists(st.sampled_from(["2025-03-02", "week of 2025-03-10", None]), min_size=30, max_size=30),
    budget=st.integers(min_value=8, max_value=300),
    serializer=st.sampled_from(["default", "flat", "grouped"]),
)
def test_an_evidence_block_never_exceeds_the_read_path_s_budget(tmp_path_factory, texts, anchors, budget, serializer):
    """Whatever serializer the Memory writes its evidence with (its default: the retriever's; or one of its own, which
    may write longer lines than the packer priced), ``Memory.evidence`` counts what it emits within the budget."""
    records = [
        (SemanticRecord if i % 2 else EpisodicRecord)(
            **({"fact": text} if i % 2 else {"title": "", "summary": text}), scope=S, provenance=[f"m{i}"],
            temporal_anchor=anchors[i],
        )
        for i, text in enumerate(texts)
    ]  # fmt: skip
    chosen = {"default": None, "flat": Serializer(), "grouped": Serializer(group_by_anchor=True)}[serializer]
    memory = _memory_over(tmp_path_factory.mktemp("ev"), records, chosen, budget)
    try:
        ev = memory.evidence("Ana garden kiln budget", scope=S)
        assert ev.tokens <= budget
        assert ev.tokens == memory.serializer.token_counter.count(ev.text) if ev.text else ev.tokens == 0
    finally:
        memory.close()


def test_the_default_evidence_block_is_the_packer_s(tmp_path):
    """The 918-of-900 case: a Memory given the fused retriever and no serializer used to write the flat block (one
    anchor per line) over hits packed for the grouped one, and ran past the budget."""
    records = [
        SemanticRecord(scope=S, fact=f"Ana noted garden detail {i} of the kiln and its budget", provenance=[f"m{i}"],
                       temporal_anchor="2025-03-02")
        for i in range(40)
    ]  # fmt: skip
    memory = _memory_over(tmp_path, records, None, 120)
    try:
        assert memory.serializer is memory.retriever.serializer and memory.serializer.group_by_anchor
        ev = memory.evidence("garden kiln budget", scope=S)
        assert 100 < ev.tokens <= 120
        flat = Serializer().serialize(memory.search("garden kiln budget", scope=S))
        assert flat.tokens > 120  # what the block was before: the flat lines of the same hits
    finally:
        memory.close()


def test_a_block_the_line_prices_left_short_of_the_budget_is_topped_up_keeping_what_was_taken():
    """Lines priced one by one cost more than the block they make: the packer offers the rest again against what the
    block left unused, so the block ends nearer the budget, never over it, with the first pass's records kept in
    rank order."""
    ser = Serializer(group_by_anchor=True)
    words = "tea rain boats maps kites jars owls pens figs nets cups oars rugs hats bells".split()
    hits = [fact(f"Ana noted item number {i} of the list, the one about {w}", [f"p{i}"], anchor=f"2023-05-{i + 1:02d}")
            for i, w in enumerate(words)]  # fmt: skip
    budget = 151  # each record opens an anchor line: priced one by one, five fill it; the block of five holds 125
    first = BudgetPacker(ser, budget)
    first.REFILLS = 0
    once = first.pack(hits)
    topped = BudgetPacker(ser, budget).pack(hits)
    assert ser.serialize(topped).tokens <= budget
    assert len(topped) == len(once) + 1 and [h for h in topped if h in once] == once
    assert [hits.index(h) for h in topped] == sorted(hits.index(h) for h in topped)
