"""Social formulas: sentences that keep a conversation going but hold nothing to remember.

Small talk from any role is covered: greetings, thanks, congratulations and wishes ("Congratulations on
the pottery course!", "Good luck with the race!"), an assistant's offers and acknowledgements ("How can I
help today?", "Of course, happy to help!"), and generic verdicts on what was said ("They can be quite
engaging.", :data:`VERDICT`). An acknowledgement that only repeats the turn before it ("Noted: runs first,
ten lines at most.") is small talk too (:func:`echoes`).

:func:`memdesk.conversation.rules.is_phatic` uses these next to its word list: a whole sentence
that is a formula (:data:`PHATIC_SENTENCE`: "Sounds like a plan!", "That's adorable."), or that
opens with one (:data:`PHATIC_IMPERATIVES`, :data:`SOCIAL_FORMULA`: "Take care", "Glad you ...",
"Your support means ...", "Keep it up", "Can't wait to hear ...", "Nice to meet you") and says nothing after it beyond
the words of :data:`SOCIAL_REST_WORDS` ("Glad you found something that makes you happy!"). A
formula followed by a fact ("So proud of you for finishing the marathon") is not phatic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .lexicon import name_words

#: Whole sentences that are only social: agreement, encouragement, a one-word verdict on what was said.
PHATIC_SENTENCE = re.compile(
    r"^(?:(?:i|you) bet|(?:quick|random|silly) question|(?:big|good|great|bad|some) news|guess what|fun fact|"
    r"(?:i|we)(?:'ve| have)?(?: got)? (?:some |big |good |great |exciting )?news(?: too| as well| for you)?|"
    r"(?:happy|merry) (?:new year|birthday|christmas|holidays|easter|anniversary|thanksgiving|diwali|eid|hanukkah)(?: to you)?|"
    r"(?:really\? )?tell me more|do tell|go on|long time(?: no (?:see|talk|chat))?|any news|what's new|"
    r"sounds like a plan|for sure|no way|me too|same here|of course(?: (?:they|he|she|it|you|i|we) "
    r"(?:did|do|does|will|would|can|are|is|was))?|fair enough|makes sense|will do|got it|no worries|no problem|"
    r"my pleasure|not bad|you too|likewise|good (?:girl|boy|for you|point|idea|call|job|stuff|one)|tell me about it|"
    r"i know(?:,? right)?|you'?d better|(?:that|this)(?:'s| is| was| sounds| seems| looks)(?: like)?"
    r"(?:\s+(?:so|very|really|such|a|an|pretty|quite|totally|super|more|too|just|kind of|absolutely))*"
    r"(?:\s+(?!(?:my|your|his|her|our|their|where|when|why|how|what|who|which)\b)[a-z-]+){1,2}|what an? (?:[a-z-]+\s+)?[a-z-]+|how (?:[a-z-]+))[\s!.?\u2026]*$"
)

#: Imperatives that are only social (never procedural).
PHATIC_IMPERATIVES = re.compile(
    r"^(?:take care|keep (?:it up|going|up the (?:good |great |amazing |awesome )?work|rocking|smiling|at it|inspiring|shining)|"
    r"keep me posted|(?:take a |have a )?look at (?:this|that|these|it)|check (?:this|it|these|that) out|"
    r"let me know|have (?:a|fun)|enjoy|good luck|stay (?:safe|strong|positive|tuned)|"
    r"talk (?:to you )?soon|see (?:you|ya)|catch you|don't worry|go for it|you got this)\b",
    re.IGNORECASE,
)

#: Openings of praise, thanks, sympathy and encouragement.
SOCIAL_FORMULA = re.compile(
    r"^(?:(?:i'?m |i am |we'?re |so |really )*(?:so |really |very |super )?(?:glad|happy|proud|thrilled|excited|stoked|"
    r"grateful|thankful|sorry|sad)(?: to (?:hear|see|know|read))?(?: (?:of|for) (?:you|him|her|them))?(?: that)?|"
    r"(?:thanks|thank you|thx|appreciate(?: it)?|cheers|much appreciated)(?: so much| a lot| a ton)?(?: for)?|"
    r"(?:your|his|her|their) (?:support|encouragement|words|kindness|positivity|belief|faith|advice|pep[- ]?talk|"
    r"friendship|help|enthusiasm|determination|passion)(?: and \w+)?(?: really| truly| always| so| will| would| can)* (?:means?|meant|helps?|"
    r"helped|keeps?|kept|makes?|made|matters?|inspires?|inspired)|"
    r"keep (?:it up|going|pushing|at it|up the (?:good |great |amazing )?work|shining|rocking|doing what you(?:'re| are) doing|"
    r"on \w+ing)|don't (?:give up|stop)|never give up|you(?:'ve| have)? got this|you can do (?:it|this)|"
    r"(?:can't|cannot) wait(?: to (?:hear|see|check))?|let me know|keep me (?:posted|updated|in the loop)|"
    r"(?:(?:it'?s|it was) )?(?:so |really |very )?(?:nice|great|good|lovely|pleased|a pleasure|an honou?r) to (?:finally )?"
    r"meet you(?: too| as well)?|"
    r"(?:good|best of) luck|you(?:'re| are) (?:so |really |such an? |very |truly )*(?:amazing|awesome|great|talented|"
    r"inspiring|incredible|brave|strong|kind|sweet|the best)|"
    r"(?:that|it|this)(?:'s| is| was| sounds| looks| seems)(?: like)?(?: so| really| very| totally| absolutely| super| such| just)*"
    r"(?: an?)? (?:amazing|awesome|great|cool|nice|lovely|beautiful|wonderful|incredible|impressive|inspiring|fantastic|"
    r"fun|exciting|adorable|cute|gorgeous|stunning|brilliant|neat|sweet|special|awesome|rewarding|tough|hard|crazy|wild)|"
    r"(?:sounds|looks|seems)(?: like)?(?: so| really| super| such)*(?: an?)? (?:amazing|awesome|great|cool|nice|lovely|"
    r"fun|wonderful|incredible|interesting|exciting|relaxing|peaceful)|"
    # an assistant's acknowledgements ("Of course, happy to help!")
    r"(?:of course|sure thing|certainly|absolutely|no problem|with pleasure|gladly|sure|okay|ok|alright|understood|noted|got it|will do)|"
    r"happy to (?:help|hear|assist)|(?:you(?:'re| are) )?(?:very |most )?welcome|great question|good question|"
    r"that makes (?:a lot of |total |perfect )?sense)\b"
)

#: Small talk whatever follows it: congratulations, wishes and an assistant's offers of help. What a
#: congratulation is about was said by the person it answers ("Congratulations on the pottery course!").
WISHES = re.compile(
    r"^(?:(?!.*\b(?:my|our|\d+)\b)(?:happy|merry) (?:[a-z'.-]+ ){0,3}(?:day|birthday|anniversary|holidays?|christmas|easter|new year|eid|diwali|"
    r"hanukkah|thanksgiving|retirement|hogmanay|night|eve|month|festival|season)\b|good (?:for|on) [a-z'-]+[\s!.\u2026]*$|"
    r"(?:many |huge |big |belated )?(?:congratulations|congrats|well done|good job|great job|nice work|nice one|way to go|"
    r"bravo|kudos|hats off)\b|(?:good luck|best of luck|all the best|best wishes|fingers crossed)\b|"
    r"(?:i'?m |i am |so |really )*(?:glad|sorry|happy) to hear\b|(?:i )?hope (?:that|this|it) helps\b|(?:i )?hope you (?:have|had|enjoy|enjoyed|feel|like|liked|get|find|both)\b|"
    r"(?:have|enjoy) (?:a |an )?(?:great|good|nice|lovely|wonderful|fun|fantastic|safe|restful|relaxing|brilliant) |enjoy (?:it|the|your)\b|"
    r"(?:how|what) (?:else )?(?:can|could|may|shall) i (?:help|assist|do for you)\b|(?:can|may|shall|could) i (?:help|assist)\b|"
    r"(?:is there )?anything else (?:i can|you(?:'d| would) like|on your mind)\b|feel free to\b|"
    r"i(?:'m| am) (?:always )?here (?:to help|if you|for you|whenever)\b|(?:just )?let me know if (?:you|there)(?:'s| is| need| want| have| would)\b|"
    r"(?:i'?m |i am |so |really )*sorry (?:about|for)\b|wish me luck\b|(?:i )?hope\b(?=.{0,40}\b(?:better|recover\w*|soon|clears?|goes well|"
    r"works? out|likes? it|enjoys? it|loves? it)\b)|feel better|get well|rest up|break a leg|welcome (?:back|to|home)\b|any ?time\b|"
    r"(?:good|nice|great|smart|wise|sensible|fair) (?:idea|tip|point|choice|call|plan|move|purchase|pick|question|thinking)\b|"
    r"sounds (?:delicious|sensible|good|great|lovely|fun|nice|handy|perfect)\b|"
    r"(?:that|it)(?:'s| is| was) (?:a |such a )?(?:shame|pity|relief|good sign|great start|good start)\b|"
    r"(?:i'?ll|i will|we'?ll|we will) (?:keep|bear) (?:\w+ )?in mind\b|(?:i'?d|i would) like you to (?:remember|know|note)\b|"
    r"(?:just )?(?:a few|some|quick) (?:things|updates|notes)\b|quick one\b|(?:anyway,? )?that'?s (?:enough|all|the news|it)\b|"
    r"(?:i'?ll|i will|we'?ll|we will) (?:respect|remember|note|bear|do) (?:that|this|it|those|them|you)\b|(?:i'?ll|i will) keep it (?:brief|short)\b|"
    r"not at all\b|no prob\b|(?:speak|talk) (?:to you )?soon\b|believe in (?:yourself|you)\b|"
    r"keep (?:learning|growing|pushing|going|at it|smiling|shining|dreaming|plugging|moving|believing|up)\b|"
    r"don'?t let (?:anything|anyone|it|that|them) (?:stop|get|hold)\b|never give up\b|"
    r"stay (?:positive|strong|motivated|focused|optimistic|true|safe|tuned)\b|i'?m (?:always )?here to (?:listen|lend|support|help)\b|"
    r"poor \w+[!.]*$|let'?s keep\b|let'?s (?:do|make|work|stay|keep|go|rock)\b(?!.*\b(?:on|at|in)\s+(?:the\s+)?\d)|"
    r"let me know how (?:it|that|they) (?:goes|go|went)\b|keep doing what you\b|must (?:have|'ve) (?:been|taken|felt)\b|"
    r"let me know\b|(?:i'?ll|i will|we'?ll) (?:let you know|keep you (?:posted|updated|in the loop))\b|see you (?:at|there|then|soon|later)\b|"
    r"let'?s (?:get|go|catch|talk|chat)\b|(?:i )?wish (?:i|we) (?:could|had|was|were|did)\b|(?:i'?m |i am )?rooting for\b|"
    r"(?:i'?m |i am )?(?:always )?here to cheer\b|(?:i'?m |i am )?(?:so |totally |really )?(?:sure|certain|confident|positive) "
    r"(?:that )?(?:you|it|things|they|he|she)(?:'ll| will| can| are| is|'re|'s)\b|i (?:just )?know (?:that )?you(?:'ll| will| can)\b|"
    r"you(?:'ve| have)? got this\b|(?:don'?t|never) (?:ever )?forget (?:that )?you\b|"
    # commitments that promise nothing in particular ("I'll do my best", "I won't give up", "I'll keep that in mind")
    r"(?:i'?ll|i will|i'?m gonna|i'?m going to|we'?ll|we will) (?:(?:always|definitely|just) )?(?:do|try) (?:my|our) (?:very )?best\b|"
    r"(?:i|we) (?:won'?t|will not|am not gonna|'m not gonna|never) (?:ever )?(?:give up|quit|stop|let (?:anything|anyone|it|that) )|"
    r"(?:i'?ll|i will|we'?ll|we will) (?:definitely )?keep (?:that|it|this|those|these) in mind\b|"
    # exhortations to the two of us ("We're in this together!", "Let's spread love and understanding!")
    r"we(?:'re| are) (?:all )?in this together\b|let'?s (?:spread|support|keep|stay|make|help|stick|do this|rock|celebrate)\b|"
    r"(?:loving|love|loved|adore|adored) (?:that|this|these|those|your|the way|how)\b(?!.*\b(?:i|my|we|our)\b)|"
    r"(?:i )?bet (?:it|that|this|they|you|the \w+)\b|(?:i )?(?:couldn'?t|could not) agree more\b|"
    r"(?:i )?(?:totally |completely |fully |so )?agree(?: with (?:you|that|this))?(?=[\s,!.]*$|,)|"
    # glad about the other person's news, a guess at how it felt ("So glad you had a blast at the party!")
    r"(?:i'?m |i am |so |really )*glad (?:that )?(?:you|y'all|you all|you guys|you two|everyone|it all)\b|"
    r"(?:it|that|this|you) must (?:have|'ve) (?:been|felt|taken)\b|no doubts?\b(?! about)[\s,!.]*)",
    re.IGNORECASE,
)

#: Remarks on what was just said, small talk when they name nothing (no name, no number): "That sounds like a
#: nice way to start the day.", "They can be quite lovely at this time of year."
REMARKS = re.compile(
    r"^(?:(?:that|this|it|they|those|these) (?:sounds?|looks?|seems?)\b|sounds like\b|(?:looks|sounds|seems) (?!like\b)[a-z-]+[\s!.\u2026]*$|what an? \w+|"
    r"(?:they|it|that|this|those|these) (?:can|could|must|might|may|will|would|do|does|often|usually)(?: \w+)? (?:be|get|make|help|feel|seem|sound|look)\b)",
    re.IGNORECASE,
)

#: Words that make a verdict on what was just said ("Those are great goals.", "That's really helpful.").
_EVALUATIVE = (
    r"(?:great|good|nice|lovely|sensible|smart|solid|helpful|handy|delicious|exciting|wise|brilliant|wonderful|fantastic|"
    r"amazing|awesome|perfect|cool|beautiful|impressive|useful|clever|thoughtful|sweet|fun|tough|hard|sad|annoying|frustrating|"
    r"gorgeous|stunning|delicious|yummy|yum|tasty|cute|adorable|lovely|powerful|inspiring|incredible|fantastic)"
)
VERDICT_OF = re.compile(
    rf"^(?:mm+,? |oh,? |wow,? )?(?:that|those|these|this|it|they)(?: [a-z-]+){{0,3}}(?:'s|'re| is| are| was| were| sounds?| looks?| seems?)(?: like)?"
    rf"(?: such| so| really| very| quite| pretty| super| truly)*(?: an?)? {_EVALUATIVE}(?: [a-z-]+)?[\s!.\u2026]*$"
)

#: A generic verdict on what was just said: a pronoun or a demonstrative phrase, a modal or a degree word,
#: and one evaluative word ("They can be quite engaging.", "Those rehearsals can be demanding.", "It's
#: really worth it."). "She is vegetarian." (no modal, no degree word) is a fact and stays.
VERDICT = re.compile(
    r"^(?:they|it|that|this|he|she|(?:those|these|that|this|such)(?: \w+){1,2})"
    r"(?:(?:'s|'re| is| are| was| were)(?: (?:always|often|usually|sometimes))? (?:so|quite|really|very|pretty|super|incredibly|"
    r"truly|such|rather|a bit|a little|kind of|sort of|definitely|absolutely|totally)|"
    r"(?: can| could| must| might| may| will| would| do| does| often| usually| really| sometimes| always)+ (?:be|get|feel|seem|sound|look)"
    r"(?: (?:so|quite|really|very|pretty|super|incredibly|a bit|a little|rather|such|so much))?)"
    r"(?: an?)? [a-z-]+(?: (?:fun|work|experience|thing|things))?[\s!.\u2026]*$"
)

#: A generic claim that something helps or works, with nothing named: "In-person classes can help a lot.",
#: "Routines really do help." (a reaction dressed as advice; "Stretching helps many drivers' backs" names
#: what it helps and stays).
GENERIC_BENEFIT = re.compile(
    r"^(?:[a-z-]+\s+){1,3}(?:(?:can|could|may|might|will|would|do|does|often|usually|really|definitely|always|also)\s+)+"
    r"(?:help|work|matter|pay off|make (?:a |all the )?(?:big |real |huge )?difference|go a long way|do wonders)"
    r"(?:\s+(?:a lot|a great deal|so much|loads|massively|a bit|too|as well|wonders|for (?:some|many) people))?[\s!.\u2026]*$"
)

#: A return greeting, verbless: "Back from Lagos!", "I'm back!", "Home at last." (where from was said before).
RETURN_GREETING = re.compile(
    r"^(?:(?:i'?m|we'?re|i am|we are) )?(?:finally |safely )?(?:back|home)(?: home| again| at last| safe and sound)?"
    r"(?: from (?:the |my |our )?[\w'-]+(?: [\w'-]+)?)?[\s!.\u2026]*$",
    re.IGNORECASE,
)

#: What a reply that only reacts to the turn before it is made of, beyond function words and pronouns:
#: anaphors, generic verbs of taking something on, and words of plan or time with no object of their own
#: ("I'll try it.", "We do that already.", "Already done!", "That's the long-term idea.", "I'll pass that on.").
REACTION_WORDS = frozenset(
    """
    already too either neither also anyway yet soon later eventually someday sometime definitely probably maybe
    perhaps hopefully surely obviously exactly actually honestly indeed
    him her them one ones it's that's
    try tried trying give go shot look think pass passed passing miss missed missing do did done doing handle handled sort sorted check
    checked consider considered manage managed remember deal dealt agree agreed suppose supposed bear mind
    idea plan point goal aim hope long short term medium
    keep posted updated understand understands understood imagine wish wishes best quit stop sometime forward
    pushing working trying going believing stay staying time some out might
    """.split()
)

#: A question about the person asked, not a request of them: "How's your family doing?", "What was your
#: favourite part?", "Did you have pets growing up?". The answer, in the other person's turn, is what is worth
#: noting; the question says nothing of the one who asks. "Can you recommend a hotel?" and "What should I
#: pack?" are requests or the asker's own matter, and stay.
_ABOUT_YOU = re.compile(r"\b(?:you|your|yours|yourself|you're|you've|you'll|you'd)\b", re.IGNORECASE)
_OWN = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine|we|we're|we've|our|us)\b", re.IGNORECASE)
_REQUEST = re.compile(
    r"^(?:please |so |and |also )*(?:can|could|would|will|won't) you\b|\b(?:recommend|suggest|advise|advice|tips?|ideas?|help|"
    r"explain|tell me|show me|give me|remind|send|find|check|book|order|compare|translate|write|draft|list)\b",
    re.IGNORECASE,
)


_ADVICE = re.compile(
    r"\byou(?:'d| would| could| might| should| may| can| will| need| have| ought)\b|\byou(?:'d| would| might| may) (?:want|like|need)\b|"
    r"\bwhy not\b|\btry\b|\bworth\b",
    re.IGNORECASE,
)


def remark_on_you(sentence: str) -> bool:
    """A remark on the person spoken to, with nothing of the speaker's in it: praise, a reaction, a compliment
    ("Your backing means a lot.", "The kids look so cute!", "All your hard work paid off."), told by the second
    person and no first person. Advice ("You could net them against pigeons.") and questions are not remarks."""
    s = sentence.replace("\u2019", "'")
    return not (s.rstrip().endswith("?") or not _ABOUT_YOU.search(s) or _OWN.search(s) or _ADVICE.search(s))


#: The words of a small-talk question beyond function words: "How have you been lately?", "What's new with
#: you?", "How did that make you feel?", "What inspired you?". A question that names something ("What got you
#: into running?", "Did you see that band?") is about something and stays.
SMALL_TALK_QUESTION_WORDS = frozenset(
    """
    feel feeling felt inspired inspire inspires inspiration made make makes got going doing lately recently since
    talked chatted spoke caught been new else other favorite favourite part experience experiences plans mind
    keeping holding everything things life week weekend day today went go hows whats up handle handled cope coping
    manage managed balance decide decided start started into motivates motivated keeps kept
    """.split()
)


def social_question(sentence: str, content: list[str]) -> bool:
    """A small-talk question about the person asked (see :data:`_ABOUT_YOU`): neither a request nor about the
    asker, and no content word (``content``) beyond :data:`SMALL_TALK_QUESTION_WORDS` and the words of
    reaction, evaluation and social formulas."""
    s = sentence.replace("\u2019", "'")
    if not s.rstrip().endswith("?") or _OWN.search(s) or _REQUEST.search(s):
        return False
    small = SMALL_TALK_QUESTION_WORDS | REACTION_WORDS | EVALUATIVE_WORDS | SOCIAL_REST_WORDS
    if not _ABOUT_YOU.search(s):  # "Anything new happening?": small talk when it names nothing at all
        small = small | ABSTRACT_WORDS
    return all(w in small or w.split("'")[0] in small for w in content)


def only_reacts(content: list[str], n_words: int) -> bool:
    """A short reply (at most eight words) whose content words (``content``: none of the phatic and function
    words) all come from :data:`REACTION_WORDS`: it takes up what the other person said and adds nothing."""
    return 0 < n_words <= 8 and all(w in REACTION_WORDS for w in content)


_ACK = re.compile(
    r"^(?:noted|understood|got it|will do|sure thing|sure|of course|certainly|absolutely|okay|ok|alright|done|perfect|great)\b[\s:,!.\u2013\u2014-]*",
    re.IGNORECASE,
)
_STEM = re.compile(r"[a-z0-9]+")


def echoes(sentence: str, previous: str) -> bool:
    """An acknowledgement that only repeats the turn before it: "Noted: runs first, ten lines at most."
    after "... always list my runs first and keep the whole plan under ten lines"."""
    m = _ACK.match(sentence.strip())
    if m is None or not previous:
        return False
    said = {w[:4] for w in _STEM.findall(previous.lower())}
    rest = [w for w in _STEM.findall(sentence[m.end() :].lower()) if len(w) > 2]
    return all(w[:4] in said or w in _ECHO_FREE for w in rest)


_ECHO_FREE = frozenset("the and for with most least all any you your will can just that this then".split())

#: Words that add nothing after a social formula.
SOCIAL_REST_WORDS = frozenset(
    """
    support encouragement words kindness positivity determination belief faith help advice pep talk vibes journey effort
    efforts passion hard work greatness talent talented inspiring inspiration inspired dedication dedicated motivated
    motivating motivation proud hear see know news update updates photo pic pics picture pictures photos shot view
    find found make makes made keep keeps doing done going enjoy enjoying enjoyed share sharing shared try trying
    working happen happening happened came come out turned turn amazing awesome incredible beautiful wonderful
    lovely cool fantastic impressive special huge big important rewarding tough hard crazy wild fun nice happy glad
    headed pal buddy friend life world everything something anything lot means meant mean matter matters always keep
    positive strong brave kind sweet best success successful future dreams dream goals goal progress proud
    plan plans idea ideas time sense telling tell told letting let sharing keeping track catching passing noting
    remembering reminding details info information mind note noted brief short compliment compliments appreciate
    appreciated appreciates kind each other there
    """.split()
)


#: Words that make a sentence a verdict or a sentiment rather than a fact ("Staying positive is key.",
#: "Words have a magical way of healing.", "You've got so much talent!").
EVALUATIVE_WORDS = frozenset(
    """
    amazing awesome great good nice lovely beautiful wonderful incredible inspiring inspired inspiration special
    important key powerful magical fun cool exciting excited rewarding peaceful calming refreshing tough hard okay
    perfect brilliant fantastic proud glad happy thankful grateful blessed joy happiness bliss meaningful heartwarming
    sweet cute adorable talent talented impressive strength passion hope hopeful motivated motivating motivation
    supportive encouraging encouragement rocks rock blast difference best awesome super so really truly
    motivate motivates enthusiasm spark sparks joyful beauty wisdom impact crucial essential everything horrible
    terrible awful scary badass stoked journey gift priceless lucky
    definitely totally absolutely such always healing comfort comforting bond bonding unconditional worth
    """.split()
)

#: What keeps a sentence with a word of evaluation from being a mere sentiment (:func:`.rules.generic_remark`):
#: the first person singular, a narrated past, or what "we" do ("We love prepping the feast").
SINGULAR_SELF = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine|myself)\b", re.IGNORECASE)
WE_DO = re.compile(
    r"\bwe\s+(?:really\s+|always\s+|usually\s+|often\s+|all\s+|both\s+|also\s+)*"
    r"(?!can\b|could\b|should\b|must\b|will\b|would\b|might\b|may\b|need\b|have\s+to\b|got\s+to\b|gotta\b|are\b|were\b|get\b|rock\b)[a-z]{3,}",
    re.IGNORECASE,
)
PAST_COPULA = re.compile(r"\b(?:was|were|had|did|used to|ago|last)\b", re.IGNORECASE)


#: Words that name no thing, place, person, activity or time of anyone's world: thinking, degree and
#: the generic nouns and verbs of a chat about how things go ("A mix of emotions for sure.", "Something massive
#: happened since we last spoke.", "If you need anything, I'll reach out."). A sentence whose content words are
#: all of these (and of the lexicons above) says nothing a person would note (:func:`abstract_only`). Words of a
#: particular feeling ("nervous", "humbled") are not here: how someone felt is worth noting.
ABSTRACT_WORDS = frozenset(
    """
    emotion emotions emotional feelings feeling mood moods mix mixed vibe energy positivity
    think thinks thinking know knows knowing imagine imagining imagined remember remembers sure bet believe believes
    guess wonder realize realise realized realised understand understands figure figured deny mention mentioned
    mentioning agree wish wishes hope hopes hoped hopefully
    something anything everything nothing somebody anybody everyone everybody someone anyone stuff thing things lot
    lots bit way ways moment moments experience experiences ride life difference impact progress success effort efforts
    work hard worth support care challenge challenges struggle struggles obstacle obstacles change changes chance
    chances opportunity opportunities step steps path space mind dream dreams goal goals passion reason reasons
    part parts piece kind sort level deal rest end start beginning point side
    happen happens happened happening create creates created share shares shared join joins joined show shows showed
    reach reached need needs needed want wants wanted enjoy enjoys keep keeps make makes give gives gave get gets go
    goes come comes take takes feel feels seem seems look looks sound sounds wait waiting spoke speak talked talk
    chatted catch caught mean means meant matter matters deserve deserves count counting rely appreciate appreciates
    chase chasing chased push pushing pushed strive striving grow growing grew achieve achieved achieving accomplish
    accomplished vanish easy enjoying wasn isn aren weren don doesn didn haven hasn won wouldn couldn shouldn
    massive huge big little small wild crazy whole real true only close sometimes never ever lately recently surely
    super totally truly absolutely definitely certainly pretty kinda sorta bit much more most less least if since last out
    """.split()
)


def abstract_only(content: list[str]) -> bool:
    """True if every content word is a word of feeling, thinking, degree, evaluation or social formula."""
    known = ABSTRACT_WORDS | EVALUATIVE_WORDS | SOCIAL_REST_WORDS | REACTION_WORDS | SMALL_TALK_QUESTION_WORDS
    return bool(content) and all(w in known or w.split("'")[0] in known for w in content)


#: Looking forward to hearing or seeing the other person's news: "Can't wait to see the vid!", "Can't wait to hear about
#: your next one." (small talk when it names nothing: no name, number or date).
LOOKING_FORWARD = re.compile(
    r"^(?:i )?(?:can'?t|cannot) wait (?:to|'?til|until) (?:see|hear|read|try|check|watch|meet|find out|know)\b|"
    r"^(?:i'?m |i am )?(?:really |so )?looking forward to (?:seeing|hearing|reading|trying|checking)\b",
    re.IGNORECASE,
)

#: A teaser or a pointer with nothing in it: "Something exciting happened last Friday.", "Here's a pic from last
#: week." (what happened, or the picture's caption, comes in its own sentence).
TEASER = re.compile(
    r"^(?:guess what[,!]?\s+)?(?:something|a lot|lots|so much)(?:'s| has)?(?: (?:really|so|pretty|super|kinda))?(?: [a-z]+)? "
    r"(?:happened|has happened|came up|going on|changed|to tell you)\b(?:\s+(?:last|this|on|yesterday|today|recently|lately|since)\b[\w' ]*)?[\s.!\u2026]*$|"
    r"^(?:here'?s|here is|check out|look at) (?:a|the|my|our|one|this|that) (?:pic|picture|photo|snap|shot|one)\b(?: (?:i|we) (?:took|got|snapped))?"
    r"(?: (?:from|of) (?:the |my |our )?(?:last|this|recent|yesterday|today|earlier|a few|the other|then|that|when)\b[^,;:]*)?$",
    re.IGNORECASE,
)

#: A truism: something generic that lets, makes or helps "us" (people in general) do or be something ("Challenges
#: force us to develop.", "Dancing lets us be ourselves."), or that "it's amazing how ..." (:func:`.rules.is_phatic`
#: reads it when it names nobody and nothing in particular). The generic subject is bare: "The landlord lets us
#: keep the dog" names a landlord in particular and is a fact.
TRUISM = re.compile(
    r"^(?!.*\b(?:i|my|me|mine|his|her|their|your)\b)(?!(?:the|a|an|our|this|that|these|those|its)\b)"
    r"(?:[a-z'-]+\s+){1,4}(?:(?:can|could|really|often|always|sometimes|will|do|does|truly)\s+)*"
    r"(?:lets?|makes?|helps?|forces?|teaches?|reminds?|allows?|pushes?|keeps?|shows?|comforts?|inspires?|"
    r"motivates?|connects?|shifts?|changes?|unites?|shapes?)\s+(?:us|people|everyone|everybody|one|ourselves)\b|"
    r"^(?!.*\b(?:i|my|me|mine|his|her|their|your)\b)(?:[a-z'-]+\s+){1,5}(?:is|are)\s+(?:so |really |truly |just |absolutely )?(?:vital|key|essential|crucial|a must|priceless|"
    r"everything|what matters|so important|really important)[\s!.\u2026]*$|^it(?:'s| is) (?:so |really )?(?:easy|hard|normal|okay|ok|natural) to\b|"
    r"^(?:it'?s|it is|isn'?t it) (?:so |really |truly |just |pretty )?(?:amazing|incredible|crazy|wild|funny|great|cool|awesome|wonderful|"
    r"important|nice|interesting|beautiful|inspiring|sad|tough|hard) (?:how|that|when|to see)\b(?!.*\b(?:i|my|me)\b)",
    re.IGNORECASE,
)


def evaluates(content: list[str], said: Sequence[str] = ()) -> bool:
    """A word of evaluation among the sentence's words (``said``, or its ``content`` words), or nothing but the
    words of social formulas and reactions among its content words."""
    social = SOCIAL_REST_WORDS | REACTION_WORDS | _PRAISED
    return any(w in EVALUATIVE_WORDS for w in (said or content)) or all(w in social or w.split("'")[0] in social for w in content)


_PRAISED = frozenset("backing pride offer courage guts drive positivity energy vibe vibes paid pay off".split())
#: The fewest letters of a speaker's name said short ("Mel" for Melanie).
MIN_SHORT_NAME = 3


def plain_named(text: str, names: Iterable[str]) -> bool:
    """True if ``text`` holds a number or a capitalised word that is not a speaker's name (nor "I"), whole or short."""
    known = name_words(names)
    caps = re.findall(r"(?<!^)(?<![.!?]\s)\b(?!I\b|I')[A-Z][\w'-]*", text.strip())
    return bool(re.search(r"\d", text)) or any(not speaker_word(w.lower(), known) for w in caps)


def speaker_word(word: str, known: set[str]) -> bool:
    """Whether ``word`` is a word of a speaker's name, or its first letters (at least :data:`MIN_SHORT_NAME`)."""
    return word in known or len(word) >= MIN_SHORT_NAME and any(k.startswith(word) for k in known)


#: Someone in particular: what is said of them may be a fact even in abstract words ("They're a real support.").
THIRD_PERSON = re.compile(r"\b(?:he|she|they|him|her|them|his|hers|their|theirs|he's|she's|they're|they've)\b", re.IGNORECASE)
