"""The small-talk test learned from examples: a logistic regression on the packaged MiniLM sentence embedding.

The rules of :mod:`.social` and :mod:`.rules` recognise small talk by its words; people say the same things in
ways no list holds ("We're delighted.", "Slowly does it.", "Keeps me sane."). This test reads what a sentence
means instead: its MiniLM embedding, weighed by a vector trained on sentences written for it and on the tune
chats (``bench/filler/train.py``, ``bench/filler/sentences.txt``; the weights ship as
``conversation/data/filler_minilm.json``).

It decides per turn (:func:`memdesk.conversation.router.analyze_utterance`): a turn is small talk when every
statement of it is (a question beside them makes no record of its own there), so a turn with a fact keeps all its
words; it leaves alone an answer to a question about something and what is said of someone in particular. In a turn
that says something, a sentence it reads as small talk gets no sentence view of its own (:meth:`FillerTest.all_filler`,
:class:`memdesk.conversation.extract.RuleExtractor`): the whole-turn and reply views still hold it. Within a sentence it decides only where nothing anchors a
fact (:func:`anchor_strength`): a number, a name other than the speakers', an instruction, or more than
:data:`MAX_WORDS` words keep a sentence whatever the model says, so evidence with a name, a date or a quantity is
never dropped by it; concrete words alone raise the bar. The router, the rule extractor and the LLM
processor's post-processing (:mod:`.llm_tidy`) share one instance (:func:`memdesk.factory.build_processor`).

:func:`evaluation_only` is the structural test beside it, with no model and at any length: a statement with no
number, no name but the speakers', no time, nobody in particular, no plan with the listener and no time or place pointed
back to, that says nothing of the world but how something is judged or felt: every content word a word of evaluation,
feeling or inner life in general (:func:`inner_only`: "Honestly it gives me a real sense of purpose and calm"), or every
clause a quality predicated of what the context names, whatever the quality's words ("The choreography was so mesmerising"),
or no event, no thing introduced and nothing beyond inner life but graded words. The rule extractor gives such a
sentence no view of its own beside a fact, no statement record beside another statement, and a turn of nothing else no
record unless it answers a question about something (:class:`memdesk.conversation.extract.RuleExtractor`).
:func:`reaction_only` reads the same way a sentence that only reacts to what the listener told, in any words (what the
listener is or has, the speaker's attitude toward it, an evaluation of it, encouragement, a truism:
:func:`.reactions.reaction_clause`); :func:`says_nothing` is either.
"""

from __future__ import annotations

import json
import logging
import re
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np

from .lexicon import ED_ADJECTIVES, IRREGULAR_PAST, PHATIC_WORDS, name_words
from .reactions import FIRST_SINGULAR as _FIRST_SINGULAR
from .reactions import reaction_clause
from .rules import content_words
from .social import EVALUATIVE_WORDS, THIRD_PERSON, abstract_only, plain_named, speaker_word
from .stance import STANCE_WORDS, clause_split

if TYPE_CHECKING:
    from ..embed.base import Embedder

log = logging.getLogger(__name__)

__all__ = ["FillerTest", "anchored", "anchor_strength", "evaluation_only", "inner_only", "reaction_only", "says_nothing", "MAX_WORDS"]

#: A sentence longer than this says enough to keep.
MAX_WORDS = 12
_CAPITALISED = re.compile(r"(?<!^)(?<![.!?:;]\s)(?<![\"'(])\b(?!I\b|I')[A-Z][\w'-]*")
_WORD = re.compile(r"[\w'-]+")
_OWNER = re.compile(r"\b(?:i|we|my|our|his|her|their|i'm|we're|i've|we've|i'd|we'd|i'll|we'll)\b", re.IGNORECASE)
_ASKS = re.compile(r"^\s*(?:please|remember|always|never|don't|do not|make sure|remind|call me|keep)\b", re.IGNORECASE)


def anchored(text: str, names: Iterable[str] = ()) -> bool:
    """Whether ``text`` holds something a fact hangs on (:func:`anchor_strength` above 0)."""
    return anchor_strength(text, names) > 0


def anchor_strength(text: str, names: Iterable[str] = ()) -> int:
    """2 if ``text`` holds something a fact hangs on: a digit, a capitalised word that is not a speaker's name
    (nor the first word), an instruction, more than :data:`MAX_WORDS` words; 1 if it only has concrete words:
    three content words that are not words of feeling, degree, evaluation or social formula
    (:func:`.social.abstract_only`'s lexicons: "Theo wants a space theme, with rockets"), two with a first
    person or a possessive ("I hate long replies", "my sister's van"; not "I'm so happy right now", "It keeps
    me going"); else 0. Content words are not all nouns ("I'm not giving up"), so the weak anchor only raises the
    bar (:attr:`FillerTest.weak_threshold`). A name that opens the sentence cannot be told from any capitalised
    first word: it anchors only through the concrete words around it."""
    known = name_words(names)
    if re.search(r"\d", text) or _ASKS.match(text) or len(_WORD.findall(text)) > MAX_WORDS:
        return 2
    if any(w.lower() not in known for w in _CAPITALISED.findall(text.strip())):
        return 2
    concrete = [w for w in content_words(text, names) if not abstract_only([w])]
    return 1 if len(concrete) >= (2 if _OWNER.search(text) else 3) else 0


#: Words of a person's inner life and of its course in general, beyond :data:`.stance.STANCE_WORDS`: what a sentiment
#: is made of when it names nothing ("Honestly it gives me a real sense of purpose and calm", "It was a good reminder to
#: trust myself a bit more", "Step by step it all starts to feel worthwhile").
_INNER = frozenset(
    """
    memory memories moment laughter laugh creativity reminder remind importance reality direction decision trust life
    lesson lessons growth outlook mindset confidence confident peace calm gratitude relief relieved stress stressed
    stressful overwhelm overwhelmed exhausted tired relax relaxed frustrate frustrated annoy annoyed bummer
    disappoint disappointed fulfil fulfill fulfilled satisfy satisfied worthwhile invincible electric savor savour
    cherish embrace decompress unwind switch cope coping handle tackle find turn start begin continue ahead
    heart soul spirit vibes feelings excitement nervous anxious anxiety scared fear joy love emotion together closer
    united unite bring brings grateful forward hold holds future dreams goal goals purpose meaning
    people others everyone folks plus not never put into doubt enough brought took though although even once over
    because each other similar focus satisfaction worry worries recharge determination made got doing experience kept
    balance
    """.split()
)
_GENERIC = re.compile(r"\b(?:people|others|everyone|everybody|folks)\b", re.IGNORECASE)
_KNOWN_INNER = STANCE_WORDS | _INNER


def _inner(word: str) -> bool:
    """Whether ``word`` (or its stem: -s, -es, -ed, -d, -ing, -ly, -ness) is a word of :data:`_KNOWN_INNER`."""
    w = word.split("'")[0]
    stems = {w}
    for suffix in ("ness", "ing", "ed", "es", "ly", "s", "d"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            stem = w[: -len(suffix)]
            stems |= {stem, stem + "e", stem[:-1] if len(stem) > 3 and stem[-1] == stem[-2] else stem}
    return any(x in _KNOWN_INNER for x in stems)


def _someone(text: str) -> bool:
    """A third person in ``text`` who is someone in particular: not one that refers back to people in general said
    before it in the sentence ("It is great to see people putting their hearts into it")."""
    first = THIRD_PERSON.search(text)
    return first is not None and not _GENERIC.search(text[: first.start()])


def inner_only(text: str, names: Iterable[str] = (), *, timed: bool = False) -> bool:
    """Whether nothing in the sentence ``text`` is worth remembering about anyone, by its structure: a statement
    (not a question) with no number, no name but the speakers', no time expression (``timed``: the caller's
    resolved ones), nobody in particular (a third person: "She has been my rock"), whose every content word is
    a word of evaluation, feeling, degree, thinking or of inner life in general (:data:`_INNER`): "I'm trying to
    embrace the stress and keep my focus", "It was a good reminder to trust myself a bit more". One concrete word keeps
    it ("I love the smell of fresh bread on our street", "I find real peace in my pottery classes"). At any length: the learned
    test (:class:`FillerTest`) stops at :data:`MAX_WORDS`, a sentiment does not."""
    raw = text.strip().replace("\u2019", "'")
    if not raw or timed or raw.endswith("?") or plain_named(raw, names) or _someone(raw) or _WITH_YOU.search(raw) or _POINTS_BACK.search(raw):
        return False
    words = content_words(raw, names)
    return all(_inner(w) for w in words)


#: A clause that predicates a quality of what the context names: a pronoun or a short demonstrative or definite
#: phrase, a linking verb, degree words, and one or two words of predicate, whatever they are ("The choreography was so
#: mesmerising", "It was a total rollercoaster", "That sounds unreal"); or a quality of an activity said by extraposition ("It's
#: so freeing to let go of the worry"). The groups: subject, predicate, what follows the predicate.
_SUBJECT = r"(?:it|that|this|everything|all of it|(?:the|that|this|those|these|such) [\w'-]+(?: (?:and|of) (?:the )?[\w'-]+)?)"
_LINK = (
    r"(?:'s|'re| is| are| was| were| has been| have been| had been| feels?| felt| seems?| seemed| looks?| looked| sounds?| sounded|"
    r"(?: can| could| must| will| would| might|'ll|'d) (?:be|feel|seem|look|sound|get)| gets?| got| became| becomes| is gonna be| was gonna be)"
)
_DEGREE = r"(?: (?:so|such|really|very|quite|pretty|super|truly|just|totally|absolutely|incredibly|extremely|too|always|definitely|a bit|kind of|like))*"
_PREDICATION = re.compile(rf"^{_SUBJECT}{_LINK}{_DEGREE}( an?)?((?: [\w'-]+){{1,2}}?)((?:,? (?:and|but|with|in|of|for|to) .*)?)[\s!.\u2026]*$")
_EXTRAPOSED = re.compile(rf"^(?:it|that|this){_LINK}{_DEGREE}(?: an?)?((?: [\w'-]+){{1,2}}?) (?:to|when|how|that|seeing|knowing|being|having|hearing|watching)\b(.*)$")
#: A plan with the listener: a first person's intention to do something with or to the listener ("We should have you
#: over soon", "I'll take you to the allotment"): an event between the two, not a sentiment, whatever its words.
_WITH_YOU = re.compile(
    r"\b(?:i|we)(?:'d| would|'ll| will| should| could| can|'m going to|'re going to| want to| wanna| plan to| hope to)"
    r"(?: (?:really|definitely|totally|love to|like to|be able to|so|also))* (?!let\b|tell\b|keep\b|update\b|know\b|hear\b|miss\b|thank\b)"
    r"[a-z]+ (?:you|you guys|you two|you all)\b(?! know\b)",
    re.IGNORECASE,
)
#: A time or place the context gave, pointed back to at a clause's end ("I'm off work then, so come by", "We'll be
#: there"): the sentence is about an event named before it.
_POINTS_BACK = re.compile(r"\b(?:then|there|that day|that night|that weekend)\s*(?:[,;:!.\u2026]|\s-\s|\s(?:so|and|but|too|as well|already)\b|$)", re.IGNORECASE)


#: Verbs of linking, feeling, thinking and light verbs: in the past they tell how something was, not that something
#: happened ("It felt right", "That meant a lot", "We had a lovely time").
_NOT_EVENTS = frozenset("was were been felt seemed looked sounded got became had made did said thought knew loved liked meant found".split())
#: Something introduced by a determiner or a possessive: "a sewing machine", "my toolbox", "our old van" (either of the
#: two words after it).
_REFERENT = re.compile(r"\b(?:a|an|my|our|his|her|their|some|[A-Z][\w-]*'s)\s+([\w-]+)(?:\s+([\w-]+))?", re.IGNORECASE)


#: A word after a degree word: a gradable quality, the mark of an evaluation ("so unreal", "pretty surreal", "such a
#: treat"), where a fact's word is not graded ("diabetic", "fencing").
_GRADED = re.compile(r"\b(?:so|such|very|pretty|quite|super|too|incredibly|extremely|utterly)(?: an?)?(?: (?:so|really|very))? ([\w'-]+)", re.IGNORECASE)


def _event(text: str) -> bool:
    """Whether ``text`` has a verb in the past that is no linking, feeling or light verb (:data:`_NOT_EVENTS`): a
    regular past ("-ed", not an adjective of :data:`.lexicon.ED_ADJECTIVES`) or an irregular one."""
    for w in _WORD.findall(text.lower()):
        if w in _NOT_EVENTS:
            continue
        if w in IRREGULAR_PAST or (w.endswith("ed") and len(w) > 4 and w not in ED_ADJECTIVES):
            return True
    return False


def _referent(text: str) -> bool:
    """Whether ``text`` introduces a thing: a determiner or a possessive before a noun that is no word of inner life."""
    for m in _REFERENT.finditer(text):
        for w in filter(None, m.groups()):
            if w.lower() not in PHATIC_WORDS and not _inner(w.lower()):
                return True
    return False


def _inner_rest(text: str, names: Iterable[str]) -> bool:
    """Whether every content word of ``text`` is a word of inner life (:func:`_inner`) or a speaker's name said short
    (:func:`.social.speaker_word`: the vocative "Mel"); an empty text is."""
    known = name_words(names)
    return all(_inner(w) or speaker_word(w, known) for w in content_words(text, names))


#: A feeling at one moment, over when told: the speaker felt it, or was feeling it, then ("I felt relieved and grateful
#: to make it through", "we were all feeling so giddy"); or what something pointed to did to the speaker then ("The sound
#: of that place made me so calm", "it left us speechless"). The past marks one occasion: "I feel calm", "painting makes
#: me calm", "the group has made me feel accepted" say what holds, and "I'm feeling good" how someone is now.
_FELT = re.compile(r"^(?:i|we)(?: (?:was|were|all|both|just|really|so|definitely|honestly))* (?:felt|feeling)\b(?P<rest>.*)$")
_MADE_ME = re.compile(
    r"^(?:it|that|this|(?:the|that|this|those|these)(?: (?!has\b|have\b|had\b)[\w'-]+)+?) (?:made|gave|left) (?:me|us)(?: feel| feeling)?"
    r"(?P<rest>(?: (?:so|such|really|very|quite|pretty|super|truly|totally|absolutely|incredibly|extremely|a bit|kind of))* (?P<quality>[\w'-]+).*)$"
)
#: What happens as often as it comes: a feeling of every time is what something lastingly does ("I felt calm whenever I
#: painted").
_HABITUAL = re.compile(r"\b(?:when|whenever|every|always|each time|anytime)\b")
#: What a feeling is about or comes after: "anxious about money", "better after the surgery", "proud of Dan" name what it
#: is of, which may last.
_OF_WHAT = re.compile(r"\b(?:about|after|since|of|over|with|at|from|toward|towards)\s+(?!(?:it|that|this|them|everything|all)\b)")
#: Where the qualities felt end and what they are felt to do begins ("ready | to keep going").
_QUALITIES_END = re.compile(r"\s(?:to|that|because|so|but)\s")


def _felt_then(clause: str) -> bool:
    """Whether ``clause`` tells only how the speaker felt at one moment (:data:`_FELT`, :data:`_MADE_ME`, whose first
    word after it must be a quality: of inner life or graded, "made me so calm", not "made me decide to act"): after the
    feeling no thing introduced (:func:`_referent`: "it gave me a new bike"), no event (:func:`_event`), nothing
    habitual (:data:`_HABITUAL`) and nothing the feeling is of (:data:`_OF_WHAT`: "I felt better after the surgery")."""
    m = _FELT.match(clause)
    if m is None:
        m = _MADE_ME.match(clause)
        if m is None or not (_inner(m.group("quality")) or _GRADED.search(m.group("rest")) or m.group("quality") in EVALUATIVE_WORDS):
            return False
    rest = m.group("rest")
    end = _QUALITIES_END.search(rest)
    tail = rest[end.start() :] if end else ""  # "relieved and grateful": participles of a state, no event
    return not _referent(rest) and not _event(_PASSIVE.sub("", tail)) and not _HABITUAL.search(clause) and not _OF_WHAT.search(rest)


def _evaluative_clause(clause: str, names: Iterable[str]) -> bool:
    """A clause that only evaluates: nothing but words of inner life (:func:`inner_only`'s test), a quality predicated
    of a pronoun or a demonstrative or definite phrase the context names (:data:`_PREDICATION`: the subject and the
    predicate may be any words, what follows them only words of inner life), or a quality of an activity said by
    extraposition whose activity is of inner life too (:data:`_EXTRAPOSED`)."""
    if _inner_rest(clause, names) or _felt_then(clause):
        return True
    if (m := _PREDICATION.match(clause)) and _inner_rest(m.group(3) or "", names):
        return True
    return bool((m := _EXTRAPOSED.match(clause)) and _inner_rest(m.group(2), names))


def evaluation_only(text: str, names: Iterable[str] = (), *, timed: bool = False) -> bool:
    """Whether the sentence ``text`` says nothing about the world but how something is judged or felt, by its
    structure: :func:`inner_only`'s guards (a statement with no number, no name but the speakers', no time, nobody in
    particular), and every clause of it evaluative (:func:`_evaluative_clause`): the words in the place of a quality
    are not read, so a verdict in words no lexicon holds ("The choreography was so mesmerising", "It was a total rollercoaster") is
    one; or a sentence with no event (:func:`_event`), no thing introduced (:func:`_referent`) and no word beyond
    those of inner life but graded ones (:data:`_GRADED`: "It felt so surreal and we were all so giddy"). A plan with
    the listener (:data:`_WITH_YOU`) or a time or place pointed back to (:data:`_POINTS_BACK`) is never one."""
    raw = text.strip().replace("\u2019", "'")
    if not raw or timed or raw.endswith("?") or plain_named(raw, names) or _someone(raw) or _WITH_YOU.search(raw) or _POINTS_BACK.search(raw):
        return False
    clauses = clause_split(raw)
    if clauses and all(_evaluative_clause(c, names) for c in clauses):
        return True
    free = [w for w in content_words(raw, names) if not _inner(w)]
    graded = {m.group(1).lower() for m in _GRADED.finditer(raw)}
    return all(w in graded for w in free) and not _event(raw) and not _referent(raw)


_THEY_TOO = re.compile(r"^they (?:can|are|have|make|bring|give|keep|help|teach|become|really|always|all)\b")
#: A participle after a linking or light verb is no event ("getting stuff done", "being loved").
_PASSIVE = re.compile(r"\b(?:get|gets|getting|got|be|being|been|is|are|feel|feeling)\s+[\w'-]+\b")


#: Words of appearance and inference: a verdict ("seems", "sounds", "must have").
_VERDICT = re.compile(r"\b(?:must|seems?|seemed|sounds?|sounded|looks?|looked)\b")
#: What anyone can do or get: a truism's possibility said of everyone ("Cycling can clear our heads").
_ANYONE_CAN = re.compile(r"\b(?:can|could|may|might)\b.*\b(?:us|we|our|ourselves|people|everyone|anyone|someone)\b")


def _judged(clause: str, kind: str) -> bool:
    """Whether ``clause`` judges what it speaks of: a word of evaluation (:data:`.social.EVALUATIVE_WORDS`), a graded word (:data:`_GRADED`), a verb of appearance or inference
    (:data:`_VERDICT`); or, of everyone (``kind`` "truism"), what anyone can do or get (:data:`_ANYONE_CAN`)."""
    if any(w in EVALUATIVE_WORDS for w in _WORD.findall(clause)):
        return True
    return bool(_GRADED.search(clause) or _VERDICT.search(clause) or kind == "truism" and _ANYONE_CAN.search(clause))


def reaction_only(text: str, names: Iterable[str] = (), *, timed: bool = False) -> bool:
    """Whether the sentence ``text`` only reacts to what the listener told, by its structure: :func:`evaluation_only`'s
    guards, and every clause evaluative (:func:`_evaluative_clause`) or a reaction (:func:`.reactions.reaction_clause`:
    what the listener is or has, the speaker's attitude toward it, an evaluation of it, or a truism that tells of no
    event), at least one of them a reaction. What is said of the listener or of everyone must judge it (:func:`_judged`):
    "Your boots must have a story for every trail", "Cats are wonderful company", not "You get one row per plot",
    "Fees are more"."""
    raw = text.strip().replace("\u2019", "'")
    if not raw or timed or raw.endswith("?") or plain_named(raw, names) or _WITH_YOU.search(raw) or _POINTS_BACK.search(raw):
        return False
    kinds: list[str | None] = []
    for clause in clause_split(raw):
        kind = reaction_clause(clause)
        if kind is None and kinds[-1:] == ["truism"] and _THEY_TOO.match(clause) and not _event(clause):
            kinds.append("truism")  # "Animals are great company - they can be so loyal": the same everyone
            continue
        if kind == "truism" and (_event(_PASSIVE.sub("", clause)) or _NOT_EVENTS.intersection(_WORD.findall(clause))):
            return False  # "Everyone loved the cake": an event
        if kind == "listener" and _event(_PASSIVE.sub("", clause)):
            return False  # "You mentioned the shelter last time, and ...": what was said before, pointed to
        if kind in ("listener", "truism") and not _judged(clause, kind):
            return False  # "Fees are more.", "You get one row per plot.": a fact of the listener's or of a kind, not a verdict
        if kind in (None, "truism") and _someone(clause) or kind is None and (_FIRST_SINGULAR.search(clause) or not _evaluative_clause(clause, names)):
            return False  # "They're a real support": someone in particular; "..., but I'm putting in the hours": the speaker's own
        kinds.append(kind)
    return any(kinds)


def says_nothing(sentence: Any, names: Iterable[str] = ()) -> bool:
    """:func:`evaluation_only` or :func:`reaction_only` of an analysed sentence (its ``text``, its resolved ``times``);
    an image caption never."""
    if getattr(sentence, "image", False):
        return False
    timed = bool(getattr(sentence, "times", None))
    return evaluation_only(sentence.text, names, timed=timed) or not getattr(sentence, "procedural", False) and reaction_only(sentence.text, names, timed=timed)


class FillerTest:
    """``is_filler(text, names)``: small talk by the learned weights, where :func:`anchored` allows.

    Args:
        embedder: the MiniLM embedder the weights were trained on (its ``model_id`` must match).
        weights: the weight vector; bias: its bias; threshold: the probability from which a sentence is small talk.
        weak_threshold: the probability from which a sentence with only concrete words (:func:`anchor_strength` 1)
            is small talk.
        cache_size: sentences whose probability is kept (the router and the extractor read each turn twice).
    """

    def __init__(self, embedder: Embedder, weights: Sequence[float], bias: float, *, threshold: float = 0.6, weak_threshold: float = 0.8, cache_size: int = 2048) -> None:
        self.embedder = embedder
        self.weights = np.asarray(weights, dtype=np.float32)
        self.bias = float(bias)
        self.threshold = threshold
        self.weak_threshold = max(threshold, weak_threshold)
        self._cache: OrderedDict[str, float] = OrderedDict()
        self._cache_size = cache_size

    @classmethod
    def packaged(cls, embedder: Embedder | None = None, *, threshold: float | None = None) -> FillerTest:
        """The weights shipped with memdesk, on ``embedder`` (a MiniLM embedder of its own when none is given
        or the one given is another model)."""
        data = json.loads(resources.files("memdesk.conversation").joinpath("data/filler_minilm.json").read_text())
        if embedder is None or getattr(embedder, "model_id", None) != data["model_id"]:
            from ..embed.onnx import MiniLMEmbedder

            embedder = MiniLMEmbedder()
        return cls(embedder, data["weights"], data["bias"], threshold=threshold if threshold is not None else data["threshold"])

    def probability(self, text: str) -> float:
        """The probability that ``text`` is small talk, by the weights alone."""
        key = " ".join(text.split())
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        vector = np.asarray(self.embedder.embed([key]), dtype=np.float32)[0]
        p = float(1.0 / (1.0 + np.exp(-(float(vector @ self.weights) + self.bias))))
        self._cache[key] = p
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return p

    def all_filler(self, sentences: Sequence[Any], names: Iterable[str] = ()) -> bool:
        """Whether every one of ``sentences`` (analysed sentences: a ``text``, resolved ``times``) is small talk
        (:meth:`is_filler`) or says nothing but how something is judged or felt (:func:`says_nothing`)."""
        names = list(names)
        return bool(sentences) and all(self.is_filler(s.text, names) or says_nothing(s, names) for s in sentences)

    def is_filler(self, text: str, names: Iterable[str] = ()) -> bool:
        """Small talk: nothing anchors a fact in ``text`` and the weights say small talk (or only concrete words
        do and the weights say it with :attr:`weak_threshold`)."""
        strength = anchor_strength(text, names) if text.strip() else 2
        if strength == 2:
            return False
        p = self.probability(text)
        if p >= (self.weak_threshold if strength else self.threshold):
            log.debug("small talk by the learned test (p=%.2f): %r", p, text)
            return True
        return False
