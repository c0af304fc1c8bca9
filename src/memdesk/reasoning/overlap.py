"""The overlap guard: a reasoning bank must share no item with the evaluation set it serves.

Items are compared by the hash of their normalized text (:func:`~memdesk.reasoning.datasets.text_hash`).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from ..errors import DataOverlapError
from .datasets import Problem, text_hash
from .solved_examples import SolvedExample


class Overlap(BaseModel):
    """A bank item whose normalized text equals an evaluation item's."""

    bank_id: str
    eval_id: str
    hash: str


def _text(item: Problem | SolvedExample) -> str:
    return item.question if isinstance(item, Problem) else item.problem


def find_overlap(bank: Sequence[Problem | SolvedExample], eval_items: Sequence[Problem]) -> list[Overlap]:
    """Every (bank item, eval item) pair with equal normalized-text hashes (bank items may be
    :class:`Problem` s before a build or :class:`SolvedExample` s of a built bank)."""
    by_hash: dict[str, list[str]] = {}
    for p in eval_items:
        by_hash.setdefault(text_hash(p.question), []).append(p.id)
    out = []
    for item in bank:
        h = text_hash(_text(item))
        for eval_id in by_hash.get(h, ()):
            out.append(Overlap(bank_id=item.id, eval_id=eval_id, hash=h))
    return out


def check_disjoint(bank: Sequence[Problem | SolvedExample], eval_items: Sequence[Problem], *, show: int = 10) -> None:
    """Raise :class:`DataOverlapError` naming the overlapping items if ``bank`` and ``eval_items`` share a text."""
    overlap = find_overlap(bank, eval_items)
    if overlap:
        names = [f"{o.bank_id} == {o.eval_id}" for o in overlap]
        more = f" (and {len(names) - show} more)" if len(names) > show else ""
        raise DataOverlapError(
            f"the bank overlaps the evaluation set in {len(names)} item(s): {'; '.join(names[:show])}{more}. "
            "Remove them from the bank (memdesk bank build --drop-overlap) or use another bank source.",
            items=names,
        )
