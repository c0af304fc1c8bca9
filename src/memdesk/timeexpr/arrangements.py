"""Arrangements, for :mod:`memdesk.timeexpr.tense`: a date that a verb of arranging sets, moves, approves, cancels or
asks for, or that something is got for or from, is ahead of the arranging however it is narrated ("I booked my training
for 21 June", "We got a two-room flat from 1 March"): :func:`set_for`."""

from __future__ import annotations

import re

from .words import DAY_RE, MONTH_RE, WEEKDAY_RE

#: A date set by an arrangement, however many words stand between: "I booked my training for 21 June",
#: "We've moved the trip to 4 August", "They put the match back to 3 May", "We rented an office from 1 December",
#: "We booked a cottage near the coast, 18 to 25 October" (the booking is past, what it books is ahead); "rebooked" is
#: a booking too ("The clinic rebooked my scan for 2 July").
#: The verbs of it are those that set, move, approve or cancel what is planned, in any form ("decided to move the
#: wedding to 12 June", "HR confirmed my leave from 1 May", "release targeted for 14 November", "I cancelled the exam
#: in June": the exam was to be in the coming June), or ask for it ("I asked for 27 to 30 December off"). A weekday
#: may name the day ("test booked at the centre for Saturday the 31st", "moved the call to Friday").
_SET_FOR = re.compile(
    r"\b(?:(?:re)?book(?:ed|ing)?|reserv(?:e|ed|ing)|schedul(?:e|ed|ing)|arrang(?:e|ed|ing)|plann(?:ed|ing)|set|fix(?:ed|ing)?|"
    r"mov(?:e|ed|ing)|postpon(?:e|ed|ing)|reschedul(?:e|ed|ing)|push(?:ed|ing)?|put|chang(?:e|ed|ing)|brought|"
    r"delay(?:ed|ing)?|extend(?:s|ed|ing)?|signed \w+ up|rent(?:ed|ing)?|hir(?:e|ed|ing)|leas(?:e|ed|ing)|target(?:ed|ing)?|slated|"
    r"pencill?ed(?: in)?|confirm(?:s|ed|ing)?|approv(?:e|es|ed|ing)|agreed|granted|ask(?:s|ed|ing)?|request(?:s|ed|ing)?|"
    r"appl(?:y|ies|ied|ying)|(?P<cancel>cancel(?:s|led|ed|ling|ing)?|"
    r"called off))\b(?:[\s,]+[\w'-]+){0,12}?"
    r"(?:\s+(?:for|to|until|till|from|(?(cancel)(?:in|on)|(?!)))|,)\s+(?:the\s+)?"
    rf"(?:{WEEKDAY_RE},?\s+(?:the\s+)?)?(?:{DAY_RE}(?:\s*(?:-|\u2013|to)\s*{DAY_RE})?\s+(?:of\s+)?{MONTH_RE}|{MONTH_RE}\s+{DAY_RE}|"
    rf"(?(cancel){MONTH_RE}|(?!))|(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)|(?<!,\s){WEEKDAY_RE})\b",
    re.IGNORECASE,
)


#: What is got for a date or from one is had then: "We got a two-room flat from 1 March", "I got tickets for 9 May".
_GOT_FOR = re.compile(
    rf"\b(?:got|gotten)\s+(?!(?:back|home|up|out|in|off|away)\b)[\w'-]+(?:\s+[\w'-]+){{0,7}}?\s+(?:from|for)\s+(?:the\s+)?"
    rf"(?:{DAY_RE}\s+(?:of\s+)?{MONTH_RE}|{MONTH_RE}\s+{DAY_RE})\b",
    re.IGNORECASE,
)


def set_for(text: str, span: tuple[int, int]) -> bool:
    """Whether the date at ``span`` is what an arrangement verb before it in ``text`` sets (:data:`_SET_FOR`), or
    what is got for it or from it (:data:`_GOT_FOR`)."""
    return any(m.end() > span[0] for p in (_SET_FOR, _GOT_FOR) for m in p.finditer(text, 0, span[1]))

