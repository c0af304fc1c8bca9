"""First-to-third person rewriting for English records: "I now live in Bath" -> "Priya now lives in Bath".

:func:`third_person` rewrites the speaker's first person to their name and, if the addressee is
known, second person to the addressee's, conjugating the verb after a rewritten subject. It
returns ``None`` when it cannot do so grammatically (a word after "I" that it cannot read as a
verb, a plural "you guys", ...): the caller then keeps the sentence in the first person,
attributed to the speaker ("Priya: I ..."), rather than store a broken sentence.

The rules, word by word (a token walk, not chained regular expressions):

* ``I'm``/``I am`` -> "is", ``I've``/``I have`` -> "has", ``I'll`` -> "will", ``I'd`` -> "would",
  or "had" before a past participle or "better"; ``I don't``/``haven't`` -> "doesn't"/"hasn't";
* ``I`` + adverbs + verb: the verb takes the third person ("I really love" -> "really loves",
  "I no longer work" -> "no longer works") unless it is a modal, a past form or follows a
  coordinated subject ("Ravi and I live" stays plural); after an auxiliary ("did I take", "do I")
  the auxiliary agrees instead ("does Priya");
* ``my``/``mine`` -> "Priya's" (not a capital "My" inside a sentence: "near My Khe beach"), ``me`` -> "Priya"; ``myself``/``yourself`` keep the sentence as said
  (the pronoun a name takes is not known);
* ``you`` is the addressee only where it is a subject (clause start, after a conjunction or an
  auxiliary) or an object; ``thank you``, ``you know,`` and plural ``you`` (``you guys``,
  ``you two``, ``you and ...``) stay as they are;
* "we", "us" and "our" are left alone (whom they include is not known);
* a self-introduction names the speaker once: "I'm Priya, a nurse in Leeds" -> "Priya is a nurse in Leeds",
  "I'm Priya and I teach maths" and "I'm Priya, I teach maths" -> "Priya teaches maths" (not "Priya is Priya, ...").
"""

from __future__ import annotations

import re

from .rules import IRREGULAR_PAST

__all__ = ["third_person", "to_third_person", "conjugate"]

ADVERBS = frozenset(
    """
    really also just still always usually often sometimes never actually totally definitely absolutely
    truly now ever even only already finally recently seriously honestly literally basically mostly
    rarely hardly barely probably certainly genuinely simply personally kinda sorta then first once
    again soon almost nearly both all generally normally typically occasionally constantly currently
    originally secretly slowly quickly eventually immediately suddenly somehow obviously clearly
    not longer no more
    """.split()
)
MODALS = frozenset(
    "can could will would should might must may shall can't couldn't won't wouldn't shouldn't mustn't "
    "didn't wasn't weren't ain't did was were had hadn't used".split()
)
#: Present-tense forms of verbs whose past is spelt the same; read as past (chat narrates).
_SAME_PAST = frozenset("quit bet hurt cut put let set hit shut cost spread beat burst split".split())
_ED_PRESENT = frozenset("need feed bleed breed speed seed heed proceed succeed exceed shed wed embed shred weed".split())
#: Words that can follow "I" but are not a verb to conjugate.
_NOT_VERBS = frozenset("too myself personally alone and or but who that which also".split())
#: Verbs ending in "-ly" (not adverbs).
_LY_VERBS = frozenset("apply rely reply supply fly multiply bully rally tally imply ally".split())
_SUBORDINATORS = frozenset(
    """
    and but so if when because that since while as or than where how what why who whether until unless
    though although once before after whenever wherever hope think bet guess know sure glad wish
    """.split()
)
_AUX_AGREE = {
    "do": "does", "have": "has", "are": "is", "am": "is", "were": "was",
    "don't": "doesn't", "haven't": "hasn't", "aren't": "isn't", "weren't": "wasn't",
}  # fmt: skip
#: Past participles after "I'd" that make it "I had".
_PARTICIPLES = frozenset(
    """
    been gone done seen taken given eaten written known grown driven ridden broken chosen fallen forgotten
    spoken stolen worn thrown drawn hidden begun sung swum had got gotten made found left lost met heard
    told said thought bought brought felt kept sent spent won become come run
    """.split()
)
#: Who "... and I" usually is (a coordinated subject, not a second clause).
_PARTNERS = frozenset(
    """
    he she they him her you wife husband partner spouse kids children son daughter mom mum mother dad
    father parents brother sister siblings family friend friends boyfriend girlfriend fiance fiancee
    cousin cousins team colleagues coworkers roommate flatmate grandma grandpa aunt uncle
    """.split()
)
#: What follows an object "you" ("give you a", "see you at", "thank you so"), unlike a subject's verb.
_OBJECT_FOLLOWERS = frozenset(
    """
    a an the to for about with at in on of from into up out down over back off this that these those my his
    her our their some any all both so too very more again tomorrow today tonight soon later now guys two
    what how when where why if and or but as than like
    """.split()
)
#: Prepositions before a name that make it a place or an object ("in Hoi An and I ..."), not a partner in the subject.
_PLACE_PREPOSITIONS = frozenset("in at to from near into for with of on by".split())
_PLURAL_YOU = frozenset("guys two both all lot folks people".split())
#: Informal contractions of a verb and "to" that a third-person subject spells out ("I wanna" -> "Priya wants to").
_INFORMAL = {"wanna": "wants to", "gotta": "has to", "gonna": "is gonna"}
_TOKEN = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?|[\W\d_]+")  # words in any alphabet: "Hội An" is two words
_BOUNDARY = re.compile(r"[,.;:!?()\"\u2013\u2014]|\s-\s")


def conjugate(verb: str) -> str:
    """The third-person singular present of a base verb: "love" -> "loves", "try" -> "tries"."""
    v = verb.lower()
    irregular = {"have": "has", "do": "does", "go": "goes", "be": "is", "am": "is", "are": "is"}
    if v in irregular:
        return irregular[v]
    if re.search(r"(?:s|sh|ch|x|z|o)$", v):
        return v + "es"
    if re.search(r"[^aeiou]y$", v):
        return v[:-1] + "ies"
    return v + "s"


def _is_past(word: str) -> bool:
    """A past form: right after a subject an "-ed" word is a verb ("I moved"), unless it is one of
    the few present-tense verbs that end so ("I need")."""
    w = word.lower()
    return w in IRREGULAR_PAST or w in _SAME_PAST or (w.endswith("ed") and len(w) > 3 and w not in _ED_PRESENT)


def _is_adverb(word: str) -> bool:
    w = word.lower()
    return w in ADVERBS or (w.endswith("ly") and len(w) > 4 and w not in _LY_VERBS)


def _cap(word: str, like: str) -> str:
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


class _Rewriter:
    """One pass over the tokens of a text; ``failed`` is set when a rewrite would break grammar."""

    def __init__(self, text: str, speaker: str, addressee: str | None) -> None:
        self.tokens = _TOKEN.findall(text.replace("\u2019", "'"))
        self.words = [i for i, t in enumerate(self.tokens) if t[0].isalpha()]
        self.lower = [self.tokens[i].lower() for i in self.words]  # as written (rewrites change tokens)
        self.speaker = speaker
        self.addressee = addressee
        self.failed = False

    # -- navigation over word positions ---------------------------------------------------------
    def word(self, k: int) -> str:
        return self.lower[k] if 0 <= k < len(self.words) else ""

    def boundary_before(self, k: int) -> bool:
        """Whether clause punctuation (or the start of the text) comes before word ``k``."""
        if k == 0:
            return True
        gap = "".join(self.tokens[self.words[k - 1] + 1 : self.words[k]])
        return bool(_BOUNDARY.search(gap))

    def boundary_after(self, k: int) -> bool:
        if k + 1 >= len(self.words):
            return True
        return self.boundary_before(k + 1)

    def set(self, k: int, text: str) -> None:
        self.tokens[self.words[k]] = text

    def _hyphenated(self, j: int) -> bool:
        """Whether word ``j`` is the first half of a hyphenated word ("color-code")."""
        nxt = self.tokens[self.words[j] + 1] if self.words[j] + 1 < len(self.tokens) else ""
        return nxt == "-"

    def verb_after(self, k: int) -> int | None:
        """Word position of the verb after a subject at ``k`` (adverbs skipped)."""
        j = k + 1
        while j < len(self.words) and not self.boundary_before(j) and _is_adverb(self.word(j)):
            j += 1
        if j >= len(self.words) or self.boundary_before(j):
            return None
        return j

    # -- subjects -------------------------------------------------------------------------------
    def agree_aux_before(self, k: int) -> bool:
        """"do I" -> "does Priya": make an auxiliary right before a subject agree; True if one was there."""
        if k == 0 or self.boundary_before(k):
            return False
        prev = self.word(k - 1)
        if prev in _AUX_AGREE:
            self.set(k - 1, _cap(_AUX_AGREE[prev], self.tokens[self.words[k - 1]]))
            return True
        return prev in MODALS or prev in ("does", "is", "has", "doesn't", "isn't", "hasn't")

    def coordinated(self, k: int) -> bool:
        """"Ravi and I", "I and Ravi": a plural subject whose verb keeps its base form."""
        after = not self.boundary_after(k) and self.word(k + 1) in ("and", "or")
        if after or k < 2 or self.boundary_before(k) or self.word(k - 1) not in ("and", "or"):
            return after
        if self.boundary_before(k - 1):
            return False  # "I'm Priya, 34, and I sell candles": a second clause
        other = self.tokens[self.words[k - 2]]
        if other.lower() in self.speaker.lower().split():
            return False  # "I'm Priya and I teach": the speaker is not their own partner
        j = k - 2  # the first word of the name before "and" ("Hoi An")
        while j > 0 and not self.boundary_before(j) and self.tokens[self.words[j - 1]][:1].isupper():
            j -= 1
        if j > 0 and not self.boundary_before(j) and self.word(j - 1) in _PLACE_PREPOSITIONS:
            return False  # "I live in Hoi An and I guide tours": a place, then a second clause
        named = other[:1].isupper() and other.lower() not in _SUBORDINATORS and not _is_adverb(other)
        return named or other.lower() in _PARTNERS

    def subject(self, k: int, name: str) -> None:
        """Rewrite the subject at ``k`` to ``name`` and make its verb agree."""
        self.set(k, name)
        if self.agree_aux_before(k) or self.coordinated(k):
            return
        j = self.verb_after(k)
        if j is None:
            return
        verb = self.word(j)
        raw = self.tokens[self.words[j]]
        if verb in _AUX_AGREE:
            self.set(j, _AUX_AGREE[verb])
        elif verb in _INFORMAL:
            self.set(j, _INFORMAL[verb])
        elif verb in MODALS or _is_past(verb) or verb in ("is", "has", "does", "doesn't", "isn't", "hasn't"):
            return
        elif verb in _NOT_VERBS or verb.endswith("ing") or not raw.islower() or "'" in verb or self._hyphenated(j):
            self.failed = True
        else:
            self.set(j, conjugate(verb))

    def contraction(self, k: int, name: str, tail: str) -> None:
        """"I'm" -> "Priya is" and the like; ``tail`` is the part after the apostrophe."""
        if tail == "d":
            nxt = self.verb_after(k)
            follows = self.word(nxt) if nxt is not None else ""
            aux = "had" if follows == "better" or follows in _PARTICIPLES or (follows.endswith("ed") and _is_past(follows)) else "would"
        else:
            aux = {"m": "is", "re": "is", "ve": "has", "ll": "will", "s": "is"}.get(tail)
            if aux is None:
                self.failed = True
                return
        self.set(k, f"{name} {aux}")

    # -- the walk -------------------------------------------------------------------------------
    def run(self) -> str:
        sp, ad = self.speaker, self.addressee
        for k in range(len(self.words)):
            raw = self.tokens[self.words[k]]
            w = raw.lower()
            head, _, tail = w.partition("'")
            if head == "i" and (raw[0] == "I" or self.tokens[self.words[k] + 1 : self.words[k] + 2] == [" "]):
                if tail:
                    self.contraction(k, sp, tail)
                elif not self.boundary_after(k) and self.word(k + 1) == "am":
                    self.set(k, sp)
                    self.set(k + 1, "is")
                else:
                    self.subject(k, sp)
            elif w in ("my", "mine") and raw[0] == "M" and not self.boundary_before(k):
                continue  # a capital inside a sentence is a name's: "a flat near My Khe beach"
            elif w in ("my", "mine"):
                self.set(k, f"{sp}'s")
            elif w == "me":
                self.set(k, sp)
            elif w == "myself":
                self.failed = True  # "express myself": the name's pronoun is not known; keep the sentence
            elif ad and w.startswith("you"):
                self.second_person(k, ad, w, tail)
        text = "".join(self.tokens)
        return _introduction(re.sub(r"\b(\w+)'s's\b", r"\1's", text), sp)

    def second_person(self, k: int, ad: str, w: str, tail: str) -> None:
        nxt = self.word(k + 1) if not self.boundary_after(k) else ""
        if w in ("your", "yours"):
            self.set(k, f"{ad}'s")
            return
        if w == "yourself":
            self.failed = True  # "have faith in yourself" stays as it was said
            return
        if w != "you" and not tail:
            return  # "youth", "yourselves", ...
        if nxt in _PLURAL_YOU or nxt == "and" or (k > 0 and self.word(k - 1) in ("thank", "and")):
            return
        if nxt in ("know", "see", "mean") and self.boundary_after(k + 1) and self.boundary_before(k):
            return  # the filler ", you know,"
        if tail:
            self.contraction(k, ad, tail)
            return
        at_subject = self.boundary_before(k) or self.word(k - 1) in _SUBORDINATORS
        aux_before = k > 0 and not self.boundary_before(k) and (self.word(k - 1) in _AUX_AGREE or self.word(k - 1) in MODALS)
        if aux_before and k > 1 and not self.boundary_before(k - 1) and (self.word(k - 2) == "to" or self.word(k - 2) in MODALS):
            aux_before = False  # "lucky to have you", "I'll have you over": a verb and its object, not "have you ...?"
        if at_subject or aux_before:
            self.subject(k, ad)
        elif self.boundary_after(k) or nxt in _OBJECT_FOLLOWERS or _is_adverb(nxt):
            self.set(k, ad)  # an object: "call you tomorrow", "tell you about it"
        else:
            self.failed = True  # "the day you move out": a subject the rules cannot see; keep the sentence


#: What may follow "I'm <name>," as a description of the speaker ("a nurse", "the new cook", "from Leeds",
#: "34", "Ana's brother"); anything else ("nice to meet you") keeps the introduction as it was.
_DESCRIPTION = r"(?:a|an|the|from|one|\d|[A-Z]\w*'s\b|[a-z]+'s\b|currently|originally|mostly)"


def _introduction(text: str, speaker: str) -> str:
    """Name the speaker once where the rewrite made "Priya is Priya, a nurse" of "I'm Priya, a nurse"."""
    first = speaker.split()[0]
    names = "|".join(re.escape(n) for n in dict.fromkeys((speaker, first)))
    said = rf"\b{re.escape(speaker)} is (?:{names})\b"
    text = re.sub(rf"{said}(?:,?\s+and|,)\s+(?={re.escape(speaker)}\b)", "", text)
    return re.sub(rf"{said},\s+(?={_DESCRIPTION})", f"{speaker} is ", text)


def third_person(text: str, speaker: str | None, addressee: str | None = None) -> str | None:
    """``text`` with first person rewritten to ``speaker`` (second to ``addressee``), or ``None``
    when that would break the sentence. Without a speaker the text is returned unchanged."""
    if not speaker:
        return text
    rw = _Rewriter(text, speaker, addressee)
    out = rw.run()
    return None if rw.failed else out


def to_third_person(text: str, speaker: str | None, addressee: str | None = None) -> str:
    """Like :func:`third_person`, but returns ``text`` unchanged when the rewrite is unsafe."""
    out = third_person(text, speaker, addressee)
    return text if out is None else out
