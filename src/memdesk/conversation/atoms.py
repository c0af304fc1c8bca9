"""Atomic statements: a compound sentence split into statements that can be closed separately.

"I live in a flat in Leith with my cat, Biscuit" says where the speaker lives *and* that they have a
cat; a later "We moved to Portobello" ends the first, not the second. :func:`atoms` splits a sentence
in the speaker's own words (before any person rewrite) into such statements:

* at a semicolon, and at ", and" / ", but" / ", so" / " and" / " but" (", and also", " and also") before a clause of the
  speaker's own ("..., and I work nights now", "... but we kept the car");
* two verbs of one subject joined by "and" ("My son Ewan lives in Perth and works offshore", "I live in
  Leeds and teach at the college"): a statement per verb, the subject said again;
* a self-introduction ("I'm Ana Ruiz, 34, night nurse, I live in Vigo with my son"): each verbless item after the
  name (an age, what the speaker is, where from) and each clause of the speaker's own after a bare comma a
  statement of its own ("I'm Ana Ruiz, 34.", "I'm night nurse.", "I live in Vigo with my son."), so one record
  holds one fact instead of a whole profile that ranks first for every question about the person
  (:func:`introduction`);
* "<subject> <verb> ... with my <companion>" after a verb of living or staying: each named companion
  becomes a statement of its own ("My cat is called Biscuit.", "My partner is Jess."), one with no name
  a statement with the same verb ("I live with my two kids.").

A part too short to stand alone (fewer than three words) stays with the part before it. The rule
extractor writes one record per statement of a sentence that makes an attribute claim
(:mod:`.facts`), so :mod:`memdesk.conversation.supersede` closes only the statement a new claim replaces.
"""

from __future__ import annotations

import re

from ..timeexpr.tense import sentence_tense

__all__ = ["atoms", "introduction"]

_PRONOUNS = r"i|we|i'm|we're|i've|we've|i'll|we'll|i'd|we'd|my|our"
_OWN = rf"(?:{_PRONOUNS})\b"
#: A clause of someone else's after ", and" / ", but": "..., and she's been limping since Sunday" (a person or an
#: animal the sentence named; "it" is left alone: "..., and it's great" says how the first clause went; so is ", so
#: she's the owner now": a consequence restates the first clause and means nothing alone).
_SOMEONE = r"(?:(?:she|he|they)(?:'s|'re|'ve|'d|\s+(?:is|are|was|were|has|have|had|will|can)\b)|(?:she|he)\s+[a-z]{2,}s\b)"
_SOMEONE_AFTER = re.compile(rf",\s+(?:and|but)\s+{_SOMEONE}", re.IGNORECASE)
#: where such a clause begins: a comma, or ", and" / ", but", before it ("..., he's in his third year of law")
_OTHER = re.compile(rf",\s+(?:and\s+|but\s+)?(?={_SOMEONE})", re.IGNORECASE)
_VERBS = r"(?:live|lives|lived|living|stay|stays|stayed|staying|moved|share|shares|shared|sharing|rent|rents|rented|renting)"


def _patterns(subject: str | None) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The clause break and the "with my ..." split, for the first person and, if given, a named subject."""
    who = r"(?:i|we)" if not subject else rf"(?:i|we|(?-i:{re.escape(subject)}))"
    own = _OWN if not subject else rf"(?:{_PRONOUNS}|(?-i:{re.escape(subject)})(?:'s)?)\b"
    brk = re.compile(rf";\s+|,\s+(?:and|but|so|while)(?:\s+also|\s+then)?\s+(?={own})|\s+(?:and|but)(?:\s+also)?\s+(?={own})", re.IGNORECASE)
    with_ = re.compile(
        rf"^(?P<head>{who}(?:'ve|\s+have|\s+has|'m|\s+am|'re|\s+are|\s+is)?\s+(?:\w+ly\s+|still\s+|now\s+|just\s+)?"
        rf"(?P<verb>{_VERBS})\b)(?P<mid>.+?)\s+(?P<with>with\s+(?:my|our|his|her|their|another)\s+.+?)(?P<end>[.!?]*)$",
        re.IGNORECASE,
    )
    return brk, with_


_MIN_WORDS = 3
_CONTRACTED = re.compile(r"^\s*(?:i'm|we're|i've|we've|i'll|we'll|i'd|we'd)\s+\S", re.IGNORECASE)


def _clause(piece: str) -> bool:
    """Whether a part can stand alone: three words, or a pronoun with its verb and one more ("I'm vegetarian")."""
    return len(piece.split()) >= _MIN_WORDS or _CONTRACTED.match(piece.replace("\u2019", "'")) is not None


_PEOPLE = frozenset(
    """
    partner husband wife boyfriend girlfriend fiance fiancé fiancee fiancée son daughter sons daughters kids children
    mum mom dad mother father parents brother sister brothers sisters flatmate flatmates roommate friend friends
    grandma grandpa grandmother grandfather aunt uncle cousin nephew niece baby family
    """.split()
)
_NAMED = re.compile(
    r"^(?P<whose>my|our|his|her|their|a|an|another)\s+(?P<noun>[\w-]+(?:\s+(?!called\b|named\b)[\w-]+)?)\s*,?\s+(?:(?:called|named)\s+)?(?P<name>(?-i:[A-Z][\w'-]+))"
    r"(?P<app>,\s+(?:a|an|the)\s+[^,;]+)?$",
    re.IGNORECASE,
)


def _companions(head: str, with_: str, subject: str | None = None) -> list[str]:
    """"with my partner Jess and our tortoise, Sheldon" -> "My partner is Jess.", "Our tortoise is called
    Sheldon.": who someone lives with, each a statement a later change leaves alone; a companion with no
    name stays "<head> with my two kids"."""
    parts = re.split(r",?\s+and\s+(?=(?:my|our|his|her|their|a|an)\b)", with_[len("with ") :], flags=re.IGNORECASE)
    first = head.split()[0].lower()
    own = "Our" if first == "we" else "My" if first == "i" else f"{head.split()[0]}'s"
    named = [_NAMED.match(p.strip()) for p in parts]
    if not all(named):
        return [f"{head} {with_}"]
    out = []
    for m in named:
        assert m is not None
        if m.group("whose").lower() == "another":
            out.append(f"{head} with {m.group(0)}")  # "I share with another doctor, Priti": not "my doctor"
            continue
        noun = m.group("noun")
        verb = "is" if noun.split()[-1].lower() in _PEOPLE else "is called"
        whose = m.group("whose").lower()
        whose = own if whose in ("a", "an") or (whose in ("his", "her", "their") and first not in ("i", "we")) else whose.capitalize()
        out.append(f"{whose} {noun} {verb} {m.group('name')}{m.group('app') or ''}")  # "..., a five year old collie"
    return out


_VP = r"(?:live|work|study|teach|play|run|drive|own|keep|sing|coach|visit|train|ride|rent|share)"
_VERB_AND_VERB = re.compile(
    rf"^(?P<subj>(?:i|we|(?:my|our)\s+[\w-]+(?:\s+(?-i:[A-Z])[\w'-]+)?|(?-i:[A-Z])[\w'-]+))\s+(?P<one>{_VP}s?|studies|teaches)\b(?P<a>[^,;]+?)"
    rf"\s+and\s+(?P<two>{_VP}s?|studies|teaches)\b(?P<b>.+)$",
    re.IGNORECASE,
)


#: "My son Ewan is 15, in year 10, and plays in a band": what the subject is, and what it does, after ", and"
_IS_AND_VERB = re.compile(
    r"^(?P<subj>(?:(?:my|our)\s+[\w-]+(?:\s+(?-i:[A-Z])[\w'-]+)?|(?-i:[A-Z])[\w'-]+))\s+(?P<one>is)\b(?P<a>[^;]+?),\s+and\s+"
    r"(?P<two>(?!(?:his|this|its|hers|ours|yours|theirs|thus|plus|less|us|yes|always|sometimes|perhaps|as|is|was)\b)[a-z]+s)\b(?P<b>.+)$",
    re.IGNORECASE,
)


def _verbs(part: str) -> list[str] | None:
    """Two verbs of one subject ("My son Ewan lives in Perth and works offshore"): two statements, else ``None``."""
    m = _VERB_AND_VERB.match(part.strip()) or _IS_AND_VERB.match(part.strip())
    if m is None or len(m.group("a").split()) < 2:
        return None
    third = not m.group("subj").lower() in ("i", "we")
    if third != m.group("one").lower().endswith("s") or third != m.group("two").lower().endswith("s"):
        return None  # "I play chess and games": the same person and number for both verbs, or no split
    return [f"{m.group('subj')} {m.group('one')}{m.group('a')}", f"{m.group('subj')} {m.group('two')}{m.group('b')}"]


#: A short lead-in before a colon ("Unrelated: ...", "Big news: ...", "Update: ...").
_LEAD_IN = re.compile(r"^(?:[A-Za-z][\w'-]*\s+){0,2}[A-Za-z][\w'-]*:\s+(?=\S)")


def _end(text: str, punct: str) -> str:
    text = text.strip().rstrip(",;:")
    return text if text[-1:] in ".!?" else text + (punct or ".")


#: The opening of a self-introduction: a discourse word or two, then "I'm <Name>", "My name is <Name>", "Name's
#: <Name>", "<Name> here", a bare "<Name>" before an age, or an age alone ("81, retired glassblower, ..."); the name capitalized.
_NAME = r"(?-i:[A-Z][\w'\u2019.-]*)(?:\s+(?-i:[A-Z][\w'\u2019.-]*)){0,2}"
_INTRO = re.compile(
    rf"^(?P<lead>(?:(?:ok(?:ay)?|so|well|hi|hey|hello|morning)\b[\s,.!]*){{0,3}})"
    rf"(?:(?P<aged>(?:i'm|i\u2019m|im|i\s+am)\s+(?=\d))|(?P<head>(?:i'm|i\u2019m|im|i\s+am|my\s+name\s+is|name's|name\u2019s)\s+{_NAME}|{_NAME}\s+here)|(?P<bare>{_NAME}(?=,\s*\d))|(?=\d))"
    r"(?P<rest>(?:,\s*|^).+)$",
    re.IGNORECASE,
)
_AGE = re.compile(r"^\d{1,3}(?:\s+(?:years?|yrs?)(?:\s+old)?)?$", re.IGNORECASE)
#: an item that is a clause of the speaker's own ("I live in ...", "we've got ..."): it and all after it are statements
#: read by :func:`atoms`
_OWN_CLAUSE = re.compile(r"^(?:i|we)(?:'m|'ve|'d|'ll|\u2019m|\u2019ve|\s+(?:am|have|had|do|did|[a-z]{2,}))\b", re.IGNORECASE)
#: an item that opens with a preposition or a verb's -ing form is what the speaker is ("from Daejeon", "living in Quimper")
_ITEM_OPEN = re.compile(r"^(?:from|in|at|near|based\s+in|living|working|studying|retired|originally)\b", re.IGNORECASE)


#: a subject inside an item: it is a clause ("so I could mind my aunt")
_WITH_VERB = re.compile(r"\b(?:i|we|he|she|they|it)\b", re.IGNORECASE)
#: a participle before the noun it describes, all the item ("retired tram driver"), not a verb's past
_DESCRIBED = re.compile(r"^[a-z]+ed(?:\s+[\w-]+){1,3}$", re.IGNORECASE)


def introduction(sentence: str) -> list[str] | None:
    """A self-introduction's statements, each a sentence of its own, or ``None`` when ``sentence`` is not one.

    "I'm Ana Ruiz, 34, night nurse, from Vigo, I live in Lugo with my son" -> "I'm Ana Ruiz, 34.", "I'm night
    nurse.", "I'm from Vigo.", "I live in Lugo with my son." (the last read on by :func:`atoms`; the name stays with the
    first fact). A capitalized item
    after a capitalized one is the rest of a place ("Dunmore East, Waterford"); a name after "my <someone>" or an item
    that is a clause (a subject, or a verb's past: "sold the farm") makes the sentence no introduction; an
    item opening with "and", "but", "mostly" ... or holding a number that is no age ("retired from the railway, last
    15 years as a driver") stays with the one before it, and so does all after it. Fewer than two statements: ``None``."""
    s = sentence.strip()
    m = _INTRO.match(s)
    if m is None:
        return None
    punct = s[-1] if s[-1] in ".!?" else "."
    items = [i.strip() for i in re.split(r",\s+", m["rest"].strip(" ,").rstrip(".!?")) if i.strip()]
    if not items or not (m["head"] or m["bare"] or _AGE.match(items[0])):
        return None
    if not (m["head"] or m["bare"]) and (len(items) < 3 or any(re.search(r"\d", i) for i in items[1:])):
        return None  # "10, maybe 12 people": an age alone opens an introduction only before two items with no number
    out: list[str] = []
    if m["head"] or m["bare"]:
        head = m["head"] or f"I'm {m['bare']}"
        out.append(_end(f"{m['lead']}{head}" if m["head"] else head, punct))
    places = False
    for n, item in enumerate(items):
        if _OWN_CLAUSE.match(item):
            rest = ", ".join(items[n:])
            out.extend(atoms(_end(rest[0].upper() + rest[1:], punct)))
            break
        if _AGE.match(item):
            out.append(f"I'm {item.split()[0]}.")
            places = False
        elif item[0].isupper() and not _ITEM_OPEN.match(item):
            if re.search(r"\b(?:my|our)\s+[\w-]+$", items[n - 1] if n else "", re.IGNORECASE):
                return None  # "my mom, Ruth": the name of someone the item before names, not where the speaker is
            if places and out:
                out[-1] = _end(f"{out[-1].rstrip('.!?')}, {item}", punct)  # "Dunmore East, Waterford"
            else:
                out.append(_end(f"I'm in {item}", punct))
            places = True
        elif out and item[0].islower() and re.search(r"\d", item):
            out[-1] = _end(f"{out[-1].rstrip('.!?')}, {', '.join(items[n:])}", punct)  # "..., last 12 years on the Vaasa line"
            break
        elif _WITH_VERB.search(item) or (sentence_tense(item) is not None and not _DESCRIBED.match(item)):
            return None  # "58, sold the farm so I could ...": a clause, not what the speaker is
        elif item[0].islower() or _ITEM_OPEN.match(item):
            if re.match(r"^(?:and|but|so|mostly|just|only)\b", item, re.IGNORECASE) or not out:
                if not out:
                    return None
                out[-1] = _end(f"{out[-1].rstrip('.!?')}, {', '.join(items[n:])}", punct)
                break
            out.append(_end(f"I'm {item[0].lower() + item[1:]}", punct))
            places = False
        else:
            return None
    if (m["head"] or m["bare"]) and len(out) > 1:
        # the name stays with the first fact ("I'm Ana Ruiz, 34."): a name alone is no fact a question asks of, and its
        # record, all name, would rank for every question that names the person
        second = out.pop(1)
        second = second[4:] if second.startswith("I'm ") else second
        out[0] = _end(f"{out[0].rstrip('.!?')}, {second}", punct)
    return out if len(out) > 1 else None


def atoms(sentence: str, subject: str | None = None, *, clauses: bool = True) -> list[str]:
    """The statements ``sentence`` makes, each a sentence of its own; ``[sentence]`` when it makes one.

    ``subject``: a name the sentence may use instead of "I" (a model's third-person fact: "Maya lives
    in Leith with her cat, Biscuit"). ``clauses=False``: no split between two clauses of the speaker's own
    ("..., so we're nine now" stays with what it follows), the other splits as ever."""
    s = sentence.strip()
    if not s:
        return []
    if subject is None and clauses and (intro := introduction(s)):
        return intro
    lead = _LEAD_IN.match(s)
    if lead and len(s) > lead.end():  # "Unrelated: I live in ...": the statements of what follows, the lead-in with the first
        rest = atoms(s[lead.end() :], subject, clauses=clauses)
        first = rest[0] if s[lead.end()].isupper() else rest[0][0].lower() + rest[0][1:]
        return [s] if len(rest) == 1 else [f"{lead.group(0)}{first}", *rest[1:]]
    parts = [c for c in _OTHER.split(s) if c]
    if len(parts) > 1 and all(_clause(c) for c in parts):
        punct = s[-1] if s[-1] in ".!?" else "."
        return [a for c in parts for a in atoms(_end(c[0].upper() + c[1:], punct), subject, clauses=clauses)]
    _BREAK, _WITH = _patterns(subject)
    punct = s[-1] if s[-1] in ".!?" else "."
    whole = _WITH.match(s.rstrip(".!?"))
    if whole and ";" not in whole.group("mid") and len(whole.group("mid").split()) >= 2 and not _SOMEONE_AFTER.search(whole.group("with")):
        companions = _companions(whole.group("head"), whole.group("with"))
        return [_end(whole.group("head") + whole.group("mid"), punct), *(_end(c, punct) for c in companions)]
    parts: list[str] = []
    start = 0
    for m in _BREAK.finditer(s) if clauses else ():
        piece = s[start : m.start()]
        if _clause(piece) and len(s[m.end() :].split()) >= _MIN_WORDS:
            parts.append(piece)
            start = m.end()
    parts.append(s[start:])
    out: list[str] = []
    for part in parts:
        part = part.strip()
        m = _WITH.match(part.rstrip(".!?"))
        if m and len(m.group("mid").split()) >= 2:
            out.append(_end(m.group("head") + m.group("mid"), punct))
            out.extend(_end(c, punct) for c in _companions(m.group("head"), m.group("with")))  # after a ";" split
        elif verbs := _verbs(part.rstrip(".!?")):
            out.extend(_end(v[0].upper() + v[1:], punct) for v in verbs)
        else:
            out.append(_end(part[0].upper() + part[1:] if part else part, punct))
    return [o for o in out if o] if len(out) > 1 else [s]
