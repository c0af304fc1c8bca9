"""Typed values in a statement's words: amounts, doses, clock times, dates, days, frequencies, durations, stages and counts.

:func:`values_of` reads them by kind, for the updates of :mod:`memdesk.conversation.updates` (a new value of the
same kind closes the old one) and for the replies that restate a value (:mod:`memdesk.conversation.replies`);
:func:`topic_terms` gives the other words of a statement, those that may say what a value is of.

Value kinds: ``money`` (£48,000, €5k, 300 dollars, 41k, 3,100: an amount by its scale or its thousands; the
currencies are the read side's, :data:`memdesk.retrieval.value_kinds.CURRENCY_NAMES`), ``dose`` (5mg, 2.5 ml),
``clock`` (4am, 14:30), ``date`` (2 March, the 3rd of May, in January), ``weekday`` (Monday to Thursday,
Wednesdays), ``frequency`` (every other Friday, once a month, three times a week, two mornings a week), ``duration`` (three weeks, 25
minutes), ``number`` (a long number: a phone, an account), ``label <head>`` (a stage or grade named by a number or a
letter: "grade 5", "group B"; one kind per head, which stays among its topic words) and ``count`` (a number, with the
noun it counts when one follows: "140 Jersey cows", "318 pupils", "nine").
"""

from __future__ import annotations

import re

from ..retrieval.stemming import stem
from ..retrieval.value_kinds import CURRENCY_NAMES, CURRENCY_SIGNS

__all__ = ["COMMON", "DAY", "LABEL", "MONTH", "topic_terms", "value_spans", "values_of"]

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
#: a currency's code or letter written before the amount ("R1,200" rand, "Rs 450", "KSh 300", "RM 80"): two digits at
#: least, matched as written (the names after an amount include words such as "won" and "real", which before a number
#: are no currency)
_CODE = r"(?:R|Rs|RM|KSh|Ksh|Kes|KES|INR|ZAR|USD|EUR|GBP|AUD|NZD|CAD|PHP|NGN|UGX|TZS|GH₵)"
_UNIT_TIME = r"(?:minutes?|mins?|hours?|hrs?|days?|weeks?|fortnights?|months?|years?)"
#: a stage or a grade named by a number or a letter ("grade 5", "group B", "stage IV"): its head says what it is of
_LABEL = r"\b(?:level|course|grade|stage|group|module|belt|band|tier|phase|division|league|standard)\s+(?:(?-i:[A-Z])|\d{1,2}|(?-i:[IVX]{1,4}))\b"

_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        # an amount of money: a currency sign or name, or a rate ("55 an hour")
        ("money", rf"[{CURRENCY_SIGNS}]\s?\d[\d,]*(?:\.\d+)?\s?(?:k|m|bn)?\b|(?-i:(?<!\bthe\s)\b{_CODE}\s?(?:\d{{1,3}}(?:,\d{{3}})+|\d{{2,}})(?:\.\d+)?\s?(?:k|m|bn)?\b)|\b\d[\d,]*(?:\.\d+)?\s?(?:k\s+|m\s+|million\s+|thousand\s+)?{_CURRENCY}\b"
                  r"|\b\d[\d,]*(?:\.\d+)?\s+(?:an|a|per)\s+(?:hour|night|session|lesson|visit|month)\b|\b\d+(?:\.\d+)?\s?(?:million|billion|bn)\b"
                  # a rate per unit of time or of what is sold ("640 per day", "2,600 per stall")
                  r"|\b\d[\d,]*(?:\.\d+)?\s+per\s+(?:day|week|year|shift|term|plate|kilo|kg|person|head|trip|piece|item|unit|load|bag|sack|litre|liter|word|page)\b"
                  # an amount by its scale or its thousands ("50k", "3.5k", "170,000"), not a count of a noun ("40,000 words")
                  r"|\b\d+(?:\.\d+)?k\b|\b\d{1,3}(?:,\d{3})+\b(?!\s+[a-z-]{2,}s\b)"
                  # thousands grouped by stops ("1.850.000", "850.000"; "2.500" only after a sign)
                  r"|\b\d{1,3}(?:\.\d{3}){2,}\b(?!\.\d)|\b\d{2,3}\.\d{3}\b(?![.,]\d)(?!\s+[a-z-]{2,}s\b)"),
        ("label", _LABEL),
        ("percent", r"\b\d+(?:\.\d+)?\s?(?:%|percent\b|per\s+cent\b)"),
        ("dose", r"\b\d+(?:\.\d+)?\s?(?:mg|mcg|ml|micrograms?|milligrams?)\b"),
        # a span of the clock is one value: "7pm to 7am" is not "7am to 7pm"
        ("clock", rf"{_CLOCK}\s*(?:to|-|–|until|till)\s*{_CLOCK}"),
        # hours said bare with a word of time between them ("earlies, 6 till 2"): a span of the clock, not a count
        ("clock", r"(?<![\w.,:£$€-])(?:1[0-2]|[1-9])\s+(?:till|til|until)\s+(?:1[0-2]|[1-9])(?![\w.,:%-]|\s+[a-z]{2,}s\b|\s+(?:kg|km|mg|ml|lb)\b)"),
        ("clock", _CLOCK),
        ("date", rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b(?:in|until|till|by|from|to)\s+{_MONTH}\b(?!\s+\d)"
                 rf"|\bthe\s+\d{{1,2}}(?:st|nd|rd|th)\b(?:\s+of\s+{_MONTH}\b)?|(?:(?<=\bon\s)|(?<=\bby\s)|(?<=\btill\s)|(?<=\buntil\s)|(?<=\bfrom\s))\d{{1,2}}(?:st|nd|rd|th)\b|"
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


def value_spans(text: str) -> list[tuple[str, str, tuple[int, int]]]:
    """(kind, normalised value, span) of each typed value of ``text``; a count only where no other kind is."""
    out: list[tuple[str, str, tuple[int, int]]] = []
    taken: list[tuple[int, int]] = [m.span() for m in _ISO.finditer(text)]  # a date resolved into the words
    for kind, pattern in _KINDS:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            named = f"label {m.group(0).split()[0].lower()}" if kind == "label" else kind  # a level is not a course
            out.append((named, _normal(m.group(0), kind), m.span()))
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
    for kind, value, _ in value_spans(text):
        out.setdefault(kind, set()).add(value)
    return out


def topic_terms(text: str, skip: frozenset[str] = frozenset()) -> set[str]:
    """The words of ``text`` that may say what a value is of: no values, no common words, no names in ``skip``."""
    # an amount keeps its currency and scale ("dirhams", "million"), a stage its head ("level"): they say what it is of
    spans = [(span, kind == "money" or kind.startswith("label")) for kind, _, span in value_spans(text)]
    kept = "".join(
        " " if any(a <= i < b and (not money or not ch.isalpha()) for (a, b), money in spans) else ch for i, ch in enumerate(text.lower())
    )
    return {stem(w) for w in _WORDS.findall(kept) if len(w) > 2 and not w.isdigit() and w not in _COMMON and w not in skip}


#: names other modules read
COMMON, DAY, LABEL, MONTH = _COMMON, _DAY, _LABEL, _MONTH
