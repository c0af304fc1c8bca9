"""Metrics of the conversational evaluation: evidence recall, rank of the first gold hit (precision@1,
reciprocal rank), answer scores, latency percentiles.

Answer scores follow the official LoCoMo evaluation (snap-research/LoCoMo ``task_eval/evaluation.py``):

- :func:`normalize_answer`: drop commas, lower-case, strip punctuation, drop the words
  ``a an the and``, collapse white space;
- :func:`f1_score`: token F1 over Porter-stemmed normalized tokens (``nltk``'s ``PorterStemmer``,
  as the official script);
- :func:`locomo_f1`: category 1 (multi-hop) splits prediction and gold on ``,`` and averages, over
  the gold parts, the best F1 against any predicted part; category 3 (open-domain) keeps the gold's
  first ``;`` part; categories 2 and 4 score the whole strings; category 5 (adversarial) scores 1 if
  the prediction says ``no information available`` or ``not mentioned``, else 0.

:func:`bleu1` is sentence BLEU with unigrams only: clipped unigram precision times the brevity
penalty, over :func:`normalize_answer` tokens (no stemming, no smoothing; 0 for an empty side).

Abstentions (:func:`score_prediction`, the one answer scorer of the conversational harness). An
answer *abstains* when it says the conversation does not tell (:func:`is_abstention`: it contains
``no information available`` or ``not mentioned``, the official category-5 rule; memdesk's answerer
words every abstention as ``not mentioned in the conversation``). Then:

- on an *abstention item* (LoCoMo category 5, LongMemEval ``_abs``: the right answer is that the
  conversation does not say) F1 is 1 if the answer abstains and 0 otherwise (the official LoCoMo
  rule, applied to LongMemEval's abstention items too); BLEU-1 is not computed;
- on an *answerable item* an abstaining answer scores F1 0 and BLEU-1 0: it gives no answer, so it
  earns nothing through words it happens to share with the gold answer ("not mentioned in the
  conversation" against "mentioned in the group chat" would otherwise score F1 0.5). This departs
  from the official script, which scores the words;
- any other answer is scored by the official rules above.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Literal

import numpy as np
from pydantic import BaseModel

from ..errors import InvalidInputError

_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_PUNCT = set(string.punctuation)
ABSTENTION_PHRASES = ("no information available", "not mentioned")


# --- retrieval ----------------------------------------------------------------------------------
def evidence_recall(gold: Iterable[str], ranked_provenance: Sequence[Iterable[str]], cutoff: int | None = None) -> float | None:
    """Fraction of ``gold`` ids covered by the provenance of the first ``cutoff`` ranked hits.

    ``ranked_provenance`` holds, per hit in rank order, the source ids of that hit. ``cutoff=None``
    takes every hit. Returns None when there is no gold evidence (the item is not scored).
    """
    gold_set = set(gold)
    if not gold_set:
        return None
    hits = ranked_provenance if cutoff is None else ranked_provenance[:cutoff]
    covered: set[str] = set()
    for prov in hits:
        covered.update(prov)
    return len(gold_set & covered) / len(gold_set)


def session_recall(
    gold_sessions: Iterable[str],
    ranked_provenance: Sequence[Iterable[str]],
    session_of: Callable[[str], str],
    cutoff: int | None = None,
) -> dict[str, float] | None:
    """Session-level recall of the first ``cutoff`` hits: ``any`` (1 if any gold session is hit),
    ``all`` (1 if every gold session is hit) and ``fraction`` (share of gold sessions hit).

    A hit covers the sessions of its provenance ids (``session_of`` maps an id to its session).
    None when there is no gold session.
    """
    gold_set = set(gold_sessions)
    if not gold_set:
        return None
    hits = ranked_provenance if cutoff is None else ranked_provenance[:cutoff]
    covered = {session_of(i) for prov in hits for i in prov}
    n = len(gold_set & covered)
    return {"any": float(n > 0), "all": float(n == len(gold_set)), "fraction": n / len(gold_set)}


def first_gold_rank(gold: Iterable[str], ranked_provenance: Sequence[Iterable[str]], cutoff: int | None = None) -> int | None:
    """The 1-based rank of the first hit whose provenance holds any ``gold`` id, within the first
    ``cutoff`` hits (all with None); None when no such hit (or no gold)."""
    gold_set = set(gold)
    hits = ranked_provenance if cutoff is None else ranked_provenance[:cutoff]
    for rank, prov in enumerate(hits, 1):
        if gold_set.intersection(prov):
            return rank
    return None


def precision_at_1(gold: Iterable[str], ranked_provenance: Sequence[Iterable[str]]) -> float | None:
    """1 when the first hit's provenance holds a ``gold`` id, else 0; None without gold."""
    gold_set = set(gold)
    if not gold_set:
        return None
    return 1.0 if first_gold_rank(gold_set, ranked_provenance, 1) == 1 else 0.0


def reciprocal_rank(gold: Iterable[str], ranked_provenance: Sequence[Iterable[str]], cutoff: int = 10) -> float | None:
    """1 / the rank of the first gold hit within ``cutoff`` (0 when none there): its mean is MRR@cutoff;
    None without gold."""
    gold_set = set(gold)
    if not gold_set:
        return None
    rank = first_gold_rank(gold_set, ranked_provenance, cutoff)
    return 0.0 if rank is None else 1.0 / rank


def accepted(answer: str, accept: Iterable[str]) -> bool:
    """Whether ``answer`` contains any of the ``accept`` substrings (case-insensitive)."""
    low = answer.lower()
    return any(a.lower() in low for a in accept if a)


# --- answers --------------------------------------------------------------------------------------
def normalize_answer(s: str) -> str:
    """The official LoCoMo normalization (commas, case, punctuation, articles and 'and', spaces)."""
    s = str(s).replace(",", "").lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


@lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem import PorterStemmer  # the official script's stemmer

    return PorterStemmer()


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _stemmer().stem(word)


def f1_score(prediction: str, ground_truth: str) -> float:
    """Token F1 over stemmed, normalized tokens (official ``f1_score``)."""
    pred = [_stem(w) for w in normalize_answer(prediction).split()]
    gold = [_stem(w) for w in normalize_answer(ground_truth).split()]
    same = sum((Counter(pred) & Counter(gold)).values())
    if same == 0:
        return 0.0
    precision = same / len(pred)
    recall = same / len(gold)
    return 2 * precision * recall / (precision + recall)


def f1_multi(prediction: str, ground_truth: str) -> float:
    """Official multi-answer F1: split both on ``,``; mean over gold parts of the best part F1."""
    preds = [p.strip() for p in prediction.split(",")]
    golds = [g.strip() for g in ground_truth.split(",")]
    return float(np.mean([max(f1_score(p, g) for p in preds) for g in golds]))


def is_abstention(prediction: str) -> bool:
    """Whether an answer abstains in the official LoCoMo category-5 sense."""
    low = prediction.lower()
    return any(p in low for p in ABSTENTION_PHRASES)


def locomo_f1(prediction: str, gold: str | None, category_id: int) -> float:
    """The official LoCoMo answer score for one item (see the module docstring)."""
    if category_id == 5:
        return 1.0 if is_abstention(prediction) else 0.0
    if gold is None:
        raise InvalidInputError(f"category {category_id} needs a gold answer")
    if category_id == 3:
        gold = gold.split(";")[0].strip()
    if category_id == 1:
        return f1_multi(prediction, gold)
    if category_id in (2, 3, 4):
        return f1_score(prediction, gold)
    raise InvalidInputError(f"unknown LoCoMo category {category_id}")


def bleu1(prediction: str, reference: str) -> float:
    """Sentence BLEU-1: clipped unigram precision times the brevity penalty (normalized tokens)."""
    pred = normalize_answer(prediction).split()
    ref = normalize_answer(reference).split()
    if not pred or not ref:
        return 0.0
    clipped = sum((Counter(pred) & Counter(ref)).values())
    precision = clipped / len(pred)
    bp = 1.0 if len(pred) > len(ref) else math.exp(1 - len(ref) / len(pred))
    return bp * precision


class AnswerScores(BaseModel):
    """The answer metrics of one prediction (see the module docstring on abstentions)."""

    abstained: bool
    f1: float | None = None
    bleu1: float | None = None
    rule: Literal["abstention item", "abstained", "answer"]


def score_prediction(
    prediction: str, gold: str | None, *, category_id: int | None = None, abstention: bool = False
) -> AnswerScores:
    """F1 and BLEU-1 of one prediction; ``category_id`` is LoCoMo's (None for other benchmarks),
    ``abstention`` says the right answer is that the conversation does not tell."""
    abstained = is_abstention(prediction)
    if abstention or category_id == 5:
        return AnswerScores(abstained=abstained, f1=1.0 if abstained else 0.0, rule="abstention item")
    if gold is None:
        return AnswerScores(abstained=abstained, rule="answer")
    if abstained:
        return AnswerScores(abstained=True, f1=0.0, bleu1=0.0, rule="abstained")
    f1 = locomo_f1(prediction, gold, category_id) if category_id is not None else f1_score(prediction, gold)
    return AnswerScores(abstained=False, f1=f1, bleu1=bleu1(prediction, gold), rule="answer")


def answer_parts(gold: str, category_id: int | None = None) -> list[str]:
    """The parts of a gold answer checked one by one: LoCoMo category 1 splits on ``,``, category 3
    keeps the first ``;`` part; anything else is one part."""
    if category_id == 3:
        gold = gold.split(";")[0]
    parts = gold.split(",") if category_id == 1 else [gold]
    return [p.strip() for p in parts if normalize_answer(p)]


def contains_tokens(answer_tokens: Sequence[str], text_tokens: Sequence[str]) -> bool:
    """Whether ``answer_tokens`` occur as one consecutive run in ``text_tokens``."""
    n = len(answer_tokens)
    if not n:
        return False
    first, a = answer_tokens[0], list(answer_tokens)
    return any(text_tokens[i] == first and list(text_tokens[i : i + n]) == a for i in range(len(text_tokens) - n + 1))


def answer_containment(answer: str | None, category_id: int | None, text_tokens: Sequence[str]) -> float | None:
    """The share of the gold answer's parts whose normalized tokens all occur in ``text_tokens`` (None without
    an answer)."""
    if answer is None:
        return None
    parts = answer_parts(answer, category_id)
    if not parts:
        return None
    return sum(contains_tokens(normalize_answer(p).split(), text_tokens) for p in parts) / len(parts)


def contains(answer: str, text: str) -> bool:
    """Whether the normalized ``answer`` appears as a whole-token run in the normalized ``text``."""
    return contains_tokens(normalize_answer(answer).split(), normalize_answer(text).split())


def containment(gold: str | None, text: str, category_id: int | None = None) -> float | None:
    """Fraction of the gold answer's parts (:func:`answer_parts`) found in ``text``; None without gold."""
    if gold is None:
        return None
    parts = answer_parts(gold, category_id)
    if not parts:
        return None
    return sum(contains(p, text) for p in parts) / len(parts)


# --- aggregates -----------------------------------------------------------------------------------
def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0-100, linear interpolation); None for no values."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return float(np.percentile(np.asarray(vals, dtype=float), q))


def mean(values: Iterable[float | None]) -> float | None:
    """Mean of the values that are not None; None if there are none."""
    vals = [v for v in values if v is not None]
    return float(sum(vals) / len(vals)) if vals else None


def median(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return float(np.median(np.asarray(vals, dtype=float))) if vals else None
