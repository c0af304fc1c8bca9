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

Value kinds: ``money`` (£48,000, €5k, 300 dollars, 41k, 3,100: an amount by its scale or its thousands; the
currencies are the read side's, :data:`memdesk.retrieval.value_kinds.CURRENCY_NAMES`), ``dose`` (5mg, 2.5 ml),
``clock`` (4am, 14:30), ``date`` (2 March, the 3rd of May, in January), ``weekday`` (Monday to Thursday,
Wednesdays), ``frequency`` (every other Friday, once a month, three times a week, two mornings a week), ``duration`` (three weeks, 25
minutes), ``number`` (a long number: a phone, an account) and ``count`` (a number, with the noun it counts
when one follows: "140 Jersey cows", "318 pupils", "nine").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .claims import Claim
from ..retrieval.stemming import stem
from ..retrieval.value_kinds import CURRENCY_NAMES, CURRENCY_SIGNS

__all__ = ["gives_value_of", "new_only", "only_names", "owner_only", "sentence_update", "topic_terms", "update_of", "updated_by", "values_of"]

_NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
}
_NUM = r"(?:\d[\d,]*(?:\.\d+)?|" + "|".join(_NUMBER_WORDS) + r")"
_MONTH = r"(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)"
_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_CLOCK = r"\b\d{1,2}(?:[:.]\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b|\bmidday\b|\bmidnight\b"
_CLOCK = rf"(?:{_CLOCK})"
_CURRENCY = rf"(?:{CURRENCY_NAMES})"  # the read side's currencies (:mod:`memdesk.retrieval.value_kinds`): one list
_UNIT_TIME = r"(?:minutes?|mins?|hours?|hrs?|days?|weeks?|fortnights?|months?|years?)"

_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        # an amount of money: a currency sign or name, or a rate ("55 an hour")
        ("money", rf"[{CURRENCY_SIGNS}]\s?\d[\d,]*(?:\.\d+)?\s?(?:k|m|bn)?\b|\b\d[\d,]*(?:\.\d+)?\s?(?:k\s+|m\s+|million\s+|thousand\s+)?{_CURRENCY}\b"
                  r"|\b\d[\d,]*(?:\.\d+)?\s+(?:an|a|per)\s+(?:hour|night|session|lesson|visit|month)\b|\b\d+(?:\.\d+)?\s?(?:million|billion|bn)\b"
                  # an amount by its scale or its thousands ("50k", "3.5k", "170,000"), not a count of a noun ("40,000 words")
                  r"|\b\d+(?:\.\d+)?k\b|\b\d{1,3}(?:,\d{3})+\b(?!\s+[a-z-]{2,}s\b)"),
        ("percent", r"\b\d+(?:\.\d+)?\s?(?:%|percent\b|per\s+cent\b)"),
        ("dose", r"\b\d+(?:\.\d+)?\s?(?:mg|mcg|ml|micrograms?|milligrams?)\b"),
        # a span of the clock is one value: "7pm to 7am" is not "7am to 7pm"
        ("clock", rf"{_CLOCK}\s*(?:to|-|–|until|till)\s*{_CLOCK}"),
        ("clock", _CLOCK),
        ("date", rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b(?:in|until|till|by|from|to)\s+{_MONTH}\b"
                 rf"|\bthe\s+\d{{1,2}}(?:st|nd|rd|th)\b(?:\s+of\s+{_MONTH}\b)?|"
                 r"(?-i:\b(?:January|February|March|April|June|July|August|September|October|November|December)\b)"),
        ("frequency", rf"\bevery\s+(?:other\s+|second\s+|single\s+)?(?:{_DAY}|day|week|month|morning|evening|night|weekend|fortnight|year)\b"
                      rf"|\b(?:once|twice|{_NUM}\s+times)\s+(?:a|per|every)\s+\w+\b"
                      rf"|\b{_NUM}\s+(?:days?|mornings?|afternoons?|evenings?|nights?|shifts?|sessions?)\s+(?:a|per)\s+(?:week|month)\b"),
        # a schedule: days in the plural, a range, or "Monday nights" ("on Saturday" alone is a date)
        ("date", rf"\b(?:first|second|third|fourth|last)\s+{_DAY}\b"),
        ("weekday", rf"\b{_DAY}s?\s+(?:to|-|through|and|or)\s+{_DAY}s?\b|\b{_DAY}s\b|\b{_DAY}\s+(?:nights|mornings|evenings|afternoons)\b"),
        ("date", rf"\b{_DAY}\b"),
        ("duration", rf"\b{_NUM}\s+{_UNIT_TIME}\b(?!\s+(?:a|per)\s+week)"),
        # a long number: a phone ("33 1120 0453", "+44 7700 900123"), an account
        ("number", r"\b\d{4,}(?:\s\d{3,})+\b|\b\d{6,}\b|(?<![\w,.])\+?\d{2,4}(?:[\s-]\d{3,4}){2,}\b"),
    )
)
_COUNT = re.compile(rf"(?<![\w-])(?P<n>{_NUM})(?![\w-])(?:\s+(?P<noun>(?:[a-z][\w-]*\s+){{0,2}}?[a-z][\w-]{{2,}}s)\b)?", re.IGNORECASE)
#: what is not a count: years, ordinals, parts of dates, money, doses and clock times
_NOT_COUNT = re.compile(r"^(?:19|20)\d\d$")
_NOT_COUNTED = re.compile(
    r"\b(?:the|these|those|all|both|year|room|number|no\.?|level|grade|size|page|chapter|platform|gate|bus|route|flat|house|"
    r"unit|class|stage|series|season|episode|version|aged?|p)\s*$",
    re.IGNORECASE,
)

#: Words that say a value changed or is the current one.
_CUE = re.compile(
    r"\b(?:now|instead|again|new|newer|up\s+to|down\s+to|back\s+to|extra|"
    r"rais(?:ed|es|ing)|lower(?:ed|ing)|increas(?:ed|ing)|reduc(?:ed|ing)|cut|cuts|cutting|dropped|dropping|drops|push(?:ed|es|ing)|"
    r"bump(?:ed|s|ing)|upped|moved|moving|shortened|extend(?:ed|s|ing)|in\s+the\s+end|actually|correction|"
    r"changed|changes|delayed|rescheduled|brought\s+forward|put\s+back|slipped|settled\s+at|went\s+in|rose|fell|grew|grown|doubled|halved|"
    # a value moving along its scale: "savings jumped to 115,000", "the list hit 40", "pledges crossed 5,000"
    r"(?:jump(?:ed|s)|climb(?:ed|s)|reach(?:ed|es)|soar(?:ed|s)|dip(?:ped|s)|s[au]nk|slid|shr[au]nk|plunged|tumbled|cross(?:ed|es)|"
    r"top(?:ped|s)|pass(?:ed|es)|hits?)\s+(?:to\s+|past\s+|over\s+)?[£$€₹¥₦]?(?=\d)|"
    r"switched|swapped|replaced|updated|revised|only\s+need|change|later|earlier|as\s+of|"
    rf"starting\s+(?:today|tomorrow|now|next|this|on|from|in|\d|{_MONTH}|{_DAY})|"
    rf"from\s+(?:next\s+\w+|{_MONTH}|{_DAY}|the\s+new\s+year))\b",
    re.IGNORECASE,
)
_NOT_AN_UPDATE = re.compile(r"\b(?:if|might|may\s+be|could|should|would|whether)\b|\?\s*$", re.IGNORECASE)
#: "My one-to-ones with Tom are every Monday": a possessive attribute stated anew is a value of it.
_POSSESSIVE = re.compile(r"^\s*(?:my|our)\s+(?P<head>[\w-]+(?:\s+[\w-]+)?)(?:\s+(?:with|for|at)\s+[\w-]+)?\s+(?:is|are)\b", re.IGNORECASE)
_ISO = re.compile(r"\(?(?:week\s+of\s+)?\d{4}-\d\d(?:-\d\d)?\)?|\((?:19|20)\d\d\)")
_WORDS = re.compile(r"[a-z0-9]+")
_COMMON = frozenset(
    """
    the a an my our your his her their its this that these those to of in at for on with and or but so from by as
    about into over after before again also just now new newer old still too very really much more most some any all
    is are was were be been being have has had do does did will would can could should may might must not no only
    i me we us you he him she they them it there here what when where which who how then than because until till
    day days week weeks month months year years time times today tomorrow yesterday morning evening night weekend
    monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays sundays
    january february march april may june july august september october november december once twice every other
    instead up down back extra raised lowered increased reduced cut dropped dropping pushed moved moving shortened
    extended changed delayed rescheduled settled went rose fell grew doubled halved switched swapped replaced
    updated revised need needs usually usual normally get got getting make made
    am pm mg ml one two three four five six seven eight nine ten eleven twelve twenty
    ran run runs running went go goes going did do does doing take takes took taking see sees saw seeing
    come comes came use uses used say says said
    """.split()
)
_OWNER = re.compile(r"\b([A-Za-z][a-z]+)'s\b")


def _spans(text: str) -> list[tuple[str, str, tuple[int, int]]]:
    """(kind, normalised value, span) of each typed value of ``text``; a count only where no other kind is."""
    out: list[tuple[str, str, tuple[int, int]]] = []
    taken: list[tuple[int, int]] = [m.span() for m in _ISO.finditer(text)]  # a date resolved into the words
    for kind, pattern in _KINDS:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            out.append((kind, _normal(m.group(0), kind), m.span()))
            taken.append(m.span())
    for m in _COUNT.finditer(text):
        if any(a < m.end() and m.start() < b for a, b in taken) or _NOT_COUNT.match(m.group("n")):
            continue
        if _NOT_COUNTED.search(text[: m.start()]):
            continue  # "across the three robots": the ones already counted; "year 4": a name, not a count
        n = _NUMBER_WORDS.get(m.group("n").lower(), m.group("n").replace(",", ""))
        noun = m.group("noun")
        if noun is None and n in ("0", "1"):
            continue  # "the old one", "none": a pronoun, not a count
        value = f"{n} {stem(noun.split()[-1].lower())}" if noun else n
        out.append(("count", value, m.span("n")))  # the noun counted still says what the value is of
    return out


def _normal(value: str, kind: str) -> str:
    words = [_NUMBER_WORDS.get(w, w) for w in re.findall(r"[a-z0-9.:£$€]+", value.lower().replace(",", ""))]
    if kind in ("weekday", "frequency"):  # "Wednesdays" is "Wednesday"; "two mornings a week" / "one morning a week"
        words = [w[:-1] if w.endswith("s") else w for w in words]
    return " ".join(w for w in words if w not in ("in", "until", "till", "by", "from", "to", "of", "the", "a", "per"))


def values_of(text: str) -> dict[str, set[str]]:
    """The typed values of ``text``, by kind (see the module's docstring)."""
    out: dict[str, set[str]] = {}
    for kind, value, _ in _spans(text):
        out.setdefault(kind, set()).add(value)
    return out


def topic_terms(text: str, skip: frozenset[str] = frozenset()) -> set[str]:
    """The words of ``text`` that may say what a value is of: no values, no common words, no names in ``skip``."""
    # an amount keeps its currency and scale ("dirhams", "million"): they say what the amount is of
    spans = [(span, kind == "money") for kind, _, span in _spans(text)]
    kept = "".join(
        " " if any(a <= i < b and (not money or not ch.isalpha()) for (a, b), money in spans) else ch for i, ch in enumerate(text.lower())
    )
    return {stem(w) for w in _WORDS.findall(kept) if len(w) > 2 and not w.isdigit() and w not in _COMMON and w not in skip}


def update_of(text: str) -> Claim | None:
    """An ``update`` claim (the sentence as value) when ``text`` gives a value with a word of change."""
    if _NOT_AN_UPDATE.search(text) or (_CUE.search(text) is None and _POSSESSIVE.match(text) is None and not _names_old(text)):
        return None
    kinds = values_of(text)
    if not kinds:
        return None
    return Claim(attribute="update", slot=",".join(sorted(kinds)), value=text.strip(), op="end")


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
_OLD_NAMED = re.compile(r"\b(?:instead\s+of|rather\s+than)\s+(?:[^.;!?]|\.(?=\d))*|,\s+not\s+(?:[^.;!?]|\.(?=\d))*", re.IGNORECASE)


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
    m = re.search(rf"\b{_CURRENCY}$", value)
    return m.group(0).rstrip("s") if m else None


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
    kinds = [k for k in new if old.get(k)]
    return bool(kinds) and all(k in _LISTED and 1 < len(old[k]) and len(new[k]) <= len(old[k]) for k in kinds)


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
    given, held = values_of(new_only(claim.value)), values_of(old_text)
    if not _differs(given, held) or _lists(given, held):
        return set()
    old_terms = topic_terms(old_text, names) | (topic_terms(context, names) if context else set())
    if not _subject_ok(claim, old_terms) or _other_owner(claim.value, old_text, names):
        return set()
    shared = (topic_terms(claim.value, names) | (topic_terms(said_with, names) if said_with else set())) & old_terms
    if _CUE.search(claim.value) is None and (m := _POSSESSIVE.match(claim.value)):
        head = topic_terms(m.group("head"))
        return shared if head & shared else set()
    return shared


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
