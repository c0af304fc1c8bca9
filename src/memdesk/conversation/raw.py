"""A processor that keeps each turn verbatim as one semantic record: flat RAG over raw turns.

It is the baseline ENGRAM is compared against (no routing, no typing, no rewriting), and a way to use
memdesk as a plain per-turn vector log. Every non-empty turn gets mask 010 and one record whose fact is
``"<speaker>: <text>"`` anchored at the message time.
"""

from __future__ import annotations

from typing import Sequence

from ..records import RouteMask, SemanticRecord
from .base import Processed, Utterance


class RawTurnProcessor:
    """One semantic record per turn, text kept as said."""

    def process(self, utterances: Sequence[Utterance]) -> list[Processed]:
        out = []
        for u in utterances:
            text = u.message.text().strip()
            if not text:
                out.append(Processed(mask=RouteMask(), records=[]))
                continue
            ts = u.message.timestamp
            record = SemanticRecord(
                scope=u.scope,
                speaker=u.message.speaker,
                fact=f"{u.message.speaker}: {text}" if u.message.speaker else text,
                event_time=ts,
                temporal_anchor=ts.date().isoformat() if ts else None,
                provenance=[u.message_id],
            )
            out.append(Processed(mask=RouteMask(semantic=True), records=[record]))
        return out
