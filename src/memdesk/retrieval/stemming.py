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
:func:`stems_meet` says whether two stems name one word ("photograph" / "photographi"); :func:`holds_stems` (and
:func:`covered`) whether a statement holds every content word of a value by its stem: the one reading of "all content
stems of A occur in B" that supersession (a negation's words), endings (the ended thing) and remainders (what a part
of a compound statement still holds) share.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import snowballstemmer

from ..text.english import FUNCTION_WORDS
from .lexical import tokenize

__all__ = ["StemmingTokenizer", "content_stems", "covered", "holds_stems", "stem", "stems_meet"]

_WORDS = re.compile(r"[a-z0-9]+")


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


def content_stems(text: str) -> list[str]:
    """The content words of ``text`` in order, stemmed: lower-cased runs of letters and digits, less
    :data:`~memdesk.text.english.FUNCTION_WORDS` and single characters ("Maya's" leaves "s")."""
    return [stem(w) for w in _WORDS.findall(text.lower().replace("\u2019", "'")) if w not in FUNCTION_WORDS and len(w) > 1]


def covered(wanted: Sequence[str], text: str, *, spare: int = 0) -> bool:
    """Whether ``text`` holds the stems ``wanted`` (:func:`content_stems` of something), all but ``spare`` of them,
    each meeting one of its own (:func:`stems_meet`); never for nothing wanted."""
    if not wanted:
        return False
    said = set(content_stems(text))
    return sum(any(stems_meet(s, w) for s in said) for w in wanted) >= len(wanted) - spare


def holds_stems(value: str, text: str) -> bool:
    """Whether ``text`` holds every content word of ``value`` by its stem ("no longer plays the violin" / "Maya
    plays the violin in an orchestra"; "the old 6hp outboard" / "a Tohatsu 6hp outboard")."""
    return covered(content_stems(value), text)


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
