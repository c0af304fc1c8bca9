"""Arrangements, for :mod:`memdesk.timeexpr.tense`: a date that a verb of arranging sets, moves, approves, cancels or
asks for, or that something is got for or from, is ahead of the arranging however it is narrated ("I booked my training
for 21 June", "We got a two-room flat from 1 March"): :func:`set_for`; so is what a past verb of asking or offering
governs (:func:`governs_infinitive`: "offered to drive me there on Tuesday") and what a clause opening with an
arrangement's participle dates (:func:`booked_note`: "..., booked on the 23rd")."""

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


#: A past verb of asking, offering, promising or deciding with the infinitive it governs: what the infinitive says is
#: ahead of the asking ("My neighbour offered to drive me there on Tuesday", "The club asked me to give a talk on 25
#: May"); "had to", "tried to", "went to see" narrate what was done.
PROJECTING = re.compile(
    r"\b(?:asked|offered|invited|told|promised|agreed|decided|arranged|planned|volunteered|hired|persuaded|reminded|"
    r"begged|encouraged|expected|chose|wanted|needed)\s+(?:(?!to\b)[\w'-]+\s+){0,2}?to\s+"
    r"(?!(?:the|a|an|my|our|his|her|their|your|its|this|that|work|school|town|bed|church|hospital)\b|\d)(?-i:[a-z]+)\b",
    re.IGNORECASE,
)


def governs_infinitive(text: str, at: int, end: int) -> bool:
    """Whether the past verb at ``at`` of ``text`` is one of asking, offering or deciding with its infinitive
    (:data:`PROJECTING`) ending before ``end``."""
    m = PROJECTING.match(text, at)
    return m is not None and m.end() <= end


#: A clause that is an arrangement's participle and its date ("booked on the 23rd", "scheduled for Friday", "all set
#: for 4 May"): the words before the date.
BOOKED_NOTE = re.compile(
    r"\W*(?:(?:and|also|now|all|already|just)\s+)*(?:(?:re)?booked|scheduled|rescheduled|set|planned|fixed|confirmed|arranged|"
    r"pencill?ed)(?:\s+in)?(?:\s+[\w'-]+){0,3}?\s+(?:on|for|at|in)?\s*",
    re.IGNORECASE,
)


def booked_note(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is only an arrangement's participle before a date (:data:`BOOKED_NOTE`)."""
    return BOOKED_NOTE.fullmatch(text, start, end) is not None
