"""Stemmed lexical terms for BM25: "camped", "camping" and "camps" all become ``camp``.

Questions and memories rarely use the same inflection ("Where has she camped?" / "we went camping"),
and an unstemmed BM25 ranking misses exactly the rare content words it is there to find.
:class:`StemmingTokenizer` is :func:`memdesk.retrieval.lexical.tokenize` (lower-cased words, stopwords removed)
followed by the Snowball English (Porter2) stemmer of the ``snowballstemmer`` package, which runs the
same algorithm compiled from C when ``PyStemmer`` is installed (a dependency on CPython; the stems are
identical, about ten times faster, which matters on the first search of a large scope, when every
record's text is stemmed to build its BM25 index). Stems are cached per tokenizer instance.

:func:`stem` is the same stemmer for one word, for the write side's word comparisons (supersession, endings,
topics, updates, the LLM tidy-up: "plays" / "playing" / "play" meet; "Riverside" is no "river"), and
:func:`stems_meet` says whether two stems name one word ("photograph" / "photographi").
"""

from __future__ import annotations

from functools import lru_cache

import snowballstemmer

from .lexical import tokenize

__all__ = ["StemmingTokenizer", "stem", "stems_meet"]


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """The Snowball English (Porter2) stem of one lower-cased word ("camping" -> "camp", "cycle" -> "cycl").

    A pure function, cached; a stemmer object is built per uncached word (about 1 us with PyStemmer), as one is
    not thread-safe."""
    return snowballstemmer.stemmer("english").stemWord(word)


def stems_meet(a: str, b: str) -> bool:
    """Whether two stems name one word: equal, or one letter apart at the end, both of three letters or more
    ("photograph" / "photographi", which the stemmer leaves apart)."""
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    return len(short) > 2 and len(long_) - len(short) == 1 and long_.startswith(short)


class StemmingTokenizer:
    """``text -> stemmed terms``; usable as :class:`~memdesk.retrieval.lexical.BM25Index`'s ``tokenizer``.

    Args:
        max_cached: distinct words whose stems are kept (the cache is cleared when it is full).
    """

    def __init__(self, max_cached: int = 200_000) -> None:
        self._cache: dict[str, str] = {}
        self._max = max_cached

    def stem(self, word: str) -> str:
        got = self._cache.get(word)
        if got is None:
            got = stem(word)
            if len(self._cache) >= self._max:
                self._cache.clear()
            self._cache[word] = got
        return got

    def __call__(self, text: str) -> list[str]:
        return [self.stem(w) for w in tokenize(text)]
