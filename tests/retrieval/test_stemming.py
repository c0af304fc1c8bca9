"""The stemming tokenizer and BM25 with it: inflections of one word meet."""

from memdesk.retrieval.lexical import BM25Index
from memdesk.retrieval.stemming import StemmingTokenizer


def test_inflections_share_a_stem_and_stopwords_go():
    a = StemmingTokenizer()
    assert a("We went camping; she camped twice and camps often") == ["went", "camp", "camp", "twice", "camp", "often"]
    assert a("Activities") == a("activity") == ["activ"]


def test_bm25_with_stems_finds_another_inflection():
    docs = ["the family went camping at the lake", "she painted a sunset"]
    plain = BM25Index(docs)
    stemmed = BM25Index(docs, tokenizer=StemmingTokenizer())
    assert plain.top("where has she camped", 2) == []  # no shared surface form
    assert [i for i, _ in stemmed.top("where has she camped", 2)] == [0]
    assert [i for i, _ in stemmed.top("paintings", 2)] == [1]


def test_cache_is_bounded():
    a = StemmingTokenizer(max_cached=2)
    for w in ("running", "jumped", "walks", "talked"):
        a(w)
    assert len(a._cache) <= 2
    assert a("running") == ["run"]


def test_the_compiled_stemmer_gives_the_pure_python_stems():
    """With PyStemmer installed, snowballstemmer hands out the C stemmer; its stems must be the ones
    the pure-Python Porter2 gives, or BM25 terms (and every recall figure) would depend on the install."""
    import pytest
    import snowballstemmer
    from snowballstemmer.english_stemmer import EnglishStemmer

    pytest.importorskip("Stemmer")
    fast, pure = snowballstemmer.stemmer("english"), EnglishStemmer()
    assert type(fast).__module__ != type(pure).__module__  # really the compiled one
    words = ("generously", "hopping", "relational", "conditional", "skies", "dying", "news", "cafés",
             "organizations", "knitted", "arguing", "happily", "volunteered", "ponies", "sensational", "x")
    assert [fast.stemWord(w) for w in words] == [pure.stemWord(w) for w in words]
    assert StemmingTokenizer()("the ponies were hopping happily") == ["poni", "hop", "happili"]
