"""The offline router: a 3-bit route mask per utterance from lexical rules, no model.

How it decides (sentence by sentence, see :func:`memdesk.conversation.rules.analyze`):

0. A message in another language than English (:func:`memdesk.text.lang.is_english`: another script,
   or another language's function words) is not read by these rules but kept whole: mask
   ``010`` (semantic), or ``100`` (episodic) when it holds a written date; the extractor then
   stores its words unchanged. Only a message with no letter or digit at all gets ``000``.
1. The turn is split into sentences; an image caption ("[shares an image: ...]") is a sentence.
2. A sentence is **phatic** if no content word is left once greetings, thanks, interjections,
   praise words, function words and the names of the people talking are set aside ("Hi Tom! Lovely
   to hear from you!", "Wow, that's cool, Priya!", "Take care!"). A leading interjection and vocative
   are stripped from the other sentences ("Yeah Nadia, baking bread ..." -> "Baking bread ...").
3. A non-phatic sentence ending in "?" is a **question**; the rest are **content**.
4. Each content sentence gets cues:

   * **episodic**: it narrates a past or planned event: a time expression ("yesterday", "last
     week", "in 2019"), a past-tense action (irregular past forms, "-ed" verbs after a subject,
     "I've been"), a plan ("going to", "gonna", "I'll", "signed up"), an event noun (trip,
     concert, class, wedding ...), or a shared image ("here's a pic", the caption itself);
   * **semantic**: a stable fact, preference, identity or relation ("I love", "my favorite",
     "I'm a", "I have two kids", "I work as", "is my", "for five years"), and any content sentence
     that shows neither episodic nor procedural cues (statements about the other person or the
     world), so no informative sentence is lost;
   * **procedural**: advice, instructions, steps ("you should", "make sure", "remember to",
     "how to", "first ... then", "tips", "recipe", "I recommend") or a sentence that opens with an
     imperative verb ("Try ...", "Use ...", "Don't ...") other than a social one ("Take care").

5. The mask is the union of the cues of the content sentences (several bits may be set). A turn
   with no content sentence but a question that has content words gets the semantic bit when
   ``keep_questions`` is on (the question is context for the reply), else 000. Mask 000 is
   given only to turns whose every sentence is phatic (or questions, if ``keep_questions`` is
   off): a lost informative turn costs recall, a kept filler costs only a little storage.

Before all of this, an assistant's reply to a user turn that asked for nothing and that gives nothing of its own
(:func:`memdesk.conversation.reactions.reaction_turn`: congratulations, sympathy, the user's instruction or news
said back) gets ``000``, in any language.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Literal

from ..text.lang import english_function_words, is_english
from ..records import RouteMask
from ..timeexpr.resolve import TimeMention, resolve, sentence_tense
from ..timeexpr.words import MONTHS, WEEKDAY_WORDS
from .atoms import atoms
from .base import Utterance
from .filler import FillerTest
from .reactions import reaction_turn, signs_off, takes_up_reply
from .rules import Sentence, analyze, content_words, short_remark, words
from .stance import instructs_reply, news_question, stance_only
from .social import REACTION_WORDS, THIRD_PERSON, only_reacts, plain_named, social_question

logger = logging.getLogger(__name__)

__all__ = ["RuleRouter", "analyze_utterance", "names_of", "addressee_of", "piece_times", "reference_of", "times_reader"]


def addressee_of(utterance: Utterance) -> str | None:
    """Who the speaker is talking to: the latest earlier speaker who is not the speaker."""
    me = utterance.message.speaker
    for m in reversed(utterance.context):
        if m.speaker and m.speaker != me:
            return m.speaker
    return None


def names_of(utterance: Utterance) -> list[str]:
    """The names of the people in the exchange (speaker first), for vocative and filler detection."""
    out: list[str] = []
    for n in [utterance.message.speaker, addressee_of(utterance), *(m.speaker for m in utterance.context)]:
        if n and n not in out:
            out.append(n)
    return out


def reference_of(utterance: Utterance) -> tuple[datetime | None, Literal["said_at", "added_at"]]:
    """The time relative expressions are read against: the message's timestamp ("said_at"), else
    the time it was added ("added_at", ``Utterance.reference_time``); ``None`` if neither is known."""
    if utterance.message.timestamp is not None:
        return utterance.message.timestamp, "said_at"
    return utterance.reference_time, "added_at"


def reaction_reply(text: str, names: Iterable[str] = (), *, answers_question: bool = False, advised: bool = False) -> bool:
    """A whole reply that only takes up the other person's turn ("I'll try it.", "We do that already.",
    "Yeah, we'll miss him."): no number, no name but the speakers', not the answer to a question, and
    nothing but :data:`.social.REACTION_WORDS` beyond function words (:func:`.social.only_reacts`)."""
    if answers_question or text.rstrip().endswith("?") or plain_named(text, names):
        return False
    return only_reacts(content_words(text, names), len(words(text))) or _acts_on_it(text, names, advised=advised)


#: A clause that is a verb with only a pronoun for its object: "will ring them", "I'll ask her", "gonna try that".
#: The object may be a demonstrative before a noun, which points back as a pronoun does: "going to try those lunges".
_ON_IT = re.compile(
    r"(?:^|,)\s*([^,]*?\b([a-z]+)\s+(?:it|them|him|her|that|this|those|(?:that|this|those|these)\s+(?P<noun>[a-z]+)))\s*[.!]*\s*$", re.IGNORECASE
)
#: The most words of what may stand before such a clause: an acknowledgement ("yeah fair,", "ok,").
MAX_LEAD_WORDS = 2


def _acts_on_it(text: str, names: list[str], *, advised: bool = False) -> bool:
    """Whether a short reply promises or takes up an action on what the turn before said, and nothing else: its last
    clause's one content word is a verb whose object is only a pronoun ("yeah fair, will ring them" after advice to
    ring the vet), after at most an acknowledgement. Not a narrated act ("I sold it."): that is news. A demonstrative
    before a noun ("going to try those lunges") points back only to an assistant's advice (``advised``: a user talking to an assistant); between
    peers "I'll read that book" is a plan of the speaker's own."""
    m = _ON_IT.search(text)
    if m is None or (m["noun"] and not advised) or any(ch.isdigit() for ch in text) or len(words(text[: m.start(1)])) > MAX_LEAD_WORDS:
        return False
    own = [w for w in content_words(m[1], names) if w not in REACTION_WORDS and w != (m["noun"] or "").lower()]
    return own in ([m[2].lower()], []) and sentence_tense(m[1]) != "past"


#: How far back earlier turns are read for the month of a day said alone ("I leave on the 16th" after "back on 16
#: October"), and how many of them.
EARLIER_WINDOW, EARLIER_TURNS = timedelta(days=1), 6


def earlier_text(utterance: Utterance) -> str:
    """The turns said just before ``utterance`` (at most :data:`EARLIER_TURNS`, within :data:`EARLIER_WINDOW` of it, or
    further back when they name someone or something it names too: "Barry rang, his team can't come till the 13th",
    days after "shearing starts 6 January with Barry's team"), oldest first: where a day of the month it says alone
    may have been said with its month."""
    said = utterance.message.timestamp
    text = utterance.message.text()
    turns = [m for m in utterance.context[-EARLIER_TURNS:]
             if said is None or m.timestamp is None or timedelta(0) <= said - m.timestamp <= EARLIER_WINDOW
             or (m.timestamp <= said and _share_a_name(text, m.text()))]  # fmt: skip
    return "\n".join(m.text() for m in turns)


_CAPITALISED = re.compile(r"(?<![\w'\u2019-])(?-i:[A-Z][a-z]{2,})(?![\w-])")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n]\s*|[\"(]\s*)$")


def _capitalised(text: str) -> tuple[set[str], set[str]]:
    """The capitalised words of ``text`` (not months or weekdays), all and those inside a sentence (names)."""
    every: set[str] = set()
    inside: set[str] = set()
    for m in _CAPITALISED.finditer(text):
        if m[0].lower() in MONTHS or m[0].lower() in WEEKDAY_WORDS:
            continue
        every.add(m[0])
        if not _SENTENCE_START.search(text, max(0, m.start() - 3), m.start()):
            inside.add(m[0])
    return every, inside


def _share_a_name(text: str, other: str) -> bool:
    """Whether two texts name the same person, place or thing: a capitalised word of both, inside a sentence in at
    least one of them (so not only a sentence's first word)."""
    every, inside = _capitalised(text)
    every2, inside2 = _capitalised(other)
    return bool(every & inside2 or inside & every2)


def times_reader(utterance: Utterance) -> Callable[[str], list[TimeMention]] | None:
    """What resolves the time expressions of a piece of ``utterance``: against :func:`reference_of`, in the direction
    of the piece's tense, a lone day of the month with the month of :func:`earlier_text`; ``None`` with no time."""
    ts, _ = reference_of(utterance)
    if ts is None:
        return None
    earlier = earlier_text(utterance)
    return lambda s: resolve(s, ts, prefer="auto", earlier=earlier)


def piece_times(sentence: Sentence, piece: str, times_of: Callable[[str], list[TimeMention]] | None) -> list[TimeMention]:
    """The time expressions of ``piece``, a part of ``sentence`` said as a statement of its own: those the sentence
    resolved inside it, read with the whole sentence's clauses ("I flew to Oslo with my brother and his two dogs in
    September": the piece "his two dogs in September" is narrated by "flew"); a piece that is not the sentence's own words is resolved
    alone. (A piece may open with a capital and end with a full stop its sentence has not there.)"""
    core = piece.rstrip(" .!?;,")
    at = sentence.text.lower().find(core.lower()) if core else -1
    if at < 0:
        return times_of(piece) if times_of is not None else []
    end = at + len(core)
    return [t.model_copy(update={"span": (t.span[0] - at, t.span[1] - at)}) for t in sentence.times if at <= t.span[0] and t.span[1] <= end]


def analyze_utterance(utterance: Utterance, filler: FillerTest | None = None) -> list[Sentence]:
    """The sentence analysis the router and the rule extractor share; time expressions are resolved
    against :func:`reference_of`, each in the direction of its sentence's tense. With ``filler`` (the
    learned small-talk test, :mod:`.filler`) a statement or question it reads as small talk is phatic."""
    times_of = times_reader(utterance)
    prev = utterance.context[-1] if utterance.context else None
    previous = prev.text() if prev is not None and prev.speaker != utterance.message.speaker else ""
    text, names = utterance.message.text(), names_of(utterance)
    sentences = analyze(text, times_of=times_of, names=names, previous=previous)
    asked = previous.rstrip().endswith("?")
    told = not _asked_about(previous, names)
    # a user with no other person in the exchange talks to an assistant (the default admission shows the processor
    # only user turns as context, so an assistant's turn is rarely there to see)
    me = utterance.message.speaker
    to_assistant = utterance.message.role == "user" and not any(m.role == "user" and m.speaker != me for m in utterance.context)
    if signs_off(text, names) or to_assistant and takes_up_reply(text, names):
        # "ok, going to sleep a bit before shift", "OHHH ok that makes sense": closing the chat, taking up the reply
        return [Sentence(text=s.text, kind="phatic") for s in sentences]
    sentences = _without_stance(sentences, names, addressee_of(utterance), previous, told="?" not in previous, instructs=to_assistant)
    if to_assistant and not any(m.role == "user" for m in utterance.context):
        # the first words a user says to an assistant (after its greeting, if any), of the conversation itself ("My nephew put this on my phone", "hello,
        # new to one of these", "my niece says you can help with the bees"): no fact of their world
        chat = [s.kind == "content" and _of_the_chat(s, names) for s in sentences]
        if any(chat):  # and a word or two around it with nothing to anchor a fact: a greeting in any language ("Goedemiddag!")
            chat = [c or (s.kind == "content" and len(words(s.text)) <= 2 and not plain_named(s.text, names) and not s.times) for c, s in zip(chat, sentences, strict=True)]
        sentences = [Sentence(text=s.text, kind="phatic") if c else s for c, s in zip(chat, sentences, strict=True)]
    greeted = bool(previous) and all(s.kind == "phatic" for s in analyze(previous, names=names))
    if (opens_session(utterance) or greeted) and opening_address(sentences):
        # an address opening a conversation, or returning the other's greeting ("salam, you there?" "Waalaikumussalam,
        # Aiman!")
        sentences = [Sentence(text=sentences[0].text, kind="phatic"), *sentences[1:]]
    # a user talking to an assistant: "those lunges" may point to its advice (between peers, to a plan of one's own)
    if short_remark(text, names, answers_question=asked) or reaction_reply(text, names, answers_question=asked, advised=to_assistant):
        # "Long, but good.", "I'll try it.": a reaction; but "Keep it short." tells how to answer
        return [s if s.kind == "content" and instructs_reply(s.text) else Sentence(text=s.text, kind="phatic") for s in sentences]
    if filler is not None and told:
        # an answer to a question about something carries what was asked ("What does it stand for?" "It
        # stands for freedom."), and what is said of someone in particular may be a fact ("They're a real support.")
        # a turn is small talk when every sentence of it is; one with a fact keeps its sentences together, so
        # its turn view and the words around the fact stay as said
        # a question beside the statements ("Cool setup! Got time to rehearse?") makes no record of its own there, so
        # the statements alone decide; a turn of questions only is decided on its questions
        said = [s for s in sentences if s.kind == "content"] or [s for s in sentences if s.kind != "phatic"]
        if said and all(not s.procedural and not THIRD_PERSON.search(s.text) and filler.is_filler(s.text, names) for s in said):
            return [Sentence(text=s.text, kind="phatic") if s in said or s.kind == "phatic" else s for s in sentences]
    return sentences


#: What a user's first turn says of the conversation itself: the assistant ("you"), or "this" / "these (things)" with
#: nothing before it to point back to, closing its clause or before a particle ("put this on my phone", "new to this").
_THE_CHAT = re.compile(r"\b(?:you|u)\b|\b(?:this|these)(?:\s+things?)?(?=\s*(?:[.,!;:]|$|\s+(?:up|for|on|with|out|before|right)\b))", re.IGNORECASE)


#: A wish put to the assistant ("I want you to keep track of my invoices"): what the user wants of it, kept.
_WISHED = re.compile(r"\b[a-z]+\s+(?:you|u)\s+to\b", re.IGNORECASE)


def _of_the_chat(sentence: Sentence, names: list[str]) -> bool:
    """Whether a sentence of the turn that opens a scope speaks only of the conversation (:data:`_THE_CHAT` in each of
    its statements, :func:`.atoms.atoms`: "I keep bees and I'd like you to note things" keeps the bees; a wish put to
    it, :data:`_WISHED`, is kept too): no
    number, no capitalised word but the speakers' names (:func:`.social.plain_named`), no time, no instruction."""
    text = sentence.text
    return (all(_THE_CHAT.search(a) for a in atoms(text)) and not _WISHED.search(text) and not plain_named(text, names) and not sentence.times
            and not sentence.procedural and not instructs_reply(text))


#: The most words of an address that opens a conversation ("Habari Wanjiru!", "Dobry wieczór, Marek!").
MAX_ADDRESS_WORDS = 4
#: How long a pause makes a turn open a new conversation (a session) in the same scope.
SESSION_GAP = timedelta(hours=6)
#: A capitalised word closing a sentence, not the object of a preposition ("in Tokyo", "to Lisbon"): a name called.
_VOCATIVE_END = re.compile(
    r"(?<![\w'])(?!(?:in|to|from|at|for|with|by|on|of|into|near|via|about)\b)[^\W\d_]+[\s,]+(?-i:[A-Z][^\W\d_]+)\s*[!.,]?\s*$",
    re.IGNORECASE,
)


def opens_session(utterance: Utterance) -> bool:
    """Whether ``utterance`` opens a conversation: no turn before it, or none within :data:`SESSION_GAP`."""
    if not utterance.context:
        return True
    said, last = utterance.message.timestamp, utterance.context[-1].timestamp
    return said is not None and last is not None and said - last >= SESSION_GAP


def opening_address(sentences: list[Sentence]) -> bool:
    """Whether the first sentence of a turn that opens a conversation (or answers a greeting) is an address in whatever
    language: at most
    :data:`MAX_ADDRESS_WORDS` words ending with a capitalised word, the name called ("Habari Wanjiru!", "Kia ora
    Aroha!", "Mwaramutse Desk"), with no digit, no time, no English function word, and nothing after it in the turn
    that is a statement ("How can I help?" is a question): a greeting, as "Good evening, Marek!" is."""
    if not sentences or sentences[0].kind != "content" or sentences[0].times or any(s.kind == "content" for s in sentences[1:]):
        return False
    first = sentences[0].text
    n = len(re.findall(r"[^\W\d_]+", first))
    return (2 <= n <= MAX_ADDRESS_WORDS and not any(ch.isdigit() for ch in first) and _VOCATIVE_END.search(first) is not None
            and english_function_words(first) == 0)


def _without_stance(sentences: list[Sentence], names: list[str], addressee: str | None, previous: str, *, told: bool, instructs: bool = False) -> list[Sentence]:
    """``sentences`` with those that state only the speaker's stance toward the listener or the listener's news made
    phatic (:func:`.stance.stance_only`: "So proud of you!", "That sounds amazing."). "That"/"it" speaks of the
    listener's news only before the speaker has said anything of their own in the turn ("We swam a mile. It was
    rewarding." evaluates the speaker's swim), and only when the listener ``told`` something: after any question it
    may answer it ("Are you nervous?" "A bit."). An imperative is stance only between peers ("Keep going!", "Don't
    forget, believe in yourself."): a user's imperative to an assistant (``instructs``) is an instruction ("Keep it
    short.")."""
    out: list[Sentence] = []
    own = False
    for s in sentences:
        if s.kind == "question" and news_question(s.text, names=names):
            out.append(Sentence(text=s.text, kind="phatic"))  # "Anything new on your end?": asks after the listener
            continue
        if s.kind == "content" and not s.image and not (s.procedural and instructs) and stance_only(s.text, names=names, addressee=addressee, previous=previous, asked=own or not told):
            out.append(Sentence(text=s.text, kind="phatic"))
            continue
        own = own or s.kind == "content"
        out.append(s)
    return out


def _asked_about(previous: str, names: list[str]) -> bool:
    """Whether the other speaker's turn before asks a question about something (not "How are you?")."""
    questions = [q for q in re.split(r"(?<=[.!?])\s+", previous.strip()) if q.endswith("?")]
    return any(content_words(q, names) and not social_question(q, content_words(q, names)) for q in questions)


#: A written date in any language: a year, or a numeric day and month.
_DATED = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)|\b\d{1,2}[./-]\d{1,2}(?:[./-]\d{2,4})?\b")


#: The most words a message in another language may have and still be only a phrase said in passing.
MAX_PHRASE_WORDS = 4
_NAMED = re.compile(r"(?<!^)(?<![.!?:;]\s)(?<![\"'(])\b[^\W\d_][\w'-]*")


def _bare_phrase(text: str, names: list[str]) -> bool:
    """Whether a message the English rules cannot read is a phrase with nothing to anchor a fact: at most
    :data:`MAX_PHRASE_WORDS` words, no digit, and no capitalised word inside a sentence other than the names of the
    people talking ("Ja ja. Hasta luego.", "Dobranoc, dzięki!"); "Vivo en Oporto." keeps its place name. Only a
    script with capitals is read so."""
    if len(re.findall(r"[^\W\d_]+", text)) > MAX_PHRASE_WORDS or any(ch.isdigit() for ch in text):
        return False
    if not all(ch.isupper() or ch.islower() for ch in text if ch.isalpha()):
        return False  # a script with no capitals (Chinese, Arabic ...) shows neither names nor its words' bounds so
    own = {w.lower() for n in names for w in re.findall(r"[^\W\d_]+", n)}
    return not any(w[0].isupper() and w.lower() not in own for w in _NAMED.findall(text.strip()))


#: The most words of a message in another language that the English rules may read as phatic ("merci, you're a star").
MAX_PHATIC_WORDS = 10
#: The first code point after the Latin scripts (Latin-1 and Latin Extended A/B): "¿cómo estás?", "się cieszę".
_LATIN_END = 0x250


def _says_nothing_in_english(text: str, names: list[str], role: str) -> bool:
    """Whether a message in a Latin script that the English rules cannot read as a whole has, by those rules, only phatic sentences ("merci,
    you're a star"), or, from an assistant (whose questions make no record), phatic sentences and questions ("Hola
    Rodrigo, ¿cómo estás? What's up?"): a word of another language is a content word to them, so a sentence they read
    as phatic holds none."""
    if any(ch.isalpha() and ord(ch) >= _LATIN_END for ch in text) or len(re.findall(r"[^\W\d_]+", text)) > MAX_PHATIC_WORDS:
        return False  # the English rules see no word in another script, nor read a longer text of other words (a word list)
    kept = ("phatic",) if role == "user" else ("phatic", "question")
    sentences = analyze(text, names=names)
    return bool(sentences) and all(s.kind in kept for s in sentences)


class RuleRouter:
    """Routes an utterance with lexical rules (see the module docstring for the decision).

    Args:
        keep_questions: give the semantic bit to a turn that only asks a contentful question.
        filler: the learned small-talk test (:mod:`.filler`), or None for the word rules alone.
    """

    def __init__(self, *, keep_questions: bool = True, filler: FillerTest | None = None) -> None:
        self.keep_questions = keep_questions
        self.filler = filler

    def route_sentences(self, sentences: list[Sentence], names: list[str]) -> RouteMask:
        content = [s for s in sentences if s.kind == "content"]
        if content:
            return RouteMask(
                episodic=any(s.episodic for s in content),
                semantic=any(s.semantic for s in content),
                procedural=any(s.procedural for s in content),
            )
        if self.keep_questions and any(s.kind == "question" and content_words(s.text, names) and not social_question(s.text, content_words(s.text, names)) for s in sentences):
            return RouteMask(semantic=True)
        return RouteMask()

    def route(self, utterance: Utterance) -> RouteMask:
        text = utterance.message.text()
        if reaction_turn(utterance):
            logger.debug("routed %s -> 000 (a reply to a turn that asked for nothing, giving nothing)", utterance.message_id)
            return RouteMask()
        if not is_english(text):
            names = names_of(utterance)
            if _bare_phrase(text, names) or signs_off(text, names) or _says_nothing_in_english(text, names, utterance.message.role):
                logger.debug("routed %s -> 000 (a short phrase in another language with nothing to anchor a fact)", utterance.message_id)
                return RouteMask()
            # the rules read English only: keep any other language whole rather than drop it
            mask = RouteMask(episodic=True) if _DATED.search(text) else RouteMask(semantic=True)
            logger.debug("routed %s -> %s (not English: kept verbatim)", utterance.message_id, mask)
            return mask if any(ch.isalnum() for ch in text) else RouteMask()
        mask = self.route_sentences(analyze_utterance(utterance, self.filler), names_of(utterance))
        logger.debug("routed %s -> %s", utterance.message_id, mask)
        return mask
