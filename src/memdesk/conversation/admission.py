"""The admission policy: what becomes memory, and as whose words.

Every message is kept in the raw log whatever the policy says; the policy decides which of it the
processor (rules or LLM: both go through :meth:`AdmissionPolicy.process`) may turn into memories.
The default policy:

1. **Roles.** Only ``user`` and ``assistant`` messages become memories (``memorize_roles``); ``tool``
   and ``system`` messages stay in the raw log only (their route mask is ``000``).
2. **Attribution.** Every record carries the ``role`` and ``source`` of the text it came from. A
   non-user message with no speaker is processed under its role's name ("assistant"), so first-person
   text is rewritten to "assistant", never to a person; the evidence block marks records that are not
   the user's own words (``Serializer``).
3. **Image captions** (``captions_as_source``): a record that carries words of a message's image
   caption has source ``image_caption`` (what a caption says is not what the user said), and captions
   never carry instructions: their instruction-like sentences are removed whoever shared the image.
4. **Instructions.** Text from a non-user role, from a quoted source (``quoted_sources``: image captions,
   emails, web pages, tool outputs relayed by the user) is *untrusted*: its instruction-like sentences
   ("from now on ...", "ignore previous instructions", "always send ...", "assistants should ...",
   see :func:`looks_like_instruction`) are removed before processing, any record that still reads
   like an instruction is dropped, and a procedural record from it becomes a semantic record (the
   assistant's advice is kept as the assistant's statement, never as an instruction to follow).
   Procedural memories come only from the user's own words (``instruction_roles``).
5. **Context.** Processors see only earlier turns of ``context_roles`` (default: the user's) without
   their image captions, so a reply's "in context" record never quotes a tool, an assistant claim or
   a caption as part of the user's words.

``AdmissionPolicy(enabled=False)`` (setting ``admission = "off"``) turns 1 and 3-5 off: everything the
processor returns becomes memory, as before the policy existed (records still carry their role).
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any, Sequence

from pydantic import BaseModel, ConfigDict, Field

from ..records import (
    IMAGE_CAPTION_SOURCE,
    MemoryRecord,
    Message,
    ProceduralRecord,
    Role,
    RouteMask,
    SemanticRecord,
    split_caption,
)
from .base import Processed, Processor, Utterance
from .rules import split_sentences

__all__ = ["AdmissionPolicy", "looks_like_instruction"]

_AGENT = r"(?:the )?(?:ai|a\.i\.|assistants?|agents?|models?|bots?|chat ?bots?|llms?|copilots?)"
#: what an injected instruction makes an assistant do with the user's data or its answers
_EXFIL = (
    r"(?:send|share|forward|reveal|disclose|leak|email|e-mail|transfer|wire|pay|reply|respond|answer|recommend|"
    r"cc|bcc|output|print|upload|post|redirect|obey)"
)
_INSTRUCTION = re.compile(
    r"\b(?:"
    r"from now on|from this (?:point|moment) on|henceforth|for all future|in (?:all )?future (?:replies|answers|responses|conversations)|"
    r"(?:ignore|disregard|forget|override|bypass) (?:all |any |the |your |my |every )*"
    r"(?:previous |prior |above |earlier |preceding |existing |other |original |old |safety |system )*"
    r"(?:instructions?|rules|guidelines|directions|directives|prompts?|polic(?:y|ies)|restrictions|guardrails)|"
    r"(?:new|updated|revised|real|actual|hidden|secret|special|additional) (?:instructions?|directives?|system prompt)|"
    r"system prompt|developer (?:mode|message)|jailbreak|policy update|"
    r"you are now|you're now|you (?:will |must |should |shall |are to )?(?:now )?act as|you to act as|"
    r"pretend (?:to be|that you|you are)|role-?play as|"
    r"note (?:to|for) (?:the )?(?:ai|assistant|agent|model|bot|llm|chatbot)|"
    rf"{_AGENT} (?:must|should|shall|will have to|are to|is to|needs? to|has to|have to|ought to|are required to|is required to|may only)\b|"
    rf"you (?:must|should|will|are to|need to|have to) (?:now |always |never )?(?:{_EXFIL}|tell)\b[^.!?]*\b(?:to|with) (?:anyone|everyone|third parties|\S+@\S+)|"
    rf"(?:always|never|be sure to|make sure to|remember to) {_EXFIL}\b|"
    r"when(?:ever)? (?:asked|someone asks|the user asks|you are asked|you're asked|anyone asks|a user asks)|"
    r"(?:do not|don't|never) (?:tell|inform|alert|warn|notify|mention|reveal|show)\b[^.!?]{0,40}?\b(?:the user|anyone|them|her|him)\b|"
    rf"(?:prefers?|wants?|wanted|asked|asks|requests?|requested|insists?|insisted|expects?|instructed|authori[sz]ed?) (?:that )?(?:{_AGENT}|you (?:to )?(?:{_EXFIL}|tell|share))\b|"
    r"(?:save|store|add|write|record|remember|memori[sz]e|keep|log) (?:this|that|the following|it)? ?(?:to|in|into|as|on) "
    r"(?:your |the |her |his |their )?(?:long-term )?(?:memory|memories|notes|profile)\b|"
    r"(?:update|edit|modify|change|overwrite) (?:your|the user's|her|his|their|the) (?:memory|memories|profile|preferences|notes|instructions)\b"
    r")",
    re.IGNORECASE,
)


def looks_like_instruction(text: str) -> bool:
    """True if ``text`` reads like an instruction aimed at the assistant (prompt-injection phrasing)."""
    return bool(_INSTRUCTION.search(" ".join(text.replace("’", "'").split())))


class AdmissionPolicy(BaseModel):
    """What becomes memory (see the module docstring for the default and what each field changes).

    Args:
        enabled: apply the policy; ``False`` lets every processed record through (roles still stamped).
        memorize_roles: roles whose messages are turned into memories (the rest stay in the raw log).
        instruction_roles: roles whose own words may become procedural memories and keep their
            instruction-like sentences.
        context_roles: roles of the earlier turns the processor sees as context.
        quoted_sources: sources (``fnmatch`` patterns) whose text is someone else's words even in a
            user message: treated as untrusted like a non-user role.
        captions_as_source: records that carry an image caption's words get source ``image_caption``,
            and earlier turns are shown to the processor without their captions.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = True
    memorize_roles: frozenset[Role] = frozenset({"user", "assistant"})
    instruction_roles: frozenset[Role] = frozenset({"user"})
    context_roles: frozenset[Role] = frozenset({"user"})
    quoted_sources: tuple[str, ...] = Field(
        default=(IMAGE_CAPTION_SOURCE, "email*", "web*", "tool*", "document*", "file*", "search*")
    )
    captions_as_source: bool = True

    @classmethod
    def off(cls) -> "AdmissionPolicy":
        """No admission control: every processed record becomes memory."""
        return cls(enabled=False)

    def is_quoted(self, source: str | None) -> bool:
        """True if text from ``source`` is someone else's words (untrusted even from the user)."""
        return source is not None and any(fnmatch.fnmatchcase(source.lower(), p) for p in self.quoted_sources)

    def is_first_hand(self, role: str, source: str | None) -> bool:
        """True if a record with this role and source is the user's own words (as the evidence presents it)."""
        return role == "user" and not self.is_quoted(source)

    # --- the one place both processors go through -----------------------------------------------
    def process(self, processor: Processor, utterances: Sequence[Utterance], *, context_turns: int = 4) -> list[Processed]:
        """Run ``processor`` over what the policy admits of ``utterances``; one :class:`Processed` each."""
        if not self.enabled:
            trimmed = [u.model_copy(update={"context": u.context[-context_turns:] if context_turns else []}) for u in utterances]
            out = processor.process(trimmed) if trimmed else []
            for u, p in zip(utterances, out, strict=True):
                for r in p.records:
                    _stamp(r, u.message.role, u.message.source)
            return out
        admitted: list[tuple[int, Utterance]] = []
        held: dict[int, str] = {}
        for i, u in enumerate(utterances):
            if u.message.role not in self.memorize_roles:
                held[i] = f"role {u.message.role} is kept in the raw log only"
                continue
            prepared = self._prepare(u, context_turns)
            if prepared is None:
                held[i] = "nothing left to memorize once instructions were removed"
            else:
                admitted.append((i, prepared))
        results = processor.process([u for _, u in admitted]) if admitted else []
        out = {i: Processed(mask=RouteMask(), records=[], held=why) for i, why in held.items()}
        for (i, u), result in zip(admitted, results, strict=True):
            kept = self._admit(u.message, result.records)
            lost = {r.type for r in result.records} - {r.type for r in kept}
            bits = {t.value for t in result.mask.types} - lost | {r.type for r in kept}
            out[i] = Processed(mask=RouteMask(**{t: True for t in bits}), records=kept)
        return [out[i] for i in range(len(utterances))]

    # --- internals -------------------------------------------------------------------------------
    def _untrusted(self, role: str, source: str | None) -> bool:
        return role not in self.instruction_roles or self.is_quoted(source)

    def _prepare(self, u: Utterance, context_turns: int) -> Utterance | None:
        """The utterance as the processor sees it: untrusted instructions removed, a speaker named,
        only admitted context; None when nothing is left."""
        msg = u.message
        content, caption = msg.content, msg.image_caption
        if self._untrusted(msg.role, msg.source):
            content = _without_instructions(content)
        if caption:  # a caption is never trusted with instructions, whoever shared it
            caption = _without_instructions(caption) or None
        if not content.strip() and not caption:
            return None
        speaker = msg.speaker if msg.speaker or msg.role == "user" else msg.role
        changed = {"content": content, "image_caption": caption, "speaker": speaker}
        message = msg.model_copy(update=changed) if any(getattr(msg, k) != v for k, v in changed.items()) else msg
        return u.model_copy(update={"message": message, "context": self._context(u.context, context_turns)})

    def _context(self, turns: Sequence[Message], context_turns: int) -> list[Message]:
        out = []
        for m in turns:
            if m.role not in self.context_roles or self.is_quoted(m.source):
                continue
            if self.captions_as_source:  # a caption in context would be quoted in the next speaker's words
                content = split_caption(m.content)[0]
                if not content.strip():
                    continue
                if content != m.content or m.image_caption:
                    m = m.model_copy(update={"content": content, "image_caption": None})
            out.append(m)
        return out[-context_turns:] if context_turns else []

    def _admit(self, msg: Message, records: list[MemoryRecord]) -> list[MemoryRecord]:
        kept: list[MemoryRecord] = []
        for r in records:
            source = msg.source
            if self.captions_as_source and msg.image_caption and _from_caption(r, msg.content, msg.image_caption):
                source = IMAGE_CAPTION_SOURCE
            _stamp(r, msg.role, source)
            if self._untrusted(msg.role, source):
                if looks_like_instruction(r.embed_text()):
                    continue
                if isinstance(r, ProceduralRecord):
                    r = _as_statement(r)
            kept.append(r)
        return kept


def _stamp(record: MemoryRecord, role: str, source: str | None) -> None:
    record.role = role  # type: ignore[assignment]
    record.source = source


_WORD = re.compile(r"[^\W_]{3,}|\d+")


def _from_caption(record: MemoryRecord, content: str, caption: str) -> bool:
    """True if ``record`` carries words of the image caption that the message's own text does not have
    (works for verbatim views and for a model's paraphrase alike)."""
    own = set(_WORD.findall(content.casefold()))
    distinctive = set(_WORD.findall(caption.casefold())) - own
    if not distinctive:
        return False
    shared = distinctive & set(_WORD.findall(record.embed_text().casefold()))
    return len(shared) >= min(2, len(distinctive))


def _without_instructions(text: str) -> str:
    """``text`` without its instruction-like sentences."""
    if not text or not looks_like_instruction(text):
        return text
    return " ".join(s for s in split_sentences(text) if not looks_like_instruction(s))


def _as_statement(record: ProceduralRecord) -> SemanticRecord:
    """A procedural record from untrusted text, kept as a statement of its speaker instead."""
    fields: dict[str, Any] = record.model_dump(exclude={"type", "title", "content"})
    fields["metadata"] = {**record.metadata, "admission": "procedural kept as a statement"}
    return SemanticRecord(fact=record.content, **fields)
