"""New values for what a memory measured: counts, amounts, doses, dates, times, days and frequencies.

Much of what changes in a life is a value, not a named attribute: the budget goes up to £52,000, the herd
is up to 152 cows, the fitters moved us to 16 February, the dose was lowered to 2.5mg, "I start at 5am now,
Monday to Thursday", "I only need to see Jess once a month now". :func:`update_of` reads such a sentence
(a word of change, "now", "instead", "up to", "moved ... to", "raised", "bumping", "actually", ..., or the old value
named beside the new one, "20%, not 24%"; and at least one typed value)
into an ``update`` claim whose value is the sentence; :func:`updated_by` says which earlier memory it
updates: one holding a value of the same kind that differs ("£48,000", "140 ... cows", "2 March", "4am",
"every other Friday") and sharing with the sentence the words that say what the value is of ("budget",
"cows", "fitters", "amlodipine"); the supersession keeps only the memories sharing the most such words
(:meth:`memdesk.conversation.supersede.Supersession.resolve`).

Value kinds are those of :mod:`memdesk.conversation.typed_values`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .claims import Claim
from .typed_values import DAY as _DAY, LABEL as _LABEL, MONTH as _MONTH, topic_terms, value_spans, values_of
from ..retrieval.stemming import stem
from ..retrieval.value_kinds import CURRENCY_NAMES, CURRENCY_SIGNS

__all__ = [
    "gives_value_of", "new_only", "not_an_update", "only_names", "owner_only", "sentence_update", "topic_terms", "update_of", "updated_by", "updates_of", "values_of",
]


#: Words that say a value changed or is the current one.
_CUE = re.compile(
    r"\b(?:now|instead|again|new|newer|up\s+to|down\s+to|back\s+to|extra|"
    r"rais(?:e|ed|es|ing)|rise|lower(?:ed|ing)|increas(?:ed|ing)|reduc(?:ed|ing)|cut|cuts|cutting|dropped|dropping|drops|push(?:ed|es|ing)|"
    r"bump(?:ed|s|ing)|upped|moved|moving|moves?\s+(?:back\s+)?to|go(?:es)?\s+to\s+[£$€₹¥₦]?(?=\d)|shortened|extend(?:ed|s|ing)|in\s+the\s+end|actually|correction|"
    r"changed|changes|delayed|rescheduled|brought\s+forward|put\s+back|slipped|settled\s+at|went\s+in|rose|fell|grew|grown|doubled|halved|"
    # a value moving along its scale: "savings jumped to 115,000", "the list hit 40", "pledges crossed 5,000"
    r"(?:jump(?:ed|s)|climb(?:ed|s)|reach(?:ed|es)|soar(?:ed|s)|dip(?:ped|s)|s[au]nk|slid|shr[au]nk|plunged|tumbled|cross(?:ed|es)|"
    r"top(?:ped|s)|pass(?:ed|es)|hits?)\s+(?:to\s+|past\s+|over\s+)?[£$€₹¥₦]?(?=\d)|"
    r"switched|swapped|replaced|updated|revised|only\s+need|change|later|earlier|as\s+of|"
    rf"starting\s+(?:today|tomorrow|now|next|this|on|from|in|\d|{_MONTH}|{_DAY})|"
    rf"from\s+(?:next\s+\w+|{_MONTH}|{_DAY}|the\s+new\s+year|today|tomorrow|now|this\s+(?:week|month|year|term|season))|"
    # where a value ended up ("the bake sale finished at 3,900"), a stage that begins, a thing done late or early
    r"(?:finish(?:ed|es)|end(?:ed|s)|clos(?:ed|es)|stands|stood|landed|came\s+in)\s+at\s+[£$€₹¥₦]?(?=\d)|"
    rf"{_LABEL}\s+(?:starts|begins|started|began)|"  # the next stage: "grade 6 starts in March"
    r"(?:done|came|happened|arrived|held)\b,?\s+(?:but\s+)?(?:a\s+bit\s+|a\s+day\s+|\w+\s+days?\s+)?(?:late|early))\b",
    re.IGNORECASE,
)
_NOT_AN_UPDATE = re.compile(r"\b(?:if|might|may\s+be|could|should|would|whether)\b|\?\s*$", re.IGNORECASE)
#: "The physio says I should do 20 minutes now": an instruction reported is a value, not a wish
_REPORTED = re.compile(r"\b(?:said|says|told\s+\w+|advised|recommended|recommends|wants|decided)\b(?:\s+that)?\s+[^.;!?]*$", re.IGNORECASE)


def not_an_update(text: str) -> bool:
    """Whether ``text`` is a condition, a wish or a question, not a value said as it is ("should" reported is one)."""
    for m in _NOT_AN_UPDATE.finditer(text):
        if m.group(0).lower() == "should" and _REPORTED.search(text[: m.start()]):
            continue
        return True
    return False


#: "My one-to-ones with Tom are every Monday": a possessive attribute stated anew is a value of it.
_POSSESSIVE = re.compile(r"^\s*(?:my|our)\s+(?P<head>[\w-]+(?:\s+[\w-]+)?)(?:\s+(?:with|for|at)\s+[\w-]+)?\s+(?:is|are)\b", re.IGNORECASE)
_DIGITS = re.compile(r"\d+(?:\.\d+)?")
_OWNER = re.compile(r"\b([A-Za-z][a-z]+)'s\b")




def update_of(text: str) -> Claim | None:
    """An ``update`` claim (the sentence as value) when ``text`` gives a value with a word of change."""
    if not_an_update(text) or (_CUE.search(text) is None and _POSSESSIVE.match(text) is None and not _names_old(text)):
        return None
    kinds = values_of(text)
    if not kinds:
        return None
    return Claim(attribute="update", slot=",".join(sorted(kinds)), value=text.strip(), op="end")


#: where a sentence of chat joins statements of their own: a stop (a small letter may follow it), a semicolon, or a comma
#: before a new subject ("..., he got a job at the college on Mondays")
_PIECES = re.compile(r"(?<=[.!?;])\s+|,\s+(?=(?:he|she|they|it|we|i|my|our|his|her|their)\s)", re.IGNORECASE)
#: a value stated as it is ("parking is 700"): an update beside the sentence's word of change
_STATED = re.compile(r"^\s*(?:and\s+|also\s+)?(?:the\s+|my\s+|our\s+)?[\w-]+(?:\s+[\w-]+)?\s+(?:is|are|'s)\s+(?:now\s+)?(?:at\s+|up\s+to\s+|down\s+to\s+)?\S*\d", re.IGNORECASE)


def updates_of(text: str) -> list[Claim]:
    """The ``update`` claims of a sentence: one per statement of it that gives values, when it joins several ("stall fee
    now 2,600 because rent went up again. parking is 700": the fee and the parking, each closing its own memory), those with a
    word of change of their own or stating a value as it is; else the sentence's one (:func:`update_of`)."""
    whole = update_of(text)
    pieces = [p for p in _PIECES.split(text) if values_of(p)]
    if whole is None or len(pieces) < 2:
        return [whole] if whole is not None else []
    own = [c for p in pieces if (c := update_of(p) or (_stated(p) if not not_an_update(p) else None)) is not None]
    return own or [whole]


def _stated(piece: str) -> Claim | None:
    if _STATED.match(piece) is None:
        return None
    kinds = values_of(piece)
    return Claim(attribute="update", slot=",".join(sorted(kinds)), value=piece.strip(), op="end")


def sentence_update(sentence: str, piece: str) -> Claim | None:
    """The update a statement split from ``sentence`` makes when the word of change or what the value is of
    is in another part ("I sold 12 cows, so we're down to 153": "We're down to 153"): the sentence's update,
    for a piece that gives a value and makes no update of its own."""
    if piece == sentence or not values_of(piece) or update_of(piece) is not None and topic_terms(piece):
        return None
    return update_of(sentence)


def gives_value_of(claim: Claim, text: str) -> bool:
    """Whether ``text`` (a model's record of the message, in its own words) states a value the ``update``
    claim gives: the record to carry the claim ("Maya's budget is now £52,000" for "push our budget up to £52,000")."""
    if claim.attribute != "update" or not claim.value:
        return False
    given, said = values_of(claim.value), values_of(text)
    return any(given[k] & said.get(k, set()) for k in given)


def _when(kinds: dict[str, set[str]]) -> dict[str, set[str]]:
    """Days of the week and frequencies as one kind, when a thing happens ("at weekends, Saturday mornings" /
    "every morning")."""
    if "weekday" not in kinds and "frequency" not in kinds:
        return kinds
    out = {k: v for k, v in kinds.items() if k not in ("weekday", "frequency")}
    out["when"] = kinds.get("weekday", set()) | kinds.get("frequency", set())
    return out


#: what a sentence names as the old value: "instead of 15,000", "rather than Tuesdays", ", not in the morning"
_OLD_NAMED = re.compile(
    r"\b(?:instead\s+of|rather\s+than)\s+(?:[^.;!?]|\.(?=\d))*|,\s+not\s+(?:[^.;!?]|\.(?=\d))*"
    # a clause that negates a value before the one that holds ("the plumber didn't come on 9th, came on 12th")
    r"|,\s+(?:it|that|which)\s+was\s+(?:[^.;!?]|\.(?=\d))*"  # the value before, said after the new one
    rf"|\bno\s+(?:more\s+)?(?={_DAY}s?\b|\d)[^,.;!?]*"  # a value ruled out: "Fridays only, no Tuesdays"
    r"|\b(?:didn'?t|did\s+not|wasn'?t|was\s+not|weren'?t|isn'?t|not)\s+[^,.;!?]*?(?=,\s)"
    # a value ruled out before its verb ("March 4 doesn't work for them, moved to March 11")
    rf"|\b(?:{_MONTH}\s+\d{{1,2}}|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}|\d{{1,2}}(?:[:.]\d\d)?\s?(?:am|pm))\s+(?:doesn'?t|does\s+not|won'?t|can'?t|isn'?t|is\s+not)\s+(?:work|suit|fit)\b"
    # a stage done ("passed grade 5, grade 6 starts in March")
    rf"|\b(?:passed|finished|completed)\s+(?:\w+\s+)?{_LABEL}",
    re.IGNORECASE,
)


def _names_old(text: str) -> bool:
    """Whether ``text`` gives a value and names the one it replaces, of the same kind ("gave me 20%, not 24%",
    "approved at 170,000 in the end, not 180", "three nights instead of two")."""
    old = " ".join(m.group(0) for m in _OLD_NAMED.finditer(text))
    return bool(old) and bool(_when(values_of(new_only(text))).keys() & _when(values_of(old)).keys())


def new_only(text: str) -> str:
    """``text`` less what it names as the old value ("send 20,000 instead of 15,000": "send 20,000")."""
    return _OLD_NAMED.sub("", text)


def _currency(value: str) -> str | None:
    """The currency of a money value: its sign or its name in the singular ("15000 pesos": "peso"), else ``None``."""
    if m := re.search(rf"[{CURRENCY_SIGNS}]", value):
        return m.group(0)
    m = re.search(rf"\b(?:{CURRENCY_NAMES})$", value)
    return m.group(0).rstrip("s") if m else None


#: a number said with nothing it counts after it: "now", a rate, the end ("rent is 950 now", "up to 1,200 a month")
_BARE = re.compile(r"(?<![\w.,£$€])(\d[\d,.]*\d|\d)(?=\s*(?:$|[!;:)]|[.,](?!\d)|now\b|from\b|since\b|as\s+of\b|this\b|per\b|an?\s+(?:month|week|year|day|night|hour)\b))", re.IGNORECASE)


def bare_amounts(text: str) -> set[str]:
    """The numbers of ``text`` said with nothing they count after them: a bare number may be any amount ("rent is
    950 now"); "4 kg", "11 goats" count something."""
    other = [span for kind, _, span in value_spans(text) if kind != "count"]  # "moved to June 21": a day, not an amount
    return {m.group(1).replace(",", "") for m in _BARE.finditer(text) if not any(a < m.end(1) and m.start(1) < b for a, b in other)}


def _differs(new: dict[str, set[str]], old: dict[str, set[str]]) -> bool:
    """Whether ``old`` holds a value of a kind ``new`` gives, and not the same one (counts: of the same noun, if both name one)."""
    new, old = _when(_dated(new)), _when(_dated(old))
    for kind, values in new.items():
        before = old.get(kind)
        if not before:
            continue
        if kind == "money":
            # amounts in two currencies are of two things (pesos sent home, dirhams earned); a bare amount is of any
            for v in values:
                same = [b for b in before if None in (_currency(b), _currency(v)) or _currency(b) == _currency(v)]
                if same and v not in same:
                    return True
            continue
        if kind != "count":
            if not values & before:
                return True
            continue
        for v in values:
            n, _, noun = v.partition(" ")
            same_noun = [b for b in before if not noun or not b.partition(" ")[2] or b.partition(" ")[2] == noun]
            if same_noun and all(b.partition(" ")[0] != n for b in same_noun):
                return True
    return False


def _lists(new: dict[str, set[str]], old: dict[str, set[str]]) -> bool:
    """Whether ``old`` lists several values of each kind ``new`` gives one of ("the tins for $18 and the jars for
    $28", "60,000 in savings and a loan of 180,000", three exam dates): one new value replaces one of them, not the list."""
    new, old = dict(_when(new)), dict(_when(_dated(old)))  # copies: the caller's values stay as they were read
    if len(signs := {_currency(v) for v in new.get("money", ())} - {None}) == 1:  # "€28,000 (and 3,000 from gran)": the euro amounts
        old["money"] = {v for v in old.get("money", ()) if _currency(v) in signs}
        new["money"] = {v for v in new["money"] if _currency(v) in signs}
    old = {k: _distinct(v) for k, v in old.items()}
    kinds = [k for k in new if old.get(k)]
    return bool(kinds) and all(k in _LISTED and 1 < len(old[k]) and len(new[k]) <= len(old[k]) for k in kinds)


def _distinct(values: set[str]) -> set[str]:
    """``values`` less those another one of them holds ("April" said before "the date is 12 April": one date)."""
    return {v for v in values if not any(v != w and set(v.split()) < set(w.split()) for w in values)}


def _dated(kinds: dict[str, set[str]]) -> dict[str, set[str]]:
    """``kinds`` less the days of the week named beside a date ("11 November, a Monday", "Sunday 21 September": one date)."""
    dates = kinds.get("date", set())
    days = {v for v in dates if _A_DAY.fullmatch(v)}
    return kinds | {"date": dates - days} if days and dates - days else kinds


#: kinds whose values a memory lists as several things ("$18 ... $28"); a count's values or a schedule's days are one state
_LISTED = ("money", "date", "percent", "dose")


_A_DAY = re.compile(_DAY)


def valueless(texts: Iterable[str]) -> str:
    """The statements of ``texts`` that give no typed value, joined: those that may say what a value said beside
    them is of ("The footbridge is delayed." beside "The new finish date is November."; "The test moved!" beside
    "They changed it to 26 April"). A statement with a value of its own is of that value ("The dentist is on
    14 November" says nothing of "The wedding is on 8 February" beside it)."""
    return " ".join(t for t in texts if not values_of(t))


def updated_by(claim: Claim, old_text: str, names: frozenset[str], context: str = "", said_with: str = "") -> set[str]:
    """The topic words an ``update`` claim shares with a memory whose value it changes (empty when it does
    not). ``context``: the statements beside the memory in its message, ``said_with``: those beside the update in
    its message, which may name what the value is of (:func:`valueless`). An update said only as a
    possessive ("My one-to-ones with Tom are every Monday") must share the word it is of ("one-to-ones")."""
    if claim.attribute != "update" or not claim.value:
        return set()
    given, held = values_of(new_only(claim.value)), values_of(new_only(old_text))
    if held.get("money") and not held.get("count") and (bare := bare_amounts(new_only(claim.value))):
        given = given | {"money": given.get("money", set()) | bare}  # "rent is 950 now" of "900 pounds a month"
    # an update naming the value it replaces ("20 minutes now, not 10", "no Tuesdays") is of a memory holding that value
    # (its number, or the value itself), and that says what it is of
    named = _when(values_of(" ".join(m.group(0) for m in _OLD_NAMED.finditer(claim.value))))
    kept = _when(_dated(held))
    found = {v for k, vs in named.items() for v in vs if any(set(v.split()) <= set(h.split()) for h in kept.get(k, ()))}
    found |= {n for vs in named.values() for v in vs for n in _DIGITS.findall(v)} & {n for vs in held.values() for v in vs for n in _DIGITS.findall(v)}
    if named and not found or not found and (not _differs(given, held) or _lists(given, held) and not _item_named(claim.value, old_text, names)):
        return set()
    old_terms = topic_terms(old_text, names) | (topic_terms(context, names) if context else set())
    if not _subject_ok(claim, old_terms) or _other_owner(claim.value, old_text, names):
        return set()
    new_terms = topic_terms(claim.value, names) | (topic_terms(said_with, names) if said_with else set())
    shared = _meeting(new_terms, old_terms) | {f"={v}" for v in found}
    if _CUE.search(claim.value) is None and (m := _POSSESSIVE.match(claim.value)):
        head = topic_terms(m.group("head"))
        return shared if head & shared else set()
    return shared


def _item_named(new: str, old: str, names: frozenset[str]) -> bool:
    """Whether ``new`` names by its words one item of the list of values ``old`` gives: a word said next to a value in
    both ("knotless up to R750" of "knotless braids R650, cornrows R250"): a new value of that item, not of the list."""
    from .restated import near_values  # the one reading of the words next to a value (restated reads this module)

    shared = topic_terms(new_only(new), names) & topic_terms(old, names)
    return bool(near_values(near_values(shared, new_only(new)), old))


#: the least length of a clipped word ("levo" of "levothyroxine", "endo" of "endocrinologist", "physio")
_CLIPPED = 4


def _meeting(new: set[str], old: set[str]) -> set[str]:
    """The terms of ``new`` that ``old`` holds: the same stem, or one the clipped form of the other ("levo" /
    "levothyroxin", "endo" / "endocrinologist"; :data:`_CLIPPED` letters at least, the longer three more)."""
    out = new & old
    for a in new - out:
        if len(a) >= _CLIPPED and any(b.startswith(a) and len(b) >= len(a) + 3 or len(b) >= _CLIPPED and a.startswith(b) and len(a) >= len(b) + 3 for b in old):
            out.add(a)
    return out


def only_names(claim: Claim, shared: set[str]) -> bool:
    """Whether the words an update shares with a memory are all names ("Cluj", "Musa"): weaker evidence."""
    text = claim.value or ""
    capital = {stem(w.lower()) for w in re.findall(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+", text)}
    return bool(shared) and shared <= capital


def owner_only(claim: Claim, shared: set[str]) -> bool:
    """Whether the words shared are only the owner of what the value is of ("Jess's party" / "Jess's
    birthday"): the party's date is not the birthday's."""
    owners = {stem(w.lower()) for w in re.findall(r"\b([A-Z][a-z]+)'s\b", (claim.value or "").replace("\u2019", "'"))}
    return bool(shared) and shared <= owners


#: "My sister now swims on Tuesdays": a value of someone else's, which must name them in what it updates.
_OTHER_SUBJECT = re.compile(
    r"^\s*(?:\w+[,:]\s+)?(?:my|our)\s+(?P<who>sister|brother|mum|mom|dad|mother|father|wife|husband|partner|son|daughter|friend|"
    r"colleague|neighbour|neighbor|boss|flatmate|cousin|aunt|uncle|niece|nephew|grandad|grandma|kids?|children)\b(?!'s)",
    re.IGNORECASE,
)


def _other_owner(new: str, old: str, names: frozenset[str]) -> bool:
    """Whether the values belong to different owners ("my son's nursery" / "my daughter's school")."""
    def owners(text: str) -> set[str]:
        return {w.lower() for w in _OWNER.findall(text.replace("\u2019", "'")) if w.lower() not in names}

    a, b = owners(new), owners(old)
    return bool(a) and bool(b) and not a & b


def _subject_ok(claim: Claim, old_terms: set[str]) -> bool:
    m = _OTHER_SUBJECT.match(claim.value or "")
    return m is None or stem(m.group("who").lower()) in old_terms
