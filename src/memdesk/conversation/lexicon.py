"""The rule router's and extractor's word lists: words that carry no content on their own, irregular past forms,
and adjectives that end in -ed (not a past tense)."""

from __future__ import annotations

__all__ = ["ED_ADJECTIVES", "IRREGULAR_PAST", "PHATIC_WORDS"]

#: Words that carry no content on their own: greetings, thanks, interjections, evaluations,
#: function words. A sentence made only of these (and names) is phatic.
PHATIC_WORDS = frozenset(
    """
    hi hey heya hiya hello yo howdy greetings morning evening afternoon night goodnight gm gracias merci danke grazie obrigado
    thanks thank thx ty tysm appreciate appreciated appreciation cheers welcome
    wow woah whoa omg oh ooh ah aww aw haha hahaha hah heh hehe lol lmao yay woohoo hooray yikes oops
    yeah yes yep yup ya yea no nope nah ok okay k sure alright right true exactly totally absolutely
    definitely indeed certainly agree agreed same indeed nice cool great awesome amazing fantastic
    wonderful lovely sweet fab fabulous incredible terrific brilliant super neat beautiful gorgeous
    stunning impressive inspiring good glad happy excited thrilled sorry bad sad tough hard crazy wild
    fun funny interesting kind thoughtful proud congrats congratulations bravo kudos love loved
    like likes liked hope hoping hear hearing heard see seeing seen sounds sound looks look seems seem
    feel feels mean means meant know knew get gets got think thought guess say said tell talk
    bye goodbye later soon care catch chat chatting touch luck well fine alive
    bet ouch ha yum yummy perfect classic adorable brave rough brutal cute hilarious epic noted gotcha happened
    you your yours yourself i me my mine myself we us our ours it its it's that that's this these those
    they them their theirs
    there here what's what how how's how're who why when where which whatever
    a an the and or but so too also very really just such much many lot lots quite pretty super
    of to for with about at in on up out from by as all any anything everything something nothing
    is am are was were be been being do does did doing done have has had having will would can could
    should shall may might must gonna wanna gotta let let's
    new going doing been up day today again always still ever even now then ever yet
    thing things stuff one ones way
    man dude buddy pal friend girl guys bud mate dear hun
    """.split()
)

#: Irregular past forms (and a few past participles) that mark a narrated event.
IRREGULAR_PAST = frozenset(
    """
    went came saw made took got had did gave found bought brought thought told said met ran wrote
    read left felt kept began begun sang sung swam drove rode flew ate drank spent sent built won lost
    heard held taught caught fought sold paid put set let hit hurt quit became forgot forgiven
    broke broken chose chosen drew drawn fell fallen grew grown knew known shook stood understood
    woke wore worn threw thrown spoke spoken stole hid hidden led lit sat slept stuck struck swung
    gone seen done taken given eaten written ridden driven been became tore torn bore born
    """.split()
)

#: "-ed" words that are usually adjectives, not events.
ED_ADJECTIVES = frozenset(
    """
    interested excited tired inspired motivated married scared bored worried stressed
    amazed thrilled pleased surprised relieved overwhelmed blessed determined dedicated committed
    talented skilled experienced limited related used supposed based focused involved
    confused frustrated disappointed concerned exhausted obsessed impressed touched moved
    need needed red bed shed seed feed speed weed indeed proceed exceed succeed wicked naked
    sacred hundred kindred beloved crooked rugged
    """.split()
)
