"""Reactions: an assistant's reply to a user turn that asked for nothing holds nothing to remember.

An assistant knows of the user's world only what the user told it. When the user asks for something (a question,
a request: "suggest a name for ...", "can you ...") the reply may carry what was asked for (a plan, a recipe, an
answer) and is memory. When the user only tells something (news, thanks, an instruction about how to answer) the
assistant's reply reacts to it: congratulations, sympathy, a verdict ("That's a big win."), the instruction said
back as a promise ("Understood. I'll keep every suggestion alcohol-free."), the news said back ("You're officially a
registered nurse."). What is worth noting there is already in the user's own turn, which keeps it; the reaction,
stored, only stands beside the user's record (twice: as a sentence and as a reply in context) and outranks it.

The test is structural, not a list of phrasings: the role, whether the turn replied to asks for something (a
question mark in any language, or an English request), and whether the reply gives something of its own (:func:`gives_something`: a number, a list,
advice (:data:`ADVICE`: "try a little lemon", "you could net them", "I recommend booking early"), or more than
:data:`MAX_REACTION_WORDS` words). Advice the user did not ask for is kept as the assistant's statement
(:mod:`.admission`); a promise, a verdict or a wish is not advice. The router gives such a turn mask ``000``
(:class:`.router.RuleRouter`), so the rule processor makes no record of it; the LLM processor's post-processing
drops the model's records for it (:func:`.llm_tidy.small_talk`).
The message stays in the raw log.
"""

from __future__ import annotations

import re

from .base import Utterance
from .rules import analyze, is_imperative
from .stance import instructs_reply

__all__ = ["ADVICE", "MAX_REACTION_WORDS", "asks_for_something", "gives_something", "reaction_turn"]

#: A reply longer than this says something of its own, whatever it replies to.
MAX_REACTION_WORDS = 20

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
#: A request: a question, "can/could/would you", a verb of asking for something followed by what is asked for, or
#: a need stated ("I need a ...", "looking for ideas").
_ASKS = re.compile(
    r"\?|\b(?:can|could|would|will) (?:you|u)\b|"
    r"(?<!\bi )(?<!\bwe )(?<!\bthey )(?<!\bhe )(?<!\bshe )\b(?:help|suggest|recommend|give|tell|show|send|list|explain|find|plan|write|draft|make|remind|check|translate|"
    r"calculate|compare|summari[sz]e|convert|book|organi[sz]e)\s+(?:me|us|a|an|some|any|the|my|our|what|how|which|where|when|if)\b|"
    r"\b(?:need|needs|want|wants|looking for|after)\s+(?:a|an|some|ideas?|help|advice|tips?|suggestions?|recommendations?)\b|"
    r"\bany (?:ideas?|tips?|advice|suggestions?|recommendations?)\b|\bwhat (?:should|do|can|would)\b|\bhow (?:do|can|should|would|to)\b",
    re.IGNORECASE,
)
#: Advice: an action put to the person spoken to ("you could ...", "I'd ...", "why not ...", "try ...", "I recommend
#: ...", "worth ...", "make sure ...", or a third person's part in it: "she could check your dressing"); "you'll get your
#: evenings back" is a prediction, not advice; "you'd looked after her for years" is "you had".
ADVICE = re.compile(
    r"\b(?:(?:he|she|they)(?: could| might)|you(?:'d(?!\s+(?:been|known|had|got|seen|done|gone|[a-z]+ed|[a-z]+en)\b)| would| could| might| should| may| can| ought to| need to| have to)|why not|how about|"
    r"try|trying|consider|recommend|suggest|tips?|worth|make sure|remember to|don't forget|be sure to|best to|better to)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_LIST = re.compile(r"(?m)^\s*(?:[-*•]|\d+[.)])\s+")


def asks_for_something(text: str) -> bool:
    """Whether ``text`` asks the other speaker for something (a question, a request, a need stated)."""
    return bool(_ASKS.search(" ".join(text.replace("’", "'").split())))


#: A finite clause: a subject pronoun, an auxiliary or a contracted one. What has none is a fragment.
_FINITE = re.compile(
    r"\b(?:i|you|we|they|he|she|it|there|is|are|was|were|am|has|have|had|will|would|can|could|did|does|do|shall|should|"
    r"may|might|must)\b|'(?:s|re|m|ve|ll|d)\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
#: The most words of an imperative that wishes rather than instructs ("Give Pip a scratch from me.", "Mind the ice
#: tonight, Tom.").
MAX_WISH_WORDS = 10
#: The most words of the judging clause after fragments ("..., that's wonderful.", "..., congratulations!").
MAX_VERDICT_WORDS = 3


def _reacts(sentence: str) -> bool:
    """Whether ``sentence`` only reacts: phatic by the rules ("I'm so sorry, Tom.", "Good news."), or fragments with
    no finite verb under a phatic last clause ("Learning the oboe at 59 and already in a quintet, that's
    brilliant!", "Below 200 two weeks ahead of plan, congratulations!"): the news said back and judged, what it says is the turn replied to
    (its numbers too, rounded or worked out from it)."""
    if all(s.kind == "phatic" for s in analyze(sentence)):
        return True
    *fragments, last = [c for c in re.split(r",\s+", sentence.strip()) if c]
    return (
        bool(fragments) and len(_WORD.findall(last)) <= MAX_VERDICT_WORDS and all(s.kind == "phatic" for s in analyze(last))
        and not any(_FINITE.search(f) for f in fragments)
    )  # fmt: skip


def gives_something(text: str, replied: str = "") -> bool:
    """Whether a reply carries something of its own: a number the turn ``replied`` to does not hold (a number said
    back, "98 is excellent!", is the news said back), a list, advice (:data:`ADVICE`), or more than
    :data:`MAX_REACTION_WORDS` words, or an instruction (:func:`.rules.is_imperative`, longer
    than a wish: :data:`MAX_WISH_WORDS`).
    Sentences that only react (:func:`_reacts`) count neither their numbers nor their words."""
    flat = " ".join(text.replace("’", "'").split())
    own = [s for s in _SENTENCE.split(flat) if not _reacts(s)]
    if any(is_imperative(s) and len(_WORD.findall(s)) > MAX_WISH_WORDS for s in own):
        return True  # an instruction put to the listener ("Then book the van early: ..."): advice; not a wish
    said = " ".join(own)
    heard = set(_NUMBER.findall(replied))
    return bool(any(n not in heard for n in _NUMBER.findall(said)) or _LIST.search(text) or ADVICE.search(flat) or len(_WORD.findall(said)) > MAX_REACTION_WORDS)


def reaction_turn(utterance: Utterance) -> bool:
    """An assistant's reply (any role but the user's) to a user turn that asked for nothing, giving nothing of its
    own: congratulations, sympathy, a verdict, an instruction or the news said back."""
    message = utterance.message
    if message.role == "user" or not utterance.context:
        return False
    replied = utterance.context[-1]
    if replied.role != "user" or (replied.speaker and replied.speaker == message.speaker):
        return False
    asked = asks_for_something(replied.text()) and not _only_instructs(replied.text())
    return not asked and not gives_something(message.text(), replied.text())


def _only_instructs(text: str) -> bool:
    """Whether every sentence of ``text`` tells how to answer (:func:`.stance.instructs_reply`: "please always give me
    the readings as a table when I ask"): a standing instruction, which the reply can only promise to keep ("Sure,
    I'll use a table."), not a request for something now."""
    sentences = [s for s in _SENTENCE.split(" ".join(text.replace("’", "'").split())) if s]
    return bool(sentences) and all(instructs_reply(s) for s in sentences)
