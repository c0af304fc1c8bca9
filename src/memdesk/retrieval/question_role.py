"""Whose occupation a question asks for, and whose a record states (English).

A question about a living ("What is Dana's job?", "What does Dana do for work?", "What did Dana's dad do?") asks for
an occupation (:data:`ASKS_ROLE`), which a record states with "works as", "trained as", "her job is", "is a/an <noun
named for what one does>" ("a pharmacist", "a bus mechanic"), or a verb of taking a post ("promoted to unit manager",
"started as a senior analyst", "offered practice manager") (:data:`ROLE`). A scope holds the occupations of the
user's whole household, so the record that states one answers only when it is the asked person's: the subject of the
occupation (:func:`role_subjects`: the nearest name or pronoun before it in its clause: "partner Zanele is a theatre
nurse" is Zanele's, "he was a parquet fitter" someone's a pronoun leaves open) must be the asked person
(:func:`asked_person`: the head of the question's subject, "Dana" in "What is Dana's job?", "dad" in "What did Dana's
dad do?", "Marc" in "What does Hannah's partner Marc do?"), or a pronoun. A name the question says that the record
does not may be the user's other name ("Sasha" for Oleksandr): a record stating the user's occupation still answers
it (:func:`whose_role`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["ASKS_ROLE", "ROLE", "asked_person", "role_subjects", "whose_role"]

ASKS_ROLE = re.compile(
    r"\b(?:job|jobs|profession|occupation|job title|career|line of work)\b|\bdo for (?:a )?(?:work|living)\b"
    r"|^\W*what (?:does|did|do) [\w' ]{1,40}? do\W*$",
    re.IGNORECASE,
)
"""A question asking what someone does for a living: "What is Dana's job?", "What does Dana do for work?", "What
does Dana do?"."""
_AGENT = (
    r"(?:[a-z]+(?:er|or|ist|ian|ant|eer|yst|ographer)|[a-z]{3,}(?:man|woman)|mechanic|nurse|chef|vet|midwife|surgeon|cook|clerk|pilot|coach|gp|"
    r"doctor|dentist|solicitor|barrister|lawyer|plumber|electrician|builder|farmer|teacher|lecturer)\b(?! of\b)"
)
ROLE = re.compile(
    r"\bworks? as\b|\bworking as\b|\b(?:job|role|position|title|profession) (?:is|as)\b|\btrained as\b"
    rf"|\b(?:is|was|am|'s|’s|became|becomes|become) (?:a|an) (?:[a-z-]+ ){{0,2}}?{_AGENT}"
    rf"|\b(?:promoted to|started as|hired as|appointed|offered|offered the job of) (?:a |an |the )?(?:[a-z-]+ ){{0,2}}?{_AGENT}",
    re.IGNORECASE,
)
"""A statement of someone's occupation: "works as", "trained as", "her job is", "is a/an <noun>" whose noun is named
for what the person does (the agent suffixes -er, -or, -ist, -ian, -ant, -eer, -yst, and a few trades without one),
or a verb of taking a post before such a noun ("promoted to unit manager", "started as a senior analyst")."""

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*", re.UNICODE)
_PRONOUNS = frozenset("he she they i we you him her them his their my our".split())
_SKIPPED = frozenset("has have had been just now also got is was 's already recently finally".split())
"""Words between an occupation's subject and its verb ("has been promoted", "has just started as")."""
_FUNCTION = _SKIPPED | frozenset("and but so or then also btw the a an my our his her their".split())
_NOUN_FORMS = frozenset("job role position title profession".split())
_BOUNDARY = re.compile(r"[,;:.!?()]|\s[-–—]\s")
_SUBJECT = re.compile(
    r"^\W*what (?:is|was|does|did|do|job (?:is|was|does|did)) (?P<np>[\w'’ ]{1,60}?)"
    r"(?:['’]s (?:job|profession|occupation|career|job title|line of work)\b| do\b| doing\b| have\b)",
    re.IGNORECASE,
)


def asked_person(question: str) -> tuple[str, bool] | None:
    """(the head of the subject, lower-cased; whether it is a name) of a question about a living, None when it is not
    read: "What is Dana's job?" -> ("dana", True), "What did Dana's dad do?" -> ("dad", False)."""
    m = _SUBJECT.match(question)
    if m is None:
        return None
    words = _WORD.findall(m.group("np"))
    if not words or words[-1].lower() in ("the", "a", "an"):
        return None
    head = re.sub(r"['’]s$", "", words[-1])
    return head.lower(), head[0].isupper()


def role_subjects(text: str) -> frozenset[str]:
    """The subject of each occupation ``text`` states (:data:`ROLE`), lower-cased: the word before its verb (past
    auxiliaries and adverbs: "Pavel has been promoted to ..."; "Harriet's detective is a ..." is the detective's), the
    nearest name before "job as" / "role is" ("Imran has started a new job as ..."), and the relation a name stands
    beside ("wife Mette is a midwife": the wife's too), ``""`` for a pronoun or none."""
    found: set[str] = set()
    for m in ROLE.finditer(text):
        before = [re.sub(r"['’]s$", "", w) for w in _WORD.findall(_BOUNDARY.split(text[: m.start()])[-1])[-6:]]
        noun_form = m.group().split()[0].lower() in _NOUN_FORMS
        subject = ""
        for n in reversed(range(len(before))):
            lower = before[n].lower()
            if lower in _PRONOUNS:
                break
            if before[n][0].isupper() or not (noun_form or lower in _SKIPPED):
                subject = lower
                if n and before[n][0].isupper() and before[n - 1].islower() and before[n - 1] not in _FUNCTION:
                    found.add(before[n - 1])  # "wife Mette is a midwife": the relation named beside the name too
                break
        found.add(subject)
    return frozenset(found)


def whose_role(subjects: frozenset[str], asked: tuple[str, bool] | None, user_words: Iterable[str] = ()) -> bool:
    """True when an occupation stated of ``subjects`` (:func:`role_subjects`) may be the ``asked`` person's
    (:func:`asked_person`; ``user_words`` the lower-cased words of the user's names): a pronoun's, the asked person's,
    or the user's for a name the question says that is not the user's (another name of the user's)."""
    if asked is None or not subjects or "" in subjects or asked[0] in subjects:
        return True
    users = set(user_words)
    return asked[1] and asked[0] not in users and bool(subjects & users)
