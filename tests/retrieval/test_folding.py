"""Folding: a record whose words another line of the block shows (same message, anchor and label) writes no line."""

from memdesk.hits import SearchHit
from memdesk.records import EpisodicRecord, MemoryType, Scope, SemanticRecord
from memdesk.retrieval.folding import folded
from memdesk.retrieval.packing import BudgetPacker
from memdesk.retrieval.serialize import Serializer

S = Scope(user_id="u")


def hit(record, score=1.0):
    return SearchHit(record=record, score=score, memory_type=MemoryType(record.type), rank=0, why="test")


def event(text, prov, anchor="2024-02-10", **kw):
    return hit(EpisodicRecord(scope=S, title="", summary=text, provenance=prov, temporal_anchor=anchor, **kw))


def fact(text, prov, anchor="2024-02-10", **kw):
    return hit(SemanticRecord(scope=S, fact=text, provenance=prov, temporal_anchor=anchor, **kw))


SENTENCE = event("Tomas repaired the old rowing boat on Saturday.", ["m7"])
PAIR = event("Irene asked: What did Tomas do at the lake? Tomas: Tomas repaired the old rowing boat on Saturday. It floats!", ["m6", "m7"])


def test_a_line_contained_in_a_line_of_the_same_message_is_written_once():
    ser = Serializer(group_by_anchor=True)
    block = ser.serialize([SENTENCE, PAIR])
    assert block.text.count("repaired the old rowing boat") == 1
    assert "Irene asked: What did Tomas do at the lake?" in block.text  # the longer line is the one written
    assert [h.record.provenance for h in block.hits] == [["m7"], ["m6", "m7"]]  # both hits stay
    plain = Serializer(group_by_anchor=True, fold=False).serialize([SENTENCE, PAIR])
    assert plain.text.count("repaired the old rowing boat") == 2 and plain.tokens > block.tokens


def test_no_fold_across_messages_anchors_labels_or_partial_words():
    ser = Serializer(group_by_anchor=True)
    other_message = event("Tomas repaired the old rowing boat on Saturday.", ["m9"])
    other_anchor = event("Tomas repaired the old rowing boat on Saturday.", ["m7"], anchor="2024-02-03")
    by_assistant = fact("Tomas repaired the old rowing boat on Saturday.", ["m7"], role="assistant")
    fragment = event("Tomas repaired the old rowing bo", ["m7"])  # not whole words of the longer line
    for other in (other_message, other_anchor, by_assistant, fragment):
        assert folded([other, PAIR], ser.fold_key) == set(), other.record
    assert folded([SENTENCE, PAIR], ser.fold_key) == {0}
    assert folded([PAIR, SENTENCE], ser.fold_key) == {1}  # whichever ranks first
    same = fact("Tomas repaired the old rowing boat on Saturday.", ["m7"])
    assert folded([SENTENCE, same], ser.fold_key) == {1}  # same words: the later one folds


def test_the_packer_prices_a_folded_line_at_nothing():
    ser = Serializer(group_by_anchor=True)
    others = [fact(f"Irene keeps {n} beehives behind the barn", [f"b{n}"]) for n in range(2, 6)]
    ranked = [SENTENCE, PAIR, *others]
    need = ser.serialize(ranked).tokens
    folding = BudgetPacker(ser, need).pack(ranked)
    assert len(folding) == len(ranked)  # the sentence costs nothing once the pair is in: all fit
    assert ser.serialize(folding).tokens <= need
    unfolded = Serializer(group_by_anchor=True, fold=False)
    assert len(BudgetPacker(unfolded, need).pack(ranked)) < len(ranked)  # the repeat's tokens crowd one out
