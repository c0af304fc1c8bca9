"""What a statement ends, read from the shape of the clause rather than from one verb list per attribute.

Three classes of statement end a thing without naming an attribute of the speaker:

* a **thing that ends**: a subject (a name, or "my/our/the" and a noun) with a predicate of ending:
  death, loss, departure, closing, failure, cancellation ("Sadly Marlow died", "My Vespa was stolen",
  "Okafor Lettings has gone bust", "The Crown double-booked us", "Jodie has left", "Thornby's too far
  now"). The predicate must be said as done (past or perfect, or "is too far/expensive ..."), never
  negated, wished or planned ("Jodie hasn't left", "Jodie might leave");
* a **verbless "no X"** clause: "..., so no climbing", "no more dairy for me": the activity named ends;
* a **thing given up** by the speaker: "I've handed the rota to Becky", "We've decided to sell the
  caravan", "I gave away my old bike": the thing named ends;
* what the speaker **used to** do ("I used to volunteer at the food bank"), a partner now an **ex** ("Arlo is my
  ex now");
* a **reversal** ("We take cheques again", "I'm back to running on Sundays"): what an earlier statement
  negated ("no cheques", "I can't run yet") holds again, so that statement ends (:func:`reverses`);
* the value of any other **end claim** (:mod:`.facts`, :mod:`.attributes`: "I'm not at Kestrel
  anymore", "I've gone off the mustard yellow") also ends every statement that names that value.

Each gives an ``ended`` claim (its value: the words naming the thing) or keeps the end claim it came
with; :func:`mentions` says whether an earlier statement names the thing: every content word of it in
the statement's text, the statement negating nothing itself, the thing not one item of a list
("potatoes, leeks and beans": one item ending does not end the rest of the list, and a record cannot
be half closed), and the statement not itself an ending of it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .claims import Claim, claims_in
from ..retrieval.stemming import content_stems, covered, stem, stems_meet

if TYPE_CHECKING:  # pragma: no cover
    from ..records import MemoryRecord

__all__ = ["ended_claims", "mentions", "negates", "reversal", "reverses", "valued_end"]

_CAP = r"(?-i:[A-ZÀ-ÖØ-ÞĀ-Ž][\w'&.-]*)"
#: a subject: a name ("Okafor Lettings", "Dr Penn") or a possessed/definite noun ("my fixie", "the runner beans")
_SUBJECT = (
    rf"(?P<thing>(?:(?-i:Dr|Mr|Mrs|Ms)\.?\s+)?{_CAP}(?:\s+{_CAP}){{0,3}}"
    r"|(?:my|our|the|his|her|their)\s+(?:old\s+)?[a-z][\w-]*(?:\s+(?!has\b|have\b|had\b|was\b|were\b|is\b|got\b)[a-z][\w-]*)?)"
)
_DONE = r"(?:\s+(?:has|have|had|was|were|got|is|are)|'s|'ve)?(?:\s+(?:just|finally|sadly|now|already|been))*"
#: predicates of ending: death, loss, theft, sale, departure, closing, failure, cancellation, distance
_ENDING = (
    r"(?:died|passed\s+away|put\s+down|put\s+to\s+sleep|stolen|written\s+off|scrapped|sold(?!\s+out)|rehomed|"
    r"ran\s+away|run\s+away|went\s+missing|gone\s+missing|left(?=\s*(?:$|[,.;:!?])|\s+(?:to|for)\s+[a-z]|\s+for\s+(?-i:[A-Z])|\s+(?-i:[A-Z])|\s+(?:the|our|my|his|her|their)\s+"
    r"(?:company|firm|team|practice|school|club|band|group|choir|office|department|business|country|area|boat|ship|crew|farm|project|programme|program|course)\b)|"
    r"moved\s+away|moved\s+out|moved\s+to(?=\s+(?-i:[A-Z]))|(?:retired|resigned|quit)(?=\s*(?:$|[,.;:!?])|\s+(?:as|at|from|the|his|her|their|last|this|on|in|after|because|and|so|but|early|yesterday|today)\b)|stepped\s+down|"
    r"handed\s+(?:over\s+)?(?:(?:the|his|her|their|its)\s+)?[\w-]+(?:\s+[\w-]+)?\s+(?:over\s+)?to|"
    r"closed(?:\s+down)?|closing(?:\s+down)?|shut(?:\s+down)?|shutting\s+down|gone\s+bust|(?:over|off)(?=\s*(?:$|[,.;:!?]|\s+(?:so|and|now|this|for|until|till|after\s+all)\b))|went\s+bust|gone\s+under|folded|"
    r"failed|fell\s+through|double-booked|cancell?ed|called\s+off|ended\s+(?:the|our|my|it)|"
    r"adopted(?=\s+(?:too|now|by\s+(?:a|an|the|some|his|her|their)\b)|\s*(?:$|[,.;:!?]))|"
    r"too\s+(?:far|expensive|dear|small|big|noisy|busy|much))\b"
)
_THING_ENDS = re.compile(
    rf"(?:^|[,;:]\s*|\b(?:so|and|but|because|since|as|sadly|unfortunately|then)\s+)(?:(?:sadly|unfortunately),?\s+)?"
    rf"{_SUBJECT}{_DONE}\s+{_ENDING}",
    re.IGNORECASE,
)
#: what a person left, quit or resigned from, when named ("Vidya Academy", "the choir")
_LEFT_WHAT = re.compile(r"\s+(?!(?:for|to|early|late|today|yesterday|last|this|on|in|at|after|because|and|but|so)\b)(?:from\s+)?(?:the\s+|our\s+|my\s+|his\s+|her\s+|their\s+)?(?P<what>(?-i:[A-ZÀ-ÖØ-ÞĀ-Ž][\w'&-]*)(?:\s+(?-i:[A-ZÀ-ÖØ-ÞĀ-Ž][\w'&-]*))*|[a-z][\w-]+)")
_KIN = re.compile(
    r"(?:son|daughter|mum|mom|dad|mother|father|parents|brother|sister|grandson|granddaughter|aunt|uncle|cousin|niece|nephew|"
    r"husband|wife|partner|kids|children|child|family)\b",
    re.IGNORECASE,
)
_PRONOUNS = frozenset("i i've i'm i'd i'll we we've we're we'd we'll you he she they it this that there here".split())
_NOT_THINGS = frozenset(
    "i i've i'm i'd i'll we we've we're we'd we'll you he she they it this that there here so and but then my our the his her their also now "
    "sadly unfortunately today yesterday monday tuesday wednesday thursday friday saturday sunday".split()
)
#: "..., so no climbing", "no more dairy": a clause of no verb that rules an activity out
_NO_MORE = re.compile(
    r"(?:(?:^|[,;:]\s*)no\s+more\s+|[;:]\s*no\s+|\bso\s+no\s+(?:more\s+)?)(?P<thing>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)(?=\s*(?:$|[,.;:!?]|\s+(?:for|until|till|now|anymore|this|at)\b))",
    re.IGNORECASE,
)
#: the speaker gives a thing up: "I've handed the rota to Becky", "we've decided to sell the caravan"
_GIVEN_UP = re.compile(
    r"\b(?:i|we)(?:'ve|\s+have|'d|\s+had|'m|\s+am|'re|\s+are)?\s+(?:just\s+|finally\s+)?(?:(?:decided\s+to|had\s+to|agreed\s+to)\s+)?"
    r"(?:(?P<hand>handed|hand|passed|pass)\s+(?:over\s+|on\s+)?|(?:gave|given|give)\s+(?:away|up)\s+|(?:sold|sell|got\s+rid\s+of|get\s+rid\s+of)\s+|"
    r"(?:taking|having|on|took|taken)\s+a\s+break\s+from\s+|finished\s+(?=(?-i:[A-Z])[\w-]*'s\s)|finished\s+(?:at|with)\s+(?=the\s+(?-i:[A-Z])))"
    r"(?P<thing>(?:the|my|our|(?-i:[A-Z])[\w-]*'s)\s+(?:old\s+)?(?:[\w-]+\s+){0,2}?[\w-]+)"
    r"(?=\s+(?:over\s+|on\s+)?to\b|\s*(?:$|[,.;:!?])|\s+(?:at|for|because|since|as|so|and|but|until|till|last|this|yesterday)\b)",
    re.IGNORECASE,
)
#: what the speaker left, was taken off or resigned as: "Left Casa Lobo, my notice ended Friday", "they took me off the night run", "I've resigned
#: as treasurer" (a place named, said as done and nothing after it but the end of the clause or when)
_CLAUSE_END = r"(?=\s*(?:$|[,.;:!?])|\s+(?:and|so|but|because|after|last|this|yesterday|today|for\s+good)\b)"
_SPEAKER_LEFT = re.compile(
    rf"\b(?:i|we)(?:'ve|\s+have)?\s+(?:just\s+|finally\s+)?left\s+(?P<thing>{_CAP}(?:\s+{_CAP}){{0,3}}){_CLAUSE_END}"
    rf"|\b(?:took|taken|take|moved|pulled|dropped)\s+(?:me|us)\s+off\s+(?P<off>(?:the|my|our)\s+[\w'-]+(?:\s+[\w'-]+){{0,2}}?){_CLAUSE_END}"
    rf"|\b(?:i|we)(?:'ve|\s+have|'m|\s+am|'re|\s+are)?\s+(?:just\s+|been\s+)?(?:resigned|stepped\s+down|standing\s+down|quit)\s+as\s+(?:the\s+|our\s+)?"
    rf"(?P<role>[a-z][\w-]*(?:\s+[a-z][\w-]*)?){_CLAUSE_END}",
    re.IGNORECASE,
)
_AT_WORK = re.compile(r"\b(?:start(?:ing|ed|s)?|job|work(?:ing)?|joined|hired|notice|boss|shift|contract|position|role|kitchen|office)\b", re.IGNORECASE)
#: a day's exception, not an end: "bank holiday today so no cycling" (but "no more dairy from today" is one)
_ONE_DAY = re.compile(r"(?<!from\s)(?<!starting\s)(?<!as\s\sof\s)\b(?:today|tonight|tomorrow|this\s+(?:morning|afternoon|evening))\b", re.IGNORECASE)
#: "I used to volunteer at the food bank": what the speaker did and does no longer
_USED_TO = re.compile(
    r"\b(?:i|we)\s+used\s+to\s+(?P<thing>[a-z][\w'-]*(?:\s+[\w'&-]+){0,5}?)(?=\s*(?:$|[,.;:!?])|\s+(?:but|until|before|when|and|so|every|on|in\s+(?:19|20)\d\d)\b)",
    re.IGNORECASE,
)
#: "Arlo is my ex now", "my ex-husband, Col": a partner who is one no longer
_EX = re.compile(rf"\b(?P<thing>{_CAP})\s+is\s+(?:now\s+)?my\s+ex\b|\bmy\s+ex(?:-[a-z]+)?,?\s+(?P<named>{_CAP})(?![\w'-])")
_NEGATED = re.compile(r"\b(?:not|never|n't|no\s+longer|if|might|may|could|would|should|will|'ll|hope|hoping|afraid)\b", re.IGNORECASE)

_WORDS = re.compile(r"[a-z0-9]+")
_NEGATION = re.compile(r"\b(?:no\s+longer|not|never|n't|anymore|any\s+more)\b", re.IGNORECASE)


#: sentence adverbs and conjunctions that open a clause, never part of a thing's name ("Also Eirik quit")
_OPENERS = frozenset("also and but so then now well anyway btw update sadly finally".split())


def _thing(raw: str) -> str | None:
    words = raw.strip(" ,.;:!?'\"").split()
    while words and words[0].lower() in _OPENERS:
        words = words[1:]
    while words and (words[0].lower() in ("my", "our", "the", "his", "her", "their") or words[0] == "old"):
        words = words[1:]
    if words and words[-1].endswith("'s"):
        words[-1] = words[-1][:-2]
    if not words or words[0].lower() in _PRONOUNS or " ".join(words).lower() in _NOT_THINGS:
        return None
    return " ".join(words)


def ended_claims(text: str, speaker_names: frozenset[str] = frozenset()) -> list[Claim]:
    """The ``ended`` claims of one sentence in the speaker's words (see the module docstring)."""
    text = text.replace("\u2019", "'")
    out: list[Claim] = []
    for m in _THING_ENDS.finditer(text):
        before = text[max(0, m.start("thing") - 40) : m.start("thing")]
        clause = text[m.start("thing") : m.end()]
        if _NEGATED.search(clause) or re.search(r"\b(?:if|when|whether|in case)\s*$", before, re.IGNORECASE):
            continue
        thing = _thing(m.group("thing"))
        if thing and _KIN.match(thing) and not re.search(r"died|passed|put", m.group(0), re.IGNORECASE):
            continue  # "my sister has moved to Lille": a family member moves house, and stays family
        if thing and (left := _LEFT_WHAT.match(text, m.end())) and re.search(r"(?:left|quit|resigned)$", m.group(0), re.IGNORECASE):
            thing = f"{thing} {left.group('what')}"  # "Arjun left Vidya Academy": Arjun at the academy ends, not Arjun
        if thing and thing.lower() not in speaker_names:
            out.append(Claim(attribute="ended", value=thing, op="end"))
    for m in _GIVEN_UP.finditer(text):
        if m.group("hand") and not re.match(r"\s+(?:over\s+|on\s+)?to\b", text[m.end() :], re.IGNORECASE):
            continue  # "I passed the test": handed on only to someone
        if not _NEGATED.search(text[: m.start()][-25:]) and (thing := _thing(m.group("thing"))):
            out.append(Claim(attribute="ended", value=thing, op="end"))
    for m in _SPEAKER_LEFT.finditer(text):
        if m.group("thing") and not _AT_WORK.search(text):
            continue  # "I left Paris yesterday": a trip; "left Casa Lobo, starting at the Ritz on Monday": a job
        if not _NEGATED.search(text[: m.start()][-25:]) and (thing := _thing(m.group("thing") or m.group("off") or m.group("role"))):
            out.append(Claim(attribute="ended", value=thing, op="end"))
    for m in _USED_TO.finditer(text):
        if thing := _thing(m.group("thing")):
            out.append(Claim(attribute="ended", value=thing, op="end"))
    for m in _EX.finditer(text):
        if thing := _thing(m.group("thing") or m.group("named")):
            out.append(Claim(attribute="ended", value=thing, op="end"))
    for m in _NO_MORE.finditer(text):
        if _ONE_DAY.search(text):
            break  # "bank holiday today, so no cycling": one day off, not an end
        if thing := _thing(m.group("thing")):
            out.append(Claim(attribute="ended", value=thing, op="end"))
    return out


def valued_end(claim: Claim) -> str | None:
    """The words naming what an end claim ends, when it names one (``None`` for an end of a whole attribute
    or slot, a textual change, update or reversal, a revision, and a person leaving a role: that closes the
    role, not every statement naming the person)."""
    if claim.op != "end" or not claim.value or claim.attribute in ("change", "update", "revision", "reversal", "role", "contrast"):
        return None
    return claim.value if _thing(claim.value) else None


_ITEM = r"(?!(?:i|we|he|she|they|it|you|my|our|his|her|their|the|so|then)\b)[\w'-]+(?:\s+[\w'-]+)?"


def _in_list(text: str, value: str) -> bool:
    """Whether ``value`` is one item of a list in ``text``: "potatoes, leeks, beans and rhubarb" (three items
    or more), or two names joined ("Dolly and Peg")."""
    v = re.escape(value)
    for m in re.finditer(rf"(?:{_ITEM},\s+)+{_ITEM},?\s+(?:and|or)\s+{_ITEM}", text, re.IGNORECASE):
        if re.search(rf"\b{v}\b", m.group(0), re.IGNORECASE):
            return True
    names = rf"{_CAP}(?:\s+{_CAP})?"
    if not value[:1].isupper():
        return False  # "they asked Ana to be treasurer and Ana agreed": a role and a clause, not two names
    return re.search(rf"\b{v}\s+(?:and|or)\s+{names}|{names}\s+(?:and|or)\s+{v}\b", text) is not None


def mentions(value: str, text: str) -> bool:
    """Whether a statement (``text``) names the ended thing ``value``: every content word of it (by its stem),
    the statement negating nothing, and the thing not one item of a list in it."""
    text = text.replace("\u2019", "'")
    wanted = content_stems(value)
    # every word of the thing; of a thing of three words or more, all but one ("my terrible gas oven" / "an old gas one")
    if _NEGATION.search(text) or not covered(wanted, text, spare=1 if len(wanted) >= 3 else 0):
        return False
    if _in_list(text, value):
        return False
    return True


#: words saying a thing holds again: "again", "back to", "back on", "resumed", "can now"
_AGAIN = re.compile(
    r"\b(?:again|(?:am|are|is|'m|'re|'s)\s+(?:now\s+)?back\s+(?:to|on)|resumed|can\s+now|now\s+able\s+to)\b", re.IGNORECASE
)
#: what a statement negates: the content word after "no", "not", "can't", "don't", "never", "no longer"
_NEGATES = re.compile(
    r"\b(?:no|not|never|no\s+longer|can't|cannot|can\s+not|couldn't|don't|doesn't|didn't|won't|isn't|aren't)\s+(?:yet\s+|more\s+|any\s+)?"
    r"(?:(?:be|do|go|the|a|an|any|much|allowed\s+to|able\s+to)\s+)?(?P<word>[a-z][\w-]{2,})",
    re.IGNORECASE,
)


#: words after a negation that are not what it negates ("no more", "not sure", "not that")
_NOT_NEGATED = frozenset("more longer sure much very really that this such".split())


def reversal(text: str) -> Claim | None:
    """A ``reversal`` end (the sentence as value) when ``text`` says the speaker does a thing again (see
    :func:`reverses`; "good to talk to you again" is a greeting, not a reversal)."""
    text = text.replace("\u2019", "'")
    cue = _AGAIN.search(text)
    subjects = list(re.finditer(r"\b(?:i|we)\b", text[: cue.start()], re.IGNORECASE)) if cue else []
    if cue is None or not subjects:
        return None
    # the clause that says it: from the speaker as subject to the cue, and what follows "back to"
    clause = text[subjects[-1].start() : cue.end() + (0 if cue.group(0).lower() == "again" else 40)]
    if re.search(r"\b(?:not|never|no\s+longer)\b|n't\b", clause, re.IGNORECASE):
        return None
    return Claim(attribute="reversal", value=clause.strip(" ,.;:!?"), op="end")


def reverses(claim: Claim, old: str) -> bool:
    """Whether a ``reversal`` ("We take cheques again") ends an earlier statement (``old``) that negated what it
    says ("We're card only, no cheques"; "I can't swim yet" for "I'm back to swimming"): a word ``old`` negates
    is said, by its stem, in the reversal."""
    if claim.attribute != "reversal" or not claim.value:
        return False
    said = {stem(w) for w in _WORDS.findall(claim.value.lower())}
    for m in _NEGATES.finditer(old.replace("\u2019", "'")):
        word = m.group("word").lower()
        if word not in _NOT_NEGATED and any(stems_meet(stem(word), s) for s in said):
            return True
    return False


_NEGATIVE = re.compile(r"\b(?:no longer|not|never|n't|anymore|any more)\b", re.IGNORECASE)


def negates(claim: Claim, record: "MemoryRecord") -> bool:
    """Whether a generic ``negation`` end ("I no longer play the violin") negates what ``record`` says
    ("Maya plays the violin in an orchestra"): every content word of the negated words is in its text
    (by its stem, so "play" finds "plays" and "playing"), and the record does not itself negate."""
    if claim.attribute != "negation" or claim.op != "end" or not claim.value:
        return False
    text = record.text().replace("\u2019", "'")
    if _NEGATIVE.search(text):
        return False
    wanted = content_stems(claim.value)
    if wanted and any(c.attribute == "hobby" for c in claims_in(record)):
        wanted = wanted[-1:]  # a pastime by its head word: "stepped back from the church band" / "plays drums in the band"
    return covered(wanted, text)
