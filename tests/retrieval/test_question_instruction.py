"""Whether a question asks how the assistant is to act (or what the user wants), and whether a record is the user's
instruction (or wish): the fused ranking's ``instruction_weight``."""

from __future__ import annotations

import pytest

from memdesk.records import Scope, SemanticRecord
from memdesk.retrieval.question_instruction import (
    VALUE_SHARE, asks_instruction, instruction_weights, instructs, wishes,
)  # fmt: skip
from memdesk.retrieval.retrieve import Retriever
from tests.retrieval_store import put, store, unit  # noqa: F401  (store: the fixture)

S = Scope(user_id="u")
USERS = ["Priya"]
ASSISTANTS = ["Quill"]


@pytest.mark.parametrize(
    "question, asked",
    [
        ("How should the assistant write to Priya?", "instruction"),  # the assistant the modal's subject
        ("How long should Quill's answers to Priya be?", "instruction"),  # the assistant by its name in the scope
        ("What did Priya ask the assistant to stop doing?", "instruction"),  # the assistant the one asked
        ("How should reminders for Priya be worded?", "instruction"),  # a modal whose subject is a thing: a passive
        ("What units should recipes use?", "instruction"),
        ("What must not be served at the party?", "instruction"),
        ("What tone does Priya want from the assistant?", "instruction"),
        ("How does Priya want the menus laid out?", "wish"),  # the user the subject of a verb of wishing
        ("What kind of gym does Priya not want?", "wish"),
        ("How does Priya prefer to practise?", "wish"),
        ("What should Priya pack for the ferry?", None),  # the user the modal's subject: advice
        ("What should I bring?", None),
        ("What does Priya do for a living?", None),
        ("What does Priya's neighbour want for the fence?", None),  # someone else's wish
        ("What did the assistant recommend for the trip?", None),  # the assistant's words, not an instruction
        ("", None),
    ],
)
def test_a_question_asks_for_an_instruction_or_a_wish_by_its_grammar(question, asked):
    assert asks_instruction(question, USERS, ASSISTANTS) == asked


@pytest.mark.parametrize(
    "text, instruction",
    [
        ("pls keep answers short, Priya reads them on the bus", True),  # a marker of request
        ("Priya wants no spreadsheets please", True),
        ("also don't ever suggest scented candles, Priya gets migraines", True),  # a negated imperative
        ("give the prices in euros and never suggest flat-pack stuff", True),  # after "and"
        ("keep replies brief", True),  # an imperative on how to answer
        ("And no emojis in anything you write for Priya.", True),  # "no" opening the instruction, not a reply
        ("put the shelves up for 40 euros, everyone wants the oak ones", False),  # a dropped "I", not an order
        ("open till 7 on Fridays", False),
        ("stopped doing Mondays, only Saturdays now", False),
        ("Priya never been to Oslo", False),  # a narrated "never"
        ("Priya works at the library on Elm Row", False),
    ],
)
def test_a_record_is_an_instruction_by_its_mood_not_by_a_bare_verb(text, instruction):
    assert instructs(text, "user") is instruction


def test_only_the_user_s_words_instruct_or_wish():
    assert not instructs("please keep it short", "assistant")
    assert wishes("Priya prefers the morning ferry", "user") and not wishes("Priya prefers the morning ferry", "assistant")
    assert not wishes("Priya works at the library", "user")


def test_the_weights_by_what_the_question_asks():
    assert instruction_weights("How should the assistant write to Priya?", False, 1.0, USERS) == {"instruction_weight": 1.0, "wish_weight": 0.0}
    assert instruction_weights("How does Priya want the menus laid out?", False, 1.0, USERS) == {"instruction_weight": 1.0, "wish_weight": 1.0}
    assert instruction_weights("Where does Priya work?", True, 1.0, USERS) == {"instruction_weight": -VALUE_SHARE, "wish_weight": 0.0}
    assert instruction_weights("Why did Priya move?", False, 1.0, USERS) == {"instruction_weight": 0.0, "wish_weight": 0.0}


def _fillers(store):
    for i in range(8):
        put(store, SemanticRecord(scope=S, fact=f"Priya noted an unrelated errand {i}", speaker="Priya", provenance=[f"f{i}"]),
            [0, 1, 0.1 * i])  # fmt: skip


def test_the_user_s_instruction_ranks_first_for_a_question_about_how_the_assistant_is_to_write(store):
    """A record naming the user sits a little closer to the question than her instruction; with ``instruction_weight``
    the instruction ranks first, without it the other record does."""
    put(store, SemanticRecord(scope=S, fact="Priya's sister set the assistant up for Priya", speaker="Priya", provenance=["near"]),
        [1, 0.30, 0])  # fmt: skip
    put(store, SemanticRecord(scope=S, fact="please use plain words, Priya is still learning", speaker="Priya", provenance=["rule"]),
        [1, 0.38, 0])  # fmt: skip
    _fillers(store)
    q, question = unit([1, 0, 0]), "How should the assistant write to Priya?"
    hits = Retriever.fused(store, K=3).retrieve(q, S, query_text=question, hybrid=False)
    assert hits[0].record.provenance == ["rule"]
    flat = Retriever.fused(store, K=3, instruction_weight=0).retrieve(q, S, query_text=question, hybrid=False)
    assert flat[0].record.provenance == ["near"]


def test_an_instruction_sharing_the_topic_ranks_under_the_fact_a_value_question_asks_for(store):
    """"What does Priya do for a living?" asks for a value of her world: an instruction that mentions her jobs, a little
    closer in meaning, ranks under the record of her work with ``instruction_weight``, over it without."""
    put(store, SemanticRecord(scope=S, fact="pls keep answers short, Priya reads them between jobs", speaker="Priya", provenance=["rule"]),
        [1, 0.30, 0])  # fmt: skip
    put(store, SemanticRecord(scope=S, fact="Priya mends violins for a living", speaker="Priya", provenance=["fact"]), [1, 0.34, 0])
    _fillers(store)
    q, question = unit([1, 0, 0]), "What does Priya do for a living?"
    hits = Retriever.fused(store, K=3).retrieve(q, S, query_text=question, hybrid=False)
    assert hits[0].record.provenance == ["fact"]
    flat = Retriever.fused(store, K=3, instruction_weight=0).retrieve(q, S, query_text=question, hybrid=False)
    assert flat[0].record.provenance == ["rule"]
