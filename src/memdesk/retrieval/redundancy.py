"""A turn-level redundancy penalty for the packer: records that bring new messages go before records that repeat one.

One message is stored as several records (its sentences, the message with the turn it answers, facts drawn from it),
so a ranking often holds three or four records of the same message in a row. Each costs tokens of the budget, and the
second and third say little the first did not. :func:`demote_repeated` re-orders a ranking lazily: a record sharing
a message with a record ranked above it loses ``penalty`` from its score (the fused path's standard deviations), so
records of messages not yet shown can pass it; nothing is dropped, and the statements a compound message was split
into (:func:`~memdesk.retrieval.packing.is_statement`) are separate facts, never demoted. Like maximal marginal
relevance, with provenance in place of vector similarity.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator

from ..errors import InvalidInputError
from ..hits import SearchHit
from .packing import is_statement


def demote_repeated(ranked: Iterable[SearchHit], penalty: float) -> Iterator[SearchHit]:
    """``ranked`` (best first by ``score``) re-ordered so that a hit sharing a provenance message with a hit yielded
    before it counts ``penalty`` less; consumed only as far as needed (a hit is yielded once every hit that could
    outrank it has been read). Scores are left as they are."""
    if penalty < 0:
        raise InvalidInputError("the redundancy penalty must be >= 0")
    shown: set[str] = set()
    queue: list[tuple[float, int, bool, SearchHit]] = []  # (-key, arrival, demoted when queued, hit)
    arrival = 0

    def key(h: SearchHit) -> tuple[float, bool]:
        repeated = not shown.isdisjoint(h.record.provenance) and not is_statement(h.record)
        return h.score - (penalty if repeated else 0.0), repeated

    def release(bound: float) -> Iterator[SearchHit]:
        nonlocal arrival
        while queue and -queue[0][0] >= bound:
            _, _, was, h = heapq.heappop(queue)
            now, repeated = key(h)
            if repeated and not was:  # a message it holds was shown while it waited: queue it again, demoted
                arrival += 1
                heapq.heappush(queue, (-now, arrival, True, h))
                continue
            shown.update(h.record.provenance)
            yield h

    for h in ranked:
        yield from release(h.score)
        k, repeated = key(h)
        arrival += 1
        heapq.heappush(queue, (-k, arrival, repeated, h))
    yield from release(float("-inf"))
