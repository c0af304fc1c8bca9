"""Budgeted packing: fill an evidence block up to a token budget instead of a fixed number of records.

A fixed K spends the same number of records on every question whatever their length; a budget keeps
the block's size (what the answering model pays for) fixed and lets short records buy more coverage.
:class:`BudgetPacker` walks the ranked candidates best first and keeps each one that

* is not a duplicate (same provenance or same normalized text as one already kept),
* adds a message: a record whose provenance is all covered by records already kept says nothing new
  about *which* turns the block holds (optional, ``cover_dedupe``), and
* still fits: its line, plus the headers it opens (its type's, its anchor group's), priced with the
  serializer's own lines, stays within the budget (a record that does not fit is skipped and a shorter
  one further down may still fit).

The packed block is then serialized and counted exactly; if token merges across lines push it over the
budget, the lowest-ranked record is dropped until it fits (:func:`fit`). A :class:`~memdesk.conversation.memory.Memory`
serializes its evidence with the retriever's serializer unless given another, and fits a block of another serializer
to the retriever's budget the same way, so an evidence block never exceeds the budget.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from ..errors import InvalidInputError
from ..records import MemoryRecord
from ..hits import SearchHit

if TYPE_CHECKING:
    from .folding import FoldKey
    from .serialize import Serializer

__all__ = ["BudgetPacker", "fit", "is_statement", "normalized_text"]

_NORM = re.compile(r"[\W_]+", re.UNICODE)


def normalized_text(text: str) -> str:
    """The text as de-duplication compares it: lower case, runs of non-word characters as one space."""
    return _NORM.sub(" ", text.lower()).strip()


def is_statement(record: MemoryRecord) -> bool:
    """A statement a compound message was split into (``metadata["view"] == "statement"``): a separate fact that
    closes separately, not a view of its message, so sharing its message's provenance makes it no duplicate."""
    return (record.metadata or {}).get("view") == "statement"


class BudgetPacker:
    """Selects hits for a token budget, priced by ``serializer``.

    Args:
        serializer: renders the block (its ``layout`` gives each hit's headers, as (key, text), and line).
        budget: the most tokens the serialized block may have.
        max_records: a cap on the number of records as well (None: only the budget).
        cover_dedupe: skip records whose provenance is already covered.
    """

    #: Fewer tokens left than this and no further record can fit (a header-less "- x" line is ~3).
    MIN_LINE = 4
    #: Stop after this many records in a row that did not fit (the budget is as good as full).
    MAX_MISSES = 25
    #: Tokens of the budget a packed block may leave unused before the hits are packed again (see :meth:`pack`).
    REFILL = 12
    #: At most this many packing passes after the first.
    REFILLS = 2

    def __init__(
        self, serializer: "Serializer", budget: int, *, max_records: int | None = None, cover_dedupe: bool = True
    ) -> None:
        if budget < 1 or (max_records is not None and max_records < 1):
            raise InvalidInputError("the token budget and max_records must be >= 1")
        self.serializer = serializer
        self.budget = budget
        self.max_records = max_records
        self.cover_dedupe = cover_dedupe
        self._tokens: dict[str, int] = {}
        self._layouts: dict[tuple[str, str], tuple[tuple[str, ...], str, list[tuple[str, str]], str, "FoldKey | None"]] = {}

    def _layout(self, h: SearchHit) -> tuple[tuple[str, ...], str, list[tuple[str, str]], str, "FoldKey | None"]:
        """(provenance, normalized text, headers, line, fold key or None when the serializer does not fold) of a hit,
        cached by record id and text."""

        key = (h.record.id, h.record.embed_text())  # an updated record keeps its id, not its text
        cached = self._layouts.get(key)
        if cached is None:
            if len(self._layouts) > 100_000:
                self._layouts.clear()
            headers, line = self.serializer.layout(h)
            fold_key = self.serializer.fold_key(h) if getattr(self.serializer, "fold", False) else None
            cached = (tuple(sorted(h.record.provenance)), normalized_text(h.record.embed_text()), headers, line, fold_key)
            self._layouts[key] = cached
        return cached

    def tokens(self, text: str) -> int:
        """Tokens of one line plus its newline (cached)."""
        n = self._tokens.get(text)
        if n is None:
            if len(self._tokens) > 100_000:
                self._tokens.clear()
            n = self.serializer.token_counter.count(text) + 1
            self._tokens[text] = n
        return n

    def pack(self, ranked: Iterable[SearchHit], budget: int | None = None, max_records: int | None = None) -> list[SearchHit]:
        """The hits to serialize, in rank order (``ranked`` is consumed only as far as needed).

        The lines are priced one by one, and a block of them counts fewer tokens than their sum (the tokenizer merges
        across line breaks); when the packed block leaves :data:`REFILL` or more of the budget unused, the hits not
        taken are offered again, best first, against what was left (those that then push the block over the budget
        are taken out again, the lowest-ranked first: what the first pass took stays)."""
        budget = budget or self.budget
        cap = max_records or self.max_records
        seen = _Replay(iter(ranked))
        state = _Packed()
        out, tokens = _fitted(self._pack(seen, budget, cap, state), self.serializer, budget)
        for _ in range(self.REFILLS):
            left = budget - tokens
            if left < self.REFILL or (cap is not None and len(out) >= cap):
                break
            taken = {h.record.id for h in out}
            added = self._pack((h for h in seen.again() if h.record.id not in taken), state.used + left, cap, state, len(out))
            if not added:
                break
            order = {h.record.id: n for n, h in enumerate(seen.done)}
            merged = sorted(out + added, key=lambda h: order[h.record.id])
            while added and (count := self.serializer.serialize(merged).tokens) > budget:
                merged.remove(added.pop())  # the lowest-ranked addition
            if len(merged) == len(out):
                break
            out, tokens = merged, count
        return out

    def _pack(
        self, ranked: Iterable[SearchHit], budget: int, cap: int | None, state: "_Packed", taken: int = 0
    ) -> list[SearchHit]:
        """The hits of ``ranked`` that fit into ``budget`` priced tokens beside what ``state`` holds (updated)."""
        out: list[SearchHit] = []
        misses = 0
        for h in ranked:
            if (cap is not None and taken + len(out) >= cap) or budget - state.used < self.MIN_LINE:
                break
            prov, text, headers, line, fold_key = self._layout(h)
            statement = is_statement(h.record)
            if (prov and prov in state.prov and not statement) or text in state.text:
                continue
            if self.cover_dedupe and prov and state.covered.issuperset(prov) and not statement:
                continue
            refund, folds = 0, []
            if fold_key is not None and state.folds_into(fold_key):
                cost = 0  # its words are in a line already kept: it writes no line of its own
            else:
                cost = self.tokens(line) + sum(self.tokens(text) for key, text in headers if key not in state.headers)
                if fold_key is not None:
                    folds = state.folded_by(fold_key)
                    refund = sum(c for _, c in folds)
            if state.used + cost - refund > budget:
                misses += 1
                if misses >= self.MAX_MISSES:
                    break
                continue
            misses = 0
            state.used += cost - refund
            if fold_key is not None:
                state.keep(fold_key, self.tokens(line) if cost else 0, folds)
            if cost:  # a folded record opens no header
                state.headers.update(key for key, _ in headers)
            if prov:
                state.prov.add(prov)
                state.covered.update(prov)
            state.text.add(text)
            out.append(h)
        return out


class _Packed:
    """What a packing has taken so far: priced tokens, provenances, texts, covered messages and open headers, and
    the lines written (by message, with their priced tokens: a longer line holding one's words folds it)."""

    def __init__(self) -> None:
        self.used = 0
        self.prov: set[tuple[str, ...]] = set()
        self.text: set[str] = set()
        self.covered: set[str] = set()
        self.headers: set[str] = set()
        self.lines: dict[str, list[list]] = {}  # message -> [[FoldKey, priced tokens], ...] of lines written

    def _written(self, key: "FoldKey") -> list[list]:
        seen: dict[int, list] = {}
        for m in key.messages:
            for entry in self.lines.get(m, ()):
                seen[id(entry)] = entry
        return list(seen.values())

    def folds_into(self, key: "FoldKey") -> bool:
        """Whether a line written already shows every word of ``key``'s."""
        return any(key.within(entry[0]) for entry in self._written(key))

    def folded_by(self, key: "FoldKey") -> list[tuple[list, int]]:
        """The lines written that ``key``'s line would fold, with their priced tokens."""
        return [(entry, entry[1]) for entry in self._written(key) if entry[1] and entry[0].within(key)]

    def keep(self, key: "FoldKey", tokens: int, folds: list[tuple[list, int]]) -> None:
        """Record a line written (``tokens`` 0: folded into one already written) and the lines it folds."""
        for entry, _ in folds:
            entry[1] = 0
        if tokens:
            entry = [key, tokens]
            for m in key.messages:
                self.lines.setdefault(m, []).append(entry)


class _Replay:
    """An iterator that remembers what it yielded, so a second pass reads those again and then goes on."""

    def __init__(self, source: Iterator[SearchHit]) -> None:
        self.source, self.done = source, []

    def __iter__(self) -> Iterator[SearchHit]:
        for h in self.source:
            self.done.append(h)
            yield h

    def again(self) -> Iterator[SearchHit]:
        yield from list(self.done)
        yield from self


def fit(hits: list[SearchHit], serializer: "Serializer", budget: int) -> list[SearchHit]:
    """``hits`` (best first) without the lowest-ranked ones until ``serializer``'s block of them has at most ``budget``
    tokens, counted as :meth:`~memdesk.retrieval.serialize.Serializer.serialize` counts them."""
    return _fitted(hits, serializer, budget)[0]


def _fitted(hits: list[SearchHit], serializer: "Serializer", budget: int) -> tuple[list[SearchHit], int]:
    """:func:`fit`'s hits and their block's tokens."""
    out = list(hits)
    while out:
        tokens = serializer.serialize(out).tokens
        if tokens <= budget:
            return out, tokens
        out.pop()
    return out, 0


def dedupe(hits: Iterable[SearchHit], limit: int | None = None) -> list[SearchHit]:
    """Keep the first (best) hit of each provenance set and of each normalized text; the statements a compound
    message was split into (:func:`is_statement`) are kept one per text. With ``limit``, the first ``limit`` hits
    kept (``hits`` is consumed only as far as that needs)."""
    seen_prov: set[tuple[str, ...]] = set()
    seen_text: set[str] = set()
    out: list[SearchHit] = []
    if limit is not None and limit < 1:
        return out
    for h in hits:
        prov = tuple(sorted(h.record.provenance))
        text = normalized_text(h.record.embed_text())
        statement = is_statement(h.record)
        if (prov and prov in seen_prov and not statement) or text in seen_text:
            continue
        if prov and not statement:
            seen_prov.add(prov)
        seen_text.add(text)
        out.append(h)
        if limit is not None and len(out) >= limit:
            break
    return out
