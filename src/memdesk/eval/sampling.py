"""Seeded samples of a benchmark's questions, stratified over categories and conversations.

``memdesk eval ... --limit N`` evaluates :func:`stratified_sample` of N questions instead of the
first N of the file (which, on LoCoMo, are the first conversation's first questions: one
conversation, two categories). The draw is proportional allocation with largest remainders, in two
levels:

1. N is shared among the categories in proportion to their sizes, every category getting at least
   one question while N allows it (so a small sample still covers every question type);
2. each category's share is spread over the conversations in proportion to how many of that
   category's questions each holds;
3. within a (category, conversation) cell the questions are drawn uniformly at random.

Ties between equal remainders and the draws inside a cell come from one ``random.Random(seed)``, so
a seed names the sample exactly. The sample keeps the file order of the questions. Proportional
allocation keeps the sample's category mix close to the file's, so its overall mean estimates the
full set's; per-category numbers of small categories rest on few questions (the report gives n).

:func:`round_robin` orders questions over their categories (``order="round_robin"``, LongMemEval's
default), so that an interrupted run's prefix covers every category.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

from ..errors import InvalidInputError
from .datasets import EvalQuestion

K = TypeVar("K", bound=Hashable)

DEFAULT_SEED = 0


def allocate(sizes: Mapping[K, int], n: int, rng: random.Random, *, at_least_one: bool = False) -> dict[K, int]:
    """Split ``n`` among groups in proportion to ``sizes`` (largest remainder; ties broken by ``rng``).

    No group gets more than its size; with ``at_least_one`` every group gets one first while ``n``
    allows (the smallest groups first when it does not).
    """
    if n < 0:
        raise InvalidInputError(f"a sample size must be >= 0, got {n}")
    total = sum(sizes.values())
    n = min(n, total)
    out = {k: 0 for k in sizes}
    keys = [k for k in sizes if sizes[k] > 0]
    if at_least_one and keys:
        ranked = sorted(keys, key=lambda k: (sizes[k], rng.random()))
        for k in ranked[:n]:
            out[k] = 1
    left = n - sum(out.values())
    while left > 0:
        room = {k: sizes[k] - out[k] for k in keys if sizes[k] > out[k]}
        room_total = sum(room.values())
        quotas = {k: left * r / room_total for k, r in room.items()}
        floors = {k: min(room[k], int(q)) for k, q in quotas.items()}
        for k, f in floors.items():
            out[k] += f
        given = sum(floors.values())
        ranked = sorted(room, key=lambda k: (-(quotas[k] - floors[k]), rng.random()))
        for k in ranked:
            if given >= left:
                break
            if out[k] < sizes[k]:
                out[k] += 1
                given += 1
        left -= given
    return out


def stratified_sample(questions: Sequence[EvalQuestion], n: int, seed: int = DEFAULT_SEED) -> list[EvalQuestion]:
    """``n`` questions drawn as the module docstring says, in file order (all of them if ``n`` is at
    least their number)."""
    if n < 1:
        raise InvalidInputError(f"--limit must be at least 1, got {n}")
    if n >= len(questions):
        return list(questions)
    rng = random.Random(seed)
    cells: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for i, q in enumerate(questions):
        cells[q.category][q.conversation_id].append(i)
    per_category = allocate({c: sum(map(len, convs.values())) for c, convs in cells.items()}, n, rng, at_least_one=True)
    chosen: list[int] = []
    for category, convs in cells.items():
        per_conv = allocate({cid: len(ix) for cid, ix in convs.items()}, per_category[category], rng)
        for cid, ix in convs.items():
            chosen.extend(rng.sample(ix, per_conv[cid]))
    return [questions[i] for i in sorted(chosen)]


def select_categories(questions: Sequence[EvalQuestion], wanted: Sequence[str] | None, known: Sequence[str],
                      headline: Sequence[str]) -> list[EvalQuestion]:
    """The questions of the ``wanted`` categories (all of them when None), before any sample is drawn.

    ``wanted`` names categories of the benchmark (``known``); the word ``headline`` stands for the
    categories of its headline score (``headline``). An unknown name is an ``InvalidInputError``.
    """
    if wanted is None:
        return list(questions)
    names: set[str] = set()
    for name in wanted:
        if name == "headline":
            names.update(headline)
        elif name in known:
            names.add(name)
        else:
            raise InvalidInputError(f"unknown category {name!r}; known: headline, {', '.join(known)}")
    if not names:
        raise InvalidInputError("--categories names no category")
    return [q for q in questions if q.category in names]


def round_robin(questions: Sequence[EvalQuestion]) -> list[EvalQuestion]:
    """Questions interleaved over categories (each category in file order), so that any prefix left
    by an interrupted run covers every category."""
    queues: dict[str, list[EvalQuestion]] = defaultdict(list)
    for q in questions:
        queues[q.category].append(q)
    out: list[EvalQuestion] = []
    depth = 0
    while len(out) < len(questions):
        for queue in queues.values():
            if depth < len(queue):
                out.append(queue[depth])
        depth += 1
    return out
