"""One meaning of ``score`` on every face: a calibrated relevance in [0, 1] that never rises down the list.

Each read path ranks by its own raw value: the fused default by the per-type standardized fusion of cosine
and BM25 plus its bonuses (a z-like number, 4 to 9 on a big scope, negative for a poor match), ENGRAM's
path by cosine, the RRF extension by a reciprocal-rank sum. None of them means anything to a caller who
thresholds ``score > 0.7``. :class:`RelevanceMap` turns the raw value into

    score = 1 / (1 + exp(-((slope + slope_per_decade * L) * raw + intercept + size_slope * L))),  L = log10(records)

a logistic fitted on labelled questions (``bench/fit_relevance.py``: a hit is relevant when its record comes
from a message that answers the question), so a score reads as the share of hits with that score that were
relevant on the calibration data: 0.5 is an even chance. ``records`` is the number of records the search
ranked over (the scope's records of the types searched): the same raw value is worth less in a scope of a
million records than in one of fifteen. Within one search every hit shares ``records`` and the map rises
with ``raw``, so the scores keep the ranking's order; :func:`calibrate` also makes them non-increasing
where a read path's order is not its raw value's (``merge="round_robin"``). The raw value stays in each
hit's ``why`` (and the cosine in ``cosine``). ``docs/scores.md`` describes the fit and its numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..hits import SearchHit

__all__ = ["COSINE", "FUSED", "MAX_DECADES", "RRF", "RelevanceMap", "calibrate"]

MAX_DECADES = 3.5
"""Scope sizes are read up to 10^3.5 (about 3,200) records: the calibration data's scopes held 5 to 2,165
records, so a larger scope is scored as one of that size (its relevance is extrapolated, not measured)."""


@dataclass(frozen=True)
class RelevanceMap:
    """A logistic map from a read path's raw ranking value to a relevance in [0, 1].

    Args:
        slope: per unit of the raw value (> 0: the map rises with the raw value).
        intercept: the log-odds at raw 0 in a scope of one record.
        size_slope: per decade of records ranked over (usually < 0: a big scope has more near misses).
        slope_per_decade: how the slope changes per decade of records (a raw value spreads differently in a
            big scope); the slope must stay positive up to :data:`MAX_DECADES`.
        name: what the raw value is, as written in ``why`` (e.g. ``"z"``).
    """

    slope: float
    intercept: float
    size_slope: float = 0.0
    slope_per_decade: float = 0.0
    name: str = "raw"

    def __post_init__(self) -> None:
        if not min(self.slope, self.slope + self.slope_per_decade * MAX_DECADES) > 0:
            raise ValueError("a relevance map must rise with the raw value (a positive slope at every scope size)")

    def __call__(self, raw: float, records: int = 1) -> float:
        decades = min(math.log10(max(records, 1)), MAX_DECADES)
        logit = (self.slope + self.slope_per_decade * decades) * raw + self.intercept + self.size_slope * decades
        if logit >= 0:
            return 1.0 / (1.0 + math.exp(-logit))
        e = math.exp(logit)
        return e / (1.0 + e)


# Fitted by ``python bench/fit_relevance.py`` (bench/results/scores/fit.json; docs/scores.md has the data and the fit).
FUSED = RelevanceMap(slope=0.7718, intercept=-1.9901, size_slope=-1.4275, slope_per_decade=0.0981, name="z")
"""The fused default: raw = the standardized fused score with its bonuses (``z`` in ``why``)."""
COSINE = RelevanceMap(slope=8.9298, intercept=-7.9008, name="cosine")
"""ENGRAM's path: raw = the cosine (after a superseded record's demotion); no scope size (that path does not count)."""
RRF = RelevanceMap(slope=151.02, intercept=-6.2285, name="rrf")
"""The RRF hybrid extension: raw = the reciprocal-rank sum (``fused`` in ``why``)."""


def calibrate(hits: Sequence[SearchHit], relevance: RelevanceMap | None, records: int) -> list[SearchHit]:
    """``hits`` (best first) with ``score`` replaced by ``relevance(score, records)``, made non-increasing
    down the list (a hit never scores above the one before it); ``relevance=None`` leaves the raw scores."""
    out = list(hits)
    if relevance is None:
        return out
    ceiling = 1.0
    for h in out:
        ceiling = min(ceiling, relevance(float(h.score), records))
        h.score = ceiling
    return out
