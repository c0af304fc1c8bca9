"""Stemmed lexical terms for BM25: "camped", "camping" and "camps" all become ``camp``.

Questions and memories rarely use the same inflection ("Where has she camped?" / "we went camping"),
and an unstemmed BM25 ranking misses exactly the rare content words it is there to find.
:class:`StemmingTokenizer` is :func:`memdesk.retrieval.lexical.tokenize` (lower-cased words, stopwords removed)
followed by the Snowball English (Porter2) stemmer of the ``snowballstemmer`` package, which runs the
same algorithm compiled from C when ``PyStemmer`` is installed (a dependency on CPython; the stems are
identical, about ten times faster, which matters on the first search of a large scope, when every
record's text is stemmed to build its BM25 index). Stems are cached per tokenizer instance.
"""

from __future__ import annotations

import threading

import snowballstemmer

from .lexical import tokenize

__all__ = ["StemmingTokenizer"]


class StemmingTokenizer:
    """``text -> stemmed terms``; usable as :class:`~memdesk.retrieval.lexical.BM25Index`'s ``tokenizer``.

    Args:
        max_cached: distinct words whose stems are kept (the cache is cleared when it is full).
    """

    def __init__(self, max_cached: int = 200_000) -> None:
        self._stemmer = snowballstemmer.stemmer("english")
        self._cache: dict[str, str] = {}
        self._max = max_cached
        self._lock = threading.Lock()  # the Snowball stemmer object is not thread-safe

    def stem(self, word: str) -> str:
        stem = self._cache.get(word)
        if stem is None:
            with self._lock:
                stem = self._stemmer.stemWord(word)
            if len(self._cache) >= self._max:
                self._cache.clear()
            self._cache[word] = stem
        return stem

    def __call__(self, text: str) -> list[str]:
        return [self.stem(w) for w in tokenize(text)]
