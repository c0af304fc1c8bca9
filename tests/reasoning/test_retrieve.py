"""Retrieval on a small bank: the real MiniLM embedder (offline problem embeddings), BM25, tag retrieval."""

from __future__ import annotations

import pytest

from memdesk.embed import HashingEmbedder
from memdesk.errors import UsageError
from memdesk.llm.fake import ScriptedChatModel
from memdesk.reasoning.bank import MemoryBank
from memdesk.reasoning.bank_builder import BankBuilder
from memdesk.reasoning.datasets import Problem
from memdesk.reasoning.example_retrieval import BM25Retriever, VectorRetriever
from memdesk.reasoning.tags import LLMTagger, ProblemRepresentation, TagRepresentation
from tests.reasoning.mac_fakes import tags_for, user_text

GROUPS = {
    "geometry": [
        "What is the area of a circle with radius 3?",
        "A right triangle has legs 6 and 8. How long is the hypotenuse?",
        "Find the perimeter of a rectangle 4 cm wide and 9 cm long.",
        "What is the volume of a cube whose edge is 5 inches?",
    ],
    "probability": [
        "Roll two fair six-sided dice. What is the probability of a total of 7?",
        "A bag holds 3 red and 5 blue marbles. If one is drawn at random, what is the chance it is red?",
        "A coin is flipped 4 times. What is the probability of exactly two heads?",
        "What is the probability of drawing an ace from a standard deck of cards?",
    ],
    "dates": [
        "Today is March 3, 2021. What was the date 10 days ago?",
        "If yesterday was Friday, what day of the week will it be in three days?",
        "A meeting on 12/30/2019 is moved one week later. What is the new date?",
        "Ravi was born on February 29, 2000. How old is he on March 1, 2021?",
    ],
}
QUERIES = {
    "geometry": "A square has a diagonal of length 10. What is its area?",
    "probability": "Three cards are drawn from a deck without replacement. What is the probability all are hearts?",
    "dates": "The year 1999 ends tonight. Which date comes next, written month/day/year?",
}


def problems() -> list[Problem]:
    return [
        Problem(id=f"t:{g}:{i}", benchmark="t", question=q, answer="0", solution=f"Solve: {q} = 0.", group=g, split="bank")
        for g, qs in GROUPS.items()
        for i, q in enumerate(qs)
    ]


@pytest.mark.slow
def test_minilm_problem_retrieval_finds_the_same_kind(store, minilm) -> None:
    BankBuilder(store, minilm).build("small", "t", problems(), [])
    retriever = VectorRetriever(MemoryBank(store, "small"), minilm, ProblemRepresentation())
    for group, query in QUERIES.items():
        result = retriever.retrieve(query, 3)
        scores = [m.score for m in result.memories]
        assert scores == sorted(scores, reverse=True)
        assert [m.rank for m in result.memories] == [0, 1, 2]
        same = sum(m.example.group == group for m in result.memories)
        assert same >= 2, (group, [m.example.id for m in result.memories])
        assert result.memories[0].example.group == group
        assert result.timings.t_tag_s == 0.0 and result.timings.t_emb_s > 0 and result.timings.t_search_s > 0
        assert result.query_text == query


def test_bm25_retrieval(store) -> None:
    BankBuilder(store, HashingEmbedder(64)).build("lex", "t", problems(), [])
    retriever = BM25Retriever.from_bank(MemoryBank(store, "lex"))
    result = retriever.retrieve("Two dice are rolled: what is the probability of a sum of 7?", 2)
    assert result.memories[0].example.id == "t:probability:0"
    assert result.memories[0].score >= result.memories[1].score
    assert result.retriever == "bm25"


def test_tag_retrieval_uses_query_tags(store) -> None:
    chat = ScriptedChatModel(lambda m: tags_for(user_text(m)), model_id="tagger")
    rep = TagRepresentation(LLMTagger(chat))
    BankBuilder(store, HashingEmbedder(128), representation=rep).build("tagged", "t", problems(), [])
    retriever = VectorRetriever(MemoryBank(store, "tagged"), HashingEmbedder(128), rep)
    # fake tags take the first capitalised word as the domain: "Today ..." matches the dates entry
    result = retriever.retrieve("Today is Monday. What day is it tomorrow?", 1)
    assert result.memories[0].example.id == "t:dates:0"
    assert result.query_tags is not None and result.timings.t_tag_s > 0
    assert result.usage.calls == 1


def test_representation_or_embedder_mismatch_is_refused(store) -> None:
    BankBuilder(store, HashingEmbedder(64)).build("p", "t", problems(), [])
    bank = MemoryBank(store, "p")
    chat = ScriptedChatModel(lambda m: tags_for(user_text(m)))
    with pytest.raises(UsageError):
        VectorRetriever(bank, HashingEmbedder(64), TagRepresentation(LLMTagger(chat)))
    with pytest.raises(UsageError):
        VectorRetriever(bank, HashingEmbedder(64, bigram_weight=0.0), ProblemRepresentation())
    with pytest.raises(UsageError):
        VectorRetriever(MemoryBank(store, "missing"), HashingEmbedder(64), ProblemRepresentation())
