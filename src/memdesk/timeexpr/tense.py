"""Tense cues of time expressions, for :mod:`memdesk.timeexpr.resolve`: whether a sentence or the clause holding an
expression narrates (past), plans (future) or states (present), so "on Friday" is the Friday before or after the
message (:func:`sentence_tense`, :func:`clause_tense`), and when a phrase is a verbless note or a booking."""

from __future__ import annotations

import re
from typing import Literal

from ..text.english import ED_ADJECTIVES, IRREGULAR_PAST, SAME_AS_PRESENT
from .arrangements import booked_note, governs_infinitive, set_for
from .progressive import progressive


FUTURE_CUE = re.compile(
    r"\b(?:will|won't|shall|gonna|going to|plan(?:s|ning)? (?:to|on)|about to|can't wait|looking forward|"
    r"hop(?:e|ing) to|intend to|next|upcoming|coming up|tomorrow|soon|"
    # a wish is for what is still to come: "Good luck with the interview on Thursday", "Fingers crossed for a calm 1 April"
    r"good luck|best of luck|fingers crossed|"
    r"(?:am|is|are)\s+(?:\w+ly\s+)?(?:leaving|moving|starting|flying|going|coming|arriving|meeting|visiting|heading|"
    r"travell?ing|getting|having|doing|opening|seeing|taking|picking))\b|'ll\b|'(?:m|re|s)\s+(?:leaving|moving|starting|"
    r"flying|going|coming|arriving|meeting|visiting|heading|travell?ing|getting|having|doing|opening|seeing|taking|picking)\b",
    re.IGNORECASE,
)
#: Irregular past forms that are only past ("We ate there on Friday" narrates; "read", "put", "set" cue nothing).
_PAST_ONLY = IRREGULAR_PAST - SAME_AS_PRESENT
#: "last" as a time word: before a period, a named day, month or season, or a count of them ("last week", "last
#: Friday", "last May", "last night", "the last two years"); not the adjective of "my last day at work is 16 May", "the
#: last train", "last orders", which says nothing of when.
LAST_TIME = (
    r"last(?=\s+(?:week|weekend|month|year|night|time|summer|spring|autumn|fall|winter|season|term|semester|"
    r"(?:couple|few|several|\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\s+(?:of\s+)?"
    r"(?:days?|nights?|weeks?|weekends?|months?|years?|hours?|minutes?|decades?|times?|terms?|seasons?|summers?|winters?)|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|"
    r"september|october|november|december|christmas|easter|new year|thanksgiving|halloween)\b)"
    # not the place of a weekday in a month: "the last Saturday of April"
    r"(?!\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\s+(?:of|in)\b)"
)
_PAST_CUE = re.compile(
    r"\b(?:was|were|" + "|".join(sorted(_PAST_ONLY)) + r"|ago|yesterday|used|" + LAST_TIME + r"|[a-z]{3,}ed|[a-z]+ied)\b",
    re.IGNORECASE,
)


#: A time word that places what is said before now, whatever the verbs: "two weeks ago", "last May".
_PAST_TIME = re.compile(r"\b(?:ago|yesterday|" + LAST_TIME + r")\b", re.IGNORECASE)
#: A finite verb in the present: an auxiliary, or a verb that takes a participle as its complement. A past-looking
#: form after one is a participle, not a narrated past: "The inspection is confirmed for 15 May" (passive), "We've
#: booked the camp from 28 July" (a present perfect takes no date of its own: the date is what was booked), "She
#: needs a tooth removed on 22 July", "I want it finished by 26 April" (an object's complement).
_PRESENT_FINITE = re.compile(
    r"\b(?:am|is|are|has|have|do|does|need|needs|want|wants|get|gets|keep|keeps|leave|leaves)\b|'(?:m|re|ve)\b|"
    r"\b(?:it|he|she|that|there|what|who|this)'s\b",
    re.IGNORECASE,
)
#: What may stand before a participle used as an adjective, not before a finite verb: a determiner, a number or a
#: preposition ("a shared flat", "four raised beds", "from untreated larch"). A finite past verb follows its subject.
_ATTRIBUTIVE = re.compile(
    r"(?:\b(?:a|an|the|my|your|his|her|its|our|their|these|those|some|any|no|every|each|of|from|with|in|into|onto|"
    r"for|newly|freshly|very|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|several|many|few)|(?<![\w.])\d+)\s+$|"
    r"\(\s*$",  # an aside in brackets describes ("my dog Biscuit (retired racing greyhound)")
    re.IGNORECASE,
)
#: A heading of a note: one to three words before a colon at the start of a text or line ("Suggested schedule:",
#: "Updated plan:"): a label, not a narrated clause.
_HEADING = re.compile(r"(?:^|\n)\s*(?:[\w'-]+\s+){0,2}[\w'-]+\s*:")


#: A contracted "has", "have" or "is" after any subject ("Elin's", "the kids've"): a past-looking form after it is a
#: participle of the present perfect or the passive, or the "got" of "has got", not a narrated past.
_CONTRACTED = re.compile(r"\w['\u2019](?:s|ve)\s+(?:just\s+|already\s+|also\s+|now\s+|finally\s+)?$", re.IGNORECASE)


def after_heading(text: str, at: int) -> bool:
    """Whether position ``at`` of ``text`` opens what follows a heading ("Decided: closed on Sundays in January")."""
    head = _HEADING.match(text)
    return head is not None and not text[head.end() : at].strip()


#: "got to" before a verb ("i got to see the dentist", "we got to pay by Friday"): the modal "(have) got to", what one
#: must do; not "got to the station" or "got to Lisbon" (a place) nor "got to know" (came to).
_GOT_TO = re.compile(r"\s+to\s+(?!the\b|a\b|an\b|my\b|our\b|his\b|her\b|their\b|work\b|school\b|know\b|\d)(?-i:[a-z]+)\b", re.IGNORECASE)


#: "be" or "get" before "used": the adjective of "used to" ("I'm used to early starts"), not the verb.
_USED_TO_STATE = re.compile(r"\b(?:am|is|are|be|been|being|get|gets|getting|got)\s+$|'(?:m|re|s)\s+$", re.IGNORECASE)
#: "not" right before a past-looking form with no auxiliary: a participle of a state ("Not allowed to drive", "not
#: finished yet"); an auxiliary before "not" narrates by itself ("was not invited", "didn't").
_NEGATED = re.compile(r"(?:^|[^\w'])not\s+$", re.IGNORECASE)


def past_verb(text: str, m: re.Match[str]) -> bool:
    """Whether the past cue ``m`` of ``text`` (:data:`_PAST_CUE`) narrates: not an adjective in "-ed" ("excited"), not a
    participle after a determiner or a preposition ("a shared flat", "from untreated larch"), not a word of a heading
    ("Suggested schedule: ...")."""
    word = m[0].lower()
    if word in ED_ADJECTIVES:
        return False
    if word == "got" and _GOT_TO.match(text, m.end()):
        return False  # "i got to see the dentist on the 24th": "(have) got to" is a modal of need, not a past
    if word in ("was", "were", "ago", "yesterday") or word.startswith("last"):
        return True
    if word == "used" and _USED_TO_STATE.search(text, max(0, m.start() - 16), m.start()):
        return False  # "I'm used to it", "getting used to the early starts": a state, not "I used the strips in March"
    if _NEGATED.search(text, max(0, m.start() - 8), m.start()):
        return False  # "Not allowed to drive until the end of March": a participle after "not" (its "I'm" dropped)
    if _ATTRIBUTIVE.search(text, max(0, m.start() - 12), m.start()):
        return False
    if _CONTRACTED.search(text, max(0, m.start() - 16), m.start()):
        return False  # "Elin's got her speech on the 27th", "Tom's booked it": "has" or "is" before a participle
    head = _HEADING.match(text)
    return not (head is not None and head.start() <= m.start() < head.end())


def narrating_past(text: str) -> list[re.Match[str]]:
    """The past cues of ``text`` that narrate (:func:`past_verb`)."""
    return [m for m in _PAST_CUE.finditer(text) if past_verb(text, m)]


def sentence_tense(text: str) -> Literal["past", "future"] | None:
    """"future" if ``text`` plans something ("I'll", "going to", "next ..."), else
    "past" if it narrates ("went", "-ed" as a finite verb, "ago"), else ``None``. A past-looking form after a
    present finite verb (:data:`_PRESENT_FINITE`) is a participle and narrates nothing."""
    if FUTURE_CUE.search(text):
        return "future"
    if _PAST_TIME.search(text):
        return "past"
    if progressive(text):
        return None  # a present progressive: what it dates is ahead or under way (:func:`clause_tense`)
    present = _PRESENT_FINITE.search(text)
    first = next((m for m in _PAST_CUE.finditer(text) if past_verb(text, m)), None)
    if first is not None and (present is None or first.start() < present.start()):
        return "past"
    return None


#: A clause that looks forward from where it is said, whatever the tense of the rest of its sentence:
#: "I accepted a position, starting on 15 April" starts on the coming 15 April; what is booked, ordered,
#: signed up for or moved to a date happens then ("The fitters are booked for 2 March", "The fitting has
#: moved to 9 September").
_FORWARD_CUE = re.compile(
    r"\b(?:start(?:s|ing)?|begin(?:s|ning)?|due|until|till|scheduled|rescheduled|booked(?: in)? for|is booked|are booked|"
    r"open(?:s|ing)|kick(?:s|ing)? off|from now|(?:is|are|will be) (?:on|in|at)|deadline|to be \w+|won't be|will be|"
    r"signed up|registered|entered|ordered|pre-?ordered|postponed|delayed|pushed back|brought forward|put back|"
    r"(?:got|been|was|were) accepted|accepted (?:for|to|on)|got a (?:place|spot|slot)|invited to|selected for|shortlisted|"
    r"qualified for|(?:got|made it) into (?:the )?(?-i:[A-Z])\w*|"
    r"moved (?:\w+ )?to(?= (?:the )?\d| (?:january|february|march|april|may|june|july|august|september|october|november|december)\b))\b",
    re.IGNORECASE,
)
#: A clause in the present tense with a date: what is so on that date is the occurrence still to come or
#: just begun ("My dad turns 70 on 14 August", "From 1 October I'm driving for another firm").
_PRESENT = re.compile(
    r"\b(?:is|are|am|isn't|aren't|has|have|hasn't|haven't)\b|\b(?:i|you|we|they|he|she|it|that|there)'(?:m|re|s|ve)\b|"
    r"\b[a-z]+'s\s+(?:on|at|in|due|booked|set|scheduled|planned|coming|happening)\b|"
    r"\b(?:turns|starts|begins|ends|finishes|opens|closes|arrives|lands|departs|leaves|runs|falls|happens|takes place)\b",
    re.IGNORECASE,
)
#: A simple present after a personal subject: "We fly to Lisbon on Saturday", "She flies back on the 3rd" (with
#: a date, a timetable: ahead). A past form, a form that is also the past ("read", "put"), an auxiliary or a
#: modal after the subject is not one.
_SUBJECT_VERB = re.compile(r"\b(?:i|you|we|they|he|she)\s+(?:also\s+|just\s+|only\s+|both\s+|all\s+)?(?P<verb>[a-z]{2,})\b", re.IGNORECASE)
_NOT_SIMPLE_PRESENT = frozenset(
    """
    could would should might must may can will shall did do does was were had have has am is are
    don't didn't can't won't wouldn't couldn't shouldn't never always usually often
    """.split()
) | IRREGULAR_PAST | SAME_AS_PRESENT


def simple_present(clause: str) -> bool:
    """Whether ``clause`` has a simple-present verb after a personal subject ("we fly", "she flies")."""
    for m in _SUBJECT_VERB.finditer(clause):
        verb = m["verb"].lower()
        if verb in _NOT_SIMPLE_PRESENT or verb.endswith(("ed", "ing")):
            continue
        return True
    return False
#: An instruction or request opening a clause: it is about what is still to happen.
_REQUEST = re.compile(
    r"^\s*(?:please |and |so |then )*(?:book|remember|remind|plan|schedule|make sure|don't forget|order|buy|call|email|send|"
    r"add|note|put|keep|block|reserve|arrange|set|ask|tell|check|bring|take|try|phone|ring|text|pay|pick up|collect|"
    r"drop off|give|let|visit|avoid|wear)\b",
    re.IGNORECASE,
)
#: The words of a verbless note before its date: a noun phrase ("interview on", "flight out at 9 on"), not one
#: that carries on a narrated clause ("then", "and", "back", "before").
_NOTE = re.compile(
    r"\s*(?!(?:and|then|or|but|plus|also|back|before|after|until|till|while|when|since|the|on|in|at|by)\b)[a-z][\w'-]*(?:\s+[^\s,;:()]+){0,5}\s+$",
    re.IGNORECASE,
)
#: Where a clause ends: punctuation (not the comma of "1,600"; a full stop before a space, not after an abbreviation such
#: as "Dr." or "e.g."), a dash, or a conjunction.
_CLAUSE_BREAK = re.compile(
    r",(?!\d{3})|[;:()!?]|(?-i:(?<![A-Z][a-z])(?<!\b[A-Za-z])(?<!Mrs))\.(?=\s)|\s[-\u2013\u2014]\s|"
    r"\s(?:and|but|so|because|while|although|though|whereas)\s",
    re.IGNORECASE,
)


#: "and" between two participles joins them ("printed and delivered"): no clause starts there.
_JOINED = re.compile(r"[a-z]{2,}ed\s+and\s+[a-z]{2,}ed\b", re.IGNORECASE)


def _end_of_clause(text: str, at: int) -> int:
    after = _CLAUSE_BREAK.search(text, at)
    return after.start() if after else len(text)


def _has_verb(words: str) -> bool:
    """Whether ``words`` hold a finite verb, a modal or an instruction: a clause of their own."""
    return bool(sentence_tense(words) or progressive(words) or _PRESENT.search(words) or simple_present(words)
                or _LATER_PRESENT.search(words) or _REQUEST.match(words))


def _clause(text: str, span: tuple[int, int]) -> tuple[re.Match[str] | None, int, str]:
    """The break before the clause of ``text`` around ``span``, where the clause starts, and its words."""
    brk = None
    for b in _CLAUSE_BREAK.finditer(text, 0, span[0]):
        if b[0].strip().lower() == "and" and (j := _JOINED.search(text, max(0, b.start() - 30))) and j.start() < b.start() < j.end():
            continue
        if b[0].strip().lower() in ("and", "or") and not _has_verb(text[b.end() : _end_of_clause(text, b.end())]):
            continue  # "and" before words with no verb joins two phrases of one clause ("with my brother and his dogs in September")
        brk = b
    start = brk.end() if brk else 0
    after = _CLAUSE_BREAK.search(text, span[1])
    return brk, start, text[start : after.start() if after else len(text)]


def clause_words(text: str, span: tuple[int, int]) -> tuple[int, str]:
    """Where the clause of ``text`` around ``span`` starts, and its words: a month said in another clause names
    another date ("The fair moved to Saturday 3 October, frost forecast for the 25th": the 25th is the coming one)."""
    _brk, start, clause = _clause(text, span)
    return start, clause


def date_clause_words(text: str, span: tuple[int, int]) -> str:
    """The words of the clause that dates the expression at ``span``: its own clause, or the next one when its own is
    only the date ("On 3 May, we went to Paris": "we went to Paris")."""
    _brk, start, clause = _clause(text, span)
    after = _CLAUSE_BREAK.search(text, span[1])
    if _DATE_ONLY.fullmatch(text, start, span[0]) and after is not None and not text[span[1] : after.start()].strip():
        return text[after.end() : _end_of_clause(text, after.end())]
    return clause


def verbless(text: str, span: tuple[int, int]) -> bool:
    """Whether the clause of ``text`` around ``span`` has no verb that gives it a tense ("only one migraine in
    February", "interview in November"): its tense, if :func:`clause_tense` gives one, is a guess. A clause that is
    only the date is read with the clause after it ("In August, I flew to Oslo")."""
    clause = date_clause_words(text, span)
    return not (_FORWARD_CUE.search(clause) or _REQUEST.match(clause) or set_for(text, span) or sentence_tense(clause)
                or progressive(clause) or _PRESENT.search(clause) or simple_present(clause))


#: A finite verb in the present or a modal: after a past verb and before a date, it is the verb the date goes with
#: ("The landlord told us it goes up from 1 March", "Kade asked if I can do more hours in August", "Our mortgage
#: fixed rate ends in March": reported speech or a present clause keeps its own time).
_LATER_PRESENT = re.compile(
    r"\b(?:am|is|are|has|have|do|does|can|will|must|would|isn't|aren't|hasn't|haven't|doesn't|don't|can't|won't)\b|"
    r"'(?:m|re|ve|ll)\b|'d\s+(?!(?:been|gone|done|had|got|seen|known|left|[a-z]+ed)\b)(?=[a-z]{2,}\b)|\bit\s+(?:also\s+|just\s+|only\s+)?(?!(?:was|has|is|does)\b)[a-z]{2,}s\b|"
    r"\b(?:turns|starts|begins|ends|finishes|opens|closes|arrives|lands|departs|leaves|runs|falls|happens|goes|comes|"
    r"expires|renews|moves|rises|drops)\b",
    re.IGNORECASE,
)


def _present_after_past(text: str, start: int, end: int) -> bool:
    """Whether a present or modal verb follows the last narrating past verb of ``text[start:end]``."""
    last = None
    for m in _PAST_CUE.finditer(text, start, end):
        if past_verb(text, m):
            last = m
    return last is not None and (_LATER_PRESENT.search(text, last.end(), end) is not None or simple_present(text[last.end() : end]))


#: A personal pronoun, subject or object ("flu hit me on Monday" is a clause, not a note).
_PERSON = re.compile(r"\b(?:i|you|we|they|he|she|me|him|us|them)\b|\b(?:i|you|we|they|he|she)'", re.IGNORECASE)


#: The head of a note: at most four words before its date, none of them an article or a conjunction (a note drops
#: them: "Physio on Wednesday", "Choir practice on Thursday"; "But the generator died on Saturday" is a clause).
_NOTE_HEAD = re.compile(r"^\W*(?!(?:the|a|an|and|but|so|then|or)\b)[\w'-]+(?:\s+(?!(?-i:the|a|an)\b)[\w'-]+){0,3}\s+$", re.IGNORECASE)


def note(text: str, span: tuple[int, int]) -> bool:
    """Whether the clause of ``text`` around ``span`` is a note with no verb, no personal subject and no article
    before its date (:data:`_NOTE_HEAD`: "Physio on Wednesday at 8:30 with Dr Fabre"): a plan written down, not a
    narrated day ("We hit 200 orders on Thursday" has a subject, so a verb whose tense the form leaves open)."""
    _brk, start, clause = _clause(text, span)
    return verbless(text, span) and not _PERSON.search(clause) and _NOTE_HEAD.match(text, start, span[0]) is not None


def _in_list(text: str, brk: re.Match[str]) -> bool:
    """Whether the clause break ``brk`` (", and" or ",") follows a list item: a short segment with no verb between it
    and a comma before it ("a van" in "I need 20 chairs, a van, and ...")."""
    if brk[0].strip().lower() not in (",", "and"):
        return False
    before = text[: brk.start()].rstrip(" ,")
    commas = [c.start() for c in re.finditer(r",(?!\d{3})", before)]  # not the comma of "14,500"
    item = before[commas[-1] + 1 :].strip() if commas else ""
    return bool(item) and len(item.split()) <= 4 and not (sentence_tense(item) or _PRESENT.search(item) or simple_present(item))


def _opens_with_past(text: str, start: int, end: int) -> bool:
    """Whether the clause ``text[start:end]`` opens with its first narrating past form (no subject before it)."""
    first = next((m for m in _PAST_CUE.finditer(text, start, end) if past_verb(text, m)), None)
    return first is not None and re.fullmatch(r"\W*(?:and\s+|then\s+)?", text[start : first.start()]) is not None


#: A verb whose past is its present ("quit", "hurt", "cut"): its clause's tense is not in its form.
_SAME_FORM = re.compile(r"\b(?:" + "|".join(sorted(SAME_AS_PRESENT)) + r")\b", re.IGNORECASE)
#: The words before a date in a clause that is only that date ("On 3 March, ...", "And then, from the 4th, ...").
_DATE_ONLY = re.compile(r"\W*(?:(?:and|then|but|so|also|just)\s+)*(?:(?:on|in|from|by|until|till|at|since|after|before|for)\s+)?(?:the\s+)?", re.IGNORECASE)


def _forward(clause: str) -> bool:
    """Whether ``clause`` looks forward (:data:`_FORWARD_CUE`); "until" or "till" after a narrated past of the clause
    only bounds what it narrates ("Remy cried at drop-off till Thursday", said on Friday), unless a person before it
    is given the time ("Miriam gave me until 15 January")."""
    cues = list(_FORWARD_CUE.finditer(clause))
    return any(
        c[0].lower() not in ("until", "till") or sentence_tense(clause[: c.start()]) != "past" or _GRANTED.search(clause, 0, c.start())
        for c in cues
    )


def _projected(text: str, start: int, end: int) -> bool:
    """Whether the last narrating past verb of ``text[start:end]`` is one of asking, offering or deciding that governs
    an infinitive (:func:`.arrangements.governs_infinitive`): the date is the infinitive's, ahead."""
    cues = [m for m in _PAST_CUE.finditer(text, start, end) if past_verb(text, m)]
    if not cues:
        return False
    return governs_infinitive(text, cues[-1].start(), end)


#: A person right before "until": the span is given to them ("Miriam gave me until 15 January"), a time ahead.
_GRANTED = re.compile(r"\b(?:me|us|him|her|them|you)\s+$", re.IGNORECASE)


def clause_tense(text: str, span: tuple[int, int]) -> Literal["past", "future", "present"] | None:
    """The tense the clause of ``text`` around ``span`` (a time expression) gives it: "future" if the
    clause looks forward ("starting on 15 April", "booked for 2 March", "I booked my training for 21 June",
    "I'll", an instruction), else the clause's own tense ("past" if it narrates), else "present" if the clause
    is in the present tense ("My dad turns 70 on 14 August", "from 1 October I'm driving for ..."): the
    occurrence still to come or just begun, else "future" if the sentence arranges something ("Our week off
    is booked: a cabin from 13 October"), else the tense of the whole sentence (:func:`sentence_tense`).
    ``None``: no cue either way."""
    brk, start, clause = _clause(text, span)
    if _forward(clause) or _REQUEST.match(clause) or set_for(text, span):
        return "future"
    own = sentence_tense(clause)
    if own == "future":
        return own
    if own == "past" and _projected(text, start, span[0]):
        return "future"
    if own == "past" and booked_note(text, start, span[0]) and sentence_tense(text[: brk.start()] if brk else "") != "past":
        # a clause with no subject that opens with the participle of an arrangement ("needs the vet for his teeth,
        # booked on the 23rd at 3pm"): the date is what is booked, ahead; not after a clause that narrates
        return "future"
    if own == "past" and _present_after_past(text, start, span[0]):
        return "present"
    if own == "past" and brk is not None and _in_list(text, brk) and sentence_tense(text) != "past":
        # the last item of a list of objects ("I need 20 chairs, a van, and the boxes labelled by the 31st"): its
        # participle is the object's, the sentence's verb dates it
        return sentence_tense(text)
    if own == "past" and brk is not None and _opens_with_past(text, start, span[0]) and _FORWARD_CUE.search(text, 0, brk.start()) and (
        sentence_tense(text[: brk.start()]) != "past"
    ):
        # a clause with no subject of its own after an arrangement not narrated ("Knee surgery is booked, left knee
        # replacement on 8 July"): its past-looking first word cannot be a verb of the arrangement's subject; it is an
        # adjective ("The robot was delayed and went in on 18 September" narrates both)
        return "future"
    if progressive(clause):  # "A joiner called Ross is replacing the windows on 3 November": under way or ahead
        return "present"
    if own is not None:
        return own
    if _PRESENT.search(clause) or simple_present(clause):
        return "present"
    if _FORWARD_CUE.search(text, 0, start) or (_DATE_ONLY.fullmatch(text, start, span[0]) and _FORWARD_CUE.search(text, span[1])):
        # an arrangement said before ("Our week off is booked: a cabin from 13 October"), or after a clause that is
        # only the date ("On 3 March, I start at the bakery"); not one in a later clause of its own ("twisted my ankle on
        # Tuesday, ..., no running till Saturday": the rest is ahead, the fall was not)
        return "future"
    if brk is not None and not brk[0].strip().isalpha() and _NOTE.match(text, start, span[0]):
        # a verbless note of its own after a comma ("Embraer called, interview on the 1st of November"): what it
        # dates is not narrated by the other clause's verb; one that carries on from it ("..., then Rome on 3 May",
        # "..., the 3rd of May") is
        return "present"
    if _DATE_ONLY.fullmatch(text, start, span[0]) and re.match(r"\s*:", text[span[1] :]):
        # a date heading an item of a schedule ("- Thursday: go over the glaze notes - Saturday: one mock firing, timed"): what
        # the item says dates it, not another item's words; an item with no tense of its own is planned, so ahead
        return sentence_tense(date_clause_words(text, span)) or "present"
    whole = sentence_tense(text)
    if whole == "future" and _SAME_FORM.search(clause) and not FUTURE_CUE.search(text, 0, _end_of_clause(text, span[1])):
        # a plan said only in a later clause does not date an earlier one whose verb reads past as well as present
        # ("our driver quit on Tuesday, he's moving to Gdansk": the quitting is not ahead)
        return sentence_tense(text[:start]) if start else None
    return whole
