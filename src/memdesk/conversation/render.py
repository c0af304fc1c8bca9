"""How the rule extractor writes a record's text: attributed, time-labelled, whole sentences.

* :func:`render` turns the analysed sentences of one speaker into text: each relative time gets
  its absolute label ("yesterday (2023-05-07)"), a dropped subject is restored ("Sold my bike" ->
  "Ravi sold Ravi's bike"), and the person is rewritten to names (:mod:`.person`). When a rewrite
  would break a sentence, the whole text stays in the first person and is attributed instead
  ("Priya: I ..."), so no record reads "Priya now live in Clifton".
* :func:`attribute` gives the speaker's label ("Maya:") when the text does not name them: it goes into
  the record's embedding, never its text.
* :func:`fit` joins whole sentences up to a length, so no record is cut mid-sentence (only a
  single sentence longer than the whole limit is shortened, with "…").
* :func:`chunks` splits text in any language into sentence chunks (``。！？`` included) for
  records of languages the English rules do not read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .person import third_person
from .rules import ED_ADJECTIVES, IRREGULAR_PAST, Sentence, words

__all__ = ["render", "attribute", "fit", "truncate", "chunks"]

_IMAGE = re.compile(r"^\[shares an image: (.*)\]$")
_ELLIPSIS_LEADS = {"been": "has been", "gonna": "is gonna", "going": "is going"}
#: "Been a while since ..." says "It has been", not "Ravi has been".
_IMPERSONAL_BEEN = re.compile(
    r"^been (?:ages|forever|so long|too long|years|(?:such |quite )?an? (?:(?!for\b|at\b|in\b|with\b|since\b|as\b)[a-z-]+ ){0,2}?"
    r"(?:while|time|day|days|week|weeks|weekend|month|months|year|ride|summer|winter|spring|autumn|fall|morning|evening|night)\b)",
    re.IGNORECASE,
)
_ANY_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？!?])")


def truncate(text: str, limit: int) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters, with "…" when cut."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "…"


def fit(parts: Sequence[str], limit: int, *, head: str = "") -> str:
    """``head`` followed by as many whole ``parts`` as fit in ``limit`` characters (at least one,
    shortened with "…" only if it alone is too long)."""
    out = head
    for i, part in enumerate(parts):
        candidate = f"{out} {part}" if out and not out.endswith(" ") else out + part
        if len(candidate) > limit:
            return truncate(candidate, limit) if i == 0 else out
        out = candidate
    return out


#: A time expression that names its date in words ("15 April", "in September", "2019"): the words say
#: when; the year a person infers is in the record's anchor and ``metadata["time_expressions"]``.
_CALENDAR_WORDS = re.compile(
    r"\b(?:\d{4}|january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b",
    re.IGNORECASE,
)


#: What after a time expression carries on its words: a possessive, a hyphenated or glued word, a day number.
_CONTINUES = re.compile(r"['\u2019]s\b|[-\w]|\s+\d{1,2}(?:st|nd|rd|th)\b", re.IGNORECASE)


def _inline_times(s: Sentence) -> str:
    """The sentence with each relative time expression ("yesterday", "last week") followed by its
    absolute label; a date said in calendar words is left as said."""
    text = s.text
    for t in sorted(s.times, key=lambda t: -t.span[0]):
        if t.label.lower() in t.text.lower() or t.text.strip().isdigit() or _CALENDAR_WORDS.search(t.text):
            continue
        b = t.span[1]
        if _CONTINUES.match(text, b):
            continue  # "Tomorrow's gonna be", "mid-week-ish", "Friday 20th": a label would split the words; the anchor carries it
        text = f"{text[:b]} ({t.label}){text[b:]}"
    return text


#: Past forms that are also the base form: at the start of a sentence they are imperatives ("Let me know").
_BASE_TOO = frozenset("let put cut set hit quit read bet hurt shut cost spread beat".split())


def _is_past(w: str) -> bool:
    return (w in IRREGULAR_PAST and w not in _BASE_TOO) or (w.endswith("ed") and len(w) > 4 and w not in ED_ADJECTIVES)


def _restore_subject(text: str, speaker: str | None) -> str:
    """"Sold my bike yesterday" -> "Ravi sold my bike yesterday" (the pronouns are rewritten next);
    "Been a while since ..." or "Been a hectic month" -> "It has been ..."."""
    if not speaker or text.rstrip().endswith("?"):
        return text
    ws = words(text)
    if not ws:
        return text
    if _IMPERSONAL_BEEN.match(text):
        return "It has " + text[0].lower() + text[1:]
    first = ws[0]
    if re.match(r"^\S+:", text):
        return text  # "Unrelated: ...", "Update: ...": a lead-in, not a verb with its subject dropped
    adverb_then_past = first in ("just", "finally") and len(ws) > 1 and _is_past(ws[1])
    # "Mixed emotions are rough": an "-ed" word before a noun and a verb is an adjective, not a dropped-subject past
    adjective = first.endswith("ed") and len(ws) > 2 and ws[2] in ("is", "are", "was", "were", "can", "will", "make", "makes")
    if (_is_past(first) and not adjective) or first in ("been", "gonna", "going") or adverb_then_past:
        lead = _ELLIPSIS_LEADS.get(first)
        rest = text[len(text.split()[0]) :] if lead and lead != first else text[1:]
        shouted = text.split()[0].isupper() and len(text.split()[0]) > 1  # "GOT THE JOB!": not "gOT"
        head = lead if lead and lead != first else (text[0] if shouted else text[0].lower())
        return f"{speaker} {head}{rest}"
    return text


def render(
    sentences: Sequence[Sentence], speaker: str | None, addressee: str | None, *, keep_you: bool = False
) -> tuple[list[str], bool]:
    """The sentences as record text, one string each, and whether they were rewritten to names
    (``False``: kept in the first person because a rewrite would break one of them)."""
    ad = None if keep_you else addressee
    out: list[str] = []
    plain: list[str] = []
    ok = True
    for s in sentences:
        m = _IMAGE.match(s.text)
        if m:
            caption = f"{speaker or 'Someone'} shared an image: {m.group(1)}"
            out.append(caption)
            plain.append(caption)
            continue
        timed = _inline_times(s)
        plain.append(timed)
        rewritten = third_person(_restore_subject(timed, speaker), speaker, ad)
        if rewritten is None:
            ok = False
        else:
            out.append(rewritten)
    return (out, True) if ok else (plain, False)


def attribute(text: str, speaker: str | None, *, rewritten: bool = True) -> str:
    """The label ("Maya:") that says whose words ``text`` holds when it does not name them (always, for
    first-person text), else "". It shapes how the record is found (the extractor puts it in
    ``metadata["embed_context"]``) and the evidence line shows the record's speaker; the record's text
    holds the speaker's own words only, never a "Name:" label."""
    if speaker and (not rewritten or speaker.split()[0] not in text):
        return f"{speaker}:"
    return ""


def chunks(text: str, limit: int) -> list[str]:
    """Whole sentences of ``text`` (any language) packed into chunks of at most ``limit`` characters;
    a sentence longer than ``limit`` is split at spaces (or anywhere, for text without spaces), so
    nothing of the text is lost."""
    sentences = [p.strip() for p in _ANY_SENTENCE_END.split(" ".join(text.split())) if p.strip()]
    out: list[str] = []
    current = ""
    for sentence in sentences:
        candidate = f"{current} {sentence}" if current else sentence
        if len(candidate) <= limit:
            current = candidate
            continue
        if current:
            out.append(current)
        while len(sentence) > limit:
            cut = sentence.rfind(" ", 0, limit)
            cut = cut if cut > limit // 2 else limit
            out.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        current = sentence
    if current:
        out.append(current)
    return out
