"""Questions asking for a set of items, records listing several, and the focus bonus they share."""

from __future__ import annotations

import pytest

from memdesk.records import Scope, SemanticRecord
from memdesk.retrieval.question_focus import RecordValues, question_focus
from memdesk.retrieval.question_list import PART_SHARE, asks_for_set, listed_items
from memdesk.retrieval.retrieve import Retriever
from tests.retrieval_store import put, store, unit  # noqa: F401  (store: the fixture)

S = Scope(user_id="u")


@pytest.mark.parametrize(
    "question, several",
    [
        ("Which pupils does Orla coach on Saturdays?", True),
        ("What are the names of Orla's nephews?", True),
        ("What are Orla's goats called?", True),
        ("Who are Orla's lodgers now?", True),
        ("What gifts did Orla buy for Finn?", True),
        ("On which days does Orla swim?", True),
        ("Which children joined the choir?", True),  # a plural without -s
        ("Name the towns on Orla's round.", True),
        ("Which bus does Orla take?", False),  # -s of a singular
        ("What is Orla's address?", False),
        ("Who is Orla's landlord?", False),
        ("What does Orla's boss think?", False),  # "'s": a possessive, then a verb
        ("Where does Orla live?", False),
        ("How many goats does Orla keep?", False),  # a count, not the items
        ("", False),
    ],
)
def test_a_question_asks_for_a_set_by_its_plural_head(question, several):
    assert asks_for_set(question) is several


@pytest.mark.parametrize(
    "text, items",
    [
        ("The kite and the atlas.", 2),
        ("Nell, Ossian and Bea moved in on Sunday", 3),  # the last item may run on
        ("Nell, Ossian, and Bea", 3),  # a comma before the conjunction
        ("the twins + Ilse, Rory and Jun online", 4),
        ("Mon & Wed", 2),
        ("1. book the van 2. pay the deposit 3. label the boxes", 3),
        ("two new clients: a bakery in Leith and a florist", 2),  # a count announcing its items
        ("Orla's birthday is in May and Finn's is in June.", 0),  # two clauses, not two items
        ("I went to the market and bought pears", 0),  # a subject opens a clause
        ("New candle for autumn: Fig & Ember.", 0),  # one name with an ampersand
        ("Orla rents a flat in Leith, top floor, tiny kitchen", 0),  # commas without a conjunction: apposition
        ("Orla adopted a goat", 0),
        ("Oh and Finn's knee healed well, he walks again", 0),  # a discourse marker opens the sentence
        ("Orla will sell at $412,000 and move", 0),  # a comma inside a number separates nothing
        ("Rest days, 5:40 is the target pace: easy", 0),  # a clock's colon announces nothing
    ],
)
def test_a_record_lists_short_conjuncts_joined_by_a_conjunction(text, items):
    assert listed_items(text) == items


def test_a_set_question_gives_a_list_the_whole_focus_bonus_and_one_named_value_a_part():
    focus = question_focus("Which pupils does Orla coach?")
    assert focus.several and focus.slot == "name"
    assert focus.share(RecordValues.of("she coaches Ilse, Rory and Jun")) == 1.0
    assert focus.share(RecordValues.of("she met Tamsin at the pool")) == PART_SHARE
    assert focus.share(RecordValues.of("She loves the pool.")) == 0.0
    items = question_focus("What are Orla's hobbies?")  # no slot of its own: only a list answers it
    assert items.slot == "items" and items.share(RecordValues.of("knitting, rowing and chess")) == 1.0
    assert items.share(RecordValues.of("Orla met Tamsin")) == 0.0
    single = question_focus("Who is Orla's coach?")  # one value asked: a named value answers it whole
    assert not single.several and single.share(RecordValues.of("the coach is Tamsin")) == 1.0


def test_the_record_listing_the_asked_items_ranks_over_one_naming_someone_else(store):
    """Two records on the topic, both naming people and the single name a little closer in meaning: for a question
    asking for a set, the list ranks first; with the focus bonus off, the closer one does."""
    put(store, SemanticRecord(scope=S, fact="Orla found a new lodger, Tamsin, a nurse", provenance=["one"]), [1, 0.30, 0])
    put(store, SemanticRecord(scope=S, fact="the group: Ilse, Rory and Jun on Saturdays", provenance=["list"]),
        [1, 0.40, 0])  # fmt: skip
    for i in range(8):
        put(store, SemanticRecord(scope=S, fact=f"an unrelated errand {i}", provenance=[f"f{i}"]), [0, 1, 0.1 * i])
    q, question = unit([1, 0, 0]), "Which pupils does Orla coach?"
    hits = Retriever.fused(store, K=3).retrieve(q, S, query_text=question, hybrid=False)
    assert hits[0].record.provenance == ["list"] and "states the name asked for" in hits[0].why
    flat = Retriever.fused(store, K=3, focus_weight=0).retrieve(q, S, query_text=question, hybrid=False)
    assert flat[0].record.provenance == ["one"]

