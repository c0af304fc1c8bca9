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


def test_a_line_writing_its_own_anchor_folds_under_another_anchor():
    ser = Serializer(group_by_anchor=True)
    said = event("Tomas fixed the dock yesterday (2024-02-09).", ["m3"], anchor="2024-02-09")
    pair = event("Irene asked: Busy week? Tomas: Tomas fixed the dock yesterday (2024-02-09). Now the boat.", ["m2", "m3"])
    assert folded([said, pair], ser.fold_key) == {0}
    block = ser.serialize([said, pair]).text
    assert block.count("fixed the dock") == 1 and "[2024-02-10]" in block and "[2024-02-09]" not in block


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


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from memdesk.retrieval.packing import normalized_text  # noqa: E402

WORDS = ["boat", "dock", "lake", "Irene", "Tomas", "fixed", "painted", "Saturday", "blue", "the"]
sentences = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join)


@given(st.lists(st.tuples(sentences, sentences, st.integers(0, 3), st.booleans()), min_size=1, max_size=8))
@settings(max_examples=25, deadline=None)
def test_a_folded_block_still_shows_every_hits_words_and_is_never_longer(specs):
    hits = []
    for lead, said, message, paired in specs:
        if paired:  # a question-answer view of message m<message> with the message before it
            hits.append(event(f"Irene asked: {lead}? Tomas: {said}", [f"m{message - 1}", f"m{message}"]))
        else:
            hits.append(event(said, [f"m{message}"]))
    folding = Serializer(group_by_anchor=True).serialize(hits)
    plain = Serializer(group_by_anchor=True, fold=False).serialize(hits)
    shown = f" {normalized_text(folding.text)} "
    for h in hits:
        assert f" {normalized_text(Serializer.words(h))} " in shown
    assert folding.tokens <= plain.tokens and folding.hits == plain.hits
