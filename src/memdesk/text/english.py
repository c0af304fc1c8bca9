"""English word lists shared by the rule processor (:mod:`memdesk.conversation`) and the time expressions
(:mod:`memdesk.timeexpr`): one list of each."""

from __future__ import annotations

__all__ = ["ED_ADJECTIVES", "FUNCTION_WORDS", "IRREGULAR_PAST", "PAST_BASE", "SAME_AS_PRESENT"]

#: Irregular past forms (and a few past participles) that mark a narrated event.
IRREGULAR_PAST = frozenset(
    """
    went came saw made took got had did gave found bought brought thought told said met ran wrote
    read left felt kept began begun sang sung swam drove rode flew ate drank spent sent built won lost
    heard held taught caught fought sold paid put set let hit hurt quit became forgot forgiven
    broke broken chose chosen drew drawn fell fallen grew grown knew known shook stood understood
    woke wore worn threw thrown spoke spoken stole hid hidden led lit sat slept stuck struck swung
    gone seen done taken given eaten written ridden driven been became tore torn bore born
    sank sunk rang rung sprang shrank stank bitten bent bled blew blown clung crept dealt dug fled flung froze frozen
    hung lent meant risen sought slid spun stung swept swore sworn wept withdrew overtook mistook arose forgave knelt
    shore shorn wove woven fed bred sped spat strove strode slung trod trodden forbade beheld
    underwent undertook overheard leapt dreamt learnt spilt wrung slunk
    """.split()
)

#: The base form of common irregular past forms and participles ("paid" -> "pay", "fell" -> "fall"): a question asks
#: "When did she pay it off?" of a record that says "she paid it off" (a stemmer leaves the two apart).
PAST_BASE = {
    past: base
    for base, forms in (
        line.split(":") for line in """
        go:went,gone come:came see:saw,seen make:made take:took,taken get:got,gotten give:gave,given find:found
        buy:bought bring:brought think:thought tell:told say:said meet:met run:ran write:wrote,written leave:left
        feel:felt keep:kept begin:began,begun sing:sang,sung swim:swam,swum drive:drove,driven ride:rode,ridden
        fly:flew,flown eat:ate,eaten drink:drank,drunk spend:spent send:sent build:built win:won lose:lost hear:heard
        hold:held teach:taught catch:caught fight:fought sell:sold pay:paid become:became forget:forgot,forgotten
        break:broke,broken choose:chose,chosen draw:drew,drawn fall:fell,fallen grow:grew,grown know:knew,known
        shake:shook,shaken stand:stood understand:understood wake:woke,woken wear:wore,worn throw:threw,thrown
        speak:spoke,spoken steal:stole,stolen hide:hid,hidden lead:led sit:sat sleep:slept do:did,done have:had
        tear:tore,torn sink:sank,sunk ring:rang,rung bite:bit,bitten bend:bent blow:blew,blown dig:dug freeze:froze,frozen
        hang:hung lend:lent mean:meant rise:rose,risen seek:sought slide:slid spin:spun sweep:swept swear:swore,sworn
        feed:fed light:lit stick:stuck strike:struck lay:laid
        """.split()
    )
    for past in forms.split(",")
}

#: Past forms that are also the present (or the base form): they say nothing of the tense on their own.
SAME_AS_PRESENT = frozenset("read put set let hit hurt quit cut cost shut spread bet fit split".split())

#: Words that say nothing of what a thing is ("the old 6hp outboard", "my violin", "some of their bread"): left out when
#: the content words of a value are looked for in a statement (:func:`memdesk.retrieval.stemming.content_stems`).
FUNCTION_WORDS = frozenset("the a an my our your his her their its to of in at for on with and or some any old".split())

#: Words ending in "ed" that are adjectives or other words, not a narrated past ("I'm excited about Friday", "we
#: need it by the 3rd"): the tense cues of :mod:`memdesk.timeexpr.tense` skip them.
ED_ADJECTIVES = frozenset(
    """
    excited interested tired bored scared worried married supposed based pleased thrilled stressed
    indeed need proceed succeed exceed speed freed agreed concerned dedicated talented committed
    noted updated
    """.split()
)
