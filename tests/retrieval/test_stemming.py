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


def test_one_reading_of_every_content_word_of_a_value_in_a_statement():
    from memdesk.retrieval.stemming import content_stems, covered, holds_stems

    assert content_stems("My old gas oven’s door") == ["gas", "oven", "door"]  # function words, "s" and case go
    assert holds_stems("playing the violin", "Maya plays the violin in an orchestra")
    assert holds_stems("the old 6hp outboard", "a Tohatsu 6hp outboard")  # "old" says nothing of what it is
    assert not holds_stems("the violin", "Maya plays the viola") and not holds_stems("the of my", "anything at all")
    wanted = content_stems("my terrible gas oven")
    assert covered(wanted, "an old gas oven", spare=1) and not covered(wanted, "an old gas oven")


def test_supersession_endings_and_remainders_share_that_reading():
    """The three write-side readers once had their own lists of function words: each now reads "her" and "old" alike."""
    from memdesk.conversation.claims import Claim
    from memdesk.conversation.endings import mentions
    from memdesk.conversation.remainder import holds_stems as remainder_holds
    from memdesk.conversation.endings import negates
    from memdesk.records import Scope, SemanticRecord
    from memdesk.retrieval.stemming import holds_stems

    walks = SemanticRecord(scope=Scope(user_id="u"), fact="Maya walks the dog every morning")
    assert negates(Claim("negation", value="walking her dog", op="end"), walks)
    assert mentions("her dog", "Maya walks the dog every morning")
    assert remainder_holds is holds_stems and remainder_holds("the old outboard", "a 6hp outboard")
