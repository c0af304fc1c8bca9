"""How sure a past reading of a date is, for :mod:`memdesk.timeexpr.resolve`: a clause that narrates with a finite past
verb of its own ("I went there on 3 May", "the shop closed on 3 March", "it was 950 in February") puts a date said
without its year in the most recent past occurrence. A past that is only lent or only looks like one does not; the date
is the occurrence nearest the message, as a person reads it:

* a clause with no verb of its own takes the past of another clause only loosely ("I had knee surgery, two weeks off,
  back at the desk on 9 March", said on 27 February, is back in ten days; "We had a week in Porto, home again on 2
  August", said in October, came back in August), unless it goes on with the story ("We went to Rome, then Florence on 3
  May", said in February, is the May before);
* a note's participle after a bare noun, with no determiner, subject pronoun or auxiliary ("office closed from 23
  to 27 March", "kitchen done 14 November"), is a headline: closed, done or paid is a state on that date, ahead or behind,
  not a narrated event.

Only the year (or month) of a date is read so; a weekday keeps the tense's direction ("engine fixed on Thursday", said on
Monday, was last Thursday): a week either way is what tense tells apart, a year is what a person would not leave
unsaid.

:func:`loose_past` tells which, for a clause :func:`~memdesk.timeexpr.tense.clause_tense` has read as past (or as a
verbless note after a narrated clause).
"""

from __future__ import annotations

import re
from typing import Literal

from .tense import after_heading, date_clause_words, narrating_past, sentence_tense, verbless

#: The head of a headline before its participle: one or two lower-case words at the start of the clause, none a
#: determiner, a pronoun, an auxiliary or a conjunction ("office closed", "kitchen tiles done"; not "the shop
#: closed", "we closed", "it was closed"), nor a family word said as a name ("mum passed away on 3 May" narrates).
_HEADLINE = re.compile(
    r"\W*(?:(?:also|just|still|then)\s+)?(?:(?!(?:the|a|an|my|your|his|her|its|our|their|this|that|these|those|i|you|"
    r"we|they|he|she|it|who|which|there|and|but|so|or|then|is|are|was|were|be|been|has|have|had|to|not|"
    r"mum|mom|mam|dad|mama|papa|nan|nana|gran|granny|grandma|grandpa|grandad|granddad|baby)\b)"
    r"(?-i:[a-z][a-z'-]*)\s+){1,2}$",
    re.IGNORECASE,
)


#: Participles of a state a note gives a date ("Closed 22 to 24 December", "Kitchen done 14 November"): headlines
#: even at the head of a sentence (capitalised) or with no noun before them.
_STATES = frozenset(("done", "closed", "shut", "sorted"))
_STATE_HEAD = re.compile(
    r"\W*(?:(?!(?:the|a|an|my|your|his|her|its|our|their|i|you|we|they|he|she|it|there|is|are|was|were|has|have|had)\b)"
    r"[A-Za-z][a-z'-]*\s+){0,2}$",
    re.IGNORECASE,
)
#: A clause that goes on with the narration before it: the next event of the story, not a note ("We went to Rome,
#: then Florence on 3 May" is the May before).
_GOES_ON = re.compile(r"\W*(?:and\s+)?(?:then|after that|afterwards|later|next day|the next day)\b", re.IGNORECASE)
#: What follows the "got" of "(have) got": what is had ("got a test", "got my scan", "got two interviews").
_HAS_GOT = re.compile(r"\s+(?:a|an|my|our|his|her|their|two|three|some|another)\b", re.IGNORECASE)
#: Past cues that narrate whatever stands before them.
_STRONG = frozenset(("was", "were", "ago", "yesterday"))


def loose_past(text: str, span: tuple[int, int], tense: str) -> Literal["lent", "headline"] | None:
    """Whether the ``tense`` that :func:`~memdesk.timeexpr.tense.clause_tense` gave the date at ``span`` of ``text`` is a
    loose past: "lent" when the date's clause has no narrating past of its own in a sentence that narrates (a "present"
    verbless note after a narrated clause too: "We had a week in Porto, home again on 2 August"), "headline" when its
    only past is a participle after a bare noun at the clause's start; ``None`` otherwise."""
    if tense == "present":
        return "lent" if verbless(text, span) and sentence_tense(text) == "past" else None
    words = date_clause_words(text, span)
    if sentence_tense(words) != "past":
        return None if _GOES_ON.match(words) else "lent"
    cues = narrating_past(words)
    if cues and all(c[0].lower() == "got" and _HAS_GOT.match(words, c.end()) for c in cues):
        # "i got a driving test on 9 May": "got" before what is had is also the "(have) got" of the present, so it is no
        # narration of its own ("we got to Lisbon on 3 May" narrates)
        return "lent"
    if cues and all(c[0].lower() not in _STRONG and not c[0].lower().startswith("last") and (
        _HEADLINE.fullmatch(words, 0, c.start()) or (c[0].lower() in _STATES and _STATE_HEAD.fullmatch(words, 0, c.start()))
    ) for c in cues):
        return "headline"
    at = text.find(words)
    if cues and at >= 0 and after_heading(text, at) and not words[: cues[0].start()].strip() and cues[0][0].lower() not in _STRONG:
        # a participle right after a heading ("Decided: closed on Sundays in January and February"): what the heading
        # announces, a state on that date, not a narrated event
        return "headline"
    return None
