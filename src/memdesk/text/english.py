"""English word lists shared by the rule processor (:mod:`memdesk.conversation`) and the time expressions
(:mod:`memdesk.timeexpr`): one list of each."""

from __future__ import annotations

__all__ = ["FUNCTION_WORDS", "IRREGULAR_PAST", "SAME_AS_PRESENT"]

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

#: Past forms that are also the present (or the base form): they say nothing of the tense on their own.
SAME_AS_PRESENT = frozenset("read put set let hit hurt quit cut cost shut spread bet fit split".split())

#: Words that say nothing of what a thing is ("the old 6hp outboard", "my violin", "some of their bread"): left out when
#: the content words of a value are looked for in a statement (:func:`memdesk.retrieval.stemming.content_stems`).
FUNCTION_WORDS = frozenset("the a an my our your his her their its to of in at for on with and or some any old".split())
