"""Lexicons and sentence analysis shared by the rule router and the rule extractor.

Everything here is a pure function of the text (and of the names of the people talking): the
sentence splitter (:mod:`.sentences`, re-exported), a phatic-sentence test, per-sentence type cues, and a cheap first-to-third
person rewrite. :mod:`memdesk.conversation.router` and :mod:`memdesk.conversation.extract` build
on these so that both read a turn the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Literal

from ..text.lang import is_english
from ..timeexpr.resolve import TimeMention
from .lexicon import ED_ADJECTIVES, IRREGULAR_PAST, PHATIC_WORDS, THANKS_WORDS, name_words, phatic_elsewhere
from .sentences import split_sentences
from .stance import instructs_reply
from .social import (
    EVALUATIVE_WORDS, GENERIC_BENEFIT, PAST_COPULA, RETURN_GREETING, PHATIC_IMPERATIVES, PHATIC_SENTENCE, REMARKS, SINGULAR_SELF, SOCIAL_FORMULA,
    SOCIAL_REST_WORDS, LOOKING_FORWARD, TEASER, THIRD_PERSON, TRUISM, VERDICT, VERDICT_OF, WE_DO, WISHES, abstract_only, echoes, evaluates,
    only_reacts, plain_named, remark_on_you,
)  # fmt: skip

SentenceKind = Literal["phatic", "question", "content"]

# --- lexicons ----------------------------------------------------------------------------------

SUBJECTS = frozenset("i we he she they you it".split())

_FAMILY = (
    r"(?:wife|husband|partner|spouse|kids?|children|child|son|daughter|mom|mum|mother|dad|father|"
    r"parents?|brother|sister|siblings?|family|grand(?:ma|pa|mother|father|kids?|children)|aunt|uncle|"
    r"cousin|niece|nephew|girlfriend|boyfriend|fianc[ée]e?|dog|cat|pets?|puppy|best friend|friends?)"
)

SEMANTIC_CUES = re.compile(
    r"\b(?:"
    r"i(?:'m| am) (?:a|an|from|into|originally|currently|still|part|big|huge|really into)\b|"
    r"i (?:really |also |just |absolutely |totally |still )?(?:love|like|enjoy|prefer|hate|adore|dislike|"
    r"value|believe|admire|care about|cherish|collect|play|own|work|live|study|teach|volunteer|practice|"
    r"support|identify|am)\b|"
    r"i(?:'ve| have) (?:got |been (?:a|an|into|doing|working|living|playing|practicing|volunteering)\b|always|never)|"
    r"i have (?:a|an|two|three|four|five|\d+)\b|"
    r"my (?:favou?rite|dream|goal|passion|hobby|hobbies|job|career|name|home|identity)\b|"
    rf"my {_FAMILY}\b|"
    r"is my\b|are my\b|means (?:a lot|so much|everything)|important to me|special to me|"
    r"years? old\b|for (?:\d+|a few|several|many|two|three|four|five|ten) years\b|"
    r"(?:is|are) (?:a|an|the) (?:\w+ )?(?:way|place|kind|type|part)\b|"
    r"i(?:'m| am) (?:\w+ )?(?:passionate|interested|keen|allergic|afraid|scared|good at|bad at)\b"
    r")",
    re.IGNORECASE,
)

EPISODIC_CUES = re.compile(
    r"\b(?:"
    r"(?:going to|gonna|about to|planning(?: to| on)?|plan to|plans? (?:to|for)|intend to|decided to|"
    r"signed up|looking forward|can't wait|will be|i'll|we'll|i will|we will|getting ready)\b|"
    r"(?:i|we|he|she|they)(?:'ve| have| has|'d| had) (?:just |recently |finally |already |also )?(?:\w+ed|"
    + "|".join(sorted(IRREGULAR_PAST))
    + r")\b|"
    r"(?:i|we|he|she|they)(?:'ve| have| has) been\b|"
    r"here(?:'s| is| are) (?:a |some )?(?:pic|photo|picture|snap|shot|video)|check (?:this|it) out|take a look|"
    r"last time|first time|this time|when i was|back when|trip|vacation|holiday|concert|party|event|"
    r"wedding|birthday|festival|graduat\w+|visit\w*|attend\w*|competition|race|tournament|meeting|"
    r"class(?:es)?|workshop|interview|appointment|accident|surgery|camping|hike|hiking|road ?trip"
    r")",
    re.IGNORECASE,
)

PROCEDURAL_CUES = re.compile(
    r"\b(?:"
    r"you should|you could (?:try|start|use|look)|you might (?:want|try)|you (?:need|have|ought) to|"
    r"try (?:to|using|adding|doing|not)|(?<!to )make sure|remember to|don't forget|be sure to|never forget to|"
    r"how to|here's how|the (?:key|trick|secret) (?:is|to)|tips?\b|step by step|(?:first|next|last|final) step|steps? (?:to|are|is)\b|steps for\b|"
    r"\d+ steps|step \d|here(?:'s| is) (?:the|my|a|her|his) (?:recipe|trick|method)|(?:the |this |my )?recipe (?:is|calls)|instructions? (?:are|is|for)|"
    r"first,? (?:you|i|we)\b|then (?:you|add|mix|put|take)|finally,? (?:you|add)|"
    r"i (?:recommend|suggest|advise)|my advice|it helps to|what works for me|what helped me|"
    r"the best way to|a good way to|is to (?:\w+ )?(?:start|keep|make|take|focus|practice)|"
    r"always (?:remember|make|try|check)|"
    r"ingredients?|preheat|stir|mix (?:in|it|them|the)|"
    r"set (?:a|aside|up)|break (?:it|things|tasks) (?:down|into)"
    r")",
    re.IGNORECASE,
)

#: Base verbs that open an imperative sentence ("Try ...", "Don't ...").
IMPERATIVE_OPENERS = frozenset(
    """
    try make take keep remember start use add go check focus don't do be consider find stay practice
    warm heat preheat stir pour knead leave roll spread fold cut chop slice dice bake boil simmer fry roast
    grill whisk beat blend combine season sprinkle brush twist serve cool chill freeze soak rinse drain peel
    grate melt cover place transfer remove turn flip repeat wait hold lower lift label book pack call email
    open close click press select save install type download restart unplug plug connect fill measure weigh
    line grease divide shape form rest store note sign apply register submit pay compare research whip
    toss marinate knead fold drizzle garnish top layer sift crack beat pat steam saute sauté reduce
    avoid set mix put get give write read join look ask talk reach start stop limit plan schedule
    prepare bring pack wear drink eat sleep breathe stretch listen follow choose pick spend
    """.split()
)

_EVENT_ADVERBS = frozenset("really also just still always usually often sometimes never actually totally definitely absolutely truly".split())

_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
_LEAD_WORDS = (
    r"(?:hey|hi|hello|wow|woah|whoa|oh|ooh|aww|yeah|yep|yup|ya|yea|ok|okay|sure|haha|hahaha|lol|"
    r"thanks|thank you|thx|well|so|totally|definitely|absolutely|exactly|true|omg|cool|nice|awesome|great|"
    r"agreed|right|btw|by the way|anyway|oh and|also|of course|sure thing|certainly|noted|understood|got it|"
    r"(?:big|good|great|some|exciting|happy|sad) news|guess what|fun fact|update|lovely|perfect|brilliant|wonderful|excellent|"
    r"fantastic|ha|ah|aw|gracias|merci|danke|ooh|hmm|"
    # interjections and exclamatives of reaction ("Ouch, ...", "Phew, ...", "How romantic, ...", "What a relief, ...")
    r"ouch|oops|phew|yikes|eek|ugh|argh|alas|yay|hooray|hurray|gosh|golly|crikey|bless (?:her|him|them|you)|"
    r"how (?!much\b|many\b|long\b|often\b|far\b|old\b)[a-z]+|what an? [a-z]+)"
)
#: one leading filler: a filler word followed by punctuation, or by a capitalised vocative and punctuation
_LEAD_FILLER = re.compile(rf"^{_LEAD_WORDS}(?:\s+[A-Z][a-z]{{1,12}})?\s*[,!.:;\u2013\u2014-]+\s*", re.IGNORECASE)
_LEAD_VOCATIVE = re.compile(r"^(?:hey|hi|hello|wow|oh|yeah|yes|thanks|thank you)\s+(?=[A-Z][a-z]{1,12}\b)", re.IGNORECASE)


@dataclass
class Sentence:
    """One sentence of a turn with what the rules saw in it."""

    text: str
    kind: SentenceKind
    episodic: bool = False
    semantic: bool = False
    procedural: bool = False
    image: bool = False
    times: list[TimeMention] = field(default_factory=list)


def words(text: str) -> list[str]:
    """Lower-cased words (apostrophes kept: "it's")."""
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def content_words(text: str, names: Iterable[str] = ()) -> list[str]:
    """Words that are neither phatic/function words nor the names of the people talking."""
    name_parts = name_words(names)
    out = []
    for w in words(text):
        base = w.split("'")[0]
        if w in PHATIC_WORDS or base in PHATIC_WORDS or base in name_parts:
            continue
        out.append(w)
    return out


def _vocative_stripped(text: str) -> str:
    """Drop capitalised vocatives that may be nicknames: "Hey Tom!", "Thanks, Jo.", "See ya, Ravi!"."""
    text = re.sub(r"^((?:wow|oh|aww*|yay|omg)\s*,?\s+)[A-Z][a-z]{1,12}(?=\s*[,!])", r"\1", text, flags=re.IGNORECASE)  # "Wow Mel, ..."
    text = re.sub(r"^((?:hey|hi|hello|bye|thanks|thank you|see ya|see you|yo|congrats|(?:good )?(?:morning|afternoon|evening|night)|"
                  r"welcome back)\s*,?\s+)[A-Z][a-z]{1,12}\b", r"\1", text, flags=re.IGNORECASE)
    return re.sub(r",\s*[A-Z][a-z]{1,12}(?=\s*[!.?]*\s*$)", "", text)


def greets_only(text: str, names: Iterable[str] = ()) -> bool:
    """Whether every sentence of a turn is a greeting, thanks or acknowledgement, in any language ("Gracias!",
    "Good idea. Obrigado.", "Dobrý večer!")."""
    names = list(names)
    return all(phatic_elsewhere(s, names) or is_english(s) and is_phatic(s, names) for s in split_sentences(text))


def is_phatic(sentence: str, names: Iterable[str] = ()) -> bool:
    """True if the sentence has no content word: a greeting, thanks, an interjection, praise."""
    s = sentence.strip()
    if not s:
        return True
    names = list(names)
    core = _vocative_stripped(strip_lead_filler(s, names)).replace("\u2019", "'")
    lowered = core.lower()
    # a verdict on what was said ("That's adorable!"), unless it names someone or something ("That's Pepper!")
    plain = not re.search(r"\b(?!I\b|I')[A-Z]", core[1:]) and not re.search(r"\d", core)
    if (PHATIC_SENTENCE.match(lowered) or VERDICT.match(lowered) or VERDICT_OF.match(lowered)) and plain:
        return True
    if RETURN_GREETING.match(core):
        return True
    # the formulas below are read without any leading interjection ("Lovely, thanks for telling me.") or
    # conjunction ("And congratulations on the win!")
    while (lead := _LEAD_FILLER.match(lowered) or _LEAD_CONJUNCTION.match(lowered)) is not None and lead.end() < len(lowered):
        lowered = lowered[lead.end() :]
    if plain and (TEASER.match(lowered) or TRUISM.match(lowered) or LOOKING_FORWARD.match(lowered)):  # "Something exciting happened!", "Challenges force us to grow."
        return True
    if (REMARKS.match(lowered) or GENERIC_BENEFIT.match(lowered) or VERDICT_OF.match(lowered)) and plain and not _OWN_CLAUSE.search(lowered):
        return True
    # congratulations, wishes, offers of help ("Congratulations on the pottery course!"), unless a clause of
    # the speaker's own with something to remember follows ("Good luck, and my sister drives us there on Sunday")
    wish = WISHES.match(lowered)
    if wish and not (_OWN_CLAUSE.search(lowered) and len(_rest_content(lowered[wish.end() :], names)) >= 2):
        return True
    # thanks and a short remark ("Thanks, it was a tough search.", "Thanks, a proud moment.")
    said = _vocative_stripped(s).replace("\u2019", "'")
    thanks = _THANKS.match(said.lower())
    rest = _rest_content(said[thanks.end() :], names) if thanks else []
    if thanks and not re.search(r"\d|\b[A-Z]", said[thanks.end() :]) and (
        not rest or (not _OWN_CLAUSE.search(said.lower()) and len(rest) <= 2)
    ):  # "Thanks for the compliment, I really appreciate it!", "Thanks, the team did great."
        return True
    for formula in (PHATIC_IMPERATIVES, SOCIAL_FORMULA):
        m = formula.match(lowered)
        # a formula ("Glad you ...", "Your support means ...", "Keep it up") with nothing to remember after it
        if m and not [w for w in content_words(lowered[m.end() :], names) if w not in SOCIAL_REST_WORDS]:
            return True
    content = content_words(_vocative_stripped(s), names)
    # "I'll definitely check it out.", "Nate understands, Joanna.": nothing but taking up what was said
    return not content or (not plain_named(s, names) and only_reacts(content, len(words(s))))


_LEAD_CONJUNCTION = re.compile(r"^(?:and|but|plus|so|also|oh and)\s+", re.IGNORECASE)

_OWN_CLAUSE = re.compile(r"(?:,|;|\s-|\s\u2013)\s*(?:and |but |also |btw |by the way )?(?:i|we|i'm|we're|i've|we've|i'll|we'll|my|our)\b|\b(?:and|but) (?:i|we)\b")


#: Thanks, in English or a word of another language ("Dziękuję for all the help these months.").
_THANKS = re.compile(
    r"^(?:thank you|ta|" + "|".join(sorted(map(re.escape, THANKS_WORDS), key=len, reverse=True)) + r")(?: so much| a lot| a ton)?\b[\s,!.:;-]*",
    re.IGNORECASE,
)


def _rest_content(text: str, names: Iterable[str]) -> list[str]:
    return [w for w in content_words(text, names) if w not in SOCIAL_REST_WORDS]


def strip_lead_filler(sentence: str, names: Iterable[str] = ()) -> str:
    """Drop leading interjections and vocatives: "Yeah Nadia, baking bread ..." -> "Baking bread ...".

    Yes/no are never dropped, and nor is anything from a reply with fewer than two content words."""
    s = sentence.strip()
    name_alt = "|".join(re.escape(p) for n in names if n for p in n.split())
    name_re = re.compile(rf"^(?:{name_alt})\b\s*[,!.:;-]*\s*") if name_alt else None
    rest = s
    while True:
        m = _LEAD_FILLER.match(rest)
        if m:
            rest = rest[m.end() :]
            continue
        m = _LEAD_VOCATIVE.match(rest)
        if m and name_re is not None and name_re.match(rest[m.end() :]):
            rest = name_re.sub("", rest[m.end() :], count=1)
            continue
        if name_re is not None and rest is not s and name_re.match(rest):
            rest = name_re.sub("", rest, count=1)
            continue
        break
    rest = rest.strip()
    # a short reply keeps its opener: "Yeah, twice!" is an answer, not a filler
    if rest and rest != s and len(content_words(rest, names)) >= 2:
        return rest[0].upper() + rest[1:]
    return s


def has_past_event(sentence: str) -> bool:
    """A narrated past action: an irregular past form or an "-ed" verb after a subject or adverb."""
    ws = words(sentence)
    for i, w in enumerate(ws):
        prev = ws[i - 1] if i else ""
        if w in IRREGULAR_PAST and w not in ("been",):
            return True
        if w.endswith("ed") and len(w) > 4 and w not in ED_ADJECTIVES:
            if prev in SUBJECTS or prev in _EVENT_ADVERBS or prev in ("finally", "recently", "once", "and", "then") or prev.endswith("ly"):
                return True
            if prev not in ("am", "is", "are", "was", "were", "be", "been", "being", "so", "very", "i'm", "get", "got", "feel", "felt"):
                # "-ed" after a content word is often a past verb of a named subject ("Tom painted")
                if i and ws[i - 1] not in PHATIC_WORDS:
                    return True
    return False


_NOT_AFTER_IMPERATIVE = frozenset("is was are were has had of 's club looks seems will would can could".split())

#: What may come before the verb of an instruction: a list marker, a sequence word, or a leading
#: condition or purpose ("If it sticks, ...", "To teach that, ...", "Once it cools, ...").
_STEP_LEAD = re.compile(
    r"^(?:(?:step\s+)?\d{1,2}[.):]\s*|[a-z][.)]\s+)?"
    r"(?:(?:first(?:ly)?|then|next|after that|afterwards|finally|lastly|now|and|also|meanwhile|after|once done),?\s+)?"
    r"(?:(?:if|when|once|to|before|after|while|as soon as|until)\b[^,]{1,60},\s*)?",
    re.IGNORECASE,
)


def is_imperative(sentence: str) -> bool:
    """Opens with a base verb of instruction ("Try ...", "Use ...", "Then stir ...", "If it sticks,
    add ...", "2. Bake ...") and is not a social formula."""
    ws = words(_STEP_LEAD.sub("", sentence.strip(), count=1))
    if len(ws) < 2:
        return False  # "First try." is not an instruction
    first = ws[0]
    if PHATIC_IMPERATIVES.match(sentence.strip()):
        return False
    # "Book club was fun", "Rest of the day ...": a noun, not an instruction
    if len(ws) > 1 and ws[1] in _NOT_AFTER_IMPERATIVE:
        return False
    return first in IMPERATIVE_OPENERS and not sentence.rstrip().endswith("?")


_VERDICT_ON_PREVIOUS = re.compile(r"^(?:it|that|this)(?:'s|\u2019s| was| is| felt| made)\b", re.IGNORECASE)


def generic_remark(sentence: str, names: Iterable[str] = ()) -> bool:
    """A sentiment or a truism with nothing of anyone's to remember: nothing in the first person singular,
    no name but the speakers', no number, nothing narrated, no instruction, and a word of evaluation
    ("Staying positive is key.", "You've got so much talent!", "Those little things can spark our
    enthusiasm."). "She is vegetarian." (no evaluation) and "My job is great." (first person) stay."""
    s = sentence.strip().replace("\u2019", "'")
    # a verdict on the other person's news ("You all had a blast at dinner", "That's awesome news about the internship")
    about_you = re.match(r"^(?:you|you're|you've|you all|your|that's|that is|what)\b", s, re.IGNORECASE) is not None
    if not s or s.endswith("?") or re.search(r"\d", s) or SINGULAR_SELF.search(s) or (PAST_COPULA.search(s) and not about_you):
        return False
    known = name_words(names)
    if any(w.lower() not in known for w in re.findall(r"(?<!^)\b[A-Z][\w'-]*", s)):
        return False
    if (has_past_event(s) and not about_you) or PROCEDURAL_CUES.search(s) or is_imperative(s):
        return False
    if WE_DO.search(s):
        return False  # "We love prepping the feast": what the speaker's household does
    ws = words(s)
    if ws and (ws[0] in ("been", "gonna", "going", "just", "finally", "still") or (ws[0].endswith("ing") and ws[1:2] in (["to"], ["on"], ["out"], ["up"]))):
        return False  # a dropped "I": "Been real busy tackling a project", "Trying to get a petition going"
    return any(w in EVALUATIVE_WORDS or w.split("'")[0] in EVALUATIVE_WORDS for w in words(s))


_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine|we|we're|we've|our|us)\b", re.IGNORECASE)
#: The most words of a whole turn read as a short remark ("Long, but good.", "Busy!", "Lovely colour.").
SHORT_REMARK_WORDS = 4


def short_remark(text: str, names: Iterable[str] = (), *, answers_question: bool = False) -> bool:
    """A whole turn that only reacts: at most four words, no number, no name but the speakers', nothing
    in the first person, no fact cue, and not the answer to a question ("Pepperoni." answers one)."""
    ws = words(text)
    if answers_question or not ws or len(ws) > SHORT_REMARK_WORDS or re.search(r"\d", text) or text.rstrip().endswith("?"):
        return False
    known = name_words(names)
    capitals = [w for w in re.findall(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w'-]*", text.strip()) if w.lower() not in known]
    # "Figo is asleep.": a subject and a verb say something of someone
    subject_verb = len(ws) > 1 and ws[1] in ("is", "was", "has", "had", "does", "did", "can", "will", "loves", "likes")
    named = subject_verb and ws[0] not in PHATIC_WORDS and ws[0] not in known
    return not capitals and not named and not _FIRST_PERSON.search(text) and not SEMANTIC_CUES.search(text) and not has_past_event(text)


def analyze(
    text: str,
    times_of: Callable[[str], list[TimeMention]] | None = None,
    names: Iterable[str] = (),
    previous: str = "",
) -> list[Sentence]:
    """Split a turn into sentences and mark each: phatic / question / content, and type cues.

    ``previous`` is the turn replied to, when another speaker said it: an acknowledgement that only
    repeats it ("Noted: runs first.") is phatic."""
    names = list(names)
    answers = previous.rstrip().endswith("?")
    out: list[Sentence] = []
    for raw in split_sentences(text):
        image = raw.startswith("[shares an image")
        # "It was really rewarding." right after an event says how it went: it stays with that sentence
        follows_content = bool(out) and out[-1].kind == "content" and _VERDICT_ON_PREVIOUS.match(raw) is not None
        instruction = instructs_reply(raw)  # "Keep it short.": never small talk
        # a greeting in another language inside an English turn ("Hola! I moved to Cusco.") is small talk too
        if not image and not follows_content and not instruction and (is_phatic(raw, names) or phatic_elsewhere(raw, names) or echoes(raw, previous)):
            out.append(Sentence(text=raw, kind="phatic"))
            continue
        s = raw if image else strip_lead_filler(raw, names)
        kind: SentenceKind = "question" if s.rstrip().endswith("?") and not image else "content"
        times = times_of(s) if times_of else []
        # "Your backing means a lot.": a remark on the other person ("Keep your answers short." instructs)
        remark = not plain_named(s, names) and remark_on_you(s) and not is_imperative(s) and not PROCEDURAL_CUES.search(s)
        remark = remark and evaluates(content_words(s, names), words(s))  # "Your sister called." tells something
        # "A mix of emotions for sure.": no word of anyone's world (no name, number, date or concrete word)
        # (an answer to a question is kept: "A bit." answers "Are you nervous?")
        # (nor is what is said of someone in particular: "They're a real support." of a family)
        someone = THIRD_PERSON.search(s) is not None
        remark = remark or (not answers and not someone and not plain_named(s, names) and abstract_only(content_words(s, names)))
        if kind == "content" and not image and not times and not follows_content and not instruction and (remark or generic_remark(s, names)):
            out.append(Sentence(text=raw, kind="phatic"))  # a sentiment or truism: nothing to remember
            continue
        sent = Sentence(text=s, kind=kind, image=image, times=times)
        if kind == "content":
            sent.procedural = bool(PROCEDURAL_CUES.search(s)) or is_imperative(s) or instruction
            sent.episodic = image or bool(times) or has_past_event(s) or bool(EPISODIC_CUES.search(s))
            sent.semantic = bool(SEMANTIC_CUES.search(s)) or not (sent.episodic or sent.procedural)
        out.append(sent)
    return out
