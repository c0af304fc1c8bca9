"""The remainder: what still holds of a compound memory when a new one changes one of its facts.

A record may say several things in one statement ("Nadia works nights packing at the Orchard Foods depot, 10pm to
6am"; "I don't drink coffee, and no dairy"; "a blue van called Pip, 90,000 miles on it, two ladders"). When a later
memory changes one of them ("I'm on day shift now, 8am to 4pm"; "I drink coffee again"; "just sold the ladders"),
:class:`memdesk.conversation.supersede.Supersession` would close the whole record, and the facts that did not change
(the depot, no dairy, the van's name) would leave current memory with it. :func:`remainder` says what of the old
record still holds: its own words less the parts that carry what changed, or ``None`` when nothing of substance is
left or nothing in it can be told apart as changed (then it closes whole, as before). The record is then *narrowed*
to that text (:func:`memdesk.conversation.narrowing.narrow`: the same record, a new version saying only what still
holds; its history keeps the version before, ``metadata["narrowed_by"]`` names the memory that narrowed it).

What went is not lost: :func:`kept_part` also makes a closed record of it (the cut words, ``metadata["split_from"]``,
closed by the new memory, embedded with the old words as context and marked a ``"statement"`` view so reads keep it
beside the remainder), so "what were the hours before?" and ``as_of=`` reads still find the old value.

The old text is read as parts (:func:`parts`): its sentences, cut at commas, semicolons, colons, dashes and before
"with". The new message's records are read together (their texts and claims). A part carries what changed when it
holds

* a value of a kind an ``update`` gives (:mod:`.updates`: a date, an amount, a clock time, ...) that the update does
  not say again ("the fee is now 520" changes "Fees 450 a term", not "starts on 7 April"; "from December" says when
  a change starts, not a new date; a bare number may be any amount; "postponed", "delayed" change every date); a
  date, time or day said after its preposition ("on 8 July", "at 7am") is cut from the part alone when the rest
  still reads whole ("has the exam on 8 July at the test centre": "has the exam at the test centre"; never "the
  exam is and ...");
* a part of the day as a shift ("nights", "early shift") when the new message names another one ("day shift"): a
  bare "nights" is cut, a shift named as a noun takes its part with it;
* every content word of what an end names ("sold the ladders": "two ladders") or of an attribute's old value that
  a claim of the new message replaces (:func:`memdesk.conversation.supersede.replaces`);
* what a ``reversal`` takes back ("I drink coffee again": "I don't drink coffee"), or what a ``negation`` end
  negates;
* a distinctive word of a ``change`` ("I've stopped the Saturday markets": "and on Saturdays a stall at the market");
* most of its words said again by the new message with something else ("route 21 to Portmore" after "route 32 to
  Papine").

A part that depends on one that went goes with it (:func:`_depends`: an apposition, a consequence, a participle, what
a colon introduced, a "with" naming no one's own, a new sentence starting "It" or "That"); a part saying "only"
closes the whole when any part goes. A remainder keeps the speaker's words in their order (nothing is rewritten or
added), and only when it holds two content words the new message does not say.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from .claims import Claim
from .compound import AMOUNTS, MOVED, REFERS, TIME_KINDS, item_cut, kind_group, moved_terms, named_words, not_rescheduled, of_what_changed, sibling, value_items, without_gerunds
from .endings import reverses, valued_end
from .facts import same_value
from .narrowing import narrow
from .typed_values import DAY, topic_terms, value_spans, values_of
from .updates import bare_amounts, new_only
from ..records import MemoryRecord, new_id
from ..retrieval.stemming import holds_stems

__all__ = ["kept_part", "parts", "remainder"]

#: where a statement's parts meet: a sentence's end, a semicolon, a colon, a comma before a space (not "3,500")
_CUT = re.compile(r"(?<=[.!?;:])\s+|,\s+|\s+[-–—]\s+|\s+(?=with\s)")
#: a part of the day worked: "nights", "on nights", "night shift", "the early shift", "on days" (not "three nights away")
_SHIFT = re.compile(
    r"(?:\b(?:on|the|a)\s+)?\b(?P<part>day|night|morning|afternoon|evening|early|late|graveyard|overnight|swing)s?\s+shifts?\b"
    r"|(?:\bon\s+)?(?<![\d]\s)(?<!\w\s\d\s)\b(?P<bare>nights)\b(?!\s+(?:a|per|away|in|at|of)\b)"
    r"|\bon\s+(?P<days>days)\b(?!\s+(?:a|per|off|away|in|at|of)\b)",  # "I'm on days now"
    re.IGNORECASE,
)
#: a preposition that takes a value as its object: the phrase goes with the value
_PREP = re.compile(
    r"(?:\b(?:until|till|by|from|at|in|since|before|after|to)\s+)?(?:the\s+)?(?:end|start|beginning|middle)\s+of\s+$"  # "until the end of June"
    r"|(?:\b(?:on|at|from|until|till|by|in|for|since|starting|due|of)\s+(?:the\s+)?(?:next\s+|this\s+)?)$", re.IGNORECASE
)
#: a value whose words begin with their preposition ("in April", "until June")
_OWN_PREP = re.compile(r"(?:in|until|till|by|from|every)\s", re.IGNORECASE)
#: a date resolved into the words after a value ("(2026-02-09)", "(week of 2027-03-29)")
_ISO_AFTER = re.compile(r"^\s*\((?:week\s+of\s+)?\d{4}-\d\d(?:-\d\d)?\)")
#: a prepositional phrase that can follow what a cut value followed ("is [on 14 March] at the test centre")
_PREP_AHEAD = re.compile(
    r"^(?:\s*\([^)]*\))?(?:\s+\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm|h)?)?\s+(?:at|in|on|near|with|for|by|from|inside|outside|behind|opposite)\b", re.IGNORECASE
)  # a clock time kept between them ("are [every Monday] 7pm at the hall")
#: what a date's phrase goes on with ("the first Monday of the month", "the 3rd of every month")
_OF_PERIOD = re.compile(r"^\s+of\s+(?:the|every|each)\s+(?:month|week|year|term)\b", re.IGNORECASE)
#: words that only join a part to the one before it; dropped at the head of a remainder
_JOINER = re.compile(r"^(?:(?:and|but|also|so|plus|or|then|too|with)\b[\s,]*)+", re.IGNORECASE)
_TEXTUAL = ("change", "update", "negation", "reversal", "topic", "habit", "contrast", "revision", "ended")


def parts(text: str) -> list[tuple[int, int]]:
    """The spans of the parts of ``text``: its sentences, cut at semicolons, colons and commas, and before an "and"
    between two values ("14 hives and 9 goats") (see the module)."""
    out, start = [], 0
    for m in _CUT.finditer(text):
        if text[start : m.start()].strip():
            out.append((start, m.start()))
        start = m.end()
    if text[start:].strip():
        out.append((start, len(text)))
    return [span for a, b in out for span in value_items(text, a, b)]


def _shift(m: re.Match[str]) -> str:
    """The part of the day a :data:`_SHIFT` match names ("night", "day", "early")."""
    return (m.group("part") or m.group("bare") or m.group("days")).lower().rstrip("s")


def _shifts(text: str) -> set[str]:
    return {_shift(m) for m in _SHIFT.finditer(text)}


def _changed_values(new: Sequence[Claim]) -> dict[str, set[str]]:
    """The values the ``update`` claims of ``new`` give, by kind (a schedule's days and its frequency as one kind);
    a bare number ("went up to 98") may be of any amount, so every kind of amount is changed by it."""
    out: dict[str, set[str]] = {}
    for claim in new:
        if claim.attribute == "update" and claim.value:
            text = new_only(claim.value)
            for kind, value, (a, b) in value_spans(text):
                if kind != "date" or not _FROM.search(text[:a] + text[a:b].split()[0] + " "):
                    out.setdefault(kind_group(kind), set()).add(value)
    if any(c.value and c.op == "end" and MOVED.search(c.value) and not TIME_KINDS & values_of(new_only(c.value)).keys() for c in new):
        for kind in _WHEN[:2]:  # "the dive was postponed": its day and time are not what they were (a new time says which)
            out.setdefault(kind, set())
    if any(v.isdigit() or v.replace(".", "").isdigit() for v in out.get("count", ())) or any(
        c.attribute == "update" and c.value and bare_amounts(new_only(c.value)) for c in new
    ):  # "950 now (from this month)"
        for kind in AMOUNTS:
            out.setdefault(kind, set())
    return out


#: what says when a change takes effect ("from December", "starting next Monday"): not a new value of a date
_FROM = re.compile(r"\b(?:from|starting|as\s+of|since|effective|beginning)\s+(?:on\s+)?(?:next\s+|this\s+|the\s+)?$", re.IGNORECASE)
#: a part that depends on the one before it: its consequence or its alternative ("so I do aqua-gym"), or a short
#: apposition naming it ("a wood stove, a Clearview Pioneer"); it goes when that part goes
_DEPENDS = re.compile(r"^(?:so|which|that's why|therefore|hence|thus|instead)\b|\binstead\b", re.IGNORECASE)
#: "with my cat", "with Ana's brother": someone's own, a relation that holds on its own
_OWN = re.compile(r"^with\s+(?:my|our|his|her|their|\w+'s)\b", re.IGNORECASE)
#: a clause with a subject of its own, someone's: "our kids are Amina", "his mum is 80" (no short apposition)
_CLAUSE = re.compile(r"^(?:and\s+)?(?:my|our|his|her|their)\s+[\w-]+\s+(?:is|are|was|were|has|have|lives?|works?)\b", re.IGNORECASE)
#: a part that holds only for the whole it was said with ("card payments only", "just the two of us")
_EXCLUSIVE = re.compile(r"(?<!\bnot\s)\b(?:only|just|exclusively|nothing\s+but)\b", re.IGNORECASE)  # "not just sitting at home": no exclusion
#: kinds of value that a part says as a time adjunct ("on 8 July", "at 7am", "from Monday"): cut alone, the rest stays
_WHEN = ("date", "clock", "when")


def _stale_values(text: str, changed: dict[str, set[str]]) -> list[tuple[str, tuple[int, int]]]:
    """The kinds and spans of the values of ``text`` of a kind that changed and that the change does not say again."""
    return [(kind_group(kind), span) for kind, value, span in value_spans(text) if kind_group(kind) in changed and value not in changed[kind_group(kind)]]


def _whole_part(new: Sequence[Claim], replaced: Sequence[str], part: str) -> bool:
    """Whether the claims ``new`` change a fact this part states by its words, or it holds a ``replaced`` value
    (see the module docstring)."""
    for claim in new:
        if (value := valued_end(claim)) is not None and holds_stems(value, part):
            return True
        if reverses(claim, part):
            return True
        if claim.attribute == "negation" and claim.op == "end" and claim.value and holds_stems(claim.value, part):
            return True
        if claim.attribute == "change" and claim.value and topic_terms(without_gerunds(claim.value)) & topic_terms(part):
            return True
    return any(holds_stems(value, part) for value in replaced)


def _restated(part: str, said: set[str], names: frozenset[str]) -> bool:
    """Whether the new memory (its distinctive words ``said``) says this part again with something else in it:
    most of the part's words (two at least), but not all ("route 21 to Portmore" after "route 32 to Papine")."""
    terms = topic_terms(part, names)
    shared = terms & said
    return len(shared) >= 2 and 3 * len(shared) >= 2 * len(terms) and bool(terms - said)


#: what a cut part may not end with: it said its value there ("repair is", "moved to", "for the")
_DANGLING = re.compile(r"\b(?:is|are|was|were|be|to|at|on|in|of|for|from|by|the|a|an|about|around|and|or|but|with|than|until|till|since|starting|starts|started|begins|due|ending)\W*$|\(\s*\)", re.IGNORECASE)


#: a price said as an adjunct after its preposition ("rents the stall [for 900 pounds a month] from the trust")
_FOR_PRICE = re.compile(r"\b(?:for|at)\s+$", re.IGNORECASE)
#: what a price is per ("a month", "per jar", "an hour"), said after it
_RATE = re.compile(r"(?:\s+(?:a|an|per|each)\s+[a-z]+)?", re.IGNORECASE)
#: a weekday written with a date, and its preposition ("on Saturday 15 May"): it goes with the date
_NAMED_DAY = re.compile(
    r"(?:\b(?:on|for|to|until|till|from|by|since)\s+)?\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)(?:\s+the)?,?\s+$",
    re.IGNORECASE,
)
#: a noun before a date said with no preposition ("appointment 2 October"): not a verb's participle, not a bare "the"
_AFTER_NOUN = re.compile(r"\b[A-Za-z][a-z]+(?<!ing)(?<!ed)(?<!s)\s+$")  # not "ends 26 March": a verb's own date


#: the days said beside a day in one schedule ("every Tuesday [and Thursday morning]", "[Mondays,] Wednesdays and Fridays")
_RUN_AFTER = re.compile(rf"(?:\s*(?:,\s*and|,|and|or|&)\s+(?:every\s+|on\s+)?{DAY}s?\b)+(?:\s+(?:morning|afternoon|evening|night)s?\b)?", re.IGNORECASE)
_RUN_BEFORE = re.compile(rf"\b{DAY}s?(?:\s*(?:,\s*and|,|and|or|&)\s+(?:every\s+|on\s+)?{DAY}s?)*\s*(?:,\s*and|,|and|or|&)\s+(?:every\s+|on\s+)?$", re.IGNORECASE)


def _run(text: str, a: int, b: int) -> tuple[int, int]:
    """The span of the schedule a day at ``a:b`` is said in: the days joined to it before and after, with a part of the day
    after the last; the day alone when none is joined."""
    if m := _RUN_AFTER.match(text, b):
        b = m.end()
    if m := _RUN_BEFORE.search(text[:a]):
        a = m.start()
    return a, b


def _time_cut(text: str, stale: list[tuple[str, tuple[int, int]]], shifts: list[tuple[int, int]]) -> tuple[str, str] | None:
    """``text`` less its stale time adjuncts (a date, a time or a day after its preposition, with a date resolved
    after it) and the shifts worked that changed; ``None`` when a stale value is not such an adjunct, or what is
    left is cut short; else what is left, and what went (its pieces in order)."""
    keep = [True] * len(text)
    for kind, (a, b) in stale:
        a, b = _run(text, a, b) if kind in _WHEN else (a, b)  # a schedule's days go together or not at all
        m = (kind == "date" and _NAMED_DAY.search(text[:a])) or _PREP.search(text[:a]) or _OWN_PREP.match(text, a)  # "in April": the value said with its preposition
        start = m.start() if m else None
        if kind == "date" and m is None and _AFTER_NOUN.search(text[:a]) and not _DANGLING.search(text[:a]):
            start = a  # "appointment 2 October in Leeds": a date right after a noun is its adjunct
        if kind == "money" and (p := _FOR_PRICE.search(text[:a])) and (r := _RATE.match(text[b:])) and (_PREP_AHEAD.match(text[b + r.end() :]) or not text[b + r.end() :].strip(" .!?")):
            start, b = p.start(), b + r.end()  # "rents the stall for 900 pounds a month from the trust": a price adjunct
            kind = "date"  # cut as a time adjunct is
        if kind not in _WHEN or start is None:
            # a value next to a cut one is said with it ("on Saturday 15 May", "5am to 1pm"): it goes with it
            if not any(text[b:x].strip(" ,") == "" or text[y:a].strip(" ,") == "" for k, (x, y) in stale if k in _WHEN and (x, y) != (a, b)):
                return None
        else:
            a = start
        if _DANGLING.search(text[:a].rstrip(" ,")) and text[:a].strip(" ,") and not _PREP_AHEAD.match(text[b:]):
            return None  # the value was what the words before it said ("the exam is on 14 January and ...")
        if m := _ISO_AFTER.match(text[b:]):
            b += m.end()
        if m := _OF_PERIOD.match(text[b:]):  # "on the first Monday of the month": the whole of it
            b += m.end()
        for i in range(a, b):
            keep[i] = False
    for a, b in shifts:
        for i in range(a, b):
            keep[i] = False
    rest = re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"\s{2,}", " ", "".join(ch for ch, k in zip(text, keep) if k))).strip(" ,;:-–—")
    if _DANGLING.search(rest.rstrip(".!?")) or not topic_terms(rest):
        return None
    went = " ".join(m.group(0).strip(" ,;:") for m in re.finditer(r"[^\x00]+", "".join(ch if not k else "\x00" for ch, k in zip(text, keep))))
    return rest, went


def _depends(part: str, before: str) -> bool:
    """Whether ``part`` depends on the part said ``before`` it, and goes when that one goes: in a new sentence, one
    that refers back to it ("It has ..."); in the same sentence, its consequence or alternative ("so I do
    aqua-gym"), a short apposition or detail ("a wood stove, a Clearview Pioneer"), a participle ("based in Leeds"),
    what a colon introduced, or a "with" naming no one's own ("with the registration ..."; "with my cat" holds
    on its own)."""
    words = part.split()
    if before.rstrip().endswith((".", "!", "?")):
        return bool(REFERS.match(part))
    first = words[0].lower()
    if first in ("and", "but", "or", "also", "plus") and not _DEPENDS.search(part) or _CLAUSE.match(part):
        return False  # a statement of its own, joined ("and no shellfish please") or with a subject of its own ("our kids are ...")
    return (
        bool(_DEPENDS.search(part)) or len(words) <= 4 or before.rstrip().endswith(":") or first.endswith(("ed", "ing"))
        or (first == "with" and not _OWN.match(part))
    )  # fmt: skip


def remainder(old: MemoryRecord, said: str, claims: Sequence[Claim], replaced: Sequence[str] = ()) -> tuple[str, str] | None:
    """What of ``old`` still holds once a new message (its records' texts ``said``, their claims ``claims``) changes
    part of it, and what went (its pieces in order), or ``None`` (see the module docstring); ``replaced``: the values
    of ``old``'s attribute claims that ``claims`` replace."""
    body = old.body()
    spans = parts(body)
    names = frozenset(w.lower() for w in (old.speaker or "").split())
    terms = topic_terms(said, names)
    changed = _changed_values(claims)
    new_shifts = _shifts(said)
    raw = [_stale_values(body[a:b], changed) if changed else [] for a, b in spans]
    stales = of_what_changed([body[a:b] for a, b in spans], raw, claims, names)
    items = {i for i, stale in enumerate(stales) if raw[i] and not stale}  # items told apart from the one that changed
    moved_words = moved_terms(claims) if changed else set()  # a time moved: the thing it names, said again, is not what changed
    whole, moved = not_rescheduled(claims, moved_words) if changed else list(claims), bool(moved_words)
    named = named_words(whole, replaced)  # what the ends and changes name: the item of a list that went
    kept: list[tuple[int, str]] = []
    went: list[str] = []
    last: int | None = None
    cut_any = dropped = False
    for i, (a, b) in enumerate(spans):
        part, before = body[a:b], body[spans[i - 1][0] : a] if i else ""
        # what joined the last part kept to the part after it, as said ("problem. [dropped], the family ...": " ")
        joint = "" if last is None else body[spans[last][1] : spans[last + 1][0]]
        stale = stales[i]
        shifts = [m.span() for m in _SHIFT.finditer(part) if _shift(m) not in new_shifts] if new_shifts else []
        whole_part = _whole_part(whole, replaced, part)
        if whole_part and (item := item_cut(part, named)) is not None:
            kept.append((i, joint + item[0]))  # one item of a list went: the list keeps the others
            went.append(item[1])
            cut_any, dropped, last = True, False, i
            continue
        if (
            whole_part or (not moved and _restated(part, terms, names)) or (dropped and _depends(part, before) and not sibling(part, before))
            or any(m.group("part") for m in _SHIFT.finditer(part) if m.span() in shifts)  # a shift said as a noun goes with its part
        ):  # fmt: skip
            cut_any = dropped = True
            if whole_part and REFERS.match(part) and kept and kept[-1][0] == i - 1:
                went.append(body[spans[i - 1][0] : spans[i - 1][1]])  # "not Wednesdays, [that's my long shift]": what it
                kept.pop()  # points back to goes with it, never a bare pointer left or gone alone
                last = kept[-1][0] if kept else None
            went.append(part)
            continue
        dropped = False
        if not stale and not shifts:
            kept.append((i, joint + part))
            last = i
            continue
        cut_any = True
        if (cut := _time_cut(part, stale, shifts)) is not None:
            kept.append((i, joint + cut[0]))
            went.append(cut[1])
            last = i
        else:  # a part that went for its time alone ("starts 16 June"): what details the thing beside it stays ("5 days in Sheffield")
            dropped = not all(kind in _WHEN for kind, _ in stale)
            went.append(part)
    if cut_any and len(kept) < len(spans) and any(_EXCLUSIVE.search(p) for _, p in kept):
        return None  # "card payments only" went with "no cash"
    if not cut_any or not kept:
        return None
    text = _JOINER.sub("", re.sub(r"\s{2,}", " ", "".join(p for _, p in kept)).strip(" ,;:-–—")).strip(" ,;:")
    text = re.sub(r"([:;.])\s*,\s*", r"\1 ", text)  # a part dropped after a colon or a full stop leaves no comma
    # a value counts as a word when it is of an item told apart from the one that changed ("14 beehives" beside "9
    # goats"), or an amount of a kind that did not change ("40 km" beside a moved date); a time or a day never does
    new_values = {v for i, p in kept for k, v, _ in value_spans(p) if i in items or (k in AMOUNTS and k not in changed)}
    new_values -= {v for _, v, _ in value_spans(said)}
    if len(topic_terms(text, names) - terms) + len(new_values) < 2:
        return None
    gone = ", ".join(w.strip().rstrip(",;:") for w in went if w.strip())
    return (text[:1].upper() + text[1:] if text[:1].islower() and body[:1].isupper() else text), gone


def _claims_kept(claims: Sequence[object], text: str) -> list[object]:
    """The claims a remainder still carries: those whose value it still says (a claim whose value is a sentence,
    such as an ``update``, goes with the words it was read from)."""
    out = []
    for c in claims:
        value = c.get("value") if isinstance(c, dict) else None
        if not isinstance(c, dict) or not value:
            out.append(c)
        elif c.get("attribute") not in _TEXTUAL and (holds_stems(value, text) or same_value(value, text)):
            out.append(c)
    return out


def kept_part(
    old: MemoryRecord, new: MemoryRecord, message: Sequence[MemoryRecord], claims: Sequence[Claim], old_claims: Sequence[Claim],
    until: datetime,
) -> tuple[MemoryRecord, MemoryRecord] | None:
    """``old`` split once ``new`` (one of the records ``message`` made of its message, which make ``claims`` together)
    changes part of it (``old_claims``: those ``old`` carries): ``old`` narrowed to its :func:`remainder` (``metadata["narrowed_by"]``: ``new``'s id; its claims
    those the remainder still says) and a new record saying what went, closed by ``new`` from ``until``
    (``metadata["split_from"]``: ``old``'s id; embedded with ``old``'s words as its context, so a question about
    the value before finds it; a ``"statement"`` view, so reads keep it beside ``old``, :func:`memdesk.retrieval.packing.is_statement`); ``None`` when ``old`` closes whole."""
    from .supersede import replaces  # the one reading of a claim that replaces another

    replaced = [o.value for o in old_claims if o.value and o.attribute not in _TEXTUAL and any(replaces(n, o) for n in claims)]
    cut = remainder(old, " ".join(r.text() for r in message), claims, replaced)
    if cut is None:
        return None
    text, gone = cut
    narrowed = narrow(old, text, [], new.id)
    if not values_of(gone).keys() & TIME_KINDS:  # its time is not what went: as it was read
        narrowed = narrowed.model_copy(update={"event_time": old.event_time, "temporal_anchor": old.temporal_anchor})
    kept = _claims_kept(old.metadata.get("claims") or [], text)
    metadata = {k: v for k, v in narrowed.metadata.items() if k != "claims"} | ({"claims": kept} if kept else {})
    context = " ".join(c for c in (old.metadata.get("embed_context"), old.body()) if isinstance(c, str) and c.strip())
    base = {k: v for k, v in old.metadata.items() if k not in ("claims", "narrowed_by", "embed_context")}
    # a statement of its own (``view``): the read path keeps it beside the other records of its message
    meta = base | {"split_from": old.id, "embed_context": context, "view": "statement"}
    went = narrow(old, gone, [], new.id).model_copy(update={
        "id": new_id(), "metadata": meta, "valid_to": until, "superseded_by": new.id,
        "event_time": old.event_time, "temporal_anchor": old.temporal_anchor,  # the old words' time, as read in full
    })  # fmt: skip
    return narrowed.model_copy(update={"metadata": metadata}), went
