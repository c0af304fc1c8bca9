"""The stemming tokenizer and BM25 with it: inflections of one word meet."""

from memdesk.lexical import BM25Index
from memdesk.stemming import StemmingTokenizer


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
