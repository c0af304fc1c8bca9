"""What a statement ends, by the shape of its clause (memdesk.conversation.endings): a thing with a predicate of
ending, a verbless "no X", a thing given up, a reversal; which earlier statements each closes and which it leaves."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memdesk.conversation.atoms import atoms
from memdesk.conversation.claims import Claim
from memdesk.conversation.endings import ended_claims, mentions, reversal, reverses, valued_end
from memdesk.conversation.facts import claims_of
from memdesk.conversation.memory import Memory
from memdesk.records import Scope

S = Scope(user_id="odile")
T0 = datetime(2025, 5, 6, 9, 0, tzinfo=timezone.utc)


def ended(text: str) -> list[str | None]:
    return [c.value for c in ended_claims(text)]


@pytest.mark.parametrize(
    "text,thing",
    [
        ("Sadly Marlow died on Sunday, so it's only Pip now.", "Marlow"),
        ("My Vespa was stolen outside the gym.", "Vespa"),
        ("Okafor Lettings has gone bust, so we pay the landlord directly.", "Okafor Lettings"),
        ("The Crown double-booked the room, so the quiz is at the library instead.", "Crown"),
        ("Jodie has left to train as a midwife.", "Jodie"),
        ("Thornby's too far for a weeknight, so I run by the canal now.", "Thornby"),
        ("Our usual caterer closed down in March.", "usual caterer"),
        ("The Saturday market was cancelled for the summer.", "Saturday market"),
        ("I've put my back out, so no climbing for a month.", "climbing"),
        ("No more dairy for me.", "dairy"),
        ("I've handed the newsletter over to Kemi.", "newsletter"),
        ("We've decided to sell the caravan.", "caravan"),
        ("I'm taking a break from the allotment until spring.", "allotment"),
    ],
)
def test_a_thing_that_ends(text: str, thing: str) -> None:
    assert thing in ended(text)


@pytest.mark.parametrize(
    "text",
    [
        "Jodie hasn't left yet.",
        "If the caterer closes we'll cook ourselves.",
        "Jodie might leave in the autumn.",
        "I left early on Friday.",
        "Bram has left the night shift and works days now.",  # the shift ended, not Bram
        "I gave my nephew a lift to the station.",
        "We passed the exam.",
        "I died laughing at the film.",  # the speaker is no thing of their own memory
        "Mum twisted her ankle, so we've shortened the walk.",
    ],
)
def test_nothing_ends(text: str) -> None:
    assert ended(text) == []


def test_mentions_names_the_thing_but_not_one_item_of_a_list() -> None:
    assert mentions("Vespa", "Odile rides a cream Vespa to work.")
    assert mentions("usual caterer", "Our usual caterer is Plum & Fig.")
    assert not mentions("Vespa", "Odile never rides the Vespa in rain.")  # a statement that negates is no fact of it
    assert not mentions("courgettes", "Odile grows tomatoes, courgettes, kale and beans.")
    assert not mentions("Pip", "Odile keeps two rabbits, Marlow and Pip.")
    assert mentions("Marlow", "We have a rabbit called Marlow, and he's nine.")  # a clause after "and" is no list


def test_valued_ends_close_by_mention_but_a_leaving_person_closes_only_roles() -> None:
    assert valued_end(Claim("employer", value="Kestrel", op="end")) == "Kestrel"
    assert valued_end(Claim("role", value="Tom Ade", op="end")) is None
    assert valued_end(Claim("employer", value="I've", op="end")) is None
    assert valued_end(Claim("change", value="we changed banks", op="end")) is None


def test_a_reversal_ends_what_was_negated() -> None:
    again = reversal("We take cheques again since the card machine broke.")
    assert again is not None
    assert reverses(again, "We're card only now, no cheques.")
    assert not reverses(again, "We take cheques and cards.")
    back = reversal("I'm back to cycling to work.")
    assert back is not None and reverses(back, "I can't cycle until the cast is off.")
    assert reversal("I don't want to go back to Hull again.") is None


@pytest.mark.parametrize(
    "text,claim",
    [
        ("We've rented a maisonette in Headingley from June.", ("residence", "Headingley", "set")),
        ("Found a flat in Gorgie, moved in on Friday!", ("residence", "Gorgie", "set")),
        ("For now I'm staying in a hostel in Partick.", ("residence", "Partick", "set")),
        ("I'm a radiographer at the Victoria Infirmary.", ("employer", "Victoria Infirmary", "set")),
        ("I'm head baker at a bakery called Crumb.", ("employer", "Crumb", "set")),
        ("So that's three dogs now.", ("count:dog", "three", "set")),
    ],
)
def test_claims_read_from_the_clause(text: str, claim: tuple[str, str, str]) -> None:
    assert claim in {(c.key, c.value, c.op) for c in claims_of(text)}


def test_no_residence_for_a_stay_of_some_nights() -> None:
    assert not any(c.attribute == "residence" for c in claims_of("We rented a cottage in Arran for a week."))


def test_atoms_split_a_companion_and_a_short_clause() -> None:
    assert atoms("I rent a room in Govan with another nurse, Effie.") == ["I rent a room in Govan.", "I rent with another nurse, Effie."]
    assert atoms("I'm vegan and I don't drink, only tea.") == ["I'm vegan.", "I don't drink, only tea."]



def chat(mem: Memory, *lines: str) -> list[str]:
    for i, line in enumerate(lines):
        mem.add([{"content": line, "speaker": "Odile", "role": "user", "timestamp": T0 + timedelta(days=i)}], scope=S)
    return [r.text() for r in mem.get_all(scope=S)]


def has(current: list[str], word: str) -> bool:
    return any(word.lower() in t.lower() for t in current)


def test_a_thing_ending_closes_what_names_it_and_keeps_the_rest(mem: Memory) -> None:
    current = chat(
        mem,
        "I ride a cream Vespa to work.",
        "My sister Agathe lives in Nantes.",
        "My Vespa was stolen outside the gym, so I've bought a bike.",
    )
    assert not has(current, "cream Vespa") and has(current, "Nantes")


def test_a_compound_closes_separately(mem: Memory) -> None:
    current = chat(mem, "I rent a room in Govan with another nurse, Effie.", "Effie has moved to Dundee, so I live alone now.")
    assert not has(current, "nurse, Effie") and has(current, "room in Govan")


def test_a_reversal_closes_the_negated_statement_only(mem: Memory) -> None:
    current = chat(mem, "I'm vegan and I don't drink coffee, only tea.", "I've started drinking coffee again.")
    assert not has(current, "drink coffee, only tea") and has(current, "vegan")


def test_a_third_party_ending_keeps_the_speakers_own_activity(mem: Memory) -> None:
    current = chat(mem, "I sing in the choir at St Anne's.", "The choir leader retired; the new leader is called Ines.")
    assert has(current, "sing in the choir")


def test_a_new_value_of_a_named_thing_ends_the_old_one() -> None:
    from memdesk.conversation.topics import retopics, topic_claim

    new = topic_claim("So the new house wine is a Douro red.")
    assert new is not None and new.slot == "house wine"
    assert retopics(new, "The house wine is a Rioja.")
    kit = topic_claim("Our new kit is green and gold.")
    assert kit is not None and retopics(kit, "The kit is black with a white sash.")
    assert not retopics(kit, "The kit bag lives in my boot.")  # another thing
    dish = topic_claim("Our signature now is roast hake.")
    assert dish is not None and retopics(dish, "The signature dish is lamb shoulder.")  # a kind of value of it
    sister = topic_claim("My sister is now in Derry.")
    assert sister is not None and not retopics(sister, "My sister is a paramedic.")  # a place is no job
    assert topic_claim("The garden is lovely.") is None  # not said as new: a description, not a change
    assert topic_claim("The vet says my knee is healing; I walk the dog twice a day now.") is None  # "now" of another clause


def test_two_verbs_of_one_subject_split_and_someone_elses_home_is_a_claim() -> None:
    assert atoms("My niece Bea lives in Cork and works nights at the port.") == [
        "My niece Bea lives in Cork.",
        "My niece Bea works nights at the port.",
    ]
    assert atoms("I sing and dance at weekends.") == ["I sing and dance at weekends."]  # too short to stand alone
    assert ("residence:niece bea", "Cork", "set") in {(c.key, c.value, c.op) for c in claims_of("My niece Bea lives in Cork.")}


def test_a_family_member_moving_is_no_ending() -> None:
    assert ended("My brother Cal has moved to Sligo.") == []
    assert "uncle Rob" in ended("Sadly my uncle Rob died in March.")


def test_someone_elses_move_keeps_their_other_statement(mem: Memory) -> None:
    current = chat(mem, "My niece Bea lives in Cork and works nights at the port.", "My niece Bea has moved to Kinsale.")
    assert has(current, "works nights") and not has(current, "lives in Cork")


def test_when_a_thing_happens_is_one_kind_of_value() -> None:
    from memdesk.conversation.updates import update_of, updated_by

    evenings = update_of("I only paint on Sunday afternoons now.")
    assert evenings is not None and updated_by(evenings, "Odile paints every evening after work.", frozenset({"odile"}))
    second = update_of("The quiz has moved to the third Thursday of the month.")
    assert second is not None and updated_by(second, "The quiz is on the first Thursday of the month at the Anchor.", frozenset())
    sundays = update_of("From March the library opens on Sundays too, so Monday to Sunday.")
    assert sundays is not None and updated_by(sundays, "The library opens Monday to Saturday.", frozenset())


def test_finishing_something_made_for_someone_ends_it() -> None:
    assert "Mina's quilt" in ended("I finished Mina's quilt and started a rug.")
    assert ended("I finished work at six.") == []


def test_interjections_and_greetings_end_nothing() -> None:
    assert ended("No worries, Sam! See you Friday.") == []
    assert ended("No doubt about it.") == []
    assert reversal("Great to chat with you again!") is None


def test_a_habit_said_instead_ends_the_same_verb_with_another_object() -> None:
    from memdesk.conversation.topics import habit_claim, rehabits

    bus = habit_claim("Since the move I'll take the 38 bus instead.")
    assert bus is not None and rehabits(bus, "Odile takes the tram to the office.")
    assert not rehabits(bus, "Odile takes the 38 bus home on Fridays.")  # the same object
    assert not rehabits(bus, "Odile rides the tram to the office.")  # another verb
    beach = habit_claim("The park shut, so I mostly run along the beach now.")
    assert beach is not None and rehabits(beach, "Odile runs along the canal most mornings.")
    assert habit_claim("I cycle to work now.") is None  # one more habit, not a replacement


def test_a_reversal_is_read_from_its_own_clause() -> None:
    again = reversal("Wanted to tell you that I'm running the stall again.")
    assert again is not None and not reverses(again, "Odile doesn't want the kids to miss out.")  # "want" is not in it
    assert reverses(again, "I can't run the stall this summer.")


@pytest.mark.parametrize(
    "text,thing",
    [
        ("I used to teach swimming at the lido, before the baby.", "teach swimming at the lido"),
        ("Ravi is my ex now, so I've got the flat to myself.", "Ravi"),
        ("I ran into my ex-husband, Col, at the market.", "Col"),
        ("I've finished at the Gulls Nest bakery.", "Gulls Nest bakery"),
    ],
)
def test_used_to_an_ex_and_finishing_at_a_place(text: str, thing: str) -> None:
    assert thing in ended(text)


def test_a_word_and_its_forms_are_one_mention() -> None:
    assert mentions("smoking", "Odile smokes after dinner.")
    assert mentions("running", "I run with a club on Thursdays.")
    assert not mentions("tennis", "We have ten hens.")


@pytest.mark.parametrize(
    "value, text, named",
    [
        ("Riverside", "We moved into a terraced house near the river.", False),  # a compound is not its first part
        ("Seaview", "Our flat looks over the sea.", False),
        ("smoking", "I smoke ten cigarettes a day.", True),  # an inflection is the same word
        ("the choir", "I sing in the choir on Thursdays.", True),
    ],
)
def test_mentions_compares_stems_not_prefixes(value, text, named):
    assert mentions(value, text) is named


def test_a_cause_before_the_subject_is_not_what_changed():
    """'Because of the night shifts I moved my runs ...' changes the runs; the night shifts still hold."""
    for sentence in (
        "Because of the night shifts I moved my runs to Monday evenings.",
        "Due to the new baby we switched our swimming to Sundays.",
    ):
        (change,) = [c for c in claims_of(sentence) if c.attribute == "change"]
        assert not any(w in change.value.lower() for w in ("night", "shift", "baby")), change
