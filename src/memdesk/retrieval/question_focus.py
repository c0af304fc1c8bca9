"""What kind of value a question asks for, and whether a record states one (English).

A question names a topic and asks for one slot of it: "Where does Dana live?" wants a place, "Who is doing the
roof?" a person, "When is the wedding?" a date, "How many days ...?" a count, "What is the cat called?" and
"Which school ...?" a name. Among the records on the asked topic, the one that answers states a value of that kind
("Dana rents a room in Didsbury", "The roofer is Dai Morgan", "the wedding is on 27 September"); the others only
mention the topic ("Dana wants you to keep track of her move", "The roof is finished"). :func:`question_focus`
reads the slot from the question's wh-word; :class:`RecordValues` reads once per record which kinds of value it
states; :meth:`Focus.answers` joins the two. The fused read path adds ``focus_weight`` standard deviations to a
record that states a value of the asked kind (:meth:`~memdesk.retrieval.scope_index.ScopeIndex.rank`, gated like the
other bonuses: a record no more related than its type's average gets none).

A name is a capitalized word that is not the first word of a sentence (unless a second capitalized word follows it),
not a weekday or a month, not the speaker label of a record ("Dana: ...") and not a word of the question or one of
the user's names: a record naming only the asked subject states no new name. A date is a month or weekday name, a
numeric date, or a relative day ("yesterday", "next week"); a count is a number, in digits or words. A question about
a living ("What is Dana's job?", "What does Dana do for work?", "What does Dana do?") asks for an occupation, which a
record states with "works as", "trained as", "her job is" or "is a/an <noun named for what one does>" ("a pharmacist",
"an engineer", "a nurse").
A question in another language, or one whose slot is not one of these ("What does Dana do?", "Why ...?"), has no
focus and gets no bonus.

A value a record *denies* is not one it states: in a clause that negates or leaves something ("no longer works at
the Riverside clinic", "I'm not in Leith any more", "she left Brightwater", "used to live in Didsbury", "moved away
from Leeds"), the names and places after the negation are what no longer holds (a name before it is the clause's
subject: "Lise isn't into astronomy" still says who Lise is) (:attr:`RecordValues.denied_names`,
:attr:`RecordValues.denied_places`). A question asking what holds now ("Where does Dana work?", "Where is the
recital now?") is not answered by a denied value, and a record that only denies values of the asked kind
(:meth:`Focus.denies`) is a closing statement, ranked like a superseded record (:data:`DENIAL_WEIGHT`); a question
about the past ("Where did Dana work before?", "Where was ...?", "... used to ...") is answered by either.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal

from .question_list import PART_SHARE, asks_for_set, listed_items
from .question_role import ASKS_ROLE, asked_person, role_subjects, whose_role
from .value_kinds import asked_kind, asks_steps, stated_kinds

__all__ = [
    "ASKING_WEIGHT", "DENIAL_WEIGHT", "FOCUS_SCOPE", "FOCUS_WEIGHT", "QUESTION_VIEW", "Focus", "RecordValues",
    "asks_about_asking", "focus_scale", "only_asks", "question_focus",
]

FOCUS_WEIGHT = 1.0
"""The default read path's bonus, in standard deviations, for a record that states a value of the asked kind
(measured on the tune chats and a LoCoMo replay: ``bench/results/chats/28r3-tune/README.md``)."""

FOCUS_SCOPE = 200.0
"""The focus bonus is ``focus_weight * (1 + FOCUS_SCOPE / (FOCUS_SCOPE + n))`` in a scope of n records
(:func:`focus_scale`): up to twice the weight in a small scope, tending to the weight in a big one. In a scope of a few
dozen records, the records on the asked topic are few and the one stating a value of the asked kind is nearly always
the answer; in one of thousands many records near the topic state a value of the kind (every dated event states a
date), so the value tells less. Measured at 0 (off), 100, 200 and 300 (``bench/results/chats/28vt/README.md``)."""

DENIAL_WEIGHT = 0.5
"""A record that only denies values of the asked kind, for a question asking what holds now, has its fused score
demoted by this factor before standardizing, as a superseded record is (``Retriever.superseded_weight``): it says
what no longer holds, which is not the answer to what holds now."""

ASKING_WEIGHT = 0.5
"""A record of a question someone asked ("Noor asked: Which ferry goes to Arran?") has its fused score demoted by this
factor before standardizing, as a superseded record is, unless the question asks what was asked
(:func:`asks_about_asking`): a question states no value, so it answers no question, yet it sits close to any question
on its topic (two questions share their form as well as their words)."""

QUESTION_VIEW = "question"
"""The ``view`` (record metadata) of a record the write side keeps of a turn that only asks something
(:mod:`memdesk.conversation.extract`): "Noor asked: Which ferry goes to Arran?"."""

_INTERROGATIVE = re.compile(
    r"^[^:]{0,80}:\s*\W*(?:and |so |but |ok |okay |also )?(?:who|whom|whose|where|when|what|what's|which|how|why|"
    r"is|are|was|were|am|do|does|did|can|could|will|would|should|shall|may|might|have|has|had|any|anything)\b",
    re.IGNORECASE,
)
"""The asked part of a question view opens an interrogative clause: a wh-word or an auxiliary before its subject.
"Noor asked: Noor is vegan, can the hut cook for her?" opens with a statement and states it."""

_ABOUT_ASKING = re.compile(r"\b(?:ask|asks|asked|asking|question|questions|wonder|wondered|enquir\w*|inquir\w*|request\w*)\b", re.IGNORECASE)

Slot = Literal["items", "name", "place", "date", "count", "role", "money", "amount", "duration", "clock", "time", "identity", "age", "steps"]
Setting = Literal["home", "work"]

_HOME = r"live|lives|living|lived|reside\w*|home|house|flat|apartment|address|rent\w*|moved|move|moving|neighbourhood|neighborhood"
_WORK = r"work|works|working|worked|job|jobs|employ\w*|office|company|hired|shifts?|colleagues?|boss|started at|position|post"
_PLAN = re.compile(
    r"\b(?:will|shall|going to|gonna|plan(?:s|ning|ned)? (?:to|for|on)|is planned|are planned|want(?:s)? to|hope(?:s)? to|"
    r"would like to|intend(?:s)? to|next (?:week|month|year|summer|winter|spring|autumn|time))\b|['’]ll\b",
    re.IGNORECASE,
)
"""A record speaking of what is to come: a future auxiliary, a plan, a wish or "next ..." ("Next year we want to do the
Alta Via 2", "the release is planned for May"): a question about when something happened ("When did ...?") is not
answered by its date."""
_ASKS_HOME = re.compile(rf"\b(?:{_HOME})\b", re.IGNORECASE)
_ASKS_WORK = re.compile(rf"\b(?:{_WORK})\b", re.IGNORECASE)
"""Where someone lives and where someone works: a question names one of the two settings by its verb or noun ("Where
does Dana live?", "Where is Dana's flat?"; "Where does Dana work?", "Which company is Dana at?"), and a record places
someone in one of them by the same words ("moved to York, into a terraced house"; "started at York Hospital", "works
nights at a warehouse")."""

_MONTHS = "january february march april may june july august september october november december"
_DAYS = "monday tuesday wednesday thursday friday saturday sunday"
_CALENDAR = frozenset(f"{_MONTHS} {_DAYS} jan feb mar apr jun jul aug sep sept oct nov dec".split())
_NUMBERS = frozenset(
    """one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen
    eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million dozen half
    twice once""".split()
)
_RELATIVE_DAY = re.compile(
    r"\b(?:yesterday|today|tomorrow|tonight|(?:last|next|this) (?:week|month|year|weekend|summer|winter|spring|autumn))\b"
    r"|\bin (?:a|an|\d+|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of) (?:days?|weeks?|months?|years?)\b",
    re.IGNORECASE,
)
"""A day named by its distance from now: "yesterday", "next week", "in three weeks"."""
_NUMERIC_DATE = re.compile(r"\b\d{4}-\d{2}(?:-\d{2})?\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|\b(?:19|20)\d{2}\b")
_DIGITS = re.compile(r"\d")
_MONTH = "(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
_DAY_OF_MONTH = re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{_MONTH}\b|\b{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?\b")
_WORD = re.compile(r"[^\W_]+(?:['’&-][^\W_]+)*", re.UNICODE)
_SPEAKER = re.compile(r"^\s*[^\s:]{1,40}(?: [^\s:]{1,40})?:\s")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\s+[-–—]\s+")
_FUNCTION = frozenset(
    """a an the i it its this that these those he she they we you my our your his her their and but or so if when
    what where who which how why please also then there here yes no not just i'm i've i'd i'll""".split()
)

_LEAD = r"^\W*(?:and |so |but )?(?:(?:on|in|at|from|to|for|with|by|during|since|until|about) )?"
"""What may open a question before its wh-word: a conjunction, a preposition the wh-phrase carries with it ("On what
day ...", "In which city ...", "For how long ...")."""
_WH = re.compile(_LEAD + r"(who|whom|whose|where|when|what|which|how)\b\s*(\w+)?", re.IGNORECASE)
_AUX = frozenset(
    """is are was were do does did has have had will would can could should may might am be been 's""".split()
)
_PLACE_PREPOSITIONS = frozenset("in at on near from to into outside around by".split())
_SITE_PREPOSITIONS = frozenset("in at near into outside around".split())
_PLACE_VERBS = frozenset("left leave leaves leaving quit quits joined joins joining entered visited".split())
"""Verbs whose object is a place or an organisation, as a preposition's would be ("left Brightwater", "joined
Fenwick Press")."""
_WHAT_NOUN = re.compile(
    r"^\W*what (?!kind\b|sort\b|type\b)[a-z]+ (?:is|are|was|were|does|do|did|has|have|had|will|would|can|could)\b",
    re.IGNORECASE,
)
_COUNT_HOW = frozenset("many much old long far big tall".split())
_CLAUSE = re.compile(r",\s+|\s+(?:but|and|so|while|whereas|though|although|because)\s+", re.IGNORECASE)
_DENIAL = re.compile(
    r"\b(?:no longer|not|never|no more|any ?more|used to|formerly|former|previously|ex|"
    r"left|leaving|leaves|quit|quits|quitting|stopped|gave up|moved (?:out|away)|retired|resigned|dropped out)\b"
    r"|n['’]t\b",
    re.IGNORECASE,
)
"""A clause that negates or leaves what it names: a negation ("not", "n't", "never", "no longer", "any more"), a
past habit ("used to", "formerly", "ex-") or a verb of leaving ("left", "quit", "stopped", "moved away",
"retired", "resigned")."""
_PAST = re.compile(
    _LEAD + r"(?:who|whom|whose|where|when|what|which|how)\b(?:\s+\w+)?\s+(?:did|was|were|had|used)\b"
    r"|\b(?:used to|previously|formerly|originally|at first|earlier|former|previous)\b|\bbefore(?:\W*$| (?:that|then|this|now)\b)",
    re.IGNORECASE,
)
"""A question about what held in the past: a past auxiliary after the wh-word ("Where did ...", "Who was ..."), or
"used to", "originally", "previous", "former", a closing "before"."""


@dataclass(frozen=True)
class Focus:
    """The slot a question asks for and the words it already says (lower-cased: a name among them is no answer)."""

    slot: Slot
    said: frozenset[str]
    current: bool = True
    """The question asks what holds now (not "Where did ... before?"): a value a record denies does not answer it."""
    setting: Setting | None = None
    """For a place: whether the question asks where someone lives (``"home"``) or works (``"work"``), None when it
    says neither; a record that places someone only at the other does not answer it."""
    kinds: frozenset[str] = frozenset()
    """For a value of :mod:`memdesk.retrieval.value_kinds` (an amount, a duration, a time of day, an identity): the
    kinds of value that answer it."""
    whose: tuple[str, bool] | None = None
    """For an occupation: the asked person (:func:`~memdesk.retrieval.question_role.asked_person`); a record stating
    someone else's does not answer."""
    person: bool = False
    """The question asks "who": a name that a preposition of where something is opens ("bought a house in Oliwa") is a
    place, not the person asked for (:attr:`RecordValues.sites`)."""
    several: bool = False
    """The question asks for a set of items (:func:`~memdesk.retrieval.question_list.asks_for_set`): a record listing
    two or more items answers it too (slot ``"items"``: only such a record)."""

    def answers(self, values: RecordValues, user_names: frozenset[str] = frozenset()) -> bool:
        """True when a record with these ``values`` states a value of the asked kind (for a question about the past,
        a value it says no longer holds counts too), or, for a question asking for a set, lists several items."""
        if self.several and values.items >= 2:
            return True
        if self.slot == "items":
            return False
        if self.kinds:  # "How much is the rent?": an amount of money, not a number of rooms
            return bool(self.kinds & values.kinds)
        if self.slot == "date":  # "When did the hike end?" is not answered by a plan's date ("next year we want to ...")
            return values.date and (self.current or not values.plan)
        if self.slot == "count":
            return values.count
        if self.slot == "role":  # an occupation, the asked person's (memdesk.retrieval.question_role)
            return values.role and whose_role(values.role_of, self.whose, user_names)
        if self.slot == "place" and self.setting is not None and self.setting not in values.settings and values.settings:
            return False  # "Where does Dana live?": "Dana started at York Hospital" places her at work, not at home
        return bool(self._stated(values, past=not self.current) - self.said - user_names)

    def share(self, values: RecordValues, user_names: frozenset[str] = frozenset()) -> float:
        """The share of the focus bonus a record with these ``values`` earns: 1 when it answers (:meth:`answers`), but
        for a question asking for a set of items only a record listing several does; one stating a single value of
        the asked kind answers part of it (:data:`~memdesk.retrieval.question_list.PART_SHARE`)."""
        if not self.several:
            return float(self.answers(values, user_names))
        if values.items >= 2:
            return 1.0
        return PART_SHARE if self.slot != "items" and self.answers(values, user_names) else 0.0

    def denies(self, values: RecordValues, user_names: frozenset[str] = frozenset()) -> bool:
        """True when the question asks what holds now and a record with these ``values`` names values of the asked
        kind only to say they no longer hold ("Where does Dana work?": "Dana no longer works at Brightwater")."""
        if not self.current or self.slot not in ("name", "place"):
            return False
        denied = (values.denied_places if self.slot == "place" else values.denied_names) - self.said - user_names
        return bool(denied) and not self.answers(values, user_names)

    def _stated(self, values: RecordValues, *, past: bool) -> frozenset[str]:
        if self.slot == "place":
            return values.places | values.denied_places if past else values.places
        names = values.names | values.denied_names if past else values.names
        return names - values.sites if self.person else names


def question_focus(question: str | None) -> Focus | None:
    """The slot ``question`` asks for (see the module docstring), None when it asks for none of them; a question asking
    for a set of items (:func:`~memdesk.retrieval.question_list.asks_for_set`) is answered by a list as well."""
    if not question:
        return None
    focus = _slot_focus(question)
    if not asks_for_set(question):
        return focus
    if focus is None:
        return Focus("items", frozenset(_bare(w) for w in _WORD.findall(question.lower())), _PAST.search(question) is None, several=True)
    return replace(focus, several=True)


def _slot_focus(question: str) -> Focus | None:
    said = frozenset(_bare(w) for w in _WORD.findall(question.lower()))
    current = _PAST.search(question) is None
    if (kind := asked_kind(question)) is not None:  # "How much ...", "How long ...", "What time ...", "Who is Mette?"
        return Focus(kind[0], said, current, kinds=kind[1])  # type: ignore[arg-type]
    m = _WH.match(question)
    if m is None:
        return _steps(question, said, current)
    wh, nxt = m.group(1).lower(), (m.group(2) or "").lower()
    if wh in ("who", "whom"):
        return Focus("name", said, current, person=True)
    if wh == "where":
        return Focus("place", said, current, _setting(question))
    if wh == "when" or (wh in ("what", "which") and nxt in ("date", "day", "year", "month", "time")):
        return Focus("date", said, current)
    if wh == "how" and nxt in _COUNT_HOW:
        return Focus("count", said, current)
    if wh in ("what", "which") and ASKS_ROLE.search(question):
        return Focus("role", said, current, whose=asked_person(question))
    if wh in ("what", "which"):
        if re.search(r"\b(?:called|named)\W*$", question, re.IGNORECASE) or re.search(r"\bname of\b|\bnames?\b", question, re.IGNORECASE):
            return Focus("name", said, current)
        if wh == "which" and nxt and nxt not in _AUX:
            return Focus("name", said, current)
        if _WHAT_NOUN.match(question):  # "What car does ...", "What book is ...": a named thing
            return Focus("name", said, current)
    return _steps(question, said, current)


def _steps(question: str, said: frozenset[str], current: bool) -> Focus | None:
    """A focus on an item of a plan, list or schedule drawn up, for a question asking what it says and no other slot."""
    return Focus("steps", said, current, kinds=frozenset({"steps"})) if asks_steps(question) else None


def focus_scale(records: int) -> float:
    """The focus bonus's factor in a scope of ``records`` records (see :data:`FOCUS_SCOPE`): 2 for none, 1.5 at
    ``FOCUS_SCOPE``, tending to 1."""
    return 1.0 + FOCUS_SCOPE / (FOCUS_SCOPE + max(records, 0))


def only_asks(text: str, view: str | None) -> bool:
    """True when a record of this ``text`` and ``view`` is a question someone asked and states nothing: a question view
    whose asked part opens an interrogative clause (see :data:`ASKING_WEIGHT`)."""
    return view == QUESTION_VIEW and bool(_INTERROGATIVE.match(text))


def asks_about_asking(question: str | None) -> bool:
    """True when ``question`` asks what someone asked or wondered ("What did Noor ask about the ferry?"): a record of a
    question asked answers it (see :data:`ASKING_WEIGHT`)."""
    return bool(question and _ABOUT_ASKING.search(question))


def _setting(text: str) -> Setting | None:
    """The setting a question names (see :data:`_ASKS_HOME`), None for neither or both."""
    home, work = bool(_ASKS_HOME.search(text)), bool(_ASKS_WORK.search(text))
    return None if home == work else "home" if home else "work"


def _bare(word: str) -> str:
    return word.replace("’", "'").removesuffix("'s")


@dataclass(frozen=True)
class RecordValues:
    """The kinds of value one record's text states: names (lower-cased), the names a place preposition opens, a date,
    a count (a number that is not part of a date); and the names and places it denies (named in a clause that
    negates or leaves them, see the module docstring)."""

    names: frozenset[str]
    places: frozenset[str]
    date: bool
    count: bool
    denied_names: frozenset[str] = frozenset()
    denied_places: frozenset[str] = frozenset()
    role: bool = False
    settings: frozenset[str] = frozenset()
    """Where it places someone: ``"home"``, ``"work"``, both or neither (see :data:`_ASKS_HOME`)."""
    plan: bool = False
    """It speaks of what is to come (:data:`_PLAN`): its date is a plan's, not when something happened."""
    kinds: frozenset[str] = frozenset()
    """The kinds of value of :mod:`memdesk.retrieval.value_kinds` it states (money, a duration, a time of day, ...)."""
    items: int = 0
    """How many items it lists (:func:`~memdesk.retrieval.question_list.listed_items`)."""
    sites: frozenset[str] = frozenset()
    """The names a preposition of where something is opens ("in Portobello", "at the Mercy"): a place, never the person
    a "who" question asks for ("by Mr Dunne", "to Foundry Coffee" may name one)."""
    role_of: frozenset[str] = frozenset()
    """Whose occupation it states (:func:`~memdesk.retrieval.question_role.role_subjects`)."""

    @classmethod
    def of(cls, text: str) -> RecordValues:
        body = _SPEAKER.sub("", text, count=1)
        found: dict[bool, tuple[set[str], set[str]]] = {False: (set(), set()), True: (set(), set())}  # denied -> sets
        sites: set[str] = set()
        for sentence in _SENTENCE.split(body):
            cuts = [m.start() for m in _CLAUSE.finditer(sentence)] + [len(sentence)]
            cues = [(m.start() if (m := _DENIAL.search(sentence, a, b)) else b) for a, b in zip([0, *cuts], cuts)]
            matches = list(_WORD.finditer(sentence))
            place = site = False  # inside a name a place preposition opened ("in New Mills", "at St Brigid's"); site: one of being
            for n, m in enumerate(matches):
                word = m.group()
                lower = word.lower()
                if not word[0].isupper() or lower in _CALENDAR or lower.removesuffix("s") in _CALENDAR or lower in _FUNCTION:
                    place = lower in _PLACE_PREPOSITIONS or lower in _PLACE_VERBS or (place and lower in ("the", "a"))
                    site = lower in _SITE_PREPOSITIONS or (site and lower in ("the", "a"))
                    continue
                if n == 0 and not (len(matches) > 1 and matches[1].group()[0].isupper()):
                    continue  # a sentence's first word is capitalized anyway
                names, places = found[m.start() > cues[sum(c <= m.start() for c in cuts[:-1])]]  # after its clause's cue
                names.add(_bare(lower))
                if place:
                    places.add(_bare(lower))
                if site:
                    sites.add(_bare(lower))
        lowered = body.lower()
        words = set(_WORD.findall(lowered))
        calendar = words & _CALENDAR or {w.removesuffix("s") for w in words} & _CALENDAR  # "on Fridays" names a day
        date = bool(calendar or _NUMERIC_DATE.search(body) or _RELATIVE_DAY.search(body))
        undated = _DAY_OF_MONTH.sub(" ", _NUMERIC_DATE.sub(" ", lowered))  # "14 January" and "2025-05-20" count nothing
        count = bool(_DIGITS.search(undated) or words & _NUMBERS)
        (names, places), (denied_names, denied_places) = found[False], found[True]
        role_of = role_subjects(body)  # "a nurse at St Mary's": an occupation places someone at work
        role = bool(role_of)
        return cls(
            frozenset(names), frozenset(places), date, count,
            frozenset(denied_names - names), frozenset(denied_places - places), role,
            frozenset(k for k, cue in (("home", _ASKS_HOME), ("work", _ASKS_WORK)) if cue.search(body) or (k == "work" and role)),
            bool(_PLAN.search(body)), stated_kinds(body), listed_items(body), frozenset(sites), role_of,
        )  # fmt: skip


def user_name_words(names: Iterable[str]) -> frozenset[str]:
    """The lower-cased words of the user's names ("Dana Kim" -> dana, kim): never a new name in a record."""
    return frozenset(_bare(w) for name in names for w in _WORD.findall(name.lower()))
