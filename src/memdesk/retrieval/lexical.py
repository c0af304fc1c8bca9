"""Lexical (BM25) ranking of memory records, for hybrid retrieval.

Dense MiniLM retrieval misses questions whose decisive word is a rare name or noun ("Which
ferry did Oskar take?"); BM25 over the same records finds them. :class:`BM25Index` is Okapi BM25 (k1, b)
with the non-negative IDF ``log(1 + (N - df + 0.5) / (df + 0.5))``: each term's posting list keeps its
documents and term frequencies; a term's weights are computed on its first query (with the index's N and
average length) and kept, so more documents can be added (:meth:`BM25Index.extended`, a new index) without
rebuilding the rest.

:func:`rrf_fuse` is reciprocal-rank fusion (Cormack et al. 2009): an item's fused score is the sum of
``weight / (c + rank)`` over the ranked lists that contain it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

import numpy as np

from ..errors import InvalidInputError
from ..hits import SearchHit

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
#: Function words that carry no retrieval signal in conversational text, and the pieces an apostrophe splits off.
STOPWORDS = frozenset(
    """a about after all also am an and any are as at be because been before being but by can could
    did do does doing done for from had has have having he her here hers him his how i if in into is it
    its just me my no not of on or our ours she so some than that the their them then there these they
    this those to too us very was we were what when where which while who whom why will with would you
    your yours now""".split()
) | frozenset(  # what an apostrophe leaves of a possessive or a contraction ("Maya's", "it's", "don't", "we'll")
    "s t d ll m re ve don didn doesn isn aren wasn weren won wouldn couldn shouldn haven hasn hadn".split()
)

T = TypeVar("T", bound=Hashable)


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens (letters and digits, any script), stopwords removed."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


class BM25Index:
    """Okapi BM25 over a list of texts (positions 0..n-1): memdesk's one BM25, used by hybrid
    retrieval of memory records and by the reasoning bank's lexical retriever.

    Args:
        texts: the documents.
        k1: term-frequency saturation (default 1.5).
        b: length normalization (default 0.75).
        tokenizer: text -> terms, for documents and queries alike (default :func:`tokenize`).

    An index is never changed in place; :meth:`extended` returns a new one with more documents (a reader
    of the old one is not disturbed).
    """

    def __init__(
        self,
        texts: Sequence[str],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        tokenizer: Callable[[str], list[str]] | None = None,
    ) -> None:
        if k1 < 0 or not 0.0 <= b <= 1.0:
            raise InvalidInputError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        self.k1, self.b = k1, b
        self.tokenizer = tokenizer or tokenize
        self.n = 0
        self._lengths = np.zeros(0, dtype=np.float64)
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._weights: dict[str, np.ndarray] = {}  # a term's posting weights, computed on its first query
        self._add(texts)

    def _add(self, texts: Sequence[str]) -> None:
        docs = [Counter(self.tokenizer(t)) for t in texts]
        postings: dict[str, tuple[list[int], list[float]]] = {}
        for i, doc in enumerate(docs, start=self.n):
            for term, tf in doc.items():
                ids, tfs = postings.setdefault(term, ([], []))
                ids.append(i)
                tfs.append(tf)
        for term, (ids, tfs) in postings.items():
            new = (np.asarray(ids, dtype=np.intp), np.asarray(tfs, dtype=np.float64))
            old = self._postings.get(term)
            self._postings[term] = new if old is None else (np.concatenate([old[0], new[0]]), np.concatenate([old[1], new[1]]))
        self._lengths = np.concatenate([self._lengths, np.array([sum(d.values()) for d in docs], dtype=np.float64)])
        self.n += len(docs)
        total = float(self._lengths.sum())
        self._avg = total / self.n if total > 0 else 1.0

    def extended(self, texts: Sequence[str]) -> "BM25Index":
        """A new index of these documents followed by ``texts`` (positions n..n+len-1); ``self`` is unchanged.
        Scores equal those of an index built over all the texts at once."""
        out = BM25Index.__new__(BM25Index)
        out.k1, out.b, out.tokenizer, out.n = self.k1, self.b, self.tokenizer, self.n
        out._lengths, out._postings = self._lengths, dict(self._postings)  # _add replaces, never mutates, arrays
        out._weights = {}  # N and the average length moved: every weight changes
        out._add(texts)
        return out

    def __len__(self) -> int:
        return self.n

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every document for ``query`` (0 where no query term occurs)."""
        out = np.zeros(self.n, dtype=np.float64)
        if not self.n:
            return out
        for term in set(self.tokenizer(query)):
            posting = self._postings.get(term)
            if posting is None:
                continue
            weights = self._weights.get(term)
            if weights is None:
                weights = self._weights[term] = self._weigh(*posting)
            out[posting[0]] += weights  # a document occurs once in a term's posting list
        return out

    def holds(self, terms: Iterable[str]) -> np.ndarray:
        """Per document: whether it holds one of ``terms`` (already tokenized), read from the postings."""
        held = np.zeros(self.n, dtype=bool)
        for term in terms:
            if (posting := self._postings.get(term)) is not None:
                held[posting[0]] = True
        return held

    def attainable(self, query: str) -> float:
        """What a document holding every distinct term of ``query`` once, at the average length, would score: the sum
        of the terms' IDFs, a term no document holds counted at the IDF of a document frequency of 0 (the question
        asks about it even if nothing here says it). A scale for "how much of the query a score covers"."""
        if not self.n:
            return 0.0
        return sum(
            math.log(1.0 + (self.n - df + 0.5) / (df + 0.5))
            for df in (len(self._postings[t][0]) if t in self._postings else 0 for t in set(self.tokenizer(query)))
        )

    def _weigh(self, ids: np.ndarray, tf: np.ndarray) -> np.ndarray:
        """The BM25 weight of each posting of a term, with this index's N and average length."""
        k1, b = self.k1, self.b
        idf = math.log(1.0 + (self.n - len(ids) + 0.5) / (len(ids) + 0.5))
        return idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * self._lengths[ids] / self._avg))

    def top(self, query: str, k: int, skip: np.ndarray | None = None) -> list[tuple[int, float]]:
        """(position, score) of the ``k`` best documents with a positive score, best first (ties: lower position);
        ``skip``: a boolean mask of documents left out (their scores still count in the term statistics)."""
        if k <= 0 or self.n == 0:
            return []
        scores = self.scores(query)
        if skip is not None:
            scores = np.where(skip, 0.0, scores)
        hit = np.flatnonzero(scores > 0)
        if hit.size > k:
            hit = hit[np.argpartition(-scores[hit], k - 1)[:k]]
        order = sorted(hit.tolist(), key=lambda i: (-scores[i], i))
        return [(i, float(scores[i])) for i in order]


def rrf_fuse(rankings: Iterable[tuple[Sequence[T], float]], c: float = 60.0) -> list[tuple[T, float]]:
    """Reciprocal-rank fusion of best-first lists given as (items, weight): (item, fused score), best
    first; ties keep the order in which items were first seen."""
    if c <= 0:
        raise InvalidInputError(f"the RRF constant must be positive, got {c}")
    fused: dict[T, float] = {}
    for items, weight in rankings:
        for rank, item in enumerate(items):
            fused[item] = fused.get(item, 0.0) + weight / (c + rank)
    order = {item: i for i, item in enumerate(fused)}
    return sorted(fused.items(), key=lambda kv: (-kv[1], order[kv[0]]))


def fuse_hits(dense: list[SearchHit], lexical: list[SearchHit], c: float = 60.0) -> list[SearchHit]:
    """Reciprocal-rank fusion (:func:`rrf_fuse`, constant ``c``) of a dense and a lexical list of hits, as hits carrying
    the fused score (and both reasons in ``why``)."""
    by_id: dict[str, tuple[SearchHit | None, SearchHit | None]] = {}
    for h in dense:
        by_id.setdefault(h.record.id, (h, None))
    for h in lexical:
        d, _ = by_id.get(h.record.id, (None, None))
        by_id[h.record.id] = (d, h)
    fused = rrf_fuse([([h.record.id for h in dense], 1.0), ([h.record.id for h in lexical], 1.0)], c)
    out = []
    for record_id, score in fused:
        d, lex = by_id[record_id]
        base = d or lex
        assert base is not None
        reasons = [x.why for x in (d, lex) if x is not None]
        out.append(
            SearchHit.model_construct(
                record=base.record,
                score=score,
                cosine=d.cosine if d is not None else None,
                memory_type=base.memory_type,
                rank=base.rank,
                why=f"{' + '.join(reasons)}; fused {score:.4f}",
            )
        )
    return out


__all__ = ["BM25Index", "STOPWORDS", "fuse_hits", "rrf_fuse", "tokenize"]
