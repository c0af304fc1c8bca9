"""The evidence block: search hits rendered by memory type, one line per record with its anchor and speaker."""

from __future__ import annotations

from typing import Sequence

from ..records import ALL_TYPES, MemoryType
from ..hits import Evidence, SearchHit
from ..text.tokens import TokenCounter
from .folding import FoldKey, folded
from .packing import normalized_text


class Serializer:
    """Renders hits as an evidence block, grouped by memory type, one line per record with its
    temporal anchor and speaker::

        Events (episodic):
        - [2024-03-02] Priya: signed up for a pottery class
        Facts (semantic):
        - [2024-03-04] Priya is a night-shift nurse

    Within a group, lines keep the retrieval order (best first). The speaker is written only when the
    record's text does not already name them (the rule extractor writes third-person text). A record
    that is not the user's own chat says where it is from (:meth:`~memdesk.records.RecordBase.provenance_label`)::

        - [2024-03-04] (by assistant) Priya's clinic opens at nine
        - [2024-03-04] (via image_caption) Priya shared an image: a kiln with a "do not touch" sign

    ``group_by_anchor=True`` (the default read path's block) writes each anchor once, as a line of its
    own above the records that share it, anchors in time order (undated last), records in retrieval
    order within each::

        Events (episodic):
        [2024-03-02]
        - Priya signed up for a pottery class
        - (by assistant) the first lesson is on Tuesday

    Records of one session share an anchor, so a block of ~30 records saves a few tokens on most lines.

    ``fold`` (default: on with ``group_by_anchor``) writes no line for a record whose words another record of the same
    message shows with the same label, under the same anchor or with the record's own date in its words, e.g. a
    sentence of a message beside the question-answer view holding that message (:mod:`memdesk.retrieval.folding`); the
    folded record stays among the block's hits.
    """

    HEADERS = {
        MemoryType.EPISODIC: "Events (episodic):",
        MemoryType.SEMANTIC: "Facts (semantic):",
        MemoryType.PROCEDURAL: "Instructions (procedural):",
    }

    def __init__(
        self, token_counter: TokenCounter | None = None, *, group_by_anchor: bool = False, fold: bool | None = None
    ) -> None:
        self.token_counter = token_counter or TokenCounter()
        self.group_by_anchor = group_by_anchor
        self.fold = group_by_anchor if fold is None else fold
        self._fold_keys: dict[tuple[str, str], FoldKey] = {}

    @staticmethod
    def anchor(hit: SearchHit) -> str:
        r = hit.record
        return r.temporal_anchor or (r.event_time.date().isoformat() if r.event_time else "undated")

    @staticmethod
    def words(hit: SearchHit) -> str:
        """The record's text as shown, without its provenance label: title and body, with the speaker when the text
        lacks the name."""
        r = hit.record
        text = r.text()  # the record's text, written once
        if r.speaker and r.speaker not in text and r.speaker != r.role:
            text = f"{r.speaker}: {text}"
        return text

    @classmethod
    def text(cls, hit: SearchHit) -> str:
        """The record's text as shown: :meth:`words`, after the provenance label when it has one."""
        text = cls.words(hit)
        label = hit.record.provenance_label()
        return f"({label}) {text}" if label else text

    @classmethod
    def fold_key(cls, hit: SearchHit) -> FoldKey:
        """What :func:`~memdesk.retrieval.folding.folded` compares: anchor, label, shown words, messages."""
        r = hit.record
        text = f" {normalized_text(cls.words(hit))} "
        anchor = cls.anchor(hit)
        dated = anchor != "undated" and f" {normalized_text(anchor)} " in text
        return FoldKey(anchor, r.provenance_label(), text, frozenset(r.provenance), dated)

    def _cached_fold_key(self, hit: SearchHit) -> FoldKey:
        """:meth:`fold_key`, kept by record id and text (a block is serialized several times while it is packed)."""
        cache_key = (hit.record.id, hit.record.embed_text())
        key = self._fold_keys.get(cache_key)
        if key is None:
            if len(self._fold_keys) > 100_000:
                self._fold_keys.clear()
            key = self._fold_keys[cache_key] = self.fold_key(hit)
        return key

    @classmethod
    def line(cls, hit: SearchHit) -> str:
        return f"- [{cls.anchor(hit)}] {cls.text(hit)}"

    def layout(self, hit: SearchHit) -> tuple[list[tuple[str, str]], str]:
        """(the headers this hit sits under, as (key, text), and its own line): what it costs in a block."""
        t = hit.memory_type
        headers = [(f"type:{t.value}", self.HEADERS[t])]
        if self.group_by_anchor:
            anchor = self.anchor(hit)
            headers.append((f"anchor:{t.value}:{anchor}", f"[{anchor}]"))
            return headers, f"- {self.text(hit)}"
        return headers, self.line(hit)

    def serialize(self, hits: Sequence[SearchHit]) -> Evidence:
        lines: list[str] = []
        skip = folded(hits, self._cached_fold_key) if self.fold else set()
        shown = [h for i, h in enumerate(hits) if i not in skip]
        for memory_type in ALL_TYPES:
            group = [h for h in shown if h.memory_type is memory_type]
            if not group:
                continue
            lines.append(self.HEADERS[memory_type])
            if not self.group_by_anchor:
                lines.extend(self.line(h) for h in group)
                continue
            by_anchor: dict[str, list[SearchHit]] = {}
            for h in group:
                by_anchor.setdefault(self.anchor(h), []).append(h)
            for anchor in sorted(by_anchor, key=lambda a: _time_key(by_anchor[a])):
                lines.append(f"[{anchor}]")
                lines.extend(f"- {self.text(h)}" for h in by_anchor[anchor])
        text = "\n".join(lines)
        return Evidence(hits=list(hits), text=text, tokens=self.token_counter.count(text) if text else 0)


def _time_key(group: Sequence[SearchHit]) -> tuple[int, str]:
    """Anchor groups in time order: by their earliest event time, undated groups last."""
    times = [h.record.event_time for h in group if h.record.event_time is not None]
    return (0, min(times).isoformat()) if times else (1, "")
