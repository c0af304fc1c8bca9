"""Values a question asks for beyond a name, a place, a date or a count, and whether a record states one (English).

A question on a topic asks for one value of it, and the records on the topic are of two sorts: the one stating that
value and the ones only talking about the topic. "How much is the rent?" asks for an *amount* ("Rent is ¥68,000",
"€710", "12,000 soles", "0.10 per word", "32k"), which a rent complaint does not state; a number of rooms or a floor
("two rooms, 3rd floor") is no amount either. "How long was the outage?" asks for a *duration* ("38 minutes", "three
weeks", "1:49:12"), not a time of day ("02:00 to 05:00"); "What time is the call?" asks for a *clock* time ("at
14:30", "9am", "noon"); "What finishing time ...?" (a noun before "time") asks for either. "Who is Mette?" asks for
an *identity*: a relation or a role ("Henrik's daughter Mette", "Mette is a midwife"), not a sentence that names Mette
beside someone else.

:func:`asked_kind` reads the kind from the question's form (its wh-phrase and, for an amount, a noun of money: "What is
the rent ...?", "What did the flour cost?"); :func:`stated_kinds` reads, once per record, the kinds of value its text
states. :class:`~memdesk.retrieval.question_focus.Focus` joins the two for the fused path's focus bonus.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from .question_role import ROLE

__all__ = ["CURRENCY_NAMES", "CURRENCY_SIGNS", "QUANTITY", "Kind", "asked_kind", "asks_steps", "stated_kinds"]

Kind = Literal["money", "quantity", "duration", "clock", "identity", "age", "steps"]

_NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|ninety|"
    r"hundred|a|an|a few|a couple of|several|half an?|a half|one and a half"
)
_TIME_UNIT = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|h|days?|nights?|weeks?|fortnights?|months?|years?|yrs?)"
_DURATION = re.compile(
    rf"(?<!per )(?<!once )(?<!twice )(?<!times )\b(?:\d+(?:[.,]\d+)?(?:\s*(?:-|to|–)\s*\d+)?|{_NUMBER_WORDS})\s*-?\s*"
    rf"{_TIME_UNIT}\b(?!\s*(?:ago|old)\b)"
    r"|\b\d{1,2}:\d{2}:\d{2}\b|\bsub-?\d",
    re.IGNORECASE,
)
"""A length of time: a number (digits or words) before a unit of time ("38 minutes", "three weeks", "3h", "two
nights"), not an age or a past point ("3 years old", "two weeks ago"); a race time ("1:49:12"); a target "sub-4"."""
_CLOCK = re.compile(
    r"(?<![\d:])\d{1,2}:\d{2}(?![\d:])|\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.)(?!\w)"
    r"|\b(?:noon|midday|midnight|o['’]clock)\b",
    re.IGNORECASE,
)
"""A time of day: "14:30", "9am", "9 p.m.", "noon", "ten o'clock"."""
CURRENCY_SIGNS = re.escape("".join(c for c in map(chr, range(0x20, 0x3000)) if unicodedata.category(c) == "Sc"))
"""Every currency sign ($, €, £, ¥, ₹, ₵, ₦, ...): Unicode's category Sc (for a character class)."""
CURRENCY_NAMES = (
    r"dollars?|euros?|eur|usd|gbp|pounds?|quid|pence|p|cents?|yen|yuan|rmb|won|rupees?|rs|inr|lei|ron|zł|zloty|złoty|pln|"
    r"kronor|krona|kroner|krone|sek|nok|dkk|kr|francs?|chf|soles?|pesos?|pesetas?|reais|real|brl|rand|naira|kes|ksh|shillings?|"
    r"cedis?|dirhams?|aed|dinars?|riyals?|baht|dong|vnd|ringgit|rm|lira|forint|huf|kč|czk|hryvnia|uah|ngn|php|mxn|nzd|aud|cad"
)
"""Currencies by name or code, singular or plural (an alternation: the one list the read side and
:mod:`memdesk.conversation.updates` share)."""
_MONEY = re.compile(
    rf"[{CURRENCY_SIGNS}]\s*\d|\d\s*[{CURRENCY_SIGNS}]"
    rf"|\b\d+(?:[.,]\d+)*\s*(?:k\b|m\b|million\b|thousand\b|bn\b|billion\b|%|percent\b|per cent\b)?\s*(?:{CURRENCY_NAMES})\b"
    rf"|\b(?:{CURRENCY_NAMES})\s*\d"
    r"|\b\d{1,3}(?:[,.\u202f\u00a0]\d{3})+(?![\d/-])|\b\d+(?:\.\d+)?\s*(?:k|million|thousand|bn|billion)\b|\b\d+(?:[.,]\d+)?\s*(?:%|percent\b|per cent\b)"
    r"|\b\d+(?:[.,]\d+)?\s*per\s+(?!cent\b)\w+"
    r"|\b\d+\.\d{2}\b",
    re.IGNORECASE,
)
"""An amount of money: a currency sign or name beside a number ("¥68,000", "5 lei", "NOK
150,000"), a number with thousands separators or a magnitude ("689,000", "32k", "2.38 million"), a share ("19
percent"), a rate ("0.10 per word", "$55 a day"), a price with cents ("19.20")."""
QUANTITY = re.compile(
    r"\b\d+(?:[.,]\d+)?\s*(?:kg|kilos?|g|grams?|lbs?|oz|km|kilometres?|kilometers?|m|metres?|meters?|cm|mm|miles?|"
    r"l|litres?|liters?|ml|gb|mb|tb|kwh|m²|m2|sq ?m|square (?:metres?|meters?|feet)|ft|feet|inch(?:es)?|°c?|degrees?)(?!\w)",
    re.IGNORECASE,
)
"""A measured quantity: a number before a unit of weight, length, volume, data, area or temperature ("19 kg",
"600 GB", "58 m²")."""
_MONTH_NAMES = r"jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august|september|october|november|december"
_AGE_END = r"(?=\s*(?:$|[,.;!?)\]]|(?:and|or|but|who|with|now|today|yesterday|tomorrow|so|too|already|next|last|this|in|on|at|since|when)\b))"
_AGE = re.compile(
    r"\b\d{1,3}(?:\s+|-)(?:years?|yrs?|months?|weeks?)(?:\s+|-)old\b"
    rf"|\b(?:aged?|turn(?:s|ed|ing)?|(?:is|was|'s|’s) (?:now |just |only |nearly |almost )?)\s*\d{{1,3}}{_AGE_END}"
    rf"|\b(?!(?i:(?:mon|tues|wednes|thurs|fri|satur|sun)day|{_MONTH_NAMES})\b)[A-Z][^\W\d_]+(?:,\s*|\s+\(|\s+)\d{{1,2}}\)?{_AGE_END}",
    re.UNICODE,
)
"""An age: a number of years, months or weeks "old" ("9 years old", "a 6-month-old"), a number after "is", "turned",
"aged" with no unit after it ("Theo is 6", "she's 7", "just turned 1"), or a name with a bare small number beside it
("Pilpili, 9, ...", "Lucas (5)", "kids Juma 10 and Aisha 5"), not a day of a month ("Saturday 15 May")."""
_DAY_NAMES = r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?s?"
_STEPS = re.compile(
    r"(?:^|[\s:;,(])(?:\d{1,2}[.)]|\(\d{1,2}\))\s+[^\W\d]"
    r"|\b(?:step|week|day|phase|stage|part) \d{1,2}\s*[:.)–-]"
    rf"|\b{_DAY_NAMES}(?:\s*(?:/|,|and|&)\s*{_DAY_NAMES})*(?:\s*\([^)]{{0,20}}\))?\s*:",
    re.IGNORECASE,
)
"""An item of something drawn up: a numbered item ("1. Write the dates on the calendar", "2) pack a snack"), a step,
week or day by number ("Week 2: first aid"), or a day of the week heading what to do on it ("Mon/Wed/Fri: rice and
fish", "Sunday: flashcards")."""
_ASKS_STEPS = re.compile(
    r"\b(?:steps?|stages?|phases?)\b|\b(?:week|day|step|phase) \d{1,2}\b"
    r"|\bthe (?:[\w'’-]+ ){0,3}(?:list|checklist|plan|schedule|routine|system|timeline|itinerary|recipe|instructions|programme|program)\b",
    re.IGNORECASE,
)
"""A question about what a plan, list or schedule drawn up says ("What was week 2 of the study plan?", "What is the
first step of the wedding checklist?", "What does the schedule say to do on Sundays?")."""
_RELATION = re.compile(
    r"\b(?:wife|husband|partner|spouse|fianc[ée]e?|girlfriend|boyfriend|daughter|son|child|kid|baby|mother|mum|mom|"
    r"father|dad|parents?|sister|brother|sibling|twin|cousin|aunt|auntie|uncle|niece|nephew|grand(?:mother|father|ma|pa|"
    r"son|daughter|child)|granny|in-law|stepmother|stepfather|stepson|stepdaughter|friend|best friend|flatmate|roommate|"
    r"housemate|neighbou?r|colleague|coworker|co-worker|boss|manager|supervisor|co-supervisor|mentor|tutor|"
    r"teacher|coach|student|client|landlord|landlady|tenant|doctor|dentist|gp|therapist|vet|lawyer|accountant|"
    r"trainer|assistant|pet|dog|cat|puppy|kitten|horse)s?\b",
    re.IGNORECASE,
)
"""A relation that says who someone is to someone else (kin, household, work, care, a pet): "Henrik's daughter
Mette", "Mette, my neighbour"."""

_MONEY_NOUN = (
    r"rent|price|prices|cost|costs|fee|fees|budget|salary|wage|wages|rate|bill|deposit|fare|loan|payment|savings|"
    r"charge|tip|refund|fine|income|allowance|pocket money"
)
_MONEY_VERB = r"cost|costs|pay|pays|paid|charge|charges|charged|spend|spent|earn|earns|earned|owe|owes|owed|make|makes|made"
_ASKS_AMOUNT = re.compile(
    r"^\W*(?:and |so )?(?:"
    r"how much\b(?! (?:time|longer|later|earlier|sooner)\b)"
    rf"|(?:what|which) (?:is|was|are|were|'s|’s|will be) (?:\S+ ){{0,4}}?(?:{_MONEY_NOUN})\b"
    rf"|(?:what|which) (?:{_MONEY_NOUN})\b"
    rf"|(?:what|which) (?:did|does|do|will|would) (?:\S+ ){{1,5}}?(?:{_MONEY_VERB})\b"
    r")",
    re.IGNORECASE,
)
"""A question asking for an amount: "How much ...?", "What is the rent ...?", "What is Dana's budget?", "What price
...?", "What did the flour cost?"; not "What does Dana prefer to do the budget in?" (the noun is not what is asked)."""
_MONEY_WORD = re.compile(rf"\b(?:{_MONEY_NOUN}|{_MONEY_VERB})\b", re.IGNORECASE)
_ASKS_DURATION = re.compile(
    r"^\W*(?:and |so )?(?:for )?(?:how long\b(?! ago\b)|how much (?:time|longer)\b)",
    re.IGNORECASE,
)
_ASKS_CLOCK = re.compile(
    r"^\W*(?:and |so )?(?:at |by |until |till |from )?what time (?:is|was|are|were|does|do|did|will|would|should|can|'s|’s)\b",
    re.IGNORECASE,
)
""""What time is the call?", "Until what time is the shop open?"; not "What time format ...?" (a noun after "time")."""
_ASKS_TIME_VALUE = re.compile(r"^\W*(?:and |so )?(?:what|which) (?!time\b)[a-z-]+ time\b", re.IGNORECASE)
_ASKS_AGE = re.compile(r"^\W*(?:and |so )?how old\b", re.IGNORECASE)
_ASKS_IDENTITY = re.compile(r"^\W*(?i:and |so )?(?i:who)(?: is|'s|’s| was| are| were) ([A-Z][\w'’-]*\.?(?: [A-Z][\w'’-]*)*)\s*\??\s*$")

_ACCEPTS: dict[str, frozenset[Kind]] = {
    "money": frozenset({"money"}),
    "amount": frozenset({"money", "quantity"}),
    "duration": frozenset({"duration"}),
    "clock": frozenset({"clock"}),
    "time": frozenset({"duration", "clock"}),
    "identity": frozenset({"identity"}),
    "age": frozenset({"age"}),
}


def asked_kind(question: str) -> tuple[str, frozenset[Kind]] | None:
    """(the slot, the kinds of value that answer it) that ``question`` asks for, None for none of these: "How much is the
    rent?" -> amount; "How long ...?" -> duration; "What time ...?" -> clock; "What finishing time ...?" -> duration
    or clock; "Who is Mette?" -> identity; "How old is Theo?" -> age."""
    text = question.strip()
    for slot, pattern in (
        ("duration", _ASKS_DURATION), ("amount", _ASKS_AMOUNT), ("clock", _ASKS_CLOCK), ("time", _ASKS_TIME_VALUE),
        ("identity", _ASKS_IDENTITY), ("age", _ASKS_AGE),
    ):  # fmt: skip
        if pattern.search(text):
            if slot == "amount" and _MONEY_WORD.search(text):  # "How much does Lupe pay for masa?": money, not pounds of it
                slot = "money"
            return slot, _ACCEPTS[slot]
    return None


def asks_steps(question: str) -> bool:
    """True when ``question`` asks what something drawn up says (a plan, a list, a schedule, its steps): an item of
    it answers, which states the ``"steps"`` kind."""
    return bool(_ASKS_STEPS.search(question))


def stated_kinds(text: str) -> frozenset[Kind]:
    """The kinds of value ``text`` (a record's text without its speaker label) states."""
    found: set[Kind] = set()
    if _DURATION.search(text):
        found.add("duration")
    if _CLOCK.search(text):
        found.add("clock")
    if _MONEY.search(text):
        found.add("money")
    if QUANTITY.search(text):
        found.add("quantity")
    if _RELATION.search(text) or ROLE.search(text):
        found.add("identity")
    if _AGE.search(text):
        found.add("age")
    if _STEPS.search(text):
        found.add("steps")
    return frozenset(found)
