"""The write rules of the rule extractor, applied to what a chat model returned for one message.

A model follows its prompt most of the time; :func:`tidy` makes the records it returns keep the same
rules the offline extractor keeps, whatever it answered:

* **small talk** makes no record: a message whose every sentence is small talk for the rules
  (:func:`memdesk.conversation.rules.analyze`: greetings, thanks, congratulations, offers of help,
  an acknowledgement that repeats the turn before, a reply that only takes up the other turn, praise of
  the person spoken to, a small-talk question) keeps none of the model's records, and a record
  whose own text is small talk ("Desk congratulated Maya." aside) is dropped;
* **one speaker**: a record whose words come from the earlier turns and not from the message (the
  model copied the context) is dropped, and a "Name:" label before a record's words leaves its text (it is
  embedded with the record, as the rule extractor does);
* **one fact per record**: a semantic fact that joins statements ("Maya lives in Leith with her cat,
  Biscuit") is split (:func:`memdesk.conversation.atoms.atoms`);
* **dates**: a date written into the text in brackets ("(2024-04-15)") is taken out (the date is the
  record's ``event_time`` and ``temporal_anchor``), and a day-month whose year the model guessed
  otherwise than the rules (:mod:`memdesk.timeexpr.resolve`: the year a person infers from the tense of its
  clause) takes the rules' year;
* **negation and changes**: the attribute claims of the message's sentences (:mod:`.facts`: a move,
  a new job, "no longer ...") go on the records that state them (``metadata["claims"]``), so
  :mod:`memdesk.conversation.supersede` closes what they replace even when the model decided "add".
"""

from __future__ import annotations

import logging
import re

from ..text.lang import is_english
from ..records import MemoryRecord, SemanticRecord, new_id
from ..retrieval.stemming import stem
from ..timeexpr.resolve import TimeMention
from .atoms import atoms
from .base import Utterance
from .facts import claims_of, same_value
from .filler import FillerTest
from .lexicon import phatic_elsewhere
from .updates import gives_value_of
from .reactions import reaction_turn
from .router import analyze_utterance, names_of
from .rules import content_words, is_phatic
from .social import social_question

log = logging.getLogger(__name__)

__all__ = ["small_talk", "tidy"]

_BRACKETED_DATE = re.compile(r"\s*\((?:\d{4}-\d{2}(?:-\d{2})?|week of \d{4}-\d{2}-\d{2}|weekend of \d{4}-\d{2}-\d{2})\)")
_NEGATED = re.compile(r"\b(?:no longer|not|never|anymore|any more)\b|n't\b", re.IGNORECASE)


def _stems(words: list[str]) -> set[str]:
    return {stem(w) for w in words if len(w) > 2}


def _from_context(record: MemoryRecord, u: Utterance, names: list[str]) -> bool:
    """Whether the record's words are the earlier turns', not the message's."""
    if not u.context:
        return False
    mine = _stems(content_words(u.message.text(), names))
    theirs = _stems([w for m in u.context for w in content_words(m.text(), names)])
    said = _stems(content_words(record.text(), names))
    if len(said) < 2:
        return False
    in_message, in_context = len(said & mine), len(said & theirs - mine)
    return in_message * 3 < len(said) and in_context > in_message


def _split(record: MemoryRecord, speaker: str | None) -> list[MemoryRecord]:
    if not isinstance(record, SemanticRecord):
        return [record]
    parts = atoms(record.fact, speaker)
    if len(parts) < 2:
        return [record]
    return [record.model_copy(deep=True, update={"fact": p, "id": record.id if k == 0 else new_id()}) for k, p in enumerate(parts)]


def _fix_year(record: MemoryRecord, mentions: list[TimeMention]) -> None:
    """A day or month the model dated to another year than the rules read it in takes the rules' year."""
    when = record.event_time
    if when is None:
        return
    for t in mentions:
        if t.approximate or t.granularity not in ("day", "month"):
            continue
        same = when.month == t.start.month and (t.granularity == "month" or when.day == t.start.day)
        if same and when.year != t.start.year and not re.search(rf"\b{when.year}\b", t.text):
            log.debug("record %s: %s re-dated %s -> %s", record.id, t.text, when.date(), t.start.date())
            record.event_time, record.temporal_anchor = t.start, t.label
            record.metadata["when_corrected"] = t.label
            return


def small_talk(u: Utterance, filler: FillerTest | None = None) -> bool:
    """Whether the rules (and ``filler``, the learned small-talk test) read every sentence of ``u`` as small
    talk; in another language, whether it is only greetings and thanks (:func:`.lexicon.phatic_elsewhere`); in any
    language, whether it is an assistant's reaction to a turn that asked for nothing (:func:`.reactions.reaction_turn`)."""
    if reaction_turn(u):
        return True
    if not is_english(u.message.text()):
        return phatic_elsewhere(u.message.text(), names_of(u))
    sentences = analyze_utterance(u, filler)
    names = names_of(u)
    asks = [s for s in sentences if s.kind == "question" and not social_question(s.text, content_words(s.text, names))]
    return not any(s.kind == "content" for s in sentences) and not (asks and u.message.role == "user")


def tidy(u: Utterance, records: list[MemoryRecord], filler: FillerTest | None = None) -> list[MemoryRecord]:
    """The model's records for ``u``, held to the rule extractor's write rules (see the module doc);
    none for small talk (:func:`small_talk`, with ``filler``, the learned test the rule extractor uses)."""
    if not records:
        return records
    if small_talk(u, filler):
        log.debug("message %s is small talk: the model's %d records dropped", u.message_id, len(records))
        return []
    if not is_english(u.message.text()):
        return records
    names = names_of(u)
    sentences = analyze_utterance(u, filler)
    mentions = [t for s in sentences for t in s.times]
    claims = [c for s in sentences if s.kind == "content" for piece in atoms(s.text) for c in claims_of(piece)]
    out: list[MemoryRecord] = []
    for record in records:
        said = record.text()
        if is_phatic(said, names) or (filler is not None and filler.is_filler(said, names)) or _from_context(record, u, names):
            log.debug("message %s: record %r dropped (small talk, or the earlier turns' words)", u.message_id, record.text())
            continue
        for part in _split(record, u.message.speaker):
            _unlabel(part, names)
            _untangle_dates(part)
            _fix_year(part, mentions)
            out.append(part)
    _attach(claims, out)
    return out


def _unlabel(record: MemoryRecord, names: list[str]) -> None:
    """A "Name:" label the model put before a record's words ("Maya: Ines loved the curry.") leaves the text:
    it goes where the rule extractor puts it, in what is embedded (``metadata["embed_context"]``)."""
    for field in ("fact", "summary", "content", "title"):
        value = getattr(record, field, None)
        m = _LABEL.match(value) if isinstance(value, str) else None
        if m and any(m["name"].casefold() == n.casefold() for n in names):
            setattr(record, field, value[m.end() :])
            if field != "title":
                record.metadata["embed_context"] = f"{m['name']}:"


_LABEL = re.compile(r"^\s*(?P<name>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2}):\s+(?=\S)")


def _untangle_dates(record: MemoryRecord) -> None:
    for field in ("fact", "summary", "content", "title"):
        value = getattr(record, field, None)
        if isinstance(value, str) and _BRACKETED_DATE.search(value):
            setattr(record, field, _BRACKETED_DATE.sub("", value))


def _attach(claims: list, records: list[MemoryRecord]) -> None:
    """Each claim on the records that state it: those naming its value; a claim without a value (``We
    broke up``) on the message's first semantic record."""
    for claim in claims:
        if claim.attribute == "negation":
            wanted = _stems(claim.value.lower().split()) if claim.value else set()
            holders = [r for r in records if _NEGATED.search(r.text()) and wanted & _stems(r.text().lower().split())]
        elif claim.attribute == "update":  # a new value: the records stating that value (memdesk.conversation.updates)
            holders = [r for r in records if gives_value_of(claim, r.text())]
        else:
            holders = [r for r in records if claim.value and same_value(claim.value, r.text())]
        if not holders and claim.value is None:
            holders = [r for r in records if isinstance(r, SemanticRecord)][:1]
        for r in holders:
            r.metadata.setdefault("claims", []).append(claim.as_dict())
