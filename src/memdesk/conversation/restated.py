"""A value stated anew with no word of change: the later of two statements of one attribute holds.

People seldom say that a value changed. "we're at 9:15 most nights now" is a change, but so are "weigh-in on
Thursday: 5.4kg", "next endo 9 June", "they said drop lantus to 20 units" and "fee ended up €305": a new value
of a kind an earlier statement of the same speaker gave (:mod:`memdesk.conversation.typed_values`: an amount, a
dose, a clock time, a date, a count of one noun...), of the same thing. :mod:`memdesk.conversation.updates` reads
a change by its words ("now", "up to", "moved ... to"); this module reads it by structure, the same structure the
read side uses to order two records of one asked attribute (:mod:`memdesk.retrieval.same_attribute`):

* a value of the same kind, not the same one, and not one item of a list the earlier statement gives
  (:func:`memdesk.conversation.updates.updated_by`);
* a word saying what the value is of, held by both (by its stem, or one the clipped form of the other:
  "levo" / "levothyroxine", "endo" / "endocrinologist"), never only a name nor only the owner ("Jess's party" is
  not "Jess's birthday"), borrowed from the statements beside either that give no value;
* their vectors on one subject: cosine at least :data:`RESTATED_TOPIC` (higher than an update's, which its
  word of change vouches for).

:func:`restatement` gives such a statement its ``update`` claim (slot :data:`SLOT`), which
:class:`memdesk.conversation.supersede.Supersession` resolves like any update, with that higher cosine; the
guards of the update path (other owners, other subjects, lists, a change of several values closing only the
statements sharing the most words) hold for it too, so a second pet, a sibling or an extra hobby (no value of a
kind, or values of other things) stay.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .claims import Claim, claims_in
from .typed_values import topic_terms, value_spans
from .updates import new_only, not_an_update, only_names, owner_only, values_of
from ..records import MemoryRecord
from ..retrieval.same_attribute import without_names
from ..retrieval.stemming import stem
from ..retrieval.value_kinds import QUANTITY
from ..timeexpr.tense import sentence_tense

__all__ = ["RESTATED_TOPIC", "SLOT", "SURE_TOPIC", "another", "measured_anew", "measured_per_unit", "moved_place", "names_place", "restated", "restated_terms", "restatement", "near_values", "value_restated", "value_signs", "with_restatement"]

SLOT = "restated"
"""The slot of an ``update`` claim read from structure alone (no word of change)."""

RESTATED_TOPIC = 0.55
"""The least cosine of a restatement and the memory it replaces (MiniLM: two statements of one fact sit about
0.6-0.8 apart, two statements about one person 0.3-0.5; an update's word of change lets it close at 0.5)."""


def restated(claim: Claim) -> bool:
    """Whether ``claim`` is a restatement's (:func:`restatement`), not an update said with a word of change."""
    return claim.attribute == "update" and claim.slot == SLOT


def restatement(record: MemoryRecord, claims: Sequence[Claim] | None = None) -> Claim | None:
    """The ``update`` claim (slot :data:`SLOT`, the record's words as its value) of a user's record that the rule
    extractor read (``metadata["extractor"] == "rules"``: not a raw turn kept verbatim, not another processor's record)
    that states a typed value and makes no update of its own (``claims``: its claims, read from it when not given);
    else ``None``."""
    if record.role != "user" or record.metadata.get("extractor") != "rules":
        return None
    claims = claims_in(record) if claims is None else claims
    if any(c.attribute == "update" for c in claims):
        return None
    text = record.text()
    if not values_of(text) and not names_place(text) or not_an_update(text):  # a condition, a wish or a question states no value
        return None
    return Claim(attribute="update", slot=SLOT, value=text.strip(), op="end")


#: kinds of value a state holds one of at a time (a date or a length of time is more often an event's: "the fitting
#: went great on Saturday", "6 nights in Hokkaido"; a long number is an identifier)
_STATE_KINDS = ("money", "dose", "clock", "count", "percent", "label")
#: what an amount is per ("€210 a week", "72 an hour", "7.200 per kilo"): amounts per different things differ in kind
_PER = re.compile(r"(?:^|\s)(?:(?:an|a|per)\s+|/\s*)(?P<unit>[a-z]+)\b", re.IGNORECASE)  # "an hour": the hour, not "n"
_UNIT = re.compile(r"[a-z²]+$", re.IGNORECASE)
_NUMBER = re.compile(r"^\d+(?:[.,]\d+)?\s*")


def _amount(value: str) -> str:
    """An amount by its number ("1,050 euro" and "1050" are one amount; "50k" is 50000)."""
    m = re.search(r"\d+(?:\.\d+)?", value.replace(",", ""))
    if m is None:
        return value
    n = float(m.group(0)) * (1000 if re.search(r"\d\s?k\b", value) else 1_000_000 if "million" in value or re.search(r"\d\s?m\b", value) else 1)
    return f"{n:g}"


def _measures(text: str) -> dict[tuple[str, str], set[str]]:
    """The state values of ``text`` by (kind, what they measure): a count by the noun it counts, an amount by what it
    is per, a quantity by its unit, a dose by its unit; days of the week and frequencies as one kind (``when``)."""
    out: dict[tuple[str, str], set[str]] = {}
    quantities = list(QUANTITY.finditer(text))
    for m in quantities:
        unit = _NUMBER.sub("", m.group(0)).lower()  # "58 m2", "20°": the unit is what follows the number
        out.setdefault(("quantity", unit[:2]), set()).add(m.group(0).lower().replace(" ", ""))
    for kind, value, (a, b) in value_spans(text):
        if any(m.start() <= a < m.end() for m in quantities):
            continue  # "5.4kg" is no count of 5
        if kind.split()[0] not in _STATE_KINDS:
            continue
        unit = ""
        if kind == "count":
            value, _, unit = value.partition(" ")
            if not unit or not _counts(text[b:], unit):
                continue  # a bare number may count anything ("Ezra just turned 3", "4 to 15 August"), "note 4 about bees" none
        elif kind == "money":
            m = _PER.search(text[a:b]) or _PER.match(text[b : b + 12])
            unit = m.group("unit").lower() if m else ""
            value = _amount(value)
        elif kind == "dose":
            unit = (_UNIT.search(value) or re.match("", "")).group(0)
        out.setdefault((kind, unit), set()).add(value)
    return out


#: words that never stand between a number and the noun it counts ("note 4 about bees", "plot 7 has the leeks": a label)
_NOT_MODIFIER = frozenset("about of on in at for with from to by into over under has have had is are was were the a an and or but".split())


def _counts(after: str, unit: str) -> bool:
    """Whether the number before ``after`` counts the noun ``unit`` (its stem): the noun within the next three words,
    with only modifiers before it ("3 hens", "5 more laying hens"; not "4 about bees")."""
    for word in re.findall(r"[a-z][\w'-]*", after.lower())[:3]:
        if word.startswith(unit[:4]):
            return True
        if word in _NOT_MODIFIER:
            return False
    return False


def with_restatement(record: MemoryRecord) -> list[Claim]:
    """The claims of ``record``, with the update of a value it states anew when it makes none (:func:`restatement`)."""
    claims = claims_in(record)
    return claims + [c] if (c := restatement(record, claims)) is not None else claims


def measured_anew(new: str, old: str) -> bool:
    """Whether ``new`` states a state value (:data:`_STATE_KINDS`, or a quantity) that ``old`` states another of,
    measured alike (a count of the same noun, an amount per the same thing, a quantity in the same unit) and not
    among ``old``'s values of it."""
    return bool(_anew(new, old))


def measured_per_unit(new: str, old: str) -> bool:
    """Whether ``new`` states anew a value ``old`` states in a unit of its own: an amount per the same thing ("€235 a
    week" / "€210 a week"), a count of the same noun, a quantity or a dose in the same unit. That says what the value
    is of when the words shared are only a name ("Bernie's price" / "Bernie Fahy ... €210 a week")."""
    return any(unit for _, unit in _anew(new, old))


def _anew(new: str, old: str) -> list[tuple[str, str]]:
    before = _measures(old)
    return [key for key, values in _measures(new).items() if key in before and not values & before[key]]


#: words of chat, saying nothing of what a value is of ("yes mondays 8pm" / "yes Thursday 16 April, 8am")
_CHAT = frozenset({"yes", "yeah", "yep", "okay", "lol", "haha", "thank", "thanks", "pleas"})

SURE_TOPIC = 0.7
"""The cosine at which one shared word of what a value is of is enough (below it, two are needed)."""

#: a new instance beside the old one, not a new value of it: "another fencing job", "a third class", "a second one"
_ANOTHER = re.compile(r"\b(?:another|other|second|third|fourth|fifth|extra|additional|one\s+more|also\s+(?:got|have|has|had)|as\s+well)\b", re.IGNORECASE)


def another(text: str) -> bool:
    """Whether ``text`` adds one more beside what was ("another fencing job", "plot 12 as well"), not a new value of it."""
    return _ANOTHER.search(text) is not None


def value_signs(update: Claim, old: str, shared: set[str], names: frozenset[str]) -> tuple[bool, bool, set[str]]:
    """What says, by structure, that an ``update`` said with a word of change is of the value ``old`` holds, where the
    words shared (``shared``, :func:`.updates.updated_by`) may not: whether it names ``old``'s value as the one replaced
    ("Fridays now instead of Tuesdays" / "the pantry, Tuesday mornings": ``updated_by``'s ``=`` terms), whether it
    states a value measured alike (:func:`measured_per_unit`: "€7 an hour now" / "... €6.50 an hour", "84 kg now" /
    "down to 86 kg"; not when it names what its value is of and shares no word of it with ``old``: "council tax ...
    £160 a month" / "mortgage £1,100 a month"), and the words of what the value is of shared, less names and owners."""
    said = new_only(update.value or "")
    named = any(t.startswith("=") for t in shared)
    words = {t for t in shared if not t.startswith("=")}
    alike = measured_per_unit(said, old) and not (not words and topic_terms(said, names))
    if words and (owner_only(update, words) or only_names(update, words)):
        words = set()  # a name says whose value, not which one
    return named, alike, words


_WORD = re.compile(r"[A-Za-zÀ-ÿ][\w'-]*")
#: words either side of a value that may say what it is of ("the rehearsals move to Thursdays", "module 1 assignment due")
_NEAR = 4


def near_values(terms: set[str], text: str) -> set[str]:
    """The ``terms`` (stems) of ``text`` said within :data:`_NEAR` words of one of its typed values: the words of what a
    value is of, not of another statement beside it ("unit manager ..., 7 to 4" says nothing of "20 units")."""
    near: set[str] = set()
    for _, _, (a, b) in value_spans(text):
        before, after = _WORD.findall(text[:a])[-_NEAR:], _WORD.findall(text[b:])[:_NEAR]
        near |= {stem(w.lower()) for w in before + after}
    return {t for t in terms if any(t == w or min(len(t), len(w)) >= 4 and (t.startswith(w) or w.startswith(t)) for w in near)}


def value_restated(new: str, old: str, score: float, shared: set[str], place: bool = False) -> bool:
    """Whether ``new`` (a statement with no word of change) gives a new value of what ``old`` states: a state value
    measured alike (:func:`measured_anew`), no new instance of a thing named beside the old one, and what the value
    is of shared (``shared``: the words :func:`memdesk.conversation.updates.updated_by` found in both): two words,
    or one at cosine ``score`` of at least :data:`SURE_TOPIC`."""
    if _ANOTHER.search(new) or not place and not measured_anew(new, old):
        return False
    shared = shared - _CHAT
    return len(shared) >= 2 or score >= SURE_TOPIC and bool(shared)


_CAP = r"(?-i:[A-ZÀ-ÖØ-ÞĀ-Ž][\w'’-]+)"
#: a place named after a preposition of place ("in Braamfontein", "at Capel Seion", "to the Roodepoort depot"), or
#: after "the" before the noun of what it is ("drives the Mtwapa route")
_PLACE = re.compile(
    rf"\b(?:in|at|to|from|near|on)\s+(?:the\s+|a\s+|an\s+)?(?P<at>{_CAP}(?:\s+{_CAP}){{0,3}})"
    rf"|\bthe\s+(?P<the>{_CAP}(?:\s+{_CAP}){{0,2}})(?=\s+[a-z]{{3,}})",
    re.IGNORECASE,
)
_MONTHS_DAYS = frozenset(
    "january february march april may june july august september october november december monday tuesday wednesday "
    "thursday friday saturday sunday christmas easter".split()
)
#: words around a place that say what it is the place of: the nearest before it and the one after it
_BEFORE, _AFTER = 4, 1


def _places(text: str, names: frozenset[str]) -> list[tuple[str, set[str]]]:
    """The places ``text`` names, each with the words around it that say what it is the place of (its heads)."""
    out = []
    for m in _PLACE.finditer(text):
        place = m.group("at") or m.group("the")
        first = place.split()[0].lower()
        if first in _MONTHS_DAYS | names or first.removesuffix("s") in _MONTHS_DAYS:  # "on Sundays" is no place
            continue
        # its heads are common nouns and verbs, never a name ("Mrs Rowlands and the Pughs": no place of the Rowlands;
        # names as the read side reads them, :func:`memdesk.retrieval.same_attribute.without_names`)
        before = without_names(text[: m.start()]).split()[-_BEFORE:]
        after = without_names(text[m.end() :]).split()[:_AFTER]
        heads = topic_terms(" ".join(before + after), names) - topic_terms(place)
        out.append((place.lower(), heads))
    return out


def moved_place(new: str, old: str, names: frozenset[str]) -> tuple[set[str], list[str]]:
    """The words saying what a place is of that a new place of ``new`` and another place of ``old`` share ("the
    Roodepoort depot" / "the municipal depot in Braamfontein": "depot"; "a bigger unit in Długołęka" / "a rented unit in
    Bielany": "unit"), empty when ``new`` names no place ``old`` does not; and the places of ``old`` replaced."""
    before = _places(old, names)
    said = {p for p, _ in before}
    out: set[str] = set()
    gone: list[str] = []
    for place, heads in _places(new, names):
        if place in said:
            continue
        for other, old_heads in before:
            if other != place and heads & old_heads:
                out |= heads & old_heads
                gone.append(other)
    return out, gone


def names_place(text: str) -> bool:
    """Whether ``text`` names a place (:func:`moved_place` may read it)."""
    return bool(_places(text, frozenset()))


def restated_terms(new: str, old: str, names: frozenset[str], score: float, shared: set[str]) -> tuple[set[str], list[str]]:
    """What a restatement ``new`` shares with ``old`` (``shared``: the words of what a value is of, from
    :func:`memdesk.conversation.updates.updated_by`; else the heads of a place, :func:`moved_place`) when it replaces it
    (:func:`value_restated`, at cosine ``score``), and the places of ``old`` it replaces; nothing when it does not."""
    gone: list[str] = []
    place = not shared
    if place:
        if sentence_tense(new) == "past":
            return set(), []  # a place a past event happened at ("we went up to Glen Coe last Friday") is no new home of it
        shared, gone = moved_place(new, old, names)
    return (shared, gone) if value_restated(new, old, score, shared, place) else (set(), [])
