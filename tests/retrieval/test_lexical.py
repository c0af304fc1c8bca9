"""BM25 ranking and reciprocal-rank fusion, against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdesk.errors import InvalidInputError
from memdesk.retrieval.lexical import BM25Index, rrf_fuse, tokenize


def test_tokenize_lowercases_splits_and_drops_stopwords() -> None:
    assert tokenize("What did Tomas bake in 2022? A rye_loaf!") == ["tomas", "bake", "2022", "rye", "loaf"]
    assert tokenize("Émile a peint") == ["émile", "peint"]
    assert tokenize("") == [] and tokenize("the of and") == []


def test_what_an_apostrophe_splits_off_is_no_term() -> None:
    """"Maya's", "it's", "don't", "we'll": the pieces after the apostrophe match every possessive and contraction."""
    assert tokenize("It's Maya's cat; we'll see, don't worry, they're fine, I'm in") == ["maya", "cat", "see", "worry", "fine"]


def test_attainable_is_the_sum_of_the_query_terms_idf_absent_terms_included() -> None:
    index = BM25Index(["tomas bakes bread", "priya runs", "tomas runs far"])

    def idf(df: int) -> float:
        return math.log(1 + (3 - df + 0.5) / (df + 0.5))

    assert index.attainable("Tomas runs") == pytest.approx(2 * idf(2))
    assert index.attainable("Tomas swims") == pytest.approx(idf(2) + idf(0))  # asked about, held by no document
    assert index.attainable("the of") == 0.0 and BM25Index([]).attainable("tomas") == 0.0
    # a document of average length holding each term once scores the attainable value
    flat = BM25Index(["alpha beta", "gamma delta", "beta gamma"])
    assert flat.scores("alpha delta")[[0, 1]].sum() == pytest.approx(flat.attainable("alpha delta"))


def test_bm25_scores_match_the_formula() -> None:
    texts = ["tomas bakes bread", "priya runs", "tomas tomas runs far away today"]
    index = BM25Index(texts, k1=1.5, b=0.75)
    lengths = [3, 2, 6]
    avg = sum(lengths) / 3

    def term(tf: int, dl: int, df: int) -> float:
        idf = math.log(1 + (3 - df + 0.5) / (df + 0.5))
        return idf * tf * 2.5 / (tf + 1.5 * (1 - 0.75 + 0.75 * dl / avg))

    got = index.scores("Tomas runs")
    want = [term(1, 3, 2), term(1, 2, 2), term(2, 6, 2) + term(1, 6, 2)]
    np.testing.assert_allclose(got, want)
    best = sorted(range(3), key=lambda i: -want[i])[:2]
    assert index.top("Tomas runs", 2) == [(best[0], pytest.approx(want[best[0]])), (best[1], pytest.approx(want[best[1]]))]


def test_bm25_top_skips_non_matching_documents_and_handles_edges() -> None:
    index = BM25Index(["alpha beta", "gamma", "beta beta"])
    assert [i for i, _ in index.top("beta", 10)] == [2, 0]  # document 1 never matches
    assert index.top("zeta", 5) == [] and index.top("beta", 0) == []
    assert BM25Index([]).top("beta", 3) == [] and len(BM25Index([])) == 0
    with pytest.raises(InvalidInputError):
        BM25Index(["x"], b=2.0)


def test_rrf_fuse_sums_reciprocal_ranks() -> None:
    fused = rrf_fuse([(["a", "b", "c"], 1.0), (["c", "d"], 1.0)], c=10)
    scores = dict(fused)
    assert scores["c"] == pytest.approx(1 / 12 + 1 / 10)
    assert scores["a"] == pytest.approx(1 / 10) and scores["d"] == pytest.approx(1 / 11)
    assert [item for item, _ in fused] == ["c", "a", "b", "d"]  # b and d tie at 1/11: b was seen first
    assert [item for item, _ in rrf_fuse([(["x", "y"], 1.0), (["y", "x"], 1.0)])] == ["x", "y"]  # tie: first seen
    with pytest.raises(InvalidInputError):
        rrf_fuse([(["a"], 1.0)], c=0)


def test_the_tokenizer_is_the_callers() -> None:
    """The reasoning bank tokenizes LaTeX commands and keeps stopwords; the same index serves it."""
    import math

    from memdesk.reasoning.example_retrieval import bm25_tokens

    docs = ["Find \\frac{1}{2} of it", "Find the sum", "the the the"]
    index = BM25Index(docs, k1=1.5, b=0.0, tokenizer=bm25_tokens)
    s = index.scores("\\frac of the")
    # b=0: a term's weight is tf(k1+1)/(tf+k1) x log(1 + (N - df + 0.5)/(df + 0.5))
    idf1 = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    idf2 = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    assert s[0] == pytest.approx(2 * idf1)  # \frac and of: each once, df 1
    assert s[1] == pytest.approx(idf2)  # "the" once
    assert s[2] == pytest.approx(3 * 2.5 / (3 + 1.5) * idf2)  # "the" three times
    default = BM25Index(docs).scores("\\frac of the")  # default tokenizer: "of" and "the" are stopwords
    assert default[0] > 0 and default[1:].tolist() == [0.0, 0.0]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(alphabet="abcde ", max_size=30), max_size=12),
    st.lists(st.text(alphabet="abcdef ", max_size=30), max_size=6),
    st.text(alphabet="abcdef ", max_size=12),
)
def test_an_extended_index_scores_as_one_built_at_once(first, more, query) -> None:
    base = BM25Index(first)
    grown = base.extended(more)
    np.testing.assert_allclose(grown.scores(query), BM25Index(first + more).scores(query), rtol=1e-12, atol=1e-12)
    assert len(grown) == len(first) + len(more)
    np.testing.assert_allclose(base.scores(query), BM25Index(first).scores(query))  # the old index is unchanged
