"""Sentences of a turn: a splitter that reads Markdown as text, shared by the rule router and extractor.

A pure function of the text: lines first (a list or a recipe written one step per line), then
sentence ends within a line, with abbreviations, initials and list markers kept in their sentence;
Markdown marks dropped and a heading or lead-in joined to the sentence it introduces.
"""

from __future__ import annotations

import re

__all__ = ["HEADING_WORDS", "plain_line", "split_sentences"]

#: A candidate sentence end: terminal punctuation, closing quotes/brackets, space, then an opening
#: capital, digit or quote; or the start of an appended image caption.
_SENT_END = re.compile(r"[.!?]+[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|[.!?]+\s*(?=\[shares an image)")
#: Abbreviations that never end a sentence before a capital (titles before names, "e.g." before an example),
#: English and the titles other languages put before a name in an English sentence ("my supervisor, Dra. Ruiz";
#: "Sra.", "Profa.", "Ing.", "Lic.", "Arq.", "Dott.", "Pr." are no sentence ends either).
_TITLES = frozenset(
    """
    mr mrs ms mx dr prof st ste sta mt ft rev fr sr jr sgt capt lt col gen gov sen rep hon messrs mme mlle
    dra sra srta sres dres profa ing lic arq dott dssa sig pr mons
    """.split()
)
_NEVER_FINAL = frozenset("e.g i.e vs cf approx incl esp viz no nos fig".split())
#: Abbreviations that end a sentence only when a usual sentence opener follows ("in the U.S. The ...").
_MAYBE_FINAL = frozenset("u.s u.k u.n e.u etc co inc ltd corp rd ave blvd ln dept univ".split())
_OPENERS = frozenset(
    """
    i i'm i've i'll i'd we you he she it they the this that these those my our your his her their a an
    but and so then there here what when where why how if also anyway now today yesterday tomorrow
    thanks thank hope let lol haha yes no oh well ok okay
    """.split()
)
_LIST_MARKER = re.compile(r"^(?:\d{1,2}|[a-z])[.)]$|^(?:step\s+\d{1,2}|\d{1,2}(?:st|nd|rd|th))[.:)]?$", re.IGNORECASE)
_MD_HEADING = re.compile(r"^#{1,6}\s+")
_MD_BULLET = re.compile(r"^[*+\-•]\s+")
_MD_BOLD_LINE = re.compile(r"(?:[*+\-•]\s+)?(\*\*|__)[^*_]+\1:?")
_MD_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")
#: The most words a heading or a lead-in line has (a longer line ending in ":" is a sentence).
HEADING_WORDS = 12


def _ends_sentence(before: str, after: str) -> bool:
    """Whether a period after ``before`` ends the sentence, given the text ``after`` it."""
    token = before.rsplit(None, 1)[-1] if before.strip() else ""
    if not token.endswith("."):
        return True  # "!" or "?"
    stem = token.rstrip(".").lstrip("\"'([").lower()
    if stem in _TITLES or stem in _NEVER_FINAL:
        return False
    if re.fullmatch(r"[a-z]", stem):
        return False  # an initial: "J. K. Rowling"
    if stem in ("a.m", "p.m"):
        return True  # "at 2 p.m. Talk soon!"
    if stem in _MAYBE_FINAL or re.fullmatch(r"(?:[a-z]\.)+[a-z]", stem):
        first = after.split(None, 1)[0].strip("\"'([,.!?").lower() if after.strip() else ""
        return first in _OPENERS
    return True


def plain_line(line: str) -> tuple[str, bool]:
    """A line without its Markdown (heading marks, bullets, emphasis, code ticks), and whether it is a
    heading: a ``#`` heading, a line that is all bold, or a short lead-in that ends with a colon."""
    line = " ".join(line.split())
    heading = bool(_MD_HEADING.match(line)) or bool(_MD_BOLD_LINE.fullmatch(line))
    line = _MD_EMPHASIS.sub(r"\2", _MD_BULLET.sub("", _MD_HEADING.sub("", line))).replace("`", "")
    line = line.strip()
    return line, (heading or line.endswith(":")) and 0 < len(line.split()) <= HEADING_WORDS


def split_sentences(text: str) -> list[str]:
    """Split a turn into sentences.

    Lines are split first (a list or a recipe written one step per line); within a line a sentence
    ends at ".", "!" or "?" before a capital or digit, except after a title or an abbreviation ("Dr.
    Lin", "St. Mary's", "e.g. Paris"; "U.S." and "a.m." end one only when a usual sentence opener
    follows). A list marker ("1.", "Step 2:") stays with its step, and an appended image caption is
    a sentence of its own. A dash-joined run-on ("I'm keen on X - I'd love to Y") stays one sentence.
    Markdown is read as a person would (:func:`plain_line`): marks dropped, and a heading or a lead-in
    ("Things to pack:") is joined to the sentence it introduces instead of standing alone.
    """
    out: list[str] = []
    heading = ""
    for raw_line in text.splitlines():
        line, is_heading = plain_line(raw_line)
        if not line:
            continue
        if is_heading:
            heading = f"{heading} {line}" if heading else line
            continue
        first = len(out)
        start = 0
        pieces: list[str] = []
        for m in _SENT_END.finditer(line):
            if _ends_sentence(line[start : m.start() + 1], line[m.end() :]) or line[m.end() :].startswith("[shares an image"):
                pieces.append(line[start : m.end()].strip())
                start = m.end()
        pieces.append(line[start:].strip())
        for piece in pieces:
            if not piece:
                continue
            if out and _LIST_MARKER.match(out[-1]):
                out[-1] = f"{out[-1]} {piece}"
            else:
                out.append(piece)
        if heading and len(out) > first:
            out[first] = f"{heading}{'' if heading.endswith(':') else ':'} {out[first]}"
            heading = ""
    if heading:
        out.append(heading)
    return out
