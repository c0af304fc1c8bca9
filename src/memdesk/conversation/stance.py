"""Stance without a proposition: a sentence whose only content is the speaker's evaluation of, or feeling toward,
the person spoken to or what that person just told.

A person noting what a conversation says notes facts, plans, preferences, instructions, events and what someone is
like; "So proud of you!", "That sounds amazing.", "You deserve it.", "Keep going!" state none of these: they say how
the speaker feels about the listener or the listener's news, and the news itself is in the listener's own turn. An
evaluation that states something lasting stays: "I find pottery relaxing" (a preference of the speaker's: the
speaker evaluates a thing, not the listener), "Your painting won a prize" (an event: the predicate is no evaluation).

The test reads the sentence's structure, not its phrasing (:func:`stance_only`): it splits the sentence into
clauses, finds each clause's target by its subject and object, and checks that its predicate holds nothing but
words of evaluation, feeling, degree and the chat's abstract words (the lexicons of :mod:`.social`), where a
restatement of the listener's news ("for finishing the marathon") counts as part of the target. A clause is stance
when its target is

* the listener: a second-person subject or the listener's name ("You're so talented", "Your kids are lucky to have
  you", "You'll do great") -- advice ("you should", "you could") is not stance;
* the speaker's feeling toward the listener: a first person with a word of feeling whose object is the listener
  ("I'm so proud of you for ...", "We're thrilled for you", "I believe in you", "I admire your grit");
* the listener's news, referred to by a demonstrative ("That sounds amazing", "Those photos are gorgeous", "What a
  lovely surprise") -- only when the turn before told something; after a question about something the same words
  answer it ("How was the trip?" "It was amazing!") and stay;
* encouragement: an imperative of going on, holding firm or daring ("Keep going!", "Stay positive", "Don't be afraid
  to take risks").

* nothing at all: a commitment to nothing ("I'll let you know", "I'll put it on my list") after news, or the
  speaker's understanding of the news said back ("I can see why you moved", "That's just what I needed").

A question that asks after the listener and names nothing ("Anything new on your end?") is read by
:func:`news_question`.

A digit, a name other than the speakers' (one name of the listener's turn said back is the news said back), or anything of the speaker's own (a first-person possessive or object
outside the feeling) in a clause keeps the sentence. :func:`memdesk.conversation.router.analyze_utterance` makes
such a sentence phatic: it gets no record, and a turn of nothing else makes none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .lexicon import PHATIC_ELSEWHERE, PHATIC_WORDS, name_words
from .social import ABSTRACT_WORDS, EVALUATIVE_WORDS, REACTION_WORDS, SMALL_TALK_QUESTION_WORDS, SOCIAL_REST_WORDS

__all__ = ["STANCE_WORDS", "clause_split", "instructs_reply", "news_question", "stance_only", "stance_clause"]

#: Words of attitude the other lexicons lack: deserving, luck, courage and fear, admiration, outlook.
_ATTITUDE = frozenset(
    """
    deserve deserves deserved lucky fortunate blessed afraid fear fearless risk risks leap courage courageous guts grit
    brave bravery strong strength resilient resilience admire admires admired admiration respect respects outlook attitude
    spirit perseverance persistence determined determination dedication commitment hardworking talented gifted skilled
    capable smart clever wise genius natural pro rockstar legend champ inspiring inspirational role model example amazing
    rooting cheering behind proud prouder pride thrilled stoked ecstatic overjoyed delighted touched moved impressed
    wow gorgeous stunning beautiful breathtaking lovely cute adorable precious sweet delicious yummy tasty neat
    awesome fantastic fabulous marvelous marvellous wonderful terrific excellent outstanding superb phenomenal
    remarkable incredible unbelievable insane impressive fun exciting cool sick dope rad great good nice
    glad happy pleased grateful thankful appreciate appreciated sorry sad hate heartbreaking
    sounds sound seem seems seemed looks look looked must totally absolutely completely definitely sure certainly
    earn earns earned paid pay pays off every each whole both
    including like than as into over through around
    tackle tackling overcome overcoming conquer face facing pursue pursuing chase follow forget discouraged
    pushing push moving going trying chasing striving growing shining rocking smiling believing working fighting
    hang hold hanging holding onward forward ahead up on
    """.split()
)

#: The words a stance clause may hold beyond function words and names (greetings and wishes in other languages too:
#: "Tanti auguri to you both").
STANCE_WORDS = ABSTRACT_WORDS | EVALUATIVE_WORDS | SOCIAL_REST_WORDS | REACTION_WORDS | _ATTITUDE | PHATIC_ELSEWHERE

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_CLAUSE_BREAK = re.compile(r"\s*(?:[,;:!.\u2013\u2014]+|\s-\s)\s*|\s+(?:and|but|so|because|cause|'cause)\s+(?=(?:i|i'm|we|we're|you|you're|your|that|it|this|keep|stay|don't)\b)")
_LEAD = re.compile(r"^(?:(?:wow|oh|aww+|aw|omg|yay|yeah|yes|haha+|hah|ha|well|honestly|seriously|really|just|and|but|so|plus|also|man|dude|gosh|geez|ooh|woah|whoa)\b\s*)+")

_YOU = r"(?:you|you're|you've|you'll|you'd|your|yours|yourself)"
_ADVICE = re.compile(r"\byou(?:'d| would| could| might| should| may| ought| need| have to| gotta| got to)\b|\bwhy not\b|\btry\b|\bmaybe\b", re.IGNORECASE)
_OWN = re.compile(r"\b(?:my|mine|myself|our|ours|ourselves|me|us)\b")
_SELF = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|we|we're|we've|we'll|we'd|my|mine|myself|our|ours|me|us)\b")
_FEELING = (
    r"(?:proud|prouder|happy|glad|thrilled|excited|stoked|delighted|overjoyed|ecstatic|pleased|grateful|thankful|impressed|"
    r"amazed|touched|moved|inspired|sorry|sad|rooting|cheering|here|behind|in awe)"
)
#: "I'm (so) proud of you ...", "we're thrilled for you", "I'm rooting for you", "I'm in awe of you".
_FEELS_FOR_YOU = re.compile(
    rf"^(?:(?:i|we)(?:'m| am|'re| are)? )?(?:(?:so|really|very|super|truly|just|always|incredibly|totally|beyond|all|both) )*{_FEELING}"
    rf"(?: (?:of|for|with|by))? {_YOU}\b"
)
#: "I believe in you", "I admire your grit", "we love you", "I appreciate you".
_VALUES_YOU = re.compile(
    rf"^(?:(?:i|we) )?(?:(?:so|really|truly|totally|just|always|honestly|still|all|both) )*(?:believe in|admire|respect|love|adore|appreciate|"
    rf"support|trust|miss|envy|applaud|salute|look up to|wish|wishing) {_YOU}\b"
)
#: Thanks: for what the listener did or said ("Thanks for asking", "thank you so much for the tip").
_THANKS = re.compile(r"^(?:(?:i|we) )?(?:thanks|thank you|thank u|thx|ty|cheers|many thanks)(?: (?:so|very) much| a lot| a ton| again)?(?= for\b|$)")
_ADDRESSED = re.compile(rf"^{_YOU}\b")
#: A demonstrative subject: what the listener just told ("That sounds amazing", "Those shots are stunning", "What a day").
_DEICTIC = re.compile(r"^(?:that|this|it|those|these|what an?|such an?|how)\b")
#: A commitment to nothing: what the speaker will or should do, with nothing named ("I'll let you know", "I'll be
#: sure to look", "I'll put it on my list", "We should totally do that sometime").
_COMMITS = re.compile(
    r"^(?:i|we)(?:'ll| will|'d| would|'m gonna| am gonna|'m going to| am going to| should| could| gotta| have to| might| may)"
    r"(?: (?:really|definitely|totally|def|surely|sure|probably|certainly|also|just|be sure to|make sure to|try to|have to|so))*\b"
)
#: The words a commitment to nothing holds beyond stance and function words: telling, checking, trying, keeping.
_COMMIT_WORDS = frozenset(
    """
    let know posted updated update loop shout word spread tune tuning tuned list add adding check checking look looking
    into give send try trying see find think consider keep mind remember note noted reach touch back note remind
    sometime soon later definitely be sure make goes went turns turned out how
    """.split()
)
#: A commitment to be somewhere or meet someone is a plan ("We'll be there!", "I'll come by").
_GOES = re.compile(r"\b(?:there|come|coming|join|bring|meet|visit|call|go|going|pick|drop|by)\b")
#: The speaker's own things a commitment may name without naming anything: "put it on my list", "on my end".
_OWN_FORMULA = re.compile(r"\b(?:my|our) (?:list|end|mind|best|part|radar|calendar)\b")
#: A reaction of understanding to the listener's news: "I can see why ...", "I hear you", "I remember you mentioning
#: ...", "I know what you mean"; what follows may only restate the news.
_PERCEIVES = re.compile(
    r"^(?:i|we) (?:(?:can|totally|really|definitely|completely|so|just|also|do|too|still|could) )*"
    r"(?:see (?:why|how|that|what you mean)|hear (?:you|ya|that|what you)|understand (?:why|how|that|what|you)|"
    r"get (?:it|that|why|what you mean|you)|know (?:what you mean|the feeling|that feeling|how you feel|how it is)|"
    r"feel (?:you|the same)|remember (?:you|when you)|relate|agree)\b"
)
#: A verdict on the listener's answer in the speaker's words: "That's what I needed", "just what I was looking for".
_WHAT_I_NEEDED = re.compile(r"^(?:that's|that is|this is|just|exactly)(?: (?:just|exactly))? what (?:i|we) (?:needed|wanted|was looking for|were looking for|meant|was hoping for)$")
_ENCOURAGE = re.compile(
    r"^(?:keep|stay|don't|do not|never|go|believe|hang|hold|trust|enjoy|savor|savour|cherish|embrace|be proud|be brave|dream)\b"
)


#: A greeting, a thanks or an interjection: a clause of nothing else is stance whatever came before ("Hi Mo, ...").
_GREETING = frozenset("hi hey hello heya hiya yo howdy wow oh ooh omg aw aww haha yay yeah yes yep ok okay thanks thank you".split())


def clause_split(text: str) -> list[str]:
    """The clauses of ``text``, lower-cased, each without its lead interjections ("wow", "honestly", "and")."""
    s = " ".join(text.replace("\u2019", "'").lower().split())
    return [c for c in (_LEAD.sub("", re.sub(r"^[^\w']+", "", p.strip())) for p in _CLAUSE_BREAK.split(s)) if c]


def _rest(words: list[str], news: set[str], names: set[str]) -> list[str]:
    """The words of ``words`` that are neither stance nor function words, names or the listener's news."""
    return [
        w for w in words
        if w not in PHATIC_WORDS and w.split("'")[0] not in PHATIC_WORDS and w not in STANCE_WORDS and w.split("'")[0] not in STANCE_WORDS
        and w not in names and w[:4] not in news
    ]


def _unheaded(said: list[str]) -> list[str]:
    """``said`` without the head of a determined subject, up to two words ("your kids", "your dance studio", "those
    new shots", "what a surprise"): the thing of the listener's that the clause evaluates."""
    det = 2 if said[:1] in (["what"], ["such"]) and said[1:2] in (["a"], ["an"]) else 1 if said[:1] in (["your"], ["those"], ["these"], ["that"], ["this"]) else 0
    if not det:
        return said
    i = det
    while i < min(det + 3, len(said)) and (said[i] in STANCE_WORDS or said[i] in PHATIC_WORDS):
        i += 1  # "those new shots": a word of evaluation before the head
    j = i
    while j < min(i + 2, len(said)) and said[j] not in STANCE_WORDS and said[j] not in PHATIC_WORDS:
        j += 1
    return said[:i] + said[j:]


def _yours_unheaded(said: list[str]) -> list[str]:
    """``said`` without the word after each "your" ("believe in your abilities"): the listener's own."""
    return [w for i, w in enumerate(said) if i == 0 or said[i - 1] != "your"]


def stance_clause(clause: str, *, names: Iterable[str] = (), addressee: str | None = None, news: str = "", told: bool = True) -> bool:
    """Whether one lower-cased clause is only the speaker's stance toward the listener or the listener's news
    (the module docstring's four targets). ``news`` is the listener's turn before (its words may be restated);
    ``told``: whether that turn told something rather than asked about something."""
    name_parts = name_words(names)
    listener = {p.lower() for p in (addressee or "").split()}
    if listener:  # the listener's name is the listener: "Maya's garden is gorgeous", "so happy for Maya" said to Maya
        alt = "|".join(map(re.escape, listener))
        clause = re.sub(rf"\b(?:{alt})'s\b", "your", clause)
        clause = re.sub(rf"^(?:{alt})\b", "you", clause)
        clause = re.sub(rf"\b(?:for|of|to|with|in) (?:{alt})\b", lambda m: m.group(0).split()[0] + " you", clause)
    said = _WORD.findall(clause)
    if all(w in name_parts or w in _GREETING for w in said) or told and all(w in PHATIC_WORDS or w in name_parts for w in said):
        return True  # a vocative, or an interjection after news: "Rui", "wow" (after a question "It was amazing" answers it)
    if _ADVICE.search(clause):
        return False
    heard = {w[:4] for w in _WORD.findall(news.lower().replace("\u2019", "'")) if len(w) > 3}
    m = _FEELS_FOR_YOU.match(clause) or _VALUES_YOU.match(clause) or _THANKS.match(clause)
    if m:  # a feeling toward the listener or thanks; what it is for is the listener's own ("... for finishing the marathon")
        return not _OWN.search(clause[m.end() :])
    if _WHAT_I_NEEDED.match(clause):
        return told
    c = _COMMITS.match(clause)
    rest = _OWN_FORMULA.sub("", clause[c.end() :]) if c else ""
    if c and told and not _OWN.search(rest) and not _GOES.search(clause):  # "I'll let you know"
        done = [w for w in _WORD.findall(rest) if w not in PHATIC_WORDS and w not in name_parts]
        return not [w for w in done if w not in _COMMIT_WORDS and w not in REACTION_WORDS]  # "we'll let them rest" does something
    p = _PERCEIVES.match(clause)
    if p and told and not _OWN.search(clause[p.end() :]):  # "I can see why you love it there": the news said back
        return not _rest(_WORD.findall(clause[p.end() :]), heard, name_parts)
    if _SELF.search(clause):
        return False  # the speaker's own state, plan or taste ("I'm so happy here", "I find pottery relaxing")
    if _ADDRESSED.match(clause):  # what the listener is, has, can or will do: words of evaluation only
        return not _rest(_unheaded(said), set(), name_parts)
    if _DEICTIC.match(clause):  # a verdict on the listener's news, restating it at most
        return told and not _rest(_unheaded(said), heard, name_parts)
    if _ENCOURAGE.match(clause):  # "keep going", "stay positive", "believe in your abilities"
        going_on = [w for w in _WORD.findall(re.sub(r"in'(?=\W|$)", "ing", clause)) if not re.fullmatch(r"[a-z]{2,}ing", w)]
        if said[0] == "keep" and len(going_on) < len(said):  # "keep sketching", "keep on strummin' it": going on with it
            return not _rest(going_on, heard, name_parts)
        return not _rest(_yours_unheaded(said), heard, name_parts)
    return told and not _rest(said, heard, name_parts)  # no subject: "so inspiring", "huge congrats", "including the dog"


#: A capitalised word not at a sentence's start (nor "I"): a name, unless it is a speaker's.
_CAPITALS = re.compile(r"(?<!^)(?<![.!?]\s)\b(?!I\b|I')[A-Z][\w-]*")


def stance_only(text: str, *, names: Iterable[str] = (), addressee: str | None = None, previous: str = "", asked: bool = False) -> bool:
    """Whether every clause of the sentence ``text`` is stance (:func:`stance_clause`) and at least one has a
    target: nothing in it is a proposition a person would note. ``previous`` is the listener's turn before;
    ``asked``: whether it asked about something. A question, a number the listener did not say or a name other than
    the speakers' keeps it."""
    raw = text.strip().replace("\u2019", "'")
    if not raw or raw.endswith("?") or set(re.findall(r"\d+", raw)) - set(re.findall(r"\d+", previous)):
        return False  # a number of its own says something; one said back is the news ("At 71, that's wonderful")
    raw = " ".join(re.sub(r"[^\w\s.,!?;:'\"()&/\u2013\u2014-]", " ", raw).split())  # emoji and symbols
    known = name_words(names)
    capitals = _CAPITALS.findall(raw)
    nicknames = [w for w in capitals if w.lower() not in known and any(len(w) >= 3 and k.startswith(w.lower()) for k in known)]
    # one name said back is the news said back ("Every Sunday it is.", "Wow, Galway looks amazing!"); a title is not
    restated = set(re.findall(r"\b[A-Z][\w-]*", previous)) if '"' not in raw else set()
    others = [w for w in capitals if w.lower() not in known and w not in nicknames]
    if len(others) > 1 or any(w not in restated for w in others):
        return False
    names = [*names, *nicknames]  # "Thanks, Mel!" to Melanie
    clauses = clause_split(raw)
    return bool(clauses) and all(
        stance_clause(c, names=names, addressee=addressee, news=previous, told=not asked) for c in clauses
    )


_LAST_TALKED = re.compile(r"\b(?:since )?(?:we|i) last (?:talked|spoke|chatted|caught up|met|saw each other)\b")
#: A question for a fact: a time, a place, a kind, an amount, a person, a reason ("When does it start?").
_ASKS_FACT = re.compile(r"^(?:when|where|which|who|whom|whose|why|what (?:time|kind|sort|type|day|date)|how (?:much|many|long|far|old|often|big|come))\b")
_ASKS_FOR = re.compile(r"\b(?:recommend|suggest|advice|advise|tips?|help|should|can you|could you|would you|will you)\b")
#: The words of a question that asks after the listener and names nothing (beyond those of :data:`STANCE_WORDS`).
_ASKING_AFTER = SMALL_TALK_QUESTION_WORDS | frozenset("end side lately recently since last".split())


def news_question(text: str, *, names: Iterable[str] = ()) -> bool:
    """A question that asks after the listener and names nothing: "How have you been?", "Anything new on your end?",
    "How's life been since we last chatted?", "Any pictures?". It holds nothing of the asker's (no first person,
    no request), asks for no fact (a time, a place, a kind, an amount) and has no word beyond those of small talk
    (:data:`STANCE_WORDS` and the words of small-talk questions): the answer, in the listener's turn, is what to
    note. A question that takes up a word of the listener's news ("What got you into rowing?") is about something."""
    raw = text.strip().replace("\u2019", "'")
    if not raw.endswith("?") or re.search(r"\d", raw):
        return False
    known = name_words(names)
    if any(w.lower() not in known for w in _CAPITALS.findall(raw)):
        return False
    s = _LAST_TALKED.sub("", " ".join(raw.lower().split()))
    if _SELF.search(s) or _ASKS_FOR.search(s) or _ASKS_FACT.match(s):
        return False
    said = _WORD.findall(s)
    return bool(said) and not [w for w in _rest(said, set(), known) if w not in _ASKING_AFTER and w.split("'")[0] not in _ASKING_AFTER]


#: How a reply is said and what it is ("Keep it short.", "Be brief.", "Always answer in bullet points."): an imperative
#: with one of these words tells the listener how to answer, an instruction to keep, never small talk.
_REPLY_MANNER = frozenset(
    """
    short shorter brief briefer concise succinct terse simple simpler plain detailed formal informal casual friendly
    polite positive neutral direct technical gentle honest blunt
    reply replies answer answers response responses message messages summary summaries explanation explanations
    tone language emoji emojis bullet bullets table tables list lists format paragraph paragraphs words
    """.split()
)
_REPLY_OPENERS = frozenset("keep be make use write answer reply respond talk speak stop avoid don't never always only no".split())


def instructs_reply(sentence: str) -> bool:
    """An imperative on how to answer ("Keep it short.", "Be brief.", "Always keep replies short.", "No emojis."),
    unlike an encouragement ("Keep going!") or a social formula."""
    ws = _WORD.findall(re.sub(r"^(?:please|pls|and|also|oh|ok|okay)\W+", "", sentence.strip().lower()))
    return bool(ws) and ws[0] in _REPLY_OPENERS and any(w in _REPLY_MANNER for w in ws[1:]) and not sentence.rstrip().endswith("?")
