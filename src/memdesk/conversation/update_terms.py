"""Which earlier memory an ``update`` claim (a new value, :mod:`memdesk.conversation.updates`) is of.

:class:`memdesk.conversation.supersede.Supersession` asks, for each current memory of the speaker, what an update shares
with it: the words saying what the value is of ("budget", "cows", "rehearsals"), when the statements are close enough in
meaning (``UpdateGates.update``; ``UpdateGates.name`` when the words are only names). Below that closeness the structure
of the values may still say it (:func:`memdesk.conversation.restated.value_signs`): the value the update names as
replaced is the memory's ("Fridays now instead of Tuesdays" / "the pantry, Tuesday mornings"), a value measured alike
("€7 an hour now" / "€6.50 an hour", "84 kg now" / "down to 86 kg"), or, closer still, a word of what both values are of
said next to each (:func:`memdesk.conversation.restated.near_values`). What is found so (:data:`LESS_CLOSE`) counts only
when no memory close in meaning is found (:func:`closest_first`), and never for one more beside ("plot 12 as well").
"""

from __future__ import annotations

from dataclasses import dataclass

from .claims import Claim
from .restated import RESTATED_TOPIC, another, measured_per_unit, near_values, restated, restated_terms, value_signs
from .updates import only_names, owner_only, updated_by

__all__ = ["LESS_CLOSE", "MEASURED", "UpdateGates", "closest_first", "sole_holder", "update_terms"]

#: what an update shares with a memory whose value it names as replaced, or that measures its value alike
MEASURED = "=measured"
#: found below ``UpdateGates.update``: counts only when no closer memory is found
LESS_CLOSE = "=less-close"


@dataclass(frozen=True)
class UpdateGates:
    """The least cosines: ``update`` for the words shared to say it, ``name`` when they are only names, ``restated``
    for a value stated anew with no word of change; below ``update``, ``measured`` when the update names the memory's
    value as replaced or measures it alike and shares a word, ``alone`` when it only measures it alike, ``words`` when
    it only shares a word of what both values are of (the memory's own cosine)."""

    update: float = 0.5
    name: float = 0.65
    restated: float = RESTATED_TOPIC
    measured: float = 0.3
    alone: float = 0.4
    words: float = 0.45


def update_terms(
    update: Claim, old: str, names: frozenset[str], score: float, own: float, context: str, beside: str, gates: UpdateGates
) -> tuple[set[str], list[str]]:
    """What ``update`` (or ``beside`` it, the statements of its message giving no value) shares with the memory ``old``
    (of the speaker ``names``) whose value it changes, and the places a split cuts from it (:mod:`.restated`); none when
    not close enough: ``score``, the best cosine of ``old``'s message with the update, ``own``, ``old``'s own;
    ``context``: the statements of ``old``'s message giving no value."""
    if score < gates.measured or restated(update) and (score < gates.update or own < gates.restated):
        return set(), []
    shared = updated_by(update, old, names, context, beside)
    if not restated(update) and (measured := _measured(update, old, names, score, own, shared, gates)) is not None:
        return measured, []
    if shared and (owner_only(update, shared) or only_names(update, shared) and (score < gates.name or restated(update))):
        if restated(update) or not measured_per_unit(update.value or "", old):
            return set(), []  # a name says whose value, not which one; a value per the same unit says which
    if restated(update):  # no word of change: the structure must say it (:mod:`.restated`)
        return restated_terms(update.value or "", old, names, own, shared)
    return shared, []


def _measured(update: Claim, old: str, names: frozenset[str], score: float, own: float, shared: set[str], gates: UpdateGates) -> set[str] | None:
    """What an update said with a word of change shares with ``old`` by the structure of their values; ``None``: the
    words decide (the statements are close enough in meaning)."""
    named, alike, words = value_signs(update, old, shared, names)
    if score >= gates.update:
        return shared | {MEASURED} if alike and not shared else None
    if another(update.value or ""):
        return set()  # "plot 12 as well": one more beside it, not a new value of it
    if named or alike and words:
        return shared | {MEASURED, LESS_CLOSE}
    # one sign alone: closer in meaning (the statement itself, not its message); a word, next to both values
    words = near_values(near_values(words, update.value or ""), old) if not alike else words
    alone = alike and score >= gates.alone or words and own >= gates.words
    return words | ({MEASURED} if alike else set()) | {LESS_CLOSE} if alone else set()


def closest_first(shared: dict[int, set[str]]) -> dict[int, set[str]]:
    """``shared`` (candidate -> what an update shares with it) less what was found below ``UpdateGates.update`` when a
    closer memory was found, and without the :data:`LESS_CLOSE` marks."""
    if any(v and LESS_CLOSE not in v for v in shared.values()):
        shared = {k: set() if LESS_CLOSE in v else v for k, v in shared.items()}
    return {k: v - {LESS_CLOSE} for k, v in shared.items()}


def sole_holder(update: Claim, held: list[tuple[int, str, str, float, str]], names: frozenset[str], beside: str, gates: UpdateGates) -> dict[int, set[str]]:
    """The one earlier statement whose value ``update`` changes, by structure alone, when no memory was found close in
    meaning: of the memories ``held`` (key, text, message, the message's best cosine with the update, the valueless
    statements beside it) holding another value of the kind the update gives and a word of what it is of
    (:func:`.updates.updated_by`, names and owners alone not counting), those of one message when no other message's
    do ("HV course moved, now 30 June" / "a high voltage course, starts 16 June", the only course with a date), at least
    ``gates.measured`` close; none when two statements compete or the update adds one more beside ("plot 12 as well")."""
    if restated(update) or another(update.value or ""):
        return {}
    found: dict[int, set[str]] = {}
    for key, text, _, score, context in held:
        shared = updated_by(update, text, names, context, beside) if score >= gates.measured else set()
        if shared and not owner_only(update, shared) and not only_names(update, shared):
            found[key] = shared
    messages = {message for key, _, message, _, _ in held if key in found}
    return found if len(messages) == 1 else {}
