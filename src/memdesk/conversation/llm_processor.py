"""ENGRAM's LLM router + extractor: one call per utterance returns the 3-bit mask and the typed records.

The model gets the message date, the speaker, the utterance and a few preceding turns, and answers
with JSON::

    {"mask": "110",
     "episodic":   [{"title": ..., "summary": ..., "when": "2023-05-07"}],
     "semantic":   [{"fact": ..., "when": null}],
     "procedural": [{"title": ..., "content": ..., "when": null}]}

Relative time is resolved by the model against the message timestamp (``when``); memdesk parses
``when`` into ``event_time`` (ISO dates, ``YYYY-MM``, ``YYYY``, or anything
:mod:`memdesk.timeexpr.resolve` reads) and keeps it as ``temporal_anchor``. Strings carry ``maxLength`` in
the schema so grammar-constrained small models cannot ramble. With ``batch_size > 1`` several
utterances share one call (fewer calls and prompt tokens; quality depends on the model).

The records are then held to the rule extractor's write rules (:mod:`.llm_tidy`: small talk makes
none, one speaker's words, one fact per record, dates as fields, claims for supersession).

Reconciliation (nothing the model said is dropped beyond that): the stored mask is the model's mask OR the types
it returned records for; a type whose bit is set but whose list is empty gets one record holding the
utterance verbatim (``metadata["extraction"] == "verbatim"``).
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from datetime import datetime, timezone
from typing import Any, Sequence

from cachetools import LRUCache

from ..runtime import aio
from ..errors import ConfigError, LLMContextLengthError, LLMError, LLMOutputError
from ..llm.base import ChatModel, Completion
from ..llm.batch import ChatRequest
from ..llm.templates import load_prompt
from ..records import (
    EpisodicRecord,
    MemoryRecord,
    MemoryType,
    ProceduralRecord,
    RouteMask,
    SemanticRecord,
)
from ..timeexpr.resolve import main_anchor, resolve
from .base import Processed, Processor, Utterance
from .decisions import aliases, apply_decisions, decide, decision_request, known_block
from .llm_schema import MAX_ITEMS_PER_TYPE, BatchExtraction, BatchItem, UtteranceExtraction
from .filler import FillerTest
from .llm_tidy import small_talk, tidy

log = logging.getLogger(__name__)

_YEAR = re.compile(r"\b(1[89]|2\d)\d{2}\b")
_YEAR_MONTH = re.compile(r"^\s*(\d{4})-(\d{2})\s*$")
_YEAR_ONLY = re.compile(r"^\s*(\d{4})\s*$")


# --- helpers -----------------------------------------------------------------------------------
def format_date(ts: datetime | None) -> str:
    """The message date as the prompt shows it."""
    if ts is None:
        return "unknown (leave relative times as they are written)"
    return ts.strftime("%Y-%m-%d (%A), %H:%M")


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def parse_when(when: str | None, ref: datetime | None) -> tuple[datetime | None, str | None]:
    """``(event_time, temporal_anchor)`` for a model's ``when`` (None when it gave none)."""
    if when is None or not when.strip() or when.strip().lower() in {"null", "none", "unknown", "n/a"}:
        return None, None
    w = when.strip()
    if m := _YEAR_MONTH.match(w):
        year, month = int(m.group(1)), int(m.group(2))
        if 1 <= month <= 12:
            return datetime(year, month, 1, tzinfo=ref.tzinfo if ref else timezone.utc), w
    if m := _YEAR_ONLY.match(w):
        return datetime(int(m.group(1)), 1, 1, tzinfo=ref.tzinfo if ref else timezone.utc), w
    mention = main_anchor(resolve(w, ref if ref is not None else datetime(2000, 1, 1, tzinfo=timezone.utc)))
    if mention is None:
        return None, w
    if _YEAR.search(w):
        return mention.start, w
    if ref is None:  # a relative phrase with no message date: cannot be dated
        return None, w
    return mention.start, mention.label


class LLMProcessor:
    """A :class:`~memdesk.conversation.base.Processor` (and Router and Extractor) backed by a chat model.

    Args:
        chat_model: any :class:`~memdesk.llm.base.ChatModel`.
        context_turns: preceding turns shown to the model (context only).
        batch_size: utterances per call (1 = ENGRAM's one call per utterance).
        max_items: records per type the prompt asks for at most (the schema allows 5).
        max_tokens: completion budget per call (scaled by batch size).
        max_utterance_chars, max_context_chars: the utterance and each context turn are clipped to
            these lengths in the prompt (the raw message log keeps the full text).
        fallback: a Processor used, with a warning, for utterances whose model output stays invalid
            after the re-asks or does not fit the context window; without one those errors propagate.
        cache_size: results kept so that ``route`` followed by ``extract`` makes one call, not two.
        known_facts: stored facts of the same speaker and role shown per utterance (``Utterance.known``,
            filled by ingest) for the model to decide add / update / no-op on each new fact
            (:mod:`memdesk.conversation.decisions`): in the one call, or one more call per batch
            with ``batch_size > 1``; 0 shows none (every fact is added).
        filler: the learned small-talk test (:mod:`.filler`) the rule extractor uses, applied to the model's
            records in the same way (:func:`.llm_tidy.tidy`); None for the word rules alone.
    """

    @property
    def async_ready(self) -> bool:
        """Loop-safe when its chat model is (see :mod:`memdesk.runtime.aio`); the fallback runs in a worker thread."""
        return aio.loop_safe(self.chat_model)

    def __init__(
        self,
        chat_model: ChatModel,
        *,
        context_turns: int = 3,
        batch_size: int = 1,
        max_items: int = 3,
        max_tokens: int = 600,
        max_utterance_chars: int = 4000,
        max_context_chars: int = 300,
        fallback: Processor | None = None,
        cache_size: int = 256,
        known_facts: int = 5,
        filler: FillerTest | None = None,
    ) -> None:
        if batch_size < 1 or context_turns < 0 or not 1 <= max_items <= MAX_ITEMS_PER_TYPE or known_facts < 0:
            raise ConfigError(
                f"batch_size >= 1, context_turns >= 0, 1 <= max_items <= {MAX_ITEMS_PER_TYPE}, known_facts >= 0"
            )
        self.chat_model = chat_model
        self.context_turns = context_turns
        self.batch_size = batch_size
        self.max_items = max_items
        self.max_tokens = max_tokens
        self.max_utterance_chars = max_utterance_chars
        self.max_context_chars = max_context_chars
        self.fallback = fallback
        self.known_facts = known_facts
        self.filler = filler
        self.single_prompt = load_prompt("extract_utterance")
        self.batch_prompt = load_prompt("extract_batch")
        self.decide_prompt = load_prompt("decide_batch")
        self._cache: LRUCache[tuple[str, str], Processed] = LRUCache(maxsize=cache_size)
        self._lock = threading.Lock()

    @property
    def prompt_version(self) -> str:
        return self.batch_prompt.version if self.batch_size > 1 else self.single_prompt.version

    # --- Processor ---------------------------------------------------------------------------
    def process(self, utterances: Sequence[Utterance]) -> list[Processed]:
        """One :class:`Processed` per utterance, in order."""
        results: dict[int, Processed] = {}
        todo: list[int] = []
        for i, u in enumerate(utterances):
            if not u.message.text().strip():
                results[i] = Processed(mask=RouteMask(), records=[])
            else:
                todo.append(i)
        chunks = [todo[i : i + self.batch_size] for i in range(0, len(todo), self.batch_size)]
        requests = [self._request([utterances[j] for j in chunk]) for chunk in chunks]
        completions = self._run(requests)
        for chunk, result in zip(chunks, completions, strict=True):
            us = [utterances[j] for j in chunk]
            for j, p in zip(chunk, self._handle(us, result), strict=True):
                results[j] = p
        if self.known_facts:
            self._decide([[(utterances[j], results[j]) for j in chunk] for chunk in chunks if len(chunk) > 1])
        for i, u in enumerate(utterances):
            self._remember(u, results[i])
        return [results[i] for i in range(len(utterances))]

    def drop_cached_text(self) -> None:
        """Forget the cached results (they hold messages' text): called when a scope is forgotten."""
        with self._lock:
            self._cache.clear()

    # --- Router / Extractor ------------------------------------------------------------------
    def route(self, utterance: Utterance) -> RouteMask:
        """The mask the model gives (one call; cached for a following :meth:`extract`)."""
        return self._processed(utterance).mask

    def extract(self, utterance: Utterance, mask: RouteMask) -> list[MemoryRecord]:
        """Records of the types in ``mask`` (a type the model found nothing for is kept verbatim; one it
        answered with no-op decisions only stays empty)."""
        processed = self._processed(utterance)
        kept = [r for r in processed.records if getattr(mask, r.type)]
        have = {r.type for r in kept}
        for t in mask.types:
            if t.value not in have and not getattr(processed.mask, t.value):
                kept.append(self._verbatim(utterance, t))
        return kept

    # --- internals ---------------------------------------------------------------------------
    @staticmethod
    def _key(u: Utterance) -> tuple[str, str]:
        return (u.message_id, hashlib.sha1(u.message.text().encode("utf-8")).hexdigest())

    def _remember(self, u: Utterance, p: Processed) -> None:
        with self._lock:
            self._cache[self._key(u)] = p  # past cache_size, the least recently used goes

    def _processed(self, u: Utterance) -> Processed:
        with self._lock:
            hit = self._cache.get(self._key(u))
        return hit if hit is not None else self.process([u])[0]

    def _context_block(self, u: Utterance) -> str:
        turns = u.context[-self.context_turns :] if self.context_turns else []
        if not turns:
            return "(none)"
        lines = []
        for m in turns:
            when = f"[{m.timestamp.date().isoformat()}] " if m.timestamp else ""
            lines.append(f"- {when}{m.speaker or m.role}: {_clip(m.text(), self.max_context_chars)}")
        return "\n".join(lines)

    def _request(self, us: list[Utterance]) -> ChatRequest:
        if len(us) == 1:
            u = us[0]
            messages = self.single_prompt.render(
                date=format_date(u.message.timestamp or u.reference_time),
                context=self._context_block(u),
                speaker=u.message.speaker or u.message.role,
                text=_clip(u.message.text(), self.max_utterance_chars),
                max_items=self.max_items,
                known=known_block(aliases(u.known[: self.known_facts]), self.max_context_chars),
            )
            return ChatRequest(messages, UtteranceExtraction, self.max_tokens, 0.0, "ingest")
        lines = [
            f"m{k} | date {format_date(u.message.timestamp or u.reference_time)} | from {u.message.speaker or u.message.role}: "
            f"{_clip(u.message.text(), self.max_utterance_chars)}"
            for k, u in enumerate(us, 1)
        ]
        messages = self.batch_prompt.render(
            context=self._context_block(us[0]), messages="\n".join(lines), max_items=self.max_items
        )
        return ChatRequest(messages, BatchExtraction, self.max_tokens * len(us), 0.0, "ingest")

    def _run(self, requests: list[ChatRequest]) -> list[Completion | LLMError]:
        many = getattr(self.chat_model, "complete_many", None)
        if callable(many) and len(requests) > 1:
            return many(requests, return_exceptions=True)
        out: list[Completion | LLMError] = []
        for r in requests:
            try:
                out.append(
                    self.chat_model.complete(
                        r.messages, schema=r.schema, max_tokens=r.max_tokens, temperature=r.temperature, operation=r.operation
                    )
                )
            except LLMError as e:
                out.append(e)
        return out

    def _decide(self, batches: list[list[tuple[Utterance, Processed]]]) -> None:
        """The one more call per batch that decides its facts against each message's known facts."""
        k, version = self.known_facts, self.batch_prompt.version
        pending = [p for b in batches if (p := decision_request(self.decide_prompt, b, k=k, prompt_version=version,
                                                                 clip=self.max_context_chars, max_tokens=self.max_tokens))]  # fmt: skip
        for todo, result in zip(pending, self._run([p.request for p in pending]) if pending else [], strict=True):
            if isinstance(result, (LLMOutputError, LLMContextLengthError)):
                log.warning("deciding a batch's facts failed (%s); they are kept as new facts", result)
            elif isinstance(result, LLMError):
                raise result
            else:
                apply_decisions(todo, result.parsed)  # type: ignore[arg-type]

    def _handle(self, us: list[Utterance], result: Completion | LLMError) -> list[Processed]:
        if isinstance(result, LLMError):
            if self.fallback is not None and isinstance(result, (LLMOutputError, LLMContextLengthError)):
                log.warning("LLM extraction failed for %s (%s); using the fallback processor", [u.message_id for u in us], result)
                processed = aio.offload(self.fallback.process, us)
                for p in processed:
                    for r in p.records:
                        r.metadata.setdefault("fallback_reason", f"{type(result).__name__}: {result}"[:300])
                return processed
            raise result
        parsed = result.parsed
        if isinstance(parsed, UtteranceExtraction):
            return [self._to_processed(us[0], parsed, result.model, self.single_prompt.version)]
        assert isinstance(parsed, BatchExtraction)
        by_id: dict[str, BatchItem] = {}
        for item in parsed.items:
            if item.id.strip() in by_id:
                log.warning("batched extraction returned id %s twice; keeping the first", item.id)
            by_id.setdefault(item.id.strip(), item)
        wanted = {f"m{k}" for k in range(1, len(us) + 1)}
        extra = sorted(set(by_id) - wanted)
        if extra:
            log.warning("batched extraction returned unknown ids %s (ignored); expected %s", extra, sorted(wanted))
        out: list[Processed] = []
        for k, u in enumerate(us, 1):
            found = by_id.get(f"m{k}")
            if found is None:
                log.warning("batched extraction skipped message %s; extracting it alone", u.message_id)
                single = self._run([self._request([u])])[0]
                out.extend(self._handle([u], single))
            else:
                ex = UtteranceExtraction.model_validate(found.model_dump(exclude={"id"}))
                out.append(self._to_processed(u, ex, result.model, self.batch_prompt.version))
        return out

    def _base(self, u: Utterance, when: str | None, model: str, prompt: str) -> dict[str, Any]:
        ts = u.message.timestamp or u.reference_time
        event_time, anchor = parse_when(when, ts)
        if event_time is None and anchor is None and ts is not None:
            event_time, anchor = ts, ts.date().isoformat()
        metadata: dict[str, Any] = {"extractor": "llm", "model": model, "prompt": prompt}
        if ts is not None:
            reference = "said_at" if u.message.timestamp is not None else "added_at"
            metadata[reference], metadata["time_reference"] = ts.isoformat(), reference
        if when is not None:
            metadata["when"] = when
        return {
            "scope": u.scope,
            "speaker": u.message.speaker,
            "event_time": event_time,
            "temporal_anchor": anchor,
            "provenance": [u.message_id],
            "metadata": metadata,
        }

    def _verbatim(self, u: Utterance, t: MemoryType, model: str | None = None, prompt: str | None = None) -> MemoryRecord:
        text = u.message.text().strip()
        base = self._base(u, None, model or self.chat_model.model_id, prompt or self.prompt_version)
        base["metadata"]["extraction"] = "verbatim"
        title = _clip(" ".join(text.split()[:8]), 100)
        said = f"{u.message.speaker}: {text}" if u.message.speaker else text
        if t is MemoryType.EPISODIC:
            return EpisodicRecord(title=title, summary=said, **base)
        if t is MemoryType.SEMANTIC:
            return SemanticRecord(fact=said, **base)
        return ProceduralRecord(title=title, content=text, **base)

    def _to_processed(self, u: Utterance, ex: UtteranceExtraction, model: str, prompt: str) -> Processed:
        declared = RouteMask.from_bits(int(ex.mask, 2))
        records: list[MemoryRecord] = []
        shown = aliases(u.known[: self.known_facts]) if prompt == self.single_prompt.version else {}  # batch: decided after
        for e in ex.episodic:
            base = self._base(u, e.when, model, prompt)
            records.append(EpisodicRecord(title=e.title.strip(), summary=e.summary.strip(), **base))
        for f in ex.semantic:
            decision, replaced = decide(f.decision, f.replaces, shown)
            if decision == "noop":
                continue  # already known: nothing new to store
            base = self._base(u, f.when, model, prompt)
            if shown:
                base["metadata"]["decision"] = decision
            if replaced is not None:
                base["metadata"]["replaces"] = [replaced]  # closed by memdesk.conversation.supersede, same speaker and role only
            records.append(SemanticRecord(fact=f.fact.strip(), **base))
        for p in ex.procedural:
            base = self._base(u, p.when, model, prompt)
            records.append(ProceduralRecord(title=p.title.strip(), content=p.content.strip(), **base))
        found = {r.type for r in records} | ({"semantic"} if ex.semantic else set())  # a no-op is an answer too
        if small_talk(u, self.filler):  # the rules' small talk makes no record, whatever the model answered
            return Processed(mask=RouteMask(), records=[])
        records = tidy(u, records, self.filler)  # one speaker, one fact per record, dates, claims (llm_tidy)
        mask = RouteMask(
            episodic=declared.episodic or "episodic" in found,
            semantic=declared.semantic or "semantic" in found,
            procedural=declared.procedural or "procedural" in found,
        )
        if mask != declared:
            log.debug("message %s: mask %s widened to %s to cover the records returned", u.message_id, declared, mask)
        for t in declared.types:
            if t.value not in found:
                log.debug("message %s: bit %s set without records; keeping the utterance verbatim", u.message_id, t.value)
                records.append(self._verbatim(u, t, model, prompt))
        return Processed(mask=mask, records=records)
