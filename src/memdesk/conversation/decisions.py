"""Update decisions of the LLM processor: ADD, UPDATE or NOOP against the facts memory already holds.

Before an utterance is processed, :func:`with_known` looks up the few stored semantic memories most
similar to it that have the same speaker and role in the same scope (current ones only) and puts
them on :attr:`Utterance.known <memdesk.conversation.base.Utterance.known>`. The LLM processor shows
them to the model under short aliases (``f1``, ``f2``...; :func:`aliases`), and the model's one
structured reply gives, per new fact, a decision:

* ``add``: a new fact, stored as usual;
* ``update``: it replaces known fact ``replaces`` (an alias): the record is stored with
  ``metadata["replaces"] = [<record id>]`` and :class:`memdesk.supersede.Supersession` closes the old
  record (``valid_to``, ``superseded_by``; never deleted) when it checks, once more, that the old one is a
  current memory of the same speaker, role and scope;
* ``noop``: already known: no record.

An alias the model was not shown (an invented id) is ignored: the fact is added. Nothing the model
says can name a record outside the known facts of that utterance.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Iterable, Literal, Protocol, Sequence, runtime_checkable

from ..records import MemoryRecord, MemoryType, Message
from .base import Utterance

if TYPE_CHECKING:
    from ..embed.base import Embedder
    from ..store.base import Store
    from .admission import AdmissionPolicy

__all__ = ["Decision", "ShowsKnown", "aliases", "decide", "known_block", "with_known"]

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
