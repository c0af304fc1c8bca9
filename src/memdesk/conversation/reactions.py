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
from .social import plain_named
from .stance import STANCE_WORDS, instructs_reply
from ..timeexpr.words import MONTH_NAME_RE, WEEKDAY_NAME_RE

__all__ = [
    "ADVICE", "FIRST_SINGULAR", "MAX_REACTION_WORDS", "accepts_request", "asks_for_something", "gives_something", "reaction_clause",
    "reaction_turn", "signs_off", "takes_up_reply",
]  # fmt: skip

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
    if asked:
        return accepts_request(message.text())
    return not gives_something(message.text(), replied.text())


def _only_instructs(text: str) -> bool:
    """Whether every sentence of ``text`` tells how to answer (:func:`.stance.instructs_reply`: "please always give me
    the readings as a table when I ask"): a standing instruction, which the reply can only promise to keep ("Sure,
    I'll use a table."), not a request for something now."""
    sentences = [s for s in _SENTENCE.split(" ".join(text.replace("’", "'").split())) if s]
    return bool(sentences) and all(instructs_reply(s) for s in sentences)


# --- a peer's reaction to what the listener told -------------------------------------------------------------------

#: The speaker's own: a first person anywhere in a clause ("my", "we", "us") keeps it, whatever the rest does.
_FIRST = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine|myself|we|we're|we've|we'll|we'd|us|our|ours|ourselves)\b")
#: The speaker alone ("I", "my"): a truism may say "us" and "our" of everyone ("Books shift how we think").
FIRST_SINGULAR = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine|myself)\b")
_SECOND = re.compile(r"\b(?:you|you're|you've|you'll|you'd|your|yours|yourself|yourselves|ya|u)\b")
_DEGREES = r"(?:(?:so|really|totally|definitely|just|also|can|could|can't|cannot|do|still|seriously|honestly|truly|sure|always|completely|absolutely|already|bet|kinda|kind of) )*"
#: The speaker's attitude toward what follows: a verb or adjective of feeling, wishing, believing or perceiving after
#: a first person ("I love how ...", "I can see why ...", "I'm sure ...", "I'm pumped to see how ..."), or what the
#: listener's words mean to the speaker ("It means a lot to me that you ...").
_ATTITUDE = re.compile(
    rf"^(?:(?:i|we)(?:'m| am|'re| are)? {_DEGREES}(?:(?:love|like) how|bet|hope|wish|admire|appreciate|respect|believe|agree|imagine|picture|"
    r"guess|think|know|see|tell|understand|get|sure|glad|happy|pumped|excited|stoked|thrilled|proud|impressed|amazed|"
    r"wait|envy|certain|confident|positive|jealous|curious|(?:always )?here)|"
    r"(?:it|that|this)(?: really| truly| just)? (?:means|meant) (?:a lot|so much|the world|everything)(?: to (?:me|us))?)\b"
)
#: Attitudes of guessing and picturing: what follows is the listener's matter when it points back ("I bet it was
#: fun", "I can imagine that it felt good"), as when it names the listener.
_GUESSES = re.compile(r"^(?:i|we)(?:'m| am)? (?:(?:can|could|just|totally|really|so|definitely) )*(?:bet|imagine|picture|guess|tell|sure)\b")
_POINTS = re.compile(r"\b(?:you|you're|you've|you'll|you'd|your|yours|yourself|ya|u|it|that|this|those|these)\b")
#: Encouragement put to the listener: an imperative of going on, holding firm, taking heart or enjoying ("Keep doing
#: what you're doing", "Take comfort in knowing you've got friends", "Enjoy every minute of it").
_CHEERS = re.compile(
    r"^(?:keep (?:it up|at it|going|doing|pushing|up)|stay (?:strong|positive|focused|motivated|true)|hang in|hold on|take (?:comfort|heart|pride)|"
    r"don't (?:give up|stop|lose)|never (?:give up|stop|lose)|enjoy|savou?r|cherish|embrace|believe in|go for it|be proud)\b"
)
#: Something introduced: a determiner or a possessive of the speaker's before a word ("a class", "my studio").
_INTRODUCES = re.compile(r"\b(?:a|an|my|our)\s+[a-z]")
#: "It (just) shows that ...", "it goes to show ...": what follows is the clause to read.
_SHOWS = re.compile(r"^(?:it|that|this) (?:just |really |only |all )?(?:shows|goes to show|proves)(?: that)? ")
#: An evaluation of what follows, said by extraposition or with no subject: "It's great that ...", "that's awesome how
#: ...", "cool that ...".
_EVALUATES = re.compile(
    r"^(?:it|that|this)(?:'s| is| was| sounds| seems| looks| must be| must have been)(?: (?:so|such|really|very|pretty|super|truly|just|totally|absolutely|incredibly|always|definitely))*"
    r"(?: an?)?(?: [\w'-]+){1,2}? (?:to|that|how|when|what|seeing|knowing|hearing|watching|you)\b"
)
#: A generic subject and a verb in the present: what holds of everyone, said in reply ("Animals make great companions",
#: "Being organised is key", "Everyone has their own story", "Some authors stay with us for life").
_GENERIC_VERB = (
    r"(?:is|are|'s|'re|can|could|will|should|may|might|must|make|makes|help|helps|bring|brings|keep|keeps|take|takes|give|gives|"
    r"teach|teaches|become|becomes|have|has|suck|sucks|matter|matters|mean|means|show|shows|need|needs|deserve|deserves|"
    r"shape|shapes|affect|affects|change|changes|shift|shifts|let|lets|remind|reminds|do|does|don't|doesn't)"
)
_GENERIC_SUBJECT = re.compile(
    rf"^(?:(?P<anyone>everyone|everybody|people|folks|we all|nobody|no one) [a-z]|"
    rf"(?P<subject>nothing|life|some [a-z]+s|[a-z]+ing(?: [\w'-]+){{0,6}}?|(?:[a-z]+ )?[a-z]{{3,}}s)"
    rf"(?: (?:really|sure|always|truly|definitely|just|often|also|totally|usually|all))* {_GENERIC_VERB}\b)"
)
#: What the listener would, could or needs to do: advice in other words ("You'd need a permit first").
_YOU_NEED = re.compile(r"^you(?:'d| would| could| might| should| need| have to| ought| can|'ll need|'ll have to| will need| will have to)\b")
#: A thing of the speaker's and the listener's: "our garden" (everyone's "our own way" is not one).
_OURS = re.compile(r"\bour (?!own\b)[a-z]")
#: Words that end like a plural and are none ("this", "was", "always").
_NOT_PLURAL = frozenset(
    "this his its hers ours yours theirs was is has does us always sometimes perhaps thanks yes guess less unless "
    "across plus whereas bus gas thus something anything everything thing morning evening spring".split()
)


def reaction_clause(clause: str) -> str | None:
    """How one lower-cased clause (:func:`.stance.clause_split`) reacts to what the listener told, in any words, with
    nothing of the speaker's own, or None: ``"listener"``, what the listener is, has or will do ("your shoes must have a
    lot of stories behind them"; advice, :data:`ADVICE`, is not a reaction); ``"attitude"``, the speaker's attitude
    toward it ("I love how it shows the teamwork you described", "I'm sure your students are thrilled"); ``"evaluates"``,
    an evaluation of it by extraposition ("It's great that you get to spend time outside"); ``"truism"``, what holds of
    everyone ("Being organised is key for a busy week"; the caller checks it tells of no event). A first person
    (:data:`_FIRST`) is the speaker's own, except the "us" and "our" of everyone in a truism ("Books shift how we
    think"), which says nothing of the speaker alone (:data:`FIRST_SINGULAR`), and names no thing of theirs
    (:data:`_OURS`). ``"encourages"``: an imperative of going on or taking heart (:data:`_CHEERS`) that introduces
    nothing. "It just shows that ..." is read by what it shows."""
    if ADVICE.search(clause):
        return None
    if m := _ATTITUDE.match(clause):
        rest = clause[m.end() :]
        pointed = (_POINTS if _GUESSES.match(clause) else _SECOND).search(rest)
        return "attitude" if pointed and not _FIRST.search(rest) else None
    if (m := _SHOWS.match(clause)) and clause[m.end() :]:
        return reaction_clause(clause[m.end() :])
    if (m := _CHEERS.match(clause)) and not FIRST_SINGULAR.search(clause[m.end() :]) and not _INTRODUCES.search(clause):
        return "encourages"
    if not _FIRST.search(clause):
        if re.match(r"^(?:you|you're|you've|you'll|you'd|your)\b", clause) and not _YOU_NEED.match(clause):
            return "listener"
        bare = not re.match(r"(?:it|that|this)\b", clause)  # "cool that you ...": a quality with no subject
        said = f"it's {clause}" if bare and _word_of(clause) in STANCE_WORDS else clause
        if (m := _EVALUATES.match(said)) and _SECOND.search(said[m.end() - 4 :]):
            return "evaluates"
    g = _GENERIC_SUBJECT.match(clause)
    if g is None or FIRST_SINGULAR.search(clause) or _OURS.search(clause):
        return None  # "Trains are cheaper with our railcard": the speaker's own
    if g.group("anyone"):
        return "truism"
    head = g.group("subject").split()
    if head[-1] in _NOT_PLURAL or head[0] in _NOT_PLURAL or head[0] in _DETERMINERS:
        return None
    return "truism"


def _word_of(clause: str) -> str:
    """The first word of ``clause`` after degree words ("so glad that ..." -> "glad")."""
    return re.sub(rf"^{_DEGREES}", "", clause).split(" ", 1)[0]


_DETERMINERS = frozenset("the a an that those these this what there here which who".split())


# --- turns that only accept, take up or close ------------------------------------------------------------------------

#: An acceptance of a request: an acknowledgement ("Of course.", "Understood,", "Avec plaisir !") opening the reply.
_ACCEPTS = re.compile(r"^(?:of course|sure(?: thing)?|certainly|absolutely|understood|noted|got it|will do|happy to|gladly|no problem|okay|ok)\b[\s:,!.]*", re.IGNORECASE)
#: Words of understanding: after them a verbless phrase is the instruction said back as a promise ("Understood, plain
#: to-dos with dates."), not an answer ("Sure. Pasta with lemon." answers "what should I cook?").
_UNDERSTOOD = re.compile(r"^(?:understood|noted|got it|will do)\b", re.IGNORECASE)
#: The listener asked to hand over what the request is about ("Send them over.", "Send me a few sentences and I'll
#: correct them"): an imperative of giving to the speaker, then at most a promise to act on it.
_HAND_OVER = re.compile(
    r"^(?:just |please )?(?:send|give|share|paste|forward|pass|tell|list|bring) (?:me |us )?(?:them|it|those|these|that|(?:a|an|some|the|your) [\w' -]+?)"
    r"(?: over| across| along| here)?(?:,? (?:and|then) (?:i|we)(?:'ll| will) [a-z]+ (?:them|it|those|these)\b.*)?[.!]*$",
    re.IGNORECASE,
)
#: The most words of an acceptance.
MAX_ACCEPT_WORDS = 20


def accepts_request(text: str) -> bool:
    """Whether an assistant's reply to a request only accepts it and gives nothing yet: an acknowledgement
    (:data:`_ACCEPTS`, or a sentence the rules read as phatic in any language: "Avec plaisir.") and after it only the
    listener asked to hand over what the request is about (:data:`_HAND_OVER`: "Of course. Send them over."), or, after
    words of understanding (:data:`_UNDERSTOOD`), one short phrase with no verb (the instruction said back: "Understood,
    plain to-dos with dates."; not "Noted: no meat. Cheap protein ideas: ..."). No number, no list, no advice, at most :data:`MAX_ACCEPT_WORDS` words."""
    flat = " ".join(text.replace("\u2019", "'").split())
    if not flat or "?" in flat or _NUMBER.search(flat) or _LIST.search(text) or ADVICE.search(flat) or len(_WORD.findall(flat)) > MAX_ACCEPT_WORDS:
        return False
    m = _ACCEPTS.match(flat)
    if m is not None:
        rest = flat[m.end() :].strip()
    else:
        sentences = [x for x in _SENTENCE.split(flat) if x]
        if len(sentences) < 2 or not all(x.kind == "phatic" for x in analyze(sentences[0])):
            return False
        rest = " ".join(sentences[1:])
    if not rest:
        return False
    if all(_HAND_OVER.match(x) for x in _SENTENCE.split(rest) if x):
        return True
    said_back = len(_SENTENCE.split(rest)) == 1 and len(_WORD.findall(rest)) <= MAX_WISH_WORDS  # one short phrase, not ideas of its own
    return m is not None and _UNDERSTOOD.match(flat) is not None and said_back and not _FINITE.search(rest) and not is_imperative(rest)


#: Discourse words that open a closing or a taking up ("ok, ...", "right, ...", "Ha. ...").
_LEAD = re.compile(r"^(?:(?:ok|okay|right|alright|so|well|ha|haha|lol|a+h+|o+h+|yes|yeah|yep|anyway|and)\b[\s,.!]*)+", re.IGNORECASE)
#: Leaving the conversation now: the speaker (said or dropped) going off ("I'm off for a coffee", "off to the shed to
#: net pots"), or about to sleep or rest ("going to try to sleep while he sleeps", "I'll sleep now").
_LEAVES = re.compile(
    r"^(?:(?:i|we)(?:'m| am|'re| are)? )?(?:just )?off(?= to\b| for\b| now\b|$)|"
    r"^(?:(?:i|we)(?:'m| am|'re| are|'ll| will)? ?)?(?:(?:going to|gonna|about to|must|need to|have to|got to|gotta|will|'ll) )(?:try (?:to )?|go )?"
    r"(?:sleep|nap|rest|bed|crash|log off|sign off|head off)\b|"
    r"^(?:(?:i|we)(?:'ll| will) )?(?:sleep|nap|rest) now\b",
)
#: Time words: a leave with a day or a time of its own is a plan ("I'm off to Porto on Friday").
_WHEN = re.compile(rf"\b(?:today|tonight|tomorrow|yesterday|week|weekend|month|year|{WEEKDAY_NAME_RE}|{MONTH_NAME_RE}|o'clock|am|pm)\b", re.IGNORECASE)
#: A reason given: the leave tells why ("going to bed early because of the race").
_BECAUSE = re.compile(r"\b(?:because|since|cause|cos|as)\b")
#: The most words of a fragment beside a closing ("early tomorrow", "Obrigada!", "night!").
MAX_ASIDE_WORDS = 2


def _segments(text: str) -> list[str]:
    """``text`` cut at punctuation, each piece without its lead (:data:`_LEAD`); empty pieces left out."""
    flat = " ".join(text.replace("\u2019", "'").split())
    return [p for p in (_LEAD.sub("", x.strip()).strip() for x in re.split(r"[.,;!\u2026]+|\s-\s", flat)) if p]


def _aside(piece: str, names: list[str]) -> bool:
    """A word or two beside a closing, with nothing to anchor a fact: no digit, no name but the speakers'."""
    return len(_WORD.findall(piece)) <= MAX_ASIDE_WORDS and not _NUMBER.search(piece) and not plain_named(piece, names)


def signs_off(text: str, names: list[str]) -> bool:
    """Whether a whole turn only closes the conversation: the speaker leaving now (:data:`_LEAVES`: "right, off to the
    shed to net pots", "ok, going to sleep a bit before shift", "salamat, I'll sleep now, early tomorrow"), with at most
    a word or two beside it (:func:`_aside`). The leave has no time of its own (:data:`_WHEN`), no number and no name
    but the speakers' ("I'm off to Porto on Friday" is a plan); not a question."""
    if "?" in text:
        return False
    pieces = _segments(text)
    leaves = [p for p in pieces if _LEAVES.match(p.lower())]
    if not leaves or any(_WHEN.search(p.lower()) or _BECAUSE.search(p.lower()) or _NUMBER.search(p) or plain_named(p, names) for p in leaves):
        return False
    return all(p in leaves or _aside(p, names) for p in pieces)


#: A verdict on the reply just heard, with a bare demonstrative for it: how it is taken ("that makes sense", "that's
#: less scary than I thought", "that's what the teacher said"), or how someone will take it ("Dad will love that").
_TAKES_UP = re.compile(
    r"^(?:that|this|thats)(?:'s|s| is| was)? (?:(?:so|really|very|much|way|a lot|even|totally|exactly|just|actually) )*"
    r"(?:makes? (?:(?:a lot of|total|perfect|more) )?sense|(?:less|more|[a-z]+er) [a-z]* ?than (?:i|we) (?:thought|expected|feared|imagined)|"
    r"what (?:(?:the|my|your|our|his|her) [a-z]+|i|we|he|she|they|everyone) (?:said|told me|says|suggested|recommended|thought))$|"
    r"^[\w']+(?: [\w']+)? (?:will|'ll|would|'d|is going to|is gonna) (?:really |totally |absolutely |definitely )?(?:love|like|enjoy|appreciate) (?:that|this|it)$"
)


def takes_up_reply(text: str, names: list[str]) -> bool:
    """Whether a user's whole turn to an assistant only takes up the reply it got, pointing to it with a bare
    demonstrative (:data:`_TAKES_UP`: "OHHH ok that makes sense", "ok thanks, thats less scary than I thought", "yes
    that's what the teacher said", "Ha, Dad will love that."), with at most a word or two beside it (:func:`_aside`).
    No number; no name but the speakers' except the one who will take it; not a question."""
    if "?" in text or _NUMBER.search(text):
        return False
    pieces = _segments(text)
    verdicts = [p for p in pieces if _TAKES_UP.match(p.lower())]
    return bool(verdicts) and all(p in verdicts or _aside(p, names) for p in pieces)
