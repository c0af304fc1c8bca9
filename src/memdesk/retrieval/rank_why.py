"""Why a candidate of the fused read path ranks where it does: the ``why`` string of a hit.

:meth:`memdesk.retrieval.scope_index.ScopeIndex.rank` yields one :class:`RankWhy` per candidate; it is formatted only
when a hit is made of it (most candidates are never shown). It names where the candidate came from (a type's dense
top-k or the BM25 top-k), its cosine and BM25 score, its standardized score ``z`` and every bonus or penalty in it (a change told, the user's instruction or wish, the
asked attribute held: ``extras``).
"""

from __future__ import annotations

from .question_focus import DENIAL_WEIGHT

__all__ = ["RankWhy"]


class RankWhy:
    """Why a fused candidate ranks where it does, formatted only when a hit is made of it."""

    __slots__ = ("origin", "cosine", "bm25", "z", "superseded_weight", "role_bonus", "time_bonus", "focus_bonus", "denies", "followed", "preceded", "extras")

    def __init__(
        self, origin: tuple[str, int], cosine: float, bm25: float, z: float, superseded_weight: float | None = None,
        role_bonus: float = 0.0, time_bonus: tuple[float, str] | None = None, focus_bonus: tuple[float, str] | None = None,
        denies: str | None = None, followed: float = 0.0, preceded: bool = False, extras: tuple[tuple[float, str], ...] = (),
    ) -> None:  # fmt: skip
        self.origin, self.cosine, self.bm25, self.z = origin, cosine, bm25, z
        self.superseded_weight = superseded_weight
        self.role_bonus = role_bonus
        self.time_bonus = time_bonus
        self.focus_bonus = focus_bonus
        self.denies = denies
        self.followed = followed
        self.preceded = preceded  # the question asks what held before: ``followed`` is for an earlier record on the topic
        self.extras = extras  # the other bonuses (signed, gated), each with what it is for

    def __str__(self) -> str:
        where, rank = self.origin
        head = f"{where} top-{rank + 1}" + (f" by cosine {self.cosine:.3f}" if where != "bm25" else f" ({self.bm25:.2f}), cosine {self.cosine:.3f}")
        lexical = f" + bm25 {self.bm25:.2f}" if self.bm25 > 0 and where != "bm25" else ""
        person = (
            f" incl. +{self.role_bonus:.2f}: whose words the question asks about" if self.role_bonus > 0
            else f" incl. {self.role_bonus:.2f}: not the words of the person the question asks about" if self.role_bonus < 0
            else ""
        )  # fmt: skip
        when = f" incl. +{self.time_bonus[0]:.2f}: dated in the question's {self.time_bonus[1]}" if self.time_bonus else ""
        focus = f" incl. +{self.focus_bonus[0]:.2f}: states the {self.focus_bonus[1]} asked for" if self.focus_bonus else ""
        demoted = f"; superseded, x{self.superseded_weight}" if self.superseded_weight is not None else ""
        if self.denies:
            demoted += f"; says a {self.denies} no longer holds, x{DENIAL_WEIGHT}"
        side = "an earlier record on its topic precedes it" if self.preceded else "a later record on its topic follows it"
        later = f" incl. -{self.followed:.2f}: {side}" if self.followed else ""
        others = "".join(f" incl. {b:+.2f}: {label}" for b, label in self.extras)
        return f"{head}{lexical}{demoted}; z {self.z:.2f}{person}{when}{focus}{others}{later}"
