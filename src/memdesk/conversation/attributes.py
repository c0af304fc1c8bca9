"""More attributes of a speaker that hold one value at a time, and the words that end them.

:func:`memdesk.conversation.facts.claims_of` reads residence, employer, job, partner, favourites,
likings, possessions, counts and plans; this module adds, in the same :class:`~.facts.Claim` form:

* ``role`` (slot: the role, "manager", "main supervisor", "deputy principal"): who fills a role in the
  speaker's life ("My manager is Rachel Okonjo", "Dr Amit Rao will be my main supervisor", "I report to
  Tom Achebe", "Laura Keane is acting deputy", "Ciarán Walsh is back as deputy principal"); one person per
  role, so a new holder closes the old one. Family, friends and pets are not roles (one may have several
  sisters or cats). A person leaving ("Helen Marsh is leaving Corvid", "Dr Penrose is going on leave")
  ends the roles that person held (an ``end`` with the name as value);
* ``possession`` of slot ``vehicle``: what the speaker drives ("I drive a white Ford Transit", "I'm driving
  a hired Skoda Fabia", "I've bought a new car", "They've given me a newer lorry"); "My Corolla was
  written off", "We sold the Touran" end the vehicle named;
* ``diet``: vegan, vegetarian, pescatarian...; "I'm not vegan anymore", "I've started eating chicken
  again" end it;
* ``reading`` (the book the speaker is reading now): "I'm reading X", "started X", "I'm on to X now";
  "I finished X" ends X;
* ``hobby`` (slot: the pastime, so one has several): "I play five-a-side on Wednesdays", "I sing in a
  choir"; stopping it ("I had to stop five-a-side") closes that one only;
* ``negation`` ends said with a verb of stopping rather than "no longer": "I had to stop five-a-side
  football", "I'm off five-a-side for six weeks", "I've stepped back from the church band", "I've finished
  with the physio" (closed by :func:`memdesk.conversation.supersede.negates`: every content word of what
  stopped is in the old memory).

Role slots are compared by their words (:func:`same_role`): "deputy" is the "deputy principal".
"""

from __future__ import annotations

import re

from .claims import Claim

__all__ = ["attribute_claims", "same_role"]

_CAP = r"(?-i:[A-ZÀ-ÖØ-ÞĀ-Ž][\w'&.-]*)"
_PERSON = rf"(?P<value>(?:(?-i:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?{_CAP}(?:\s+{_CAP}){{0,2}})"
_TITLE = rf"(?P<value>(?-i:The\s+|A\s+)?{_CAP}(?:\s+(?:{_CAP}|(?-i:of|the|a|and|is|in|on|for|to|like|pe|de|la|van|der)))*?)"
_BY = r"(?=\s+by\b|\s*(?:$|[,.;:!?)])|\s+(?:now|instead|and|because|so|at|on|in|last|this)\b)"
_ROLE_ADJ = r"(?:(?:new|current|main|usual|regular|acting|interim|temporary|line)\s+)*"
_ROLE = r"(?P<slot>[a-z][a-z-]+(?:\s+(?!is\b|are\b|will\b|was\b)[a-z][a-z-]+)?)"
#: Nouns that are not single-valued roles: kin, friends, pets, things (a "my cat is called" is one of several).
_NOT_ROLES = frozenset(
    """
    sister sisters brother brothers son sons daughter daughters child children kid kids cousin cousins friend friends
    neighbour neighbours colleague colleagues aunt uncle niece nephew grandchild grandson granddaughter mum mom dad
    mother father parents grandmother grandfather gran granny grandad baby twin twins
    partner husband wife boyfriend girlfriend fiance fiancé fiancee fiancée spouse
    cat dog dogs cats pet pets puppy kitten horse parrot tortoise rabbit fish
    favourite favorite name birthday address car flat house home job team family plan plans goal goals
    """.split()
)
_VEHICLE_NOUN = r"(?:car|van|lorry|truck|pickup|motorbike|motorcycle|scooter|campervan|minibus|estate|hatchback|suv|hybrid|ev)"


def _p(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_ROLE_SET = (
    _p(rf"\b(?:my|our)\s+{_ROLE_ADJ}{_ROLE}\s+(?:is|will\s+be|is\s+now|has\s+become)\s+(?:now\s+)?{_PERSON}(?![\w'-])"),
    _p(rf"\b{_PERSON}\s+(?:is|will\s+be|has\s+become|is\s+now)\s+(?:now\s+)?(?:my|our)\s+{_ROLE_ADJ}{_ROLE}\b"),
    _p(rf"\b{_PERSON}\s+(?:is|will\s+be)\s+(?:now\s+)?(?:the\s+)?(?:acting|interim|new|temporary)\s+{_ROLE}\b"),
    _p(rf"\b{_PERSON}\s+is\s+back\s+as\s+(?:the\s+|our\s+|my\s+)?{_ROLE}\b"),
    _p(rf"\b{_PERSON}\s+(?:has\s+|have\s+)?(?:taken|took|is\s+taking)\s+over\s+as\s+(?:the\s+|our\s+|my\s+){_ROLE_ADJ}{_ROLE}\b"),
)
_REPORT = _p(rf"\b(?:i|we)(?:'ll|\s+will|\s+now|\s+still)?\s+(?:now\s+)?report\s+to\s+{_PERSON}(?![\w'-])")
#: "I'm a long-distance lorry driver for Brennan Haulage": the employer a job names.
#: "I got a job as a barista at Fika", "I've been promoted to senior nurse": a job title.
_JOB_AS = _p(rf"\b(?:i|we)(?:'ve|\s+have)?\s+(?:just\s+)?(?:got|landed|accepted|started|taken)\s+(?:a\s+|the\s+)?(?:new\s+)?(?:job|post|position|role)\s+as\s+(?:a|an)\s+"
             rf"(?P<value>[a-z][\w-]*(?:\s+[a-z][\w-]*){{0,3}}?)(?:\s+(?:at|for|with)\s+(?P<org>{_CAP}(?:\s+{_CAP}){{0,3}}))?(?=\s*(?:$|[,.;:!?]|\s(?:at|for|with|in|from|on|starting)\b))")
_PROMOTED = _p(r"\b(?:i(?:'ve|\s+have)\s+been|i\s+was|i\s+got)\s+promoted\s+to\s+(?:a\s+|an\s+)?(?P<value>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)(?=\s*(?:$|[,.;:!?]|\s(?:at|in|on|from|last|this)\b))")
#: "I'm a pharmacist at the Boots on King Street", "I'm head chef at a restaurant called Ember": the employer named.
_JOB_FOR = _p(
    r"\bi(?:'m|\s+am)\s+(?:now\s+)?(?:a|an|the|head|chief|lead|senior|junior)\s+(?:[\w-]+\s+){1,4}?(?:at|for|with)\s+"
    rf"(?:the\s+|(?:a|an)\s+(?:[\w-]+\s+){{1,2}}?(?:called|named)\s+)?(?P<value>{_CAP}(?:\s+{_CAP}){{0,3}})"
)
_WORKPLACE = r"(?:company|firm|team|school|practice|job|business|club|department|office|branch|board|role|post|unit|ward|surgery|class|classroom)"
#: A person leaving a role: "Helen Marsh is leaving Corvid", "Rachel Okonjo has moved to the London office", "Dr Penrose is
#: going on leave"; not "Tom left early" or "Tom is moving to a new flat" (a leaving needs a workplace or a name).
_LEAVING = _p(
    rf"\b{_PERSON}\s+(?:(?:is\s+leaving|has\s+left|left)\s+(?:(?:the|our|my|his|her)\s+(?:[\w-]+\s+)?{_WORKPLACE}\b|(?-i:[A-Z]))|"
    rf"(?:is\s+leaving|is\s+retiring|has\s+retired|retired|is\s+stepping\s+down|has\s+stepped\s+down)\s*(?:[.;,!]|$|\s+(?:at|in|on|next|this|from|after)\b)|"
    rf"(?:is\s+going|has\s+gone|went)\s+on\s+(?:leave|secondment|sabbatical|maternity|paternity)\b|"
    rf"(?:is\s+moving|has\s+moved|moved|has\s+returned|is\s+returning|returned)\s+to\s+(?:the\s+|a\s+|an\s+|her\s+|his\s+|their\s+)?(?:[\w-]+\s+){{0,2}}?{_WORKPLACE}\b)"
)
_VEHICLE_SET = (
    _p(r"(?:\b(?:i|we)(?:'m|'re|'ve|\s+am|\s+are|\s+have)?|\band)\s+(?:now\s+|also\s+|just\s+|finally\s+|recently\s+|then\s+)?(?P<verb>drive|driving|renting|leasing|bought|got|leased)"
       r"\s+(?:a|an|my|our)\s+(?P<value>[^,.;!?]+)"),
    _p(rf"\b(?:given|lent|loaned|issued)\s+(?:me|us)\s+(?:a|an)\s+(?:new|newer|different|replacement)\s+(?P<value>{_VEHICLE_NOUN}[^.;!?]*)"),
)
_AFTER_NAME = re.compile(r"\s+(?:until|till|in|at|on|near|from|with|for|to|by|and|so|because|which|that|since)\b.*$", re.IGNORECASE)
_VEHICLE_GONE = _p(
    rf"\b(?:i|we)(?:'ve|\s+have)?\s+(?:just\s+|finally\s+)?(?:sold|scrapped|got\s+rid\s+of|gave\s+away|given\s+away|traded\s+in)\s+(?:my|our|the)\s+(?:old\s+)?{_VEHICLE_NOUN}\b"
)
_VEHICLE_END = (
    _p(rf"\b(?:my|our|the)\s+(?:old\s+)?{_TITLE}\s+(?:was|got|has\s+been)\s+(?:written\s+off|stolen|scrapped|sold|towed\s+away)"),
    _p(rf"\b(?:i|we)(?:'ve|\s+have)?\s+(?:sold|scrapped|traded\s+in|part-exchanged|got\s+rid\s+of)\s+(?:my|our|the)\s+(?:old\s+)?{_TITLE}(?![\w'-])"),
)
_DIETS = r"(?P<value>vegan|vegetarian|veggie|pescatarian|pescetarian|flexitarian|plant-based|keto|gluten-free|teetotal)"
_DIET_SET = (
    _p(rf"\b(?:i(?:'m|\s+am)|we(?:'re|\s+are))\s+(?:now\s+|still\s+|fully\s+)?(?:a\s+)?{_DIETS}\b(?!\s+(?:restaurant|cafe|place|food|recipe|option|dish|meal))"),
    _p(rf"\b(?:i|we)(?:'ve|\s+have)?\s+(?:gone|went|become|became|turned)\s+{_DIETS}\b"),
)
_DIET_END = _p(
    rf"\b(?:i(?:'m|\s+am)|we(?:'re|\s+are))\s+(?:not|no\s+longer)\s+(?:(?:fully|strictly|entirely|completely|totally|really)\s+)?(?:a\s+)?{_DIETS}\b"
    r"|\b(?:i|we)(?:'ve|\s+have)?\s+(?:started|begun|gone\s+back\s+to)\s+eating\s+(?:meat|chicken|fish|beef|pork|lamb|bacon|dairy|eggs|cheese)\b"
    r"|\b(?:i|we)(?:'m|\s+am|'re|\s+are)?\s+(?:now\s+)?(?:eat|eating|back\s+on)\s+(?:meat|chicken|fish|dairy)\s+again\b"
)
_READING_SET = (
    _p(rf"\b(?:i(?:'m|\s+am)|we(?:'re|\s+are))\s+(?:now\s+)?(?:reading|re-reading|on\s+to|onto|listening\s+to\s+the\s+audiobook\s+of)\s+{_TITLE}{_BY}"),
    _p(rf"(?:\b(?:i|we)(?:'ve|\s+have)?\s+(?:just\s+)?|\band\s+(?:then\s+|have\s+)?)(?:started|begun|picked\s+up|moved\s+on\s+to)\s+(?:reading\s+)?{_TITLE}{_BY}"),
)
_BOOKISH = _p(r"\bby\s+(?-i:[A-Z])|\b(?:reading|finished|book|novel|memoir)\b")
_READING_END = _p(rf"\b(?:i|we)(?:'ve|\s+have)?\s+(?:just\s+)?(?:finished|gave\s+up\s+on|given\s+up\s+on|abandoned)\s+(?:reading\s+)?{_TITLE}{_BY}")
#: "I had to stop five-a-side football", "I'm off five-a-side for six weeks", "I've stepped back from the band".
_STOPPED = _p(
    r"\b(?:i|we)(?:'ve|\s+have|'d|\s+had)?\s+(?:had\s+to\s+|have\s+to\s+|decided\s+to\s+)?(?:stop|stopped|quit|give\s+up|gave\s+up|given\s+up|"
    r"stepped\s+back\s+from|stepped\s+down\s+from|dropped\s+out\s+of|finished\s+with|pulled\s+out\s+of|packed\s+in|packed\s+up|jacked\s+in|ditched)\s+"
    r"(?!(?:at|in|on|by|to|for|from|with|into|the\s+car)\b)(?:playing\s+|going\s+to\s+|doing\s+|attending\s+)?(?P<value>[a-z][\w'-]*(?:\s+[\w'-]+){0,3}?)"
    r"(?=\s*(?:$|[,.;:!?]|\s(?:because|for|since|after|as|so|and|but|until|on|at|in|now|this|last|due)\b))"
    r"|\b(?:i|we)(?:'ve|\s+have)?\s+left\s+(?:the\s+|my\s+|our\s+)(?P<group>(?:[\w-]+\s+)?(?:club|choir|band|team|group|society|gym|course|class|league|orchestra|committee|board|union|church|congregation))\b"
    r"|\b(?:i(?:'m|\s+am)|we(?:'re|\s+are))\s+off\s+(?P<off>[a-z][\w'-]*(?:\s+[\w'-]+){0,2}?)\s+(?:for|until|till)\b"
)
#: "the nurse said to stop the ibuprofen", "the physio told me to drop the squats": a stop reported, said to the speaker
_TOLD_STOP = _p(
    r"\b(?:says?|said|told\s+(?:me|us|him|her|them)\s+to|advised\s+(?:me\s+|us\s+)?to|wants\s+(?:me|us|him|her)\s+to)\s+(?:to\s+)?(?:stop|quit|drop)\s+"
    r"(?:the\s+|his\s+|her\s+|my\s+|our\s+|their\s+)?(?P<value>[a-z][\w'-]*(?:\s+[\w'-]+){0,2}?)"
    r"(?=\s*(?:$|[,.;:!?])|\s(?:because|for|since|after|as|so|and|but|until|now)\b)"
)
#: "In the end I resigned.", "I handed in my notice today": the job ends, whichever it is
_RESIGNED = _p(
    r"\b(?:i|we)(?:'ve|\s+have)?\s+(?:just\s+|finally\s+)?(?:resigned|handed\s+in\s+(?:my|our)\s+notice|given\s+(?:my|our)\s+notice|gave\s+(?:my\s+)?notice)"
    r"(?=\s*(?:$|[,.;:!?])|\s+(?:today|yesterday|this|last|on|and|so|but|because)\b)"
)
#: "I've been moved to the surgical ward", "I went back to late shifts", "Tom changes to Alder school after Easter":
#: a unit of one kind changes, a ``change`` of the unit's words (what shares its noun, "the cardiac ward", ends)
_TRANSFER = _p(
    r"\b(?:(?:been|being|got|get|gets)\s+)?(?:moved|moves|transferred|transfers|reassigned|switched|switches|changed|changes|posted|"
    r"(?:went|gone|going|goes|go)\s+back)\s+(?:over\s+)?(?:to|onto)\s+"
    r"(?:the\s+)?(?P<value>[\w-]+\s+(?:ward|shift|shifts|team|unit|department|desk|branch|route|site|section|floor|clinic|office|school|nursery|class))\b"
)
_PLACE = r"(?P<value>(?-i:[A-ZÀ-ÖØ-ÞĀ-Ž][\w'-]*)(?:\s+(?:(?-i:[A-ZÀ-ÖØ-ÞĀ-Ž][\w'-]*)|(?-i:de|da|do|dos|das|del|la|le|van|von)\s+(?-i:[A-ZÀ-ÖØ-ÞĀ-Ž][\w'-]*))){0,3})"
_HOME = r"(?:apartment|flat|house|home|place|room|studio|bungalow|cottage)"
#: a home said without "moved to": "moved on Friday! Gorgie now", "we're moving! we got a 3-room flat in Morningside",
#: "live in Portobello with my two boys" (the subject dropped)
_HOME_SET = (
    _p(rf"\b(?:i|we)(?:'ve|\s+have)?\s+(?:just\s+|finally\s+)?moved\b[^.;!?]{{0,40}}?[!.]?\s*{_PLACE}\s+now\b"),
    _p(rf"\bmov(?:ed|ing)\b[^?]{{0,30}}?\b(?:new|got\s+a|found\s+a|bought\s+a|rented\s+a|renting\s+a)\s+(?:[\w-]+\s+){{0,2}}?{_HOME}\s+in\s+{_PLACE}"),
    _p(rf"^\s*(?:and\s+|also\s+)?(?:live|living)\s+in\s+(?:the\s+)?{_PLACE}"),
)
_STOP = r"(?![\w'-])"
#: time words, never a person ("Tomorrow is my first day")
_WHEN = frozenset("today tomorrow tonight yesterday now next this last monday tuesday wednesday thursday friday saturday sunday".split())
_MONTHS = frozenset("january february march april may june july august september october november december".split())
_STOP_OBJECTS = frozenset("it that this them him her there work home job now car talking worrying".split())
_NOT_PEOPLE = frozenset("i we my our the they he she it this that so and but then also now".split())


def _clean(value: str | None) -> str | None:
    if not value:
        return None
    v = value.strip(" ,.;:!?'\"")
    v = re.sub(r"^(?:the|a|an|my|our)\s+", "", v, flags=re.IGNORECASE)
    return v or None


_ROLE_STOP = frozenset("until till from for at in on of with and now again this next when while since to as".split())


_ROLE_SAME = {"boss": "manager", "line manager": "manager", "gp": "doctor", "physiotherapist": "physio"}


def _role(slot: str) -> str | None:
    words = slot.lower().split()
    if len(words) > 1 and words[1] in _ROLE_STOP:
        words = words[:1]
    words = _ROLE_SAME.get(" ".join(words), " ".join(words)).split()
    if not words or any(w in _NOT_ROLES for w in words) or words[-1] in ("is", "are"):
        return None
    return " ".join(words)


def same_role(a: str, b: str) -> bool:
    """Whether two role slots name one role: the words of one are among the other's ("deputy" / "deputy principal")."""
    x, y = set(a.lower().split()), set(b.lower().split())
    return bool(x) and bool(y) and (x <= y or y <= x)


def _roles(text: str) -> list[Claim]:
    out = []
    for pattern in _ROLE_SET:
        for m in pattern.finditer(text):
            slot, value = _role(m.group("slot")), _clean(m.group("value"))
            if slot and value and value.lower() not in ("i", "we") and value.split()[0].lower() not in _WHEN:
                out.append(Claim(attribute="role", slot=slot, value=value))
    if (m := _JOB_FOR.search(text)) and (value := _clean(m.group("value"))):
        out.append(Claim(attribute="employer", value=value))
    if (m := _JOB_AS.search(text)) and (value := _clean(m.group("value"))):
        out.append(Claim(attribute="job", value=value))
        if org := _clean(m.group("org")):
            out.append(Claim(attribute="employer", value=org))
    if (m := _PROMOTED.search(text)) and (value := _clean(m.group("value"))):
        out.append(Claim(attribute="job", value=value))
    if m := _REPORT.search(text):
        out.append(Claim(attribute="role", slot="manager", value=_clean(m.group("value"))))
    for m in _LEAVING.finditer(text):
        value = _clean(m.group("value"))
        if value and value.split()[0].lower() not in _NOT_PEOPLE:
            out.append(Claim(attribute="role", value=value, op="end"))
    return out


def _vehicles(text: str) -> list[Claim]:
    out = []
    for pattern in _VEHICLE_SET:
        m = pattern.search(text)
        if m is None:
            continue
        value = _clean(_AFTER_NAME.sub("", m.group("value")) if pattern is _VEHICLE_SET[0] else m.group("value"))
        if value and (pattern is not _VEHICLE_SET[0] or _is_vehicle(m.group("verb"), value)):
            out.append(Claim(attribute="possession", slot="vehicle", value=value))
            break
    for pattern in _VEHICLE_END:
        if (m := pattern.search(text)) and (value := _clean(m.group("value"))):
            out.append(Claim(attribute="possession", value=value, op="end"))
    if _VEHICLE_GONE.search(text) and not any(c.slot == "vehicle" and c.op == "set" for c in out):
        out.append(Claim(attribute="possession", slot="vehicle", op="end"))  # "We got rid of the car": no vehicle now
    return out


def _is_vehicle(verb: str, value: str) -> bool:
    """A thing bought or got is a vehicle when named as one ("a new car"); a thing driven, rented or hired
    is one when named as one or by a capitalised make ("a silver Toyota Corolla", not "a flat")."""
    if re.search(rf"\b{_VEHICLE_NOUN}s?\b", value, re.IGNORECASE):
        return True
    return verb.lower() not in ("bought", "got") and re.search(r"(?-i:[A-Z])", value) is not None  # a trip's hire car is no possession


#: A pet named: each pet is a slot of its own (one may have several), ended by its name ("Kiwi flew away").
_PET_NOUN = r"(?:cat|dog|kitten|puppy|parrot|budgie|tortoise|turtle|rabbit|hamster|guinea\s+pig|horse|pony|snake|lizard|goldfish|fish|ferret|chicken|hen)"
_PET = (
    _p(rf"\b(?:my|our|a|an)\s+(?:\w+\s+)?{_PET_NOUN}\s*,?\s+(?:is\s+)?(?:called|named)\s+(?P<value>{_CAP}){_STOP}"),
    _p(rf"\b(?:my|our)\s+(?:\w+\s+)?{_PET_NOUN}\s*,\s+(?P<value>{_CAP}){_STOP}"),
)
_PET_GONE = _p(
    rf"\b(?P<value>{_CAP})\s+(?:passed\s+away|died|was\s+rehomed|ran\s+away|flew\s+(?:away|off|out)|(?:went|has\s+gone|is)\s+missing|"
    rf"hasn't\s+come\s+(?:back|home)|(?:has|had)\s+to\s+be\s+put\s+down|was\s+put\s+(?:down|to\s+sleep))\b"
)
#: "I've moved on to a Romanian podcast called ...", "I've switched to a new podcast": a new favourite of that kind.
_MOVED_ON = _p(
    r"\b(?:i|we)(?:'ve|\s+have)?\s+(?:now\s+)?(?:moved\s+on\s+to|switched\s+to|changed\s+to|gone\s+over\s+to)\s+(?:a|an|the)\s+(?:new\s+)?(?:[\w-]+\s+)?"
    r"(?P<slot>podcast|show|series|author|band|album|game|gym|club|team|app|brand|blend|coffee|tea|route|dentist|doctor|hairdresser|barber)\b"
    r"(?:\s+(?:called|named)\s+(?P<value>[^,.;!?]+))?"
)

#: "My favourite podcast at the moment is ...": a favourite with a time phrase before its verb.
_FAVOURITE_NOW = _p(
    r"\bmy\s+(?:new\s+)?favou?rite\s+(?P<slot>[\w-]+)\s+(?:at\s+the\s+moment|these\s+days|right\s+now|now|lately|this\s+year)\s+(?:is|are)\s+"
    r"(?P<value>[^,.;!?]+)"
)


def _pets(text: str) -> list[Claim]:
    out = []
    for pattern in _PET:
        for m in pattern.finditer(text):
            if name := _clean(m.group("value")):
                out.append(Claim(attribute="pet", slot=name.lower(), value=name))
    if (m := _PET_GONE.search(text)) and (name := _clean(m.group("value"))) and name.lower() not in _NOT_PEOPLE:
        out.append(Claim(attribute="pet", value=name, op="end"))
    return out


#: "I play five-a-side on Wednesdays", "I sing in a choir": a pastime, each its own slot (one has several),
#: so a compound statement holding one is stored one statement per record and a stop closes only it.
_HOBBY = _p(
    r"\b(?:i|we)\s+(?:also\s+|still\s+)?(?:play|sing\s+in|dance|row|climb|swim|cycle)\s+(?:in\s+|with\s+)?(?:a\s+|an\s+|the\s+)?"
    r"(?P<value>[a-z][\w'-]*(?:\s+[a-z][\w'-]*)?)(?=\s*(?:$|[,.;:!?]|\s(?:on|at|in|every|with|for|twice|once|and|but|most|three|two)\b))"
)


def attribute_claims(text: str) -> list[Claim]:
    """The claims of this module's attributes that ``text`` (one sentence, the speaker's own words) makes."""
    out = _roles(text) + _vehicles(text) + _pets(text)
    if (m := _HOBBY.search(text)) and (value := _clean(m.group("value"))) and value.split()[0].lower() not in _STOP_OBJECTS:
        out.append(Claim(attribute="hobby", slot=value.lower(), value=value))
    if (m := _FAVOURITE_NOW.search(text)) and (value := _clean(m.group("value"))):
        out.append(Claim(attribute="favourite", slot=m.group("slot").lower(), value=value))
    if m := _MOVED_ON.search(text):
        out.append(Claim(attribute="favourite", slot=m.group("slot").lower(), value=(m.group("value") or m.group(0)).strip()))
    if m := _DIET_END.search(text):
        out.append(Claim(attribute="diet", value=None, op="end"))
    elif m := (_DIET_SET[0].search(text) or _DIET_SET[1].search(text)):
        out.append(Claim(attribute="diet", value=m.group("value").lower()))
    for i, pattern in enumerate(_READING_SET):
        if (m := pattern.search(text)) and (value := _clean(m.group("value"))):
            if i == 1 and not _BOOKISH.search(text):
                continue  # "I started Pilates": a book is started "by" its author, or reading, or after finishing one
            out.append(Claim(attribute="reading", value=value))
            break
    if (m := _READING_END.search(text)) and (value := _clean(m.group("value"))):
        out.append(Claim(attribute="reading", value=value, op="end"))
    for pattern in _HOME_SET:
        if (m := pattern.search(text)) and (value := _clean(m.group("value"))) and value.split()[0].lower() not in _WHEN | _MONTHS:
            out.append(Claim(attribute="residence", value=value))
            break
    if m := _TRANSFER.search(text):
        out.append(Claim(attribute="change", slot="", value=m.group("value"), op="end"))
    if _RESIGNED.search(text):
        out.append(Claim(attribute="employer", value=None, op="end"))
    if (m := _TOLD_STOP.search(text)) and (value := _clean(m.group("value"))) and value.lower() not in _STOP_OBJECTS:
        out.append(Claim(attribute="negation", value=value, op="end"))
    if m := _STOPPED.search(text):
        value = _clean(m.group("value") or m.group("off") or m.group("group"))
        if value and value.lower() not in _STOP_OBJECTS:
            out.append(Claim(attribute="negation", value=value, op="end"))
    return out
