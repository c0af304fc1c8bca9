"""What the fused read path keeps per scope: records, a BM25 index, vectors and per-type moments.

Built from the records a :class:`~memdesk.filters.RecordFilter` keeps under a scope
(:func:`~memdesk.store.filtered.scan_where`, so a speaker's bank, metadata, validity and event-time
conditions hold on the lexical side as on the dense one) and :meth:`Store.get_vectors`, on the first
fused query of a (scope, types, filter); kept and extended with new records by
:class:`~memdesk.retrieval.scope_cache.ScopeIndexCache` (:meth:`ScopeIndex.extended`: their tokens and moments only).
The lexical side ranks the records with BM25 over their embedded text (stemmed by default, see
:mod:`memdesk.retrieval.stemming`); the vectors give a lexical-only candidate its cosine; the per-type moments
(:mod:`memdesk.retrieval.calibration`) standardize scores within each memory type.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime

import numpy as np

from .calibration import TypeMoments
from .lexical import BM25Index
from .question_head import HEAD_FLOOR, holding
from .question_focus import DENIAL_WEIGHT, Focus, RecordValues, focus_scale, only_asks, user_name_words
from .rank_why import RankWhy as _Why
from .question_instruction import instructing
from .question_person import speaker_names
from .question_now import later_on_topic
from .same_attribute import ATTRIBUTE_TOPIC, attribute_pairs, later_first
from .question_time import TimeWindow
from ..records import MemoryRecord, MemoryType, _aware as aware_utc

__all__ = ["ScopeIndex"]

TYPE_PRIOR = 200.0
"""Pseudo-records of the whole scope's distribution mixed into each type's moments (see
:meth:`~memdesk.retrieval.calibration.TypeMoments.shrunk`): a type of a few dozen records is calibrated mostly by the
scope, one of thousands by itself (200 rather than 20: on the small chats a type of 1-15 records standardized
by itself ranked a recipe under a remark that shares its words; LoCoMo recall unchanged, see docs/scores.md)."""


class ScopeIndex:
    """Records of some memory types under one scope, with BM25, vectors and moments.

    Args:
        records: the records, any order.
        vectors: their unit vectors, one row per record.
        tokenizer: the BM25 tokenizer (None: unstemmed :func:`memdesk.retrieval.lexical.tokenize`).
    """

    def __init__(
        self, records: Sequence[MemoryRecord], vectors: np.ndarray, tokenizer: Callable[[str], list[str]] | None = None,
        type_prior: float = TYPE_PRIOR,
    ) -> None:
        self.type_prior = type_prior
        self.records = list(records)
        self.vectors = np.asarray(vectors, dtype=np.float32)
        self.position = {r.id: i for i, r in enumerate(self.records)}
        self.bm25 = BM25Index([r.embed_text() for r in self.records], tokenizer=tokenizer)
        self.record_types = [MemoryType(r.type) for r in self.records]
        self.closes, self.roles, self.event_times, self.said_times, self.asking = _columns(self.records)
        self.user_names = speaker_names(self.records, "user")
        self.assistant_names = speaker_names(self.records, "assistant")
        self.instructing = instructing(self.records)
        self.values = [RecordValues.of(r.text()) for r in self.records]
        self.changes = _changes(self.records)
        self.by_type = _by_type(self.records)
        self._calibrate({t: TypeMoments(self.vectors[pos]) for t, pos in self.by_type.items()})

    def _calibrate(self, own: dict[MemoryType, TypeMoments]) -> None:
        self.own = own
        self.pooled = TypeMoments.pooled(list(own.values()))
        self.moments = {t: m.shrunk(self.pooled, self.type_prior) for t, m in own.items()}

    def extended(self, records: Sequence[MemoryRecord], vectors: np.ndarray) -> "ScopeIndex":
        """A new index of these records followed by ``records`` (``vectors`` their unit vectors), scoring every
        record as one built over all of them would (up to float32 rounding of the cosines; ``self`` is unchanged,
        so a search using it is not disturbed). Costs the new records' tokens and moments, not a rebuild."""
        new = list(records)
        out = ScopeIndex.__new__(ScopeIndex)
        out.type_prior = self.type_prior
        start = len(self.records)
        out.records = self.records + new
        added = np.asarray(vectors, dtype=np.float32).reshape(len(new), -1)
        out.vectors = np.vstack([self.vectors.reshape(start, added.shape[1]), added])  # an empty index has no width yet
        out.position = {**self.position, **{r.id: i for i, r in enumerate(new, start=start)}}
        out.bm25 = self.bm25.extended([r.embed_text() for r in new])
        out.record_types = self.record_types + [MemoryType(r.type) for r in new]
        columns = _columns(new)
        out.closes, out.roles, out.event_times, out.said_times, out.asking = (
            np.concatenate([old, added])
            for old, added in zip((self.closes, self.roles, self.event_times, self.said_times, self.asking), columns)
        )  # fmt: skip
        out.user_names = self.user_names | speaker_names(new, "user")
        out.assistant_names = self.assistant_names | speaker_names(new, "assistant")
        out.instructing = np.concatenate([self.instructing, instructing(new)])
        out.values = self.values + [RecordValues.of(r.text()) for r in new]
        out.changes = np.concatenate([self.changes, _changes(new)])
        out.by_type, own = dict(self.by_type), dict(self.own)
        for t, pos in _by_type(new, start).items():
            out.by_type[t] = np.concatenate([self.by_type.get(t, np.zeros(0, dtype=np.intp)), pos])
            own[t] = own[t].extended(out.vectors[pos]) if t in own else TypeMoments(out.vectors[pos])
        out._calibrate(own)
        return out

    def closed_at(self, now: datetime) -> np.ndarray:  # per record: closed by ``now`` (RecordBase.closed_at)
        return self.closes <= aware_utc(now).timestamp()

    def lexical(self, query: str, k: int) -> tuple[np.ndarray, list[tuple[int, float]]]:
        """(BM25 score of every record, the top ``k`` positions with a positive score)."""
        scores = self.bm25.scores(query)
        return scores, _lexical_top(scores, k)

    def rank(
        self,
        query: np.ndarray,
        query_text: str | None,
        *,
        k: int,
        lexical_k: int,
        lexical_weight: float,
        typed: bool,
        superseded_weight: float | None = None,
        closed: np.ndarray | None = None,
        drop_closed: bool = False,
        role_boost: Mapping[str, float] | None = None,
        time_windows: Sequence[TimeWindow] = (),
        time_weight: float = 0.0,
        bonus_gate: float = 0.0,
        lexical_prior: float = 0.0,
        lexical_floor: float = 0.0,
        focus: Focus | None = None,
        focus_weight: float = 0.0,
        now_weight: float = 0.0,
        then_weight: float = 0.0,
        asking_weight: float | None = None,
        replaced_weight: float | None = None,
        change_weight: float = 0.0,
        instruction_weight: float = 0.0,
        wish_weight: float = 0.0,
        attribute_topic: float | None = ATTRIBUTE_TOPIC,
        head_terms: frozenset[str] = frozenset(),
        head_weight: float = 0.0,
    ) -> Iterator[tuple[int, float, "_Why"]]:
        """Fused candidates best first, as (position, standardized score with bonuses, why), generated lazily.

        Candidates: each type's dense top ``k`` and the lexical top ``lexical_k``; score
        ``cosine + lexical_weight * bm25 / max bm25``, standardized by the cosine distribution of the
        record's own type (``typed``) or of all records (pooled), plus ``role_boost[role]`` (in those
        standard deviations; a negative one is taken whole, not gated) for a record from a message of that role
        (:func:`memdesk.retrieval.question_person.role_boosts`), plus ``time_weight`` for a record whose event time
        or said time lies in one of ``time_windows`` (:func:`memdesk.retrieval.question_time.question_windows`).
        ``lexical_prior`` scales the lexical weight by ``n / (n + lexical_prior)`` for an index of n records;
        ``lexical_floor`` keeps the BM25 normalizer at least that share of what a record holding every query term
        would score (:meth:`~memdesk.retrieval.lexical.BM25Index.attainable`, the words of ``time_windows`` left out),
        so that the best of weak matches (a short record sharing only the name every record holds) does not get the
        whole lexical weight; ``focus_weight`` for a record that states a value of the kind ``focus`` asks for
        (:mod:`memdesk.retrieval.question_focus`: a place, a person, a date, a count); with a focus asking what holds
        now, a record that only denies values of the asked kind ("no longer works at X") has its fused score demoted
        by :data:`~memdesk.retrieval.question_focus.DENIAL_WEIGHT`, as a superseded one is; ``now_weight`` (a
        question asking what holds now) taken off a relevant record that a later relevant one on its topic follows
        (:func:`~memdesk.retrieval.question_now.later_on_topic`), and for such a question, with ``attribute_topic``, the later of two
        holding the attribute ``query_text`` asks about put just above the earlier (:mod:`memdesk.retrieval.same_attribute`), ``then_weight`` (a question asking what held before a
        change, :func:`~memdesk.retrieval.question_now.asks_then`) off one that an earlier one on its topic precedes; with ``asking_weight``, a record of a question someone
        asked that states nothing (:func:`~memdesk.retrieval.question_focus.only_asks`) has its fused score demoted by that factor, as a
        superseded one is (:func:`~memdesk.retrieval.question_focus.asks_about_asking`: not for a question about what was
        asked);
        ``change_weight`` (gated like a bonus; positive for a question asking what holds now, negative for one asking what
        held before) added to a record that gives a value with a word of change
        (:func:`memdesk.conversation.updates.update_of`: "moved to", "raised to", "... now");
        ``instruction_weight`` (gated like a bonus; positive for a question asking how the assistant is to act or what the
        user wants, negative for one asking for a value of the user's world) added to the user's instruction to the
        assistant, ``wish_weight`` to a record stating a wish (:mod:`memdesk.retrieval.question_instruction`);
        ``head_weight`` (gated like a bonus) to a record holding one of ``head_terms``, the terms of the attribute the
        question asks about (:func:`memdesk.retrieval.question_head.head_terms`);
        ``bonus_gate`` scales each record's bonuses by its standardized score over that many standard
        deviations, clipped to [0, 1] (no bonus at or below its type's mean). ``closed`` (per record, :meth:`closed_at` the
        read's time; default: every superseded one) says which are superseded (``drop_closed``: left out). With ``superseded_weight``, a superseded
        record's fused score is demoted before standardizing: multiplied by the weight when positive,
        moved as far below zero when negative (``x - (1 - w) * |x|``), so it always ranks lower; with
        ``replaced_weight`` (a question asking what held before a change), the records that closed a candidate are.
        """
        if not self.records:
            return
        cosine = self.vectors @ np.asarray(query, dtype=np.float32)
        origin: dict[int, tuple[str, int]] = {}  # position -> (where it came from, its rank there)
        for t, pos in self.by_type.items():
            top = pos if pos.size <= k else pos[np.argpartition(-cosine[pos], k - 1)[:k]]
            for rank, i in enumerate(top[np.argsort(-cosine[top], kind="stable")].tolist()):
                origin[i] = (t.value, rank)
        lexical = None
        if query_text and query_text.strip() and lexical_weight > 0:
            lexical, top_lex = self.lexical(query_text, lexical_k)
            for rank, (i, _) in enumerate(top_lex):
                origin.setdefault(i, ("bm25", rank))
        closed = self.closes < np.inf if closed is None else closed
        positions = np.fromiter(origin, dtype=np.intp, count=len(origin))
        if drop_closed and not (positions := positions[~closed[positions]]).size:
            return
        fused = cosine[positions].astype(np.float64)
        top_lexical = float(lexical.max()) if lexical is not None and lexical.size else 0.0
        if top_lexical > 0 and lexical_floor > 0:  # a weak best match (the name every record shares) stays weak
            asked = query_text or ""
            for w in time_windows:  # "two weeks ago" says when, read by the time bonus; no record is to hold its words
                asked = asked.replace(w.text, " ")
            top_lexical = max(top_lexical, lexical_floor * self.bm25.attainable(asked))
        if top_lexical > 0:
            n = len(self.records)  # a few records tell a rare topical word from a common one badly: less weight
            fused += lexical_weight * n / (n + lexical_prior) * lexical[positions] / top_lexical
        demoted = closed[positions] if superseded_weight is not None else None
        if demoted is not None and demoted.any():
            fused[demoted] -= (1.0 - superseded_weight) * np.abs(fused[demoted])  # type: ignore[operator]
        if replaced_weight is not None and (gone_at := positions[closed[positions]]).size:  # "before ...?"
            gone = {self.records[i].superseded_by for i in gone_at.tolist()}
            new = np.fromiter((self.records[i].id in gone for i in positions.tolist()), dtype=bool, count=len(positions))
            fused[new] -= (1.0 - replaced_weight) * np.abs(fused[new])
        if asking_weight is not None and (asked := self.asking[positions]).any():  # a question asked states nothing
            fused[asked] -= (1.0 - asking_weight) * np.abs(fused[asked])
        names = user_name_words(self.user_names) if focus is not None and focus_weight > 0 else frozenset()
        denied = None  # a closing statement ("no longer works at X") for a question asking what holds now
        if focus is not None and focus_weight > 0 and focus.current:
            denied = np.fromiter((focus.denies(self.values[i], names) for i in positions.tolist()), dtype=bool, count=len(positions))
            if denied.any():
                fused[denied] -= (1.0 - DENIAL_WEIGHT) * np.abs(fused[denied])
            else:
                denied = None
        if typed:
            stats = {t: m.cosine_stats(query) for t, m in self.moments.items()}
            mean_std = np.array([stats[self.record_types[i]] for i in positions.tolist()]).reshape(-1, 2)
        else:
            mean_std = np.tile(self.pooled.cosine_stats(query), (len(positions), 1))
        z = (fused - mean_std[:, 0]) / mean_std[:, 1]
        boosted = np.zeros(len(positions))
        penalty = np.zeros(len(positions))  # a negative role bonus: taken whole, never gated
        for role, bonus in (role_boost or {}).items():
            (boosted if bonus > 0 else penalty)[:] += bonus * (self.roles[positions] == role)
        window = self.window_of(positions, time_windows) if time_weight > 0 and time_windows else None
        bonus = boosted + (time_weight * (window >= 0) if window is not None else 0.0)
        stated = np.zeros(len(positions))  # the focus bonus: the record states a value of the asked kind
        if focus is not None and focus_weight > 0:
            stated = focus_scale(len(self.records)) * focus_weight * np.fromiter(
                (focus.share(self.values[i], names) for i in positions.tolist()), dtype=np.float64, count=len(positions)
            )
            bonus = bonus + stated
        named: list[tuple[np.ndarray, str]] = []  # the other bonuses, each with what ``why`` calls it
        if change_weight:  # a record telling a change states the new value: + asked what holds now, - what held before
            named.append((change_weight * self.changes[positions], "tells a change of value"))
        if instruction_weight or wish_weight:  # the user's instruction (or wish): what a question about the assistant's
            role = self.instructing[positions]  # conduct (or the user's will) asks, no other
            named.append((instruction_weight * (role == 1) + wish_weight * (role == 2), "the user's instruction or wish"))
        if head_weight and head_terms:  # the record holds the attribute asked about, not only what it is said of
            named.append((head_weight * holding(self.bm25, head_terms, positions) * np.clip(z - HEAD_FLOOR, 0.0, 1.0), "holds the attribute asked about"))
        for extra, _ in named:
            bonus = bonus + extra
        if bonus_gate > 0:  # no bonus below the type's mean, the whole bonus from bonus_gate standard deviations up
            gate = np.clip(z / bonus_gate, 0.0, 1.0)
            bonus, boosted, stated = bonus * gate, boosted * gate, stated * gate
            named = [(extra * gate, label) for extra, label in named]
        z = z + bonus + penalty  # after standardizing: a bonus every candidate shares changes no order
        boosted = boosted + penalty
        followed = None  # asked what holds now: a record that a later one on its topic follows (asked what held
        if (now_weight > 0 or then_weight > 0) and len(positions) > 1:  # before: one that an earlier one precedes)
            said = self.said_times[positions] if now_weight > 0 else -self.said_times[positions]
            speakers = np.array([self.records[i].speaker or "" for i in positions.tolist()], dtype=object)
            followed = later_on_topic(
                z, self.vectors[positions], said, gate=bonus_gate or 1.0, weight=now_weight or then_weight, speakers=speakers,
                narrowing=(lambda j: _narrowing(self.records[int(positions[j])])) if now_weight > 0 else None,
            )
            z = z - followed
            if now_weight > 0 and attribute_topic is not None and query_text:  # the later of two holding the asked attribute
                pairs = attribute_pairs(self, positions, query_text, focus, attribute_topic)
                lowered = later_first(z, said, pairs, gate=bonus_gate or 1.0, speakers=speakers)
                followed, z = followed + (z - lowered), lowered
        order = np.argsort(-z, kind="stable")
        for j in order.tolist():
            i = int(positions[j])
            weight = superseded_weight if demoted is not None and demoted[j] else None
            when = time_windows[int(window[j])] if window is not None and window[j] >= 0 else None
            yield i, float(z[j]), _Why(
                origin[i], float(cosine[i]), float(lexical[i]) if lexical is not None else 0.0, float(z[j]), weight,
                float(boosted[j]), (time_weight, when.label) if when is not None else None,
                (float(stated[j]), focus.slot) if stated[j] > 0 and focus is not None else None,
                focus.slot if denied is not None and denied[j] and focus is not None else None,
                float(followed[j]) if followed is not None else 0.0, preceded=now_weight <= 0 < then_weight,
                extras=tuple((float(extra[j]), label) for extra, label in named if extra[j] != 0),
            )

    def window_of(self, positions: np.ndarray, windows: Sequence[TimeWindow]) -> np.ndarray:
        """For each record at ``positions``, the index of the first window holding its event time or its
        said time, -1 for none."""
        found = np.full(len(positions), -1, dtype=np.intp)
        event, said = self.event_times[positions], self.said_times[positions]
        for n in reversed(range(len(windows))):  # the first window wins
            w = windows[n]
            inside = ((event >= w.start) & (event < w.end)) | ((said >= w.start) & (said < w.end))
            found[inside] = n
        return found


def _by_type(records: Sequence[MemoryRecord], start: int = 0) -> dict[MemoryType, np.ndarray]:
    """The positions of each memory type's records (those present), counted from ``start``."""
    types = np.array([r.type for r in records])
    return {t: start + pos for t in MemoryType if (pos := np.flatnonzero(types == t.value)).size}


def _columns(records: Sequence[MemoryRecord]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per record: when a later memory closes it (POSIX seconds: inf when none does, -inf when superseded with no
    end time), role, event time and said time (POSIX seconds, NaN when unknown), and whether it
    is a question someone asked that states nothing (:func:`~memdesk.retrieval.question_focus.only_asks`)."""
    return (
        np.array([(-np.inf if r.valid_to is None else r.valid_to.timestamp()) if r.superseded_by else np.inf for r in records]),
        np.array([r.role for r in records], dtype=object),
        np.array([_seconds(r.event_time) for r in records], dtype=np.float64),
        np.array([_seconds(r.said_time()) for r in records], dtype=np.float64),
        np.array([only_asks(r.text(), (r.metadata or {}).get("view")) for r in records], dtype=bool),
    )


def _narrowing(record: MemoryRecord) -> tuple[str | None, str]:
    """The id of the memory that narrowed ``record`` (``None``: none did) and its own."""
    return (record.metadata or {}).get("narrowed_by"), record.id


def _changes(records: Sequence[MemoryRecord]) -> np.ndarray:
    """Per record: whether its text gives a value with a word of change (:func:`memdesk.conversation.updates.update_of`)."""
    from ..conversation.updates import update_of  # the write side's one reading of a change (imported late: no cycle)

    return np.array([update_of(r.text()) is not None for r in records], dtype=bool)


def _seconds(when: datetime | None) -> float:
    return aware_utc(when).timestamp() if when is not None else float("nan")


def _lexical_top(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    hit = np.flatnonzero(scores > 0)
    if hit.size > k:
        hit = hit[np.argpartition(-scores[hit], k - 1)[:k]]
    return [(i, float(scores[i])) for i in sorted(hit.tolist(), key=lambda i: (-scores[i], i))]
