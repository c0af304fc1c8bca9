"""Facts that can change: which attribute of its speaker a sentence sets, ends or revises.

:func:`claims_of` reads one English sentence in the speaker's own words (before any person
rewrite) and returns the :class:`Claim` s it makes about an attribute that holds one value at a
time: where they live, where and as what they work, who they are with, a plan, a favourite, a
liking, a possession, a count. The rule extractor stores them on the records of that sentence
(``metadata["claims"]``); :mod:`memdesk.conversation.supersede` closes the older records a new claim replaces.

Operations:

* ``set``: the attribute now has ``value`` ("I moved to Bath", "I work at the library now",
  "My favourite tea is oolong", "We have three cats now");
* ``end``: it no longer holds ("We broke up", "I don't live in Leeds anymore", "I sold my bike");
  with a ``value`` only the records of that value end;
* ``revise``: the speaker takes back an earlier statement whose attribute the sentence does not
  name ("I changed my mind", "Actually, the party is on Sunday", "Scratch that"): the most similar
  earlier record of the same speaker is the one revised.

Each claim has a ``slot``: one value per (attribute, slot) at a time. Residence, employer, job and
partner have the empty slot; a favourite has what it is a favourite of ("tea"), a liking, a
possession or a count the thing ("meat", "car", "cat"), a plan its kind ("trip", "party", "move") or none.
"""

from __future__ import annotations

import re

from .attributes import attribute_claims
from .claims import Claim, Op
from .endings import ended_claims, reversal
from .topics import contrast_claim, habit_claim, topic_claim
from .updates import updates_of
from ..timeexpr.words import DAY_RE, MONTH_RE

__all__ = ["Claim", "changes_of", "claims_of", "same_value", "with_subject"]

#: a capitalised word, accented capitals too ("Álvaro", "Łódź")
_CAP = r"(?-i:[A-ZÀ-ÖØ-ÞĀ-Ž][\w'&.-]*)"
#: a name of one or more capitalised words, joined by the particles place and family names use ("São José dos Campos")
_JOIN = r"(?-i:of|de|la|le|da|do|dos|das|del|di|du|van|von|der|den|&)"
_NAME = rf"(?P<value>{_CAP}(?:\s+(?:{_CAP}|{_JOIN}\s+{_CAP}))*)"
#: an employer: a name ("Harbour Table") or a common noun after an article ("the library", "a bakery")
_ORG = rf"(?P<value>{_CAP}(?:\s+(?:{_CAP}|{_JOIN}\s+{_CAP}))*|(?:the|a|an)\s+[\w-]+(?:\s+(?-i:[a-z][\w-]*)){{0,2}}?)"
_PHRASE = r"(?P<value>[\w'&-]+(?:\s+[\w'&-]+){0,4}?)"
_STOP = r"(?![\w'-])"
_END = (
    r"(?=\s*(?:$|[,.;:!?)]|\s(?:now|anymore|any more|instead|too|as well|these days|nowadays|at the moment|last|this|next|"
    r"in|on|since|for|with|and|but|because|so|after|before|every|a\b|an\b|two|three|four|especially)\b))"
)
_I = r"\b(?:i|we)"
_ADV = r"(?:(?:just|finally|recently|officially|actually|now|already|also|really|absolutely|still)\s+)*"
_HAVE = r"(?:'ve|\s+have)?"
_ANYMORE = r"\s+(?:anymore|any more|these days|now)\b"
_DWELLING = r"(?:flat|house|room|hostel|cottage|bungalow|apartment|studio|bedsit|houseshare|flatshare|maisonette|terrace)"
_KIN = r"(?:son|daughter|mum|mom|dad|mother|father|parents|brother|sister|grandson|granddaughter|aunt|uncle|cousin|niece|nephew|friend|best\s+friend)"
#: nouns naming a workplace ("the hospital", "a payments startup")
_WORKPLACE = (
    r"(?:company|firm|startup|start-up|hospital|clinic|surgery|practice|school|college|university|bank|shop|store|supermarket|restaurant|"
    r"caf[eé]|bakery|bar|pub|hotel|agency|warehouse|factory|plant|office|library|pharmacy|charity|studio|salon|garage|lab|laboratory|"
    r"publisher|nursery|council|ministry|newspaper|consultancy)"
)
_PARTNER_NOUN = r"(?:boyfriend|girlfriend|partner|husband|wife|fianc[eé]e?|spouse)"
_SPLIT = r"(?:broke|broken|split|splitted)\s+up|separated|divorced|called\s+off\s+(?:the|our)\s+engagement"
_THINGS = (
    r"(?P<slot>car|bike|bicycle|motorbike|scooter|van|house|flat|apartment|boat|dog|cat|kitten|puppy|laptop|phone|piano|"
    r"keyboard|guitar|camera|horse|ford|toyota|tesla|volvo|fiat|thinkpad|macbook|iphone)"
)
_COUNTED = (
    r"(?P<slot>kids?|children|child|sons?|daughters?|cats?|dogs?|pets?|grandchildren|siblings?|brothers?|sisters?|cars?|"
    r"bikes?|plants?|chickens?|horses?|rabbits?|fish|languages?|jobs?|tattoos?)"
)
_NUMBER = r"(?P<value>\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_PLAN_NOUN = r"(?P<slot>party|dinner|trip|holiday|vacation|honeymoon|wedding|barbecue|picnic|course|race|marathon|move)"


def _p(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# (pattern, attribute, op, fixed slot or None to read it from the match)
_RULES: tuple[tuple[re.Pattern[str], str, Op, str | None], ...] = (
    # residence
    (_p(rf"{_I}{_HAVE}\s+{_ADV}(?:moved|relocated|moved back)\s+(?:to|into)\s+(?:a\s+\w+\s+in\s+)?(?:the\s+)?{_NAME}{_STOP}"), "residence", "set", ""),
    (_p(rf"{_I}\s+{_ADV}live\s+(?:in\s+(?:a|an|the)\s+(?:[\w-]+\s+){{0,2}}?)?in\s+(?:the\s+)?{_NAME}{_STOP}"), "residence", "set", ""),
    (_p(rf"{_I}{_HAVE}\s+{_ADV}lived\s+in\s+(?:the\s+)?{_NAME}\s+for\b"), "residence", "set", ""),
    # living with someone, renting rooms, or a dwelling on a named street ("I live with my aunt in Tarbes", "We rent two
    # rooms in Gdynia", "I live in a houseshare on rue Vernet")
    (_p(rf"{_I}\s+{_ADV}(?:live|rent)\s+(?:with\s+(?:my|our)\s+[\w-]+(?:\s+[\w-]+)?\s+|(?:a|one|two|three|four|\d+)\s+rooms?\s+)?in\s+(?:the\s+)?{_NAME}{_STOP}"), "residence", "set", ""),
    (_p(rf"{_I}\s+{_ADV}live\s+in\s+(?:a|an|the)\s+{_DWELLING}\s+on\s+(?:(?-i:[a-z]+)\s+)?{_NAME}{_STOP}"), "residence", "set", ""),
    (_p(rf"\b(?:i'm|i am|we're|we are)\s+{_ADV}(?:living|based|settled)\s+(?:with\s+(?:my\s+)?[\w-]+(?:\s+[\w-]+)?\s+)?in\s+(?:the\s+)?{_NAME}{_STOP}"), "residence", "set", ""),
    (_p(rf"\b(?:i'm|i am|we're|we are)\s+in\s+{_NAME}\s+now\b"), "residence", "set", ""),
    (_p(rf"\b(?:my|our)\s+(?:new\s+)?(?:home|flat|house|place|apartment)\s+is\s+(?:now\s+)?in\s+{_NAME}{_STOP}"), "residence", "set", ""),
    (_p(rf"\bhome\s+(?:for\s+(?:me|us)\s+)?is\s+(?:now\s+)?{_NAME}{_STOP}"), "residence", "set", ""),
    # a dwelling rented, shared, found or stayed in, in a named place ("we've rented a flat in Leith", "Found a room in Fenham")
    (_p(rf"(?:{_I}(?:'ve|'m|'re|\s+have|\s+am|\s+are)?\s+{_ADV}|^\s*)(?:share|sharing|rent|renting|rented|found|staying|moved\s+into)\s+"
        rf"(?:in\s+)?(?:a|an|the|my|our)\s+(?:[\w-]+\s+){{0,2}}?{_DWELLING}\s+in\s+(?:the\s+)?{_NAME}{_STOP}(?![^.;!?]*\b(?:for|over)\s+(?:a|an|the|one|two|three|four|\d+|our|my)\s+(?:night|week|weekend|fortnight|month|holiday|break|trip|days|nights|weeks)\b)"), "residence", "set", ""),
    (_p(rf"{_I}\s+(?:don't|do not|no longer)\s+live\s+in\s+(?:the\s+)?{_NAME}{_STOP}"), "residence", "end", ""),
    (_p(rf"\b(?:i'm|i am|we're|we are)\s+not\s+in\s+{_NAME}\s+(?:anymore|any more)\b"), "residence", "end", ""),
    (_p(rf"{_I}{_HAVE}\s+{_ADV}moved\s+(?:out\s+of|away\s+from)\s+(?:(?:my|our|the)\s+(?:[\w-]+\s+)?{_DWELLING}\s+in\s+)?(?:the\s+)?{_NAME}{_STOP}"), "residence", "end", ""),
    # someone close to the speaker: their home, one per person ("My son Euan lives in Aberdeen")
    (_p(rf"\b(?:my|our)\s+(?P<slot>{_KIN}(?:\s+{_CAP})?)\s+(?:now\s+|still\s+)?(?:lives|live|is\s+living|are\s+living|is\s+based|are\s+based|has\s+moved|have\s+moved|is\s+moving)\s+(?:in|to)\s+(?:the\s+)?{_NAME}{_STOP}"), "residence", "set", None),
    # someone named moves: their home, the slot their name ("Agnieszka is moving to Wrocław", "Tom has moved to Leeds")
    (_p(rf"(?:^|[,;:!.]\s*|\b(?:and|so|but|also)\s+)(?P<slot>(?-i:[A-ZÀ-ÖØ-ÞĀ-Ž][a-zà-ÿ\w'-]+))\s+(?:is\s+moving|has\s+moved|moved|is\s+relocating|has\s+relocated)\s+(?:back\s+)?to\s+(?:the\s+)?{_NAME}{_STOP}"), "residence", "set", None),
    # someone named lives somewhere: their home, the slot their name ("Ruben lives in Utrecht", "Ines is based in Porto")
    (_p(rf"(?:^|[,;:!.]\s*|\b(?:and|so|but|also)\s+)(?!(?-i:She|He|They|It|We|Who|That|This|There)\b)(?P<slot>(?-i:[A-ZÀ-ÖØ-ÞĀ-Ž][a-zà-ÿ\w'-]+))\s+(?:now\s+|still\s+)?(?:lives|is\s+living|is\s+based)\s+in\s+(?:the\s+)?{_NAME}{_STOP}"), "residence", "set", None),
    # the speaker moved house, no new place named ("We moved on Saturday", "I've moved house"): the old home ends
    (_p(rf"{_I}{_HAVE}\s+{_ADV}moved(?:\s+(?:house|flat|flats|home|out))?(?=\s*(?:$|[,.;:!?])|\s+(?:on|last|yesterday|today|this|at\s+the\s+weekend)\b)"), "residence", "end", ""),
    # employer
    (_p(rf"\bi\s+{_ADV}(?:work|teach)\s+(?:at|for|in)\s+{_ORG}{_STOP}"), "employer", "set", ""),
    (_p(rf"\bi(?:'m| am)\s+{_ADV}(?:working|teaching)\s+(?:at|for)\s+{_ORG}{_STOP}"), "employer", "set", ""),
    (_p(rf"\bi(?:'m| am)\s+(?:now\s+)?at\s+{_NAME}\s+now\b"), "employer", "set", ""),
    (_p(rf"\bi(?:'ve| have)\s+been\s+(?:working\s+)?at\s+{_NAME}\s+for\b"), "employer", "set", ""),
    (_p(rf"\bi{_HAVE}\s+{_ADV}(?:got|landed|accepted|started)\s+(?:a\s+|the\s+)?(?:new\s+)?job\s+(?:at|with)\s+{_ORG}{_STOP}"), "employer", "set", ""),
    (_p(rf"\bi{_HAVE}\s+{_ADV}(?:joined|started\s+at|switched\s+to|moved\s+to\s+work\s+at)\s+(?:the\s+)?{_NAME}{_STOP}(?!\s+as\s+(?:my|our)\b)"), "employer", "set", ""),
    (_p(rf"\bso\s+now\s+i\s+work\s+(?:at|for)\s+{_ORG}{_STOP}"), "employer", "set", ""),
    # a first day or week at a named employer ("Tomorrow is my first day in the Vireo office", "First week at Lumen Pay done")
    (_p(rf"\bfirst\s+(?:day|week|month|shift)\s+(?:at\s+(?:the\s+)?|in\s+the\s+){_NAME}{_STOP}"), "employer", "set", ""),
    # a job got or started with no employer named: a new one, whichever it is ("I got a job!", "started a new job today")
    (_p(r"\b(?:got|landed|started|found|begun|began)\s+(?P<value>a\s+new\s+job|a\s+job(?=\s*(?:$|[!.,;])))"), "employer", "set", ""),
    # a job at a workplace named by a common noun ("I'm a QA engineer at a healthcare startup", "I work nights at a warehouse")
    (_p(rf"\bi(?:'m|\s+am)\s+{_ADV}(?:a|an)\s+(?:[\w-]+\s+){{1,3}}?(?:at|for|in)\s+(?:a|an|the)\s+(?P<value>(?:[\w-]+\s+){{0,2}}?{_WORKPLACE}){_STOP}"), "employer", "set", ""),
    (_p(rf"\bi\s+{_ADV}work\s+(?:nights|days|evenings|weekends|shifts|part-time|full-time|part\s+time|full\s+time)\s+(?:at|for|in)\s+(?:a\s+|an\s+|the\s+)?"
        rf"(?P<value>{_CAP}(?:\s+(?:{_CAP}|{_JOIN}\s+{_CAP}))*|(?:[\w-]+\s+){{0,2}}?{_WORKPLACE}){_STOP}"), "employer", "set", ""),
    # leaving a workplace named by a common noun ("I resigned from the hospital", "Left the startup on the 27th")
    (_p(rf"\bi{_HAVE}\s+{_ADV}(?:quit|left|resigned\s+from|handed\s+in\s+my\s+notice\s+at)\s+(?:my\s+job\s+at\s+)?the\s+(?P<value>(?:[\w-]+\s+)?{_WORKPLACE}){_STOP}"), "employer", "end", ""),
    (_p(rf"\bi\s+(?:don't|do not|no longer)\s+work\s+(?:at|for|in)\s+{_ORG}{_STOP}"), "employer", "end", ""),
    (_p(rf"\bi(?:'m| am)\s+(?:not|no longer)\s+(?:working\s+)?at\s+{_ORG}\s+(?:anymore|any more)\b"), "employer", "end", ""),
    (_p(rf"\bi{_HAVE}\s+{_ADV}(?:quit|resigned\s+from)\s+(?:my\s+job\s+at\s+)?(?:the\s+)?{_NAME}{_STOP}"), "employer", "end", ""),
    (_p(rf"\bi(?:'m|\s+am)\s+{_ADV}leaving\s+(?:my\s+job\s+at\s+)?(?:the\s+)?{_NAME}{_STOP}"), "employer", "end", ""),
    (_p(rf"\bi{_HAVE}\s+{_ADV}(?:handed\s+in|given|gave|put\s+in)\s+(?:my\s+)?(?:notice|resignation)\s+(?:at|to)\s+(?:the\s+)?{_NAME}{_STOP}"), "employer", "end", ""),
    (_p(rf"\bi\s+(?:was|got)\s+(?:laid\s+off|fired|made\s+redundant)\s+(?:from|by|at)\s+{_NAME}{_STOP}"), "employer", "end", ""),
    (_p(r"\bi(?:'ve| have)?\s+(?:just\s+)?(?:quit|lost|left)\s+my\s+job\b|\bi\s+(?:was|got)\s+(?:laid off|fired|made redundant)\b"), "employer", "end", ""),
    # job
    (_p(rf"\bi\s+{_ADV}work\s+as\s+(?:a|an)\s+{_PHRASE}{_END}"), "job", "set", ""),
    (_p(rf"\bi(?:'m| am)\s+{_ADV}(?:a|an|the)\s+(?:new\s+)?(?!fan\b|big\b|huge\b){_PHRASE}\s+(?:at|for|in\b|there\b|here\b|now\b)"), "job", "set", ""),
    (_p(rf"\bmy\s+new\s+job\s+is\s+(?:as\s+)?(?:a|an)\s+{_PHRASE}{_END}"), "job", "set", ""),
    (_p(rf"\bi(?:'m| am)\s+(?:not|no longer)\s+(?:a|an)\s+(?!fan\b){_PHRASE}\s+(?:anymore|any more)\b"), "job", "end", ""),
    # partner
    (_p(rf"\bi(?:'m| am)\s+{_ADV}(?:dating|seeing|going\s+out\s+with|engaged\s+to|married\s+to|with)\s+{_NAME}{_STOP}"), "partner", "set", ""),
    (_p(rf"\bi(?:'ve| have)\s+started\s+(?:dating|seeing)\s+{_NAME}{_STOP}"), "partner", "set", ""),
    (_p(rf"\b{_NAME}\s+and\s+i\s+(?:are|got)\s+(?:now\s+)?(?:dating|together|engaged|married)\b"), "partner", "set", ""),
    (_p(rf"\bmy\s+(?:new\s+)?{_PARTNER_NOUN}\s+(?:now\s+)?(?:is\s+)?{_NAME}{_STOP}"), "partner", "set", ""),
    (_p(rf"\b(?:we|(?:me|i)\s+and\s+\w+)\s+(?:have\s+|just\s+|got\s+)?(?:{_SPLIT})\b"), "partner", "end", ""),
    (_p(rf"\b{_NAME}\s+and\s+i\s+(?:have\s+|just\s+|got\s+)?(?:{_SPLIT})\b"), "partner", "end", ""),
    (_p(rf"\bi\s+(?:just\s+)?(?:broke\s+up\s+with|split\s+up\s+with|divorced)\s+{_NAME}{_STOP}"), "partner", "end", ""),
    (_p(r"\b(?:we(?:'re| are)|i(?:'m| am))\s+(?:getting\s+)?(?:divorced|separated)\b|\bi(?:'m| am)\s+single\s+(?:now|again)\b"), "partner", "end", ""),
    # favourites and likings
    (_p(rf"\bmy\s+(?:new\s+)?favou?rite\s+(?P<slot>[\w-]+(?:\s+[\w-]+)?)\s+(?:is|are)\s+(?:now\s+)?(?:the\s+)?{_PHRASE}{_END}"), "favourite", "set", None),
    (_p(rf"\b(?:these\s+days|now),?\s+my\s+favou?rite\s+(?P<slot>[\w-]+)\s+is\s+{_PHRASE}{_END}"), "favourite", "set", None),
    (_p(rf"\b{_PHRASE}\s+is\s+my\s+(?:new\s+)?favou?rite\s+(?P<slot>[\w-]+){_STOP}"), "favourite", "set", None),
    (_p(rf"\bi\s+{_ADV}(?:love|like|enjoy|adore|prefer)\s+{_PHRASE}{_END}"), "liking", "set", None),
    (_p(rf"\bi\s+{_ADV}(?:drink|eat)\s+(?:\w+\s+)?{_PHRASE}\s+(?:a|every)\s+(?:day|week|morning)\b"), "liking", "set", None),
    (_p(rf"\bi(?:'m| am)\s+(?:a\s+)?(?:big\s+|huge\s+)?fan\s+of\s+{_PHRASE}{_END}"), "liking", "set", None),
    (_p(rf"\bi\s+(?:don't|do not|no longer)\s+(?:like|eat|drink|enjoy|watch|play)\s+{_PHRASE}{_END}"), "liking", "end", None),
    (_p(rf"\bi(?:'ve| have)\s+(?:stopped|quit|given\s+up|gone\s+off)\s+(?:eating\s+|drinking\s+|playing\s+)?{_PHRASE}{_END}"), "liking", "end", None),
    (_p(rf"\bi(?:'m| am)\s+(?:not|no longer)\s+(?:into|a\s+fan\s+of)\s+{_PHRASE}{_END}"), "liking", "end", None),
    # possessions and counts
    (_p(rf"{_I}{_HAVE}\s+{_ADV}(?:bought|got|adopted|picked\s+up|own|have|drive|ride)\s+(?:a|an|my)\s+(?:new\s+)?(?:[\w-]+\s+){{0,3}}?{_THINGS}\b(?:\s+(?:called|named)\s+{_CAP})?"), "possession", "set", None),
    (_p(rf"\bmy\s+(?:new\s+)?{_THINGS}\s+is\s+(?:a|an)\b"), "possession", "set", None),
    (_p(rf"\bi{_HAVE}\s+{_ADV}(?:sold|gave\s+away|given\s+away|lost|got\s+rid\s+of|scrapped)\s+my\s+(?:old\s+)?{_THINGS}\b"), "possession", "end", None),
    (_p(rf"\b{_NAME}\s+(?:passed\s+away|died|was\s+rehomed|ran\s+away|flew\s+(?:away|off|out)|(?:went|has\s+gone|is)\s+missing|"
        rf"(?:has|had)\s+to\s+be\s+put\s+down|was\s+put\s+(?:down|to\s+sleep))\b"), "possession", "end", ""),
    (_p(rf"\bmy\s+(?:old\s+)?{_THINGS}\s+(?:got\s+stolen|was\s+stolen|got\s+written\s+off|was\s+written\s+off|died|broke\s+down\s+for\s+good)\b"), "possession", "end", None),
    (_p(rf"{_I}(?:\s+now)?(?:'ve\s+got|\s+have\s+got|\s+have|\s+keep|\s+own|\s+speak|\s+raise)\s+(?:now\s+)?{_NUMBER}\s+{_COUNTED}\b"), "count", "set", None),
    (_p(rf"\b(?:now|so\s+now)\s+(?:i|we)\s+(?:have|'ve\s+got|keep|speak)\s+{_NUMBER}\s+{_COUNTED}\b"), "count", "set", None),
    (_p(rf"\b(?:that's|that\s+is|that\s+makes|it's)\s+(?:now\s+)?{_NUMBER}\s+{_COUNTED}\s+(?:now|in\s+all|altogether)\b"), "count", "set", None),
    # revisions with no named attribute
    (_p(r"\b(?:i(?:'ve| have)?\s+changed\s+my\s+mind|scratch\s+that|on\s+second\s+thought|correction|sorry,?\s+i\s+meant|i\s+meant\s+to\s+say|"
        r"(?:i'?ve\s+)?decided\s+not\s+to|\bnot\b[^.!?]{0,40}\bafter\s+all)\b"), "revision", "revise", ""),
    (_p(r"^\s*actually,?\s+[^.!?]{0,30}?(?:\b(?:is|are|was|am|will\s+be)\b|'s\b|'re\b|'m\b)"), "revision", "revise", ""),
    (_p(r"\b(?:is|was|has\s+been|got|been)\s+(?:cancelled|canceled|called\s+off|postponed|moved\s+to)\b"), "revision", "revise", ""),
)

_PLANS = (
    _p(rf"\b(?:i(?:'m| am)|we(?:'re| are))\s+(?:moving|relocating)\s+to\s+(?:the\s+)?{_NAME}{_STOP}"),
    _p(rf"\b(?:i(?:'m| am)|we(?:'re| are))\s+(?:going|planning|hoping)\s+to\s+(?:go\s+to|visit|fly\s+to|run|do|study|buy|get)\s+(?:the\s+|a\s+)?{_PHRASE}{_END}"),
    _p(rf"\b(?:i(?:'m| am)|we(?:'re| are))\s+(?:going|flying|driving|heading)\s+to\s+(?:the\s+)?{_NAME}{_STOP}"),
    _p(rf"\b(?:i(?:'m| am)|we(?:'re| are))\s+(?:planning|having|throwing|organi[sz]ing|booking)\s+(?:a|an|our|my)\s+{_PLAN_NOUN}\s+(?:for|on|in|at)\s+{_PHRASE}{_END}"),
    _p(rf"\bthe\s+{_PLAN_NOUN}\s+(?:will\s+be|is)\s+(?:in|at|on)\s+{_PHRASE}{_END}"),
    _p(rf"\b(?:i(?:'m| am)|we(?:'re| are))\s+(?:taking|getting)\s+the\s+{_PHRASE}\s+to\b"),
)
_PLAN_KIND = re.compile(r"\b(?P<slot>trip|holiday|vacation|honeymoon|party|wedding|dinner|course|race|marathon|car)\b", re.IGNORECASE)
_DEICTIC = re.compile(r"^(?:this|that|these|those|your|yours|his|her|their|it|them|you|how|what|when|where|the way|being|to)\b", re.IGNORECASE)
_STOP_VALUES = frozenset("it there here home that this them him her a an the my".split())
_SINGULAR = {
    "children": "child", "kids": "child", "kid": "child", "kitten": "cat", "puppy": "dog", "coffees": "coffee",
    "ford": "car", "toyota": "car", "tesla": "car", "volvo": "car", "fiat": "car", "thinkpad": "laptop",
    "macbook": "laptop", "iphone": "phone", "bicycle": "bike",
}  # fmt: skip


def _clean(value: str | None) -> str | None:
    if value is None:
        return None
    v = value.strip(" ,.;:!?'\"")
    v = re.sub(r"^(?:the|a|an)\s+", "", v, flags=re.IGNORECASE)
    return v if v and v.lower() not in _STOP_VALUES else None


def _slot(word: str) -> str:
    w = word.lower().split()[0] if word else ""
    if w in _SINGULAR:
        return _SINGULAR[w]
    return w[:-1] if w.endswith("s") and len(w) > 3 and not w.endswith("ss") else w


def same_value(a: str | None, b: str | None) -> bool:
    """Whether two claim values name the same thing ("Harbour Table" / "harbour table", "Miso" / "a grey cat called Miso")."""
    if not a or not b:
        return False
    x, y = a.lower().strip(), b.lower().strip()
    return x == y or (len(x) > 2 and re.search(rf"\b{re.escape(x)}\b", y) is not None) or (len(y) > 2 and re.search(rf"\b{re.escape(y)}\b", x) is not None)


_JOB_AT = re.compile(r"^(?P<job>.+?)\s+(?:at|for|with)\s+(?P<org>.+)$", re.IGNORECASE)
#: "I no longer play the violin", "We don't keep bees anymore": the speaker ends what the rest says.
_NEGATED = re.compile(
    r"\b(?:i|we)\s+(?:no\s+longer|(?:don't|do\s+not|am\s+not|'m\s+not|are\s+not|'re\s+not|won't|will\s+not)\b"
    r"(?=[^.!?;]*\b(?:anymore|any\s+more|these\s+days|now)\b))\s+(?P<value>[a-z][\w'-]*(?:\s+[\w'&.-]+){0,5}?)"
    r"(?=\s*(?:$|[,.;:!?]|\s(?:anymore|any more|these days|now|since|because|but|and|so)\b))",
    re.IGNORECASE,
)


def _split_jobs(claims: list[Claim]) -> list[Claim]:
    """The employer a job claim names ("nurse at the Riverside clinic"), as a claim of its own, so that
    "I no longer work at the Riverside clinic" ends it."""
    out = []
    for c in claims:
        if c.attribute != "job" or c.op != "set" or not c.value or any(x.attribute == "employer" for x in claims):
            continue
        m = _JOB_AT.match(c.value)
        if m and (org := _clean(m.group("org"))):
            out.append(Claim(attribute="employer", value=org))
    return out


def _negation(text: str) -> Claim | None:
    """A generic end ("I no longer play the violin"): attribute ``negation``, the negated words as value."""
    m = _NEGATED.search(text)
    if m is None:
        return None
    value = _clean(m.group("value"))
    return Claim(attribute="negation", value=value, op="end") if value else None


#: Words that say something stopped holding or was replaced ("I've left Halden Insurance", "the wedding
#: is postponed", "we're now open on Mondays", "I switched my insurance from Skyline to Harbour Mutual").
_CHANGE = re.compile(
    r"\b(?:no\s+longer|any\s?more|stopped|quit|quitting|given\s+up|give\s+up|gave\s+up|giving\s+up|(?:has|have|'ve)\s+left|"
    r"retired|retiring|cancel(?:l?ed|ling)|postponed|called\s+off|dropped|dropping|switched|switching|swapped|swap|replaced|"
    r"(?:i|we)(?:'ve|\s+have)?\s+changed\s+(?:my|our|the|[\w-]+\s+from)|(?:my|our|the)\s+\w+(?:\s+\w+)?\s+(?:has|have|'s)\s+changed|"
    r"moved\s+(?:\w+\s+){0,3}?from|moved\s+(?:\w+\s+){0,2}?to\s+(?:the\s+)?(?:\d|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|"
    r"january|february|march|april|may|june|july|august|september|october|november|december|next|later|earlier)|"
    r"moving\s+(?:\w+\s+){0,2}?from|is\s+off|are\s+off|sold(?!\s+out)|"
    r"(?:has|have|'ve)\s+(?:also\s+)?gone(?!\s+(?:through|down|up|by|well|on|into|over|out|off|\w+ing)\b)|"
    r"(?:up|down)\s+to\s+\d|cut\s+(?:\w+\s+){0,3}?to|paused|in-house|delayed|rescheduled)\b",
    re.IGNORECASE,
)
#: What keeps a clause from saying something changed: a negation or a wish before the word of change
#: ("I'm not giving up", "I won't quit", "never give up"), or talk about the other person ("you").
_NOT_A_CHANGE = re.compile(
    r"\b(?:not|never|n't|won't|don't|can't|wouldn't|shouldn't|if|might|may|could|should|would)\b(?:\s+\w+){0,2}\s*$|\byou\b|\bfrom\s+now\s+on\b",
    re.IGNORECASE,
)
#: Weaker words of change ("we're now open on Mondays", "I'll be in the office on Mondays instead"): the
#: clause must share two distinctive words with what it replaces.
_WEAK_CHANGE = re.compile(
    r"\b(?:instead|is\s+now|are\s+now|'s\s+now|'re\s+now|now\s+(?:due|on|open|closed|use|take|milk)|(?:my|our)\s+new\s+\w+\s+is|"
    r"back\s+to|gone\s+back|going\s+back|skipping)\b",
    re.IGNORECASE,
)
_CLAUSES = re.compile(r"[;:]\s+|,\s+(?:(?:so|and|but|then)\s+)?|\s+(?:so|but)\s+(?=i\b|we\b|my\b|our\b)", re.IGNORECASE)


_DAY_MONTH = re.compile(rf"\b{DAY_RE}\s+(?:of\s+)?{MONTH_RE}(?!\w)|\b{MONTH_RE}\s+{DAY_RE}\b", re.IGNORECASE)
_FROM_TO = re.compile(r"(\bfrom\s+.+?)\s+to\s+.*$", re.IGNORECASE)
#: A cause said before the subject ("Because of the night shifts I moved my runs to ..."): why it changed, not what.
_CAUSE = re.compile(
    r"^\s*(?:because\s+of|due\s+to|thanks\s+to|owing\s+to|on\s+account\s+of)\s+.+?\s+(?=(?:i|we)\b)", re.IGNORECASE
)


def changes_of(text: str) -> list[Claim]:
    """A ``change`` end per clause that says something stopped or was replaced; its value is the clause,
    whose distinctive words name what changed (:func:`memdesk.conversation.supersede.changed_by`). A clause with only a
    weak word of change (``instead``, ``is now``) is a ``change`` of slot ``weak``."""
    out = []
    for clause in _CLAUSES.split(text):
        if len(clause.split()) < 2:
            continue
        # "from Manchester to Glasgow": what changed is what it was, not what it becomes
        was = _CAUSE.sub("", _FROM_TO.sub(r"\1", clause)).strip(" ,.;:!?")
        strong, weak = _CHANGE.search(clause), _WEAK_CHANGE.search(clause)
        cue = strong or weak
        if cue is None or _NOT_A_CHANGE.search(clause[: cue.start()]) or re.search(r"\byou\b", clause, re.IGNORECASE):
            continue
        out.append(Claim(attribute="change", slot="" if strong else "weak", value=was, op="end"))
    return out


#: A chat sentence that drops its subject ("Moved to Leeds last week!", "Left the startup on the 27th"): a past
#: verb opening it, after any interjection ("Update: Sold the van").
_ELIDED = re.compile(
    r"^(?P<lead>\s*(?:(?:update|news|so|and|also|finally|well|ok|okay|oh|anyway|btw|big\s+news|good\s+news)\b[:,!-]*\s+)*)"
    r"(?P<verb>[a-z]{2,}ed|left|quit|sold|got|took|found|bought|began|gave|lost)\b(?!\s+(?:is|are|was|were|has|have|to\s+be)\b)",
    re.IGNORECASE,
)


def with_subject(text: str) -> str:
    """``text`` with the elided first-person subject restored ("Moved to Leeds" -> "I moved to Leeds")."""
    m = _ELIDED.match(text)
    if m is None:
        return text
    return f"{text[: m.start('verb')]}I {m.group('verb').lower()}{text[m.end('verb'):]}"


def claims_of(sentence: str) -> list[Claim]:
    """The attribute claims ``sentence`` (English, first person) makes, in rule order."""
    text = with_subject(sentence.replace("\u2019", "'"))
    out: list[Claim] = []
    for pattern, attribute, op, slot in _RULES:
        m = pattern.search(text)
        if not m:
            continue
        groups = m.groupdict()
        value = _clean(groups.get("value"))
        if attribute == "liking" and value and _DEICTIC.match(value):
            continue  # "I love this song": a reaction, not a lasting liking
        if attribute in ("liking", "possession", "count"):
            s = _slot(groups.get("slot") or (value.split()[-1] if value else ""))
        else:
            s = (slot if slot is not None else (groups.get("slot") or "")).lower()
        if attribute == "possession":
            value = _clean(m.group(0))
        if op == "set" and value is None:
            continue
        claim = Claim(attribute=attribute, slot=s, value=value, op=op)
        if all((c.key, c.op) != (claim.key, claim.op) for c in out):
            out.append(claim)
    for claim in _split_jobs(out):
        out.append(claim)
    negated = _negation(text)
    if negated is not None and not any(c.op == "end" and c.value == negated.value for c in out):
        out.append(negated)
    ended = [c for c in ended_claims(text) if all((c.value or "").lower() != (o.value or "").lower() for o in out if o.op == "end")]
    # a clause naming what ended says what changed better than its distinctive words
    out.extend(c for c in changes_of(text) if not any(e.value and e.value.lower() in (c.value or "").lower() for e in ended))
    out.extend(ended)
    out.extend(c for c in attribute_claims(text) if all((c.key, c.op, c.value) != (o.key, o.op, o.value) for o in out))
    out.extend(updates_of(text))
    if (again := reversal(text)) is not None:
        out.append(again)
    if (topic := topic_claim(text)) is not None:
        out.append(topic)
    if (habit := habit_claim(text)) is not None:
        out.append(habit)
    if (contrast := contrast_claim(text)) is not None:
        out.append(contrast)
    for pattern in _PLANS:
        m = pattern.search(text)
        if m and _clean(m.group("value")):
            kind = (m.groupdict().get("slot") or (k.group("slot") if (k := _PLAN_KIND.search(text)) else "")).lower()
            if "moving" in m.group(0).lower() or "relocating" in m.group(0).lower():
                kind = "move"
            out.append(Claim(attribute="plan", slot=kind, value=_clean(m.group("value"))))
            if kind == "move" and _DAY_MONTH.search(text):
                # a move fixed to a day ("we're moving to Walthamstow on 14 June") changes the home from that
                # day (the old one is closed as of the new record's event time); "one day", "in spring" do not
                out.append(Claim(attribute="residence", value=_clean(m.group("value"))))
            break
    return out
