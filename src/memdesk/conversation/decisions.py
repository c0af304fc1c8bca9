"""Update decisions of the LLM processor: ADD, UPDATE or NOOP against the facts memory already holds.

Before an utterance is processed, :func:`with_known` looks up the few stored semantic memories most
similar to it that have the same speaker and role in the same scope (current ones only) and puts
them on :attr:`Utterance.known <memdesk.conversation.base.Utterance.known>`. The LLM processor shows
them to the model under short aliases (``f1``, ``f2``...; :func:`aliases`), and the model's one
structured reply gives, per new fact, a decision:

* ``add``: a new fact, stored as usual;
* ``update``: it replaces known fact ``replaces`` (an alias): the record is stored with
  ``metadata["replaces"] = [<record id>]`` and :class:`memdesk.conversation.supersede.Supersession` closes the old
  record (``valid_to``, ``superseded_by``; never deleted) when it checks, once more, that the old one is a
  current memory of the same speaker, role and scope;
* ``noop``: already known: no record.

An alias the model was not shown (an invented id) is ignored: the fact is added. Nothing the model
says can name a record outside the known facts of that utterance.

With one utterance per call the decisions come in the same call (``extract_utterance`` lists the known
facts). A batched call (``batch_size > 1``) cannot show each message its own facts, so its semantic facts
get one more call per batch (``decide_batch``, :func:`decision_request` / :func:`apply_decisions`): every
message's new facts (``n1``...) next to its known facts; an alias of another message's facts is ignored.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Literal, Protocol, Sequence, runtime_checkable

from pydantic import BaseModel, Field, field_validator

from ..llm.batch import ChatRequest
from ..llm.templates import PromptTemplate
from ..records import MemoryRecord, MemoryType, Message, SemanticRecord
from .base import Processed, Utterance

if TYPE_CHECKING:
    from ..embed.base import Embedder
    from ..store.base import Store
    from .admission import AdmissionPolicy

__all__ = [
    "Decision", "DecisionBatch", "FactDecision", "ShowsKnown", "aliases", "apply_decisions", "decide",
    "decision_request", "known_block", "with_known",
]  # fmt: skip

log = logging.getLogger(__name__)

Decision = Literal["add", "update", "noop"]
_OVERFETCH = 4  # candidates asked of the store per known fact wanted (others' or closed ones are skipped)


@runtime_checkable
class ShowsKnown(Protocol):
    """A processor that wants each utterance's known facts (:attr:`Utterance.known`): at most ``known_facts``."""

    known_facts: int


def processed_speaker(message: Message, admission: "AdmissionPolicy") -> str | None:
    """The speaker the message's records will carry (the admission policy names a speakerless non-user turn by its role)."""
    if message.speaker or message.role == "user" or not admission.enabled:
        return message.speaker
    return message.role


def with_known(
    utterances: Sequence[Utterance], *, store: "Store", embedder: "Embedder", admission: "AdmissionPolicy", k: int
) -> list[Utterance]:
    """``utterances`` with :attr:`Utterance.known` filled: the ``k`` stored current semantic memories most
    similar to each that have its speaker and role in its scope (none for roles the policy keeps out)."""
    want = [
        i for i, u in enumerate(utterances)
        if u.message.text().strip() and (not admission.enabled or u.message.role in admission.memorize_roles)
    ]  # fmt: skip
    out = list(utterances)
    if k < 1 or not want:
        return out
    vectors = embedder.embed([utterances[i].message.text() for i in want])
    for i, vector in zip(want, vectors):
        u = utterances[i]
        speaker = processed_speaker(u.message, admission)
        hits = store.search(vector, u.scope, MemoryType.SEMANTIC, k * _OVERFETCH, speaker=speaker)
        known = [
            h.record for h in hits
            if h.record.scope == u.scope and h.record.speaker == speaker and h.record.role == u.message.role
            and h.record.superseded_by is None
        ][:k]  # fmt: skip
        out[i] = u.model_copy(update={"known": known})
    return out


def aliases(known: Iterable[MemoryRecord]) -> dict[str, MemoryRecord]:
    """The short ids the model sees (``f1``, ``f2``...), mapped to the records."""
    return {f"f{n}": r for n, r in enumerate(known, 1)}


def known_block(shown: dict[str, MemoryRecord], clip: int = 300) -> str:
    """The known facts as the prompt lists them."""
    if not shown:
        return "(none)"
    lines = []
    for alias, r in shown.items():
        text = " ".join(r.text().split())
        text = text if len(text) <= clip else text[: clip - 1].rstrip() + "…"
        when = f" [{r.event_time.date().isoformat()}]" if r.event_time is not None else ""
        lines.append(f"- {alias}{when}: {text}")
    return "\n".join(lines)


def decide(decision: Decision, replaces: str | None, shown: dict[str, MemoryRecord]) -> tuple[Decision, str | None]:
    """The decision kept for one fact and the id of the record it replaces (UPDATE only).

    An UPDATE naming an alias that was not shown, or a NOOP when nothing was shown, is an ADD."""
    alias = (replaces or "").strip()
    if decision == "update":
        if alias in shown:
            return "update", shown[alias].id
        log.debug("update decision names %r, not a known fact shown (%s): kept as a new fact", replaces, sorted(shown))
        return "add", None
    if decision == "noop":
        if shown and (not alias or alias in shown):
            return "noop", None
        return "add", None
    return "add", None


# --- the one more call of a batch --------------------------------------------------------------------
def lower(v: Any) -> Any:
    return v.strip().lower() if isinstance(v, str) else v


class FactDecision(BaseModel):
    """The decision on one new fact of a batch, as the model returns it."""

    id: str = Field(max_length=12, description="The new fact's id (n1, n2...).")
    decision: Decision = Field(default="add")
    replaces: str | None = Field(default=None, max_length=64, description="For update: the known fact's id (f1...).")

    _decision = field_validator("decision", mode="before")(lower)


class DecisionBatch(BaseModel):
    decisions: list[FactDecision] = Field(default_factory=list)


@dataclass
class PendingDecisions:
    """A decision call and, per new fact id, (its record, its message's known facts shown, its Processed)."""

    request: ChatRequest
    facts: dict[str, tuple[SemanticRecord, dict[str, MemoryRecord], Processed]]


def decision_request(
    prompt: PromptTemplate, pairs: Sequence[tuple[Utterance, Processed]], *, k: int, prompt_version: str,
    clip: int = 300, max_tokens: int = 600,
) -> PendingDecisions | None:  # fmt: skip
    """The call deciding the semantic facts a batched extraction (``prompt_version``) returned for messages
    that have known facts; None when there is nothing to decide. Those facts are marked ``add`` until decided."""
    blocks, facts, known_seen = [], {}, 0
    for m, (u, p) in enumerate(pairs, 1):
        new = [r for r in p.records if isinstance(r, SemanticRecord) and r.metadata.get("prompt") == prompt_version]
        if not new or not u.known[:k]:
            continue
        shown = {f"f{known_seen + n}": r for n, r in enumerate(u.known[:k], 1)}
        known_seen += len(shown)
        lines = [f"Message m{m} from {u.message.speaker or u.message.role}. Known facts:", known_block(shown, clip), "New facts:"]
        for r in new:
            r.metadata["decision"] = "add"
            fid = f"n{len(facts) + 1}"
            facts[fid] = (r, shown, p)
            lines.append(f"- {fid}: {' '.join(r.fact.split())[:clip]}")
        blocks.append("\n".join(lines))
    if not facts:
        return None
    messages = prompt.render(messages="\n\n".join(blocks))
    return PendingDecisions(ChatRequest(messages, DecisionBatch, max_tokens, 0.0, "ingest"), facts)


def apply_decisions(pending: PendingDecisions, reply: DecisionBatch) -> None:
    """Apply the model's decisions: a no-op's record is dropped, an update names the record it replaces;
    a fact the reply skips, or whose alias was not shown with its own message, stays an add."""
    by_id: dict[str, FactDecision] = {}
    for d in reply.decisions:
        by_id.setdefault(d.id.strip(), d)
    for fid, (record, shown, processed) in pending.facts.items():
        d = by_id.get(fid)
        decision, replaced = decide(d.decision, d.replaces, shown) if d is not None else ("add", None)
        if decision == "noop":
            processed.records[:] = [r for r in processed.records if r is not record]
            continue
        record.metadata["decision"] = decision
        if replaced is not None:
            record.metadata["replaces"] = [replaced]
