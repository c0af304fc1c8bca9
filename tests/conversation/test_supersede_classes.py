"""What a change closes and what it leaves current, class by class (issue 28): attribute claims per slot
(roles, vehicles, diet, reading, pets), verbs of stopping, new values of what a memory measured, a job
against its workplace, compound statements, other people's facts and plans."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memdesk.conversation.attributes import attribute_claims, same_role
from memdesk.conversation.facts import Claim, claims_of
from memdesk.conversation.memory import Memory
from memdesk.conversation.supersede import replaces
from memdesk.conversation.updates import sentence_update, update_of, updated_by, values_of
from memdesk.records import Scope

S = Scope(user_id="wren")
T0 = datetime(2025, 2, 3, 9, 0, tzinfo=timezone.utc)


def keyed(text: str) -> set[tuple[str, str | None, str]]:
    return {(c.key, c.value, c.op) for c in claims_of(text)}


@pytest.mark.parametrize(
    "text,claim",
    [
        ("My line manager is Priya Nair.", ("role:manager", "Priya Nair", "set")),
        ("From June I'll report to Owen Park.", ("role:manager", "Owen Park", "set")),
        ("Dr Ines Moreau will be my main tutor until March.", ("role:tutor", "Dr Ines Moreau", "set")),
        ("Owen Park is leaving the company.", ("role", "Owen Park", "end")),
        ("Rachel Ode has moved to the London office.", ("role", "Rachel Ode", "end")),
        ("Gil Sato has gone on secondment, so Mo Adler is acting treasurer.", ("role:treasurer", "Mo Adler", "set")),
        ("I drive a red Honda Jazz.", ("possession:vehicle", "red Honda Jazz", "set")),
        ("We sold the Honda last week.", ("possession", "Honda", "end")),
        ("I've bought a new van, a Citroen Berlingo.", ("possession:vehicle", "new van", "set")),
        ("I'm vegan.", ("diet", "vegan", "set")),
        ("I'm not vegan anymore.", ("diet", None, "end")),
        ("I've started eating fish again.", ("diet", None, "end")),
        ("I'm reading Middlemarch by George Eliot.", ("reading", "Middlemarch", "set")),
        ("I finished Middlemarch and started Persuasion.", ("reading", "Middlemarch", "end")),
        ("I had to stop climbing because of my shoulder.", ("negation", "climbing", "end")),
        ("I'm off netball for a month.", ("negation", "netball", "end")),
        ("Our rabbit is called Clover.", ("pet:clover", "Clover", "set")),
        ("Clover ran away last night.", ("pet", "Clover", "end")),
        ("I'm leaving Tessaract at the end of May.", ("employer", "Tessaract", "end")),
        ("I've handed in my notice at Larkin Foods.", ("employer", "Larkin Foods", "end")),
        ("My favourite album at the moment is Blue Lines.", ("favourite:album", "Blue Lines", "set")),
        ("I've moved on to a cycling podcast called The Bunch.", ("favourite:podcast", "The Bunch", "set")),
        ("Ruth Amsel is my new boss.", ("role:manager", "Ruth Amsel", "set")),
        ("Ken Ito has taken over as my manager.", ("role:manager", "Ken Ito", "set")),
        ("We got rid of the car.", ("possession:vehicle", None, "end")),
        ("We sold the Honda and bought a Kia Niro hybrid.", ("possession:vehicle", "Kia Niro hybrid", "set")),
        ("I went vegan in January.", ("diet", "vegan", "set")),
        ("I eat meat again.", ("diet", None, "end")),
        ("I left the book club.", ("negation", "book club", "end")),
        ("I got a job as a barista at Fika.", ("job", "barista", "set")),
        ("I got a job as a barista at Fika.", ("employer", "Fika", "set")),
        ("I've been promoted to senior nurse.", ("job", "senior nurse", "set")),
        ("I play five-a-side on Wednesdays.", ("hobby:five-a-side", "five-a-side", "set")),
        ("I sing in a choir at St Giles.", ("hobby:choir", "choir", "set")),
    ],
)
def test_attribute_claims(text: str, claim: tuple[str, str | None, str]) -> None:
    assert claim in keyed(text)


@pytest.mark.parametrize(
    "text",
    ["My sister is Maren.", "My cat is a tabby.", "I'm renting a flat in Leith.", "I stopped at the bakery on the way.",
     "We went to a vegan cafe.", "I got a puppy.", "I play it safe with money.",
     "We rented a car around Iceland.", "I quit my job.", "I left the keys at home.", "I started Pilates last month.",
     "Tom left early.", "Tom is moving to a new flat.", "Priya Nair is leaving tomorrow for Spain.", "I run a dairy farm."],
)  # fmt: skip
def test_no_attribute_claim_where_none_is_made(text: str) -> None:
    assert not [c for c in attribute_claims(text) if c.attribute in ("role", "possession", "diet", "negation", "hobby", "reading")]


def test_role_slots_and_people() -> None:
    assert same_role("deputy", "deputy principal") and not same_role("manager", "deputy principal")
    old = Claim("role", "deputy head", value="Dr Kerry Vance")
    assert replaces(Claim("role", value="Dr Vance", op="end"), old)  # the surname names the person
    assert replaces(Claim("role", "deputy", value="Sam Ode"), old)
    assert not replaces(Claim("role", "deputy", value="Kerry Vance"), old)  # said again


@pytest.mark.parametrize(
    "old,new,shared",
    [
        ("Our kitchen budget is £12,000.", "The new worktops push our kitchen budget up to £13,500.", {"kitchen", "budget"}),
        ("We keep 40 hens.", "We're down to 31 hens after the fox.", {"hen"}),
        ("I take sertraline 50mg at night.", "My GP lowered my sertraline to 25mg.", {"sertralin"}),
        ("The plasterer is booked for 4 March.", "The plasterer moved us to 11 March.", {"plaster"}),
        ("I swim on Tuesdays and Thursdays.", "I swim on Mondays now.", {"swim"}),
        ("I see my osteopath every other Friday.", "I only see my osteopath once a month now.", {"osteopath"}),
        ("My work phone is 07700 900111.", "I've got a new work phone, 07700 900222.", {"phone"}),
    ],
)
def test_a_new_value_updates_the_old_one(old: str, new: str, shared: set[str]) -> None:
    claim = update_of(new)
    assert claim is not None and shared <= updated_by(claim, old, frozenset())


@pytest.mark.parametrize(
    "old,new",
    [
        ("Our kitchen budget is £12,000.", "The new worktops push our kitchen budget up to £12,000."),  # same value
        ("The plasterer is booked for 4 March.", "The new roof cost £9,000 now."),  # another kind of value
        ("We milk with two robots installed in 2021.", "We now milk 165 cows across the three robots."),  # "the three": counted before
        ("Sol is eight and goes to Hillside Primary.", "Sol has gone into year 4 now."),  # "year 4" is a name
        ("I swim on Mondays and Thursdays.", "My sister now swims on Tuesdays."),  # someone else's days
    ],
)
def test_no_update_of_another_value(old: str, new: str) -> None:
    claim = update_of(new)
    assert claim is None or not updated_by(claim, old, frozenset())


def test_values_and_updates_need_a_word_of_change() -> None:
    assert values_of("I start at 6am, Monday to Friday, every other week.") == {
        "clock": {"6am"}, "weekday": {"monday friday"}, "frequency": {"every other week"}}
    assert values_of("Mum moved in on Saturday (2025-06-14).") == {"date": {"saturday"}}
    assert update_of("The roofer starts on 10 November.") is None
    assert update_of("If the fitters move us to 3 May, tell me.") is None
    assert sentence_update("We sold 12 cows, so we're down to 153.", "We're down to 153.") is not None



def chat(mem: Memory, *lines: str) -> list[str]:
    """Add each line a day apart (one add per message, as a chat arrives); the current memories' texts."""
    for i, line in enumerate(lines):
        mem.add([{"content": line, "speaker": "Wren", "role": "user", "timestamp": T0 + timedelta(days=i)}], scope=S)
    return [r.text() for r in mem.get_all(scope=S)]


def has(current: list[str], word: str) -> bool:
    return any(word.lower() in t.lower() for t in current)


def test_a_new_job_title_keeps_the_workplace_and_leaving_it_closes_the_job(mem: Memory) -> None:
    current = chat(mem, "I work as a junior architect at Halden Studio.", "I'm a senior architect now.")
    assert has(current, "Halden") and has(current, "senior architect")
    current = chat(mem, "I'm leaving Halden Studio at the end of the month.")
    assert not has(current, "junior architect at Halden")


def test_a_new_role_holder_closes_the_old_and_a_leaver_their_role(mem: Memory) -> None:
    current = chat(mem, "My manager is Priya Nair.", "My dentist is Dr Olu Bakare.", "Priya Nair is leaving the company.")
    assert not has(current, "manager is Priya") and has(current, "Bakare")
    current = chat(mem, "My new manager is Tom Reyes.")
    assert has(current, "Tom Reyes")


def test_a_changed_value_closes_only_the_value_it_changes(mem: Memory) -> None:
    current = chat(
        mem,
        "Our total budget for the extension is £40,000.",
        "The builder starts on the extension on 12 May.",
        "The steel beams push our budget up to £46,000.",
    )
    assert not has(current, "£40,000") and has(current, "£46,000") and has(current, "12 May")


def test_a_vehicle_diet_and_book_change(mem: Memory) -> None:
    current = chat(
        mem,
        "I drive a grey Skoda Octavia.",
        "I'm vegetarian.",
        "I'm reading Middlemarch by George Eliot.",
        "My Octavia was written off in a crash; I'm driving a hired Kia Picanto for now.",
        "I've started eating fish again.",
        "I finished Middlemarch and started Persuasion by Jane Austen.",
    )
    assert not has(current, "Octavia.") and has(current, "Picanto")
    assert not has(current, "is vegetarian")
    assert not any(t.endswith("reading Middlemarch by George Eliot.") for t in current) and has(current, "Persuasion")


def test_stopping_closes_the_activity_and_a_compound_keeps_its_other_part(mem: Memory) -> None:
    current = chat(mem, "I play netball on Wednesday nights, and I support Hearts.", "I had to stop netball because of my knee.")
    assert not has(current, "plays netball") and has(current, "Hearts")


def test_pets_are_many_and_one_leaving_closes_only_its_own(mem: Memory) -> None:
    current = chat(mem, "I live in Dunblane with my rabbit, Clover.", "We adopted a second rabbit called Pip.", "Clover ran away last night.")
    assert not has(current, "called Clover") and has(current, "Pip") and has(current, "Dunblane")


def test_other_peoples_facts_and_plans_do_not_close_the_speakers(mem: Memory) -> None:
    current = chat(
        mem,
        "I live in a two-bedroom flat in Dunblane.",
        "I work at the Stirling library.",
        "My sister moved to Perth last year.",
        "My brother works at a bank in Glasgow.",
        "I'm thinking about moving to Crieff one day.",
    )
    assert has(current, "Dunblane") and has(current, "Stirling library")
    current = chat(mem, "We're moving to Callander on 14 June.")  # a move fixed to a day changes the home
    assert not has(current, "lives in Dunblane") and has(current, "Callander")


def test_a_pastime_stopped_in_other_words_closes_only_that_pastime(mem: Memory) -> None:
    current = chat(mem, "On Fridays we go to the Quaker meeting in Crail, and I play fiddle in the ceilidh band.",
                   "I've stepped back from the ceilidh band for the winter.")  # fmt: skip
    assert not has(current, "fiddle") and has(current, "Quaker meeting")


def test_a_change_of_plan_does_not_take_back_who_comes_along(mem: Memory) -> None:
    current = chat(mem, "My husband Leo is coming with me to Kyoto.", "Change of plan: we decided not to go to Nara after all.")
    assert has(current, "Leo")


def test_a_home_said_with_who_one_lives_with_is_closed_by_a_move(mem: Memory) -> None:
    current = chat(mem, "I live with my aunt in Tarbes.", "I moved to Pau last month.")
    assert not has(current, "aunt in Tarbes") and has(current, "Pau")
    current = chat(mem, "We rent a car in Faro for the weekend.", "I moved to Lagos in June.")
    assert has(current, "car in Faro")


def test_a_party_moved_is_not_the_birthday_moved(mem: Memory) -> None:
    current = chat(mem, "Jess's birthday is on 19 November.", "We've moved Jess's party to 22 November at the boathouse.")
    assert has(current, "19 November") and has(current, "22 November")


@pytest.mark.parametrize(
    "old,new,closes",
    [
        ("My rent is £800 a month.", "My rent went up to £850 a month.", True),
        ("I do yoga on Tuesdays.", "I've moved yoga to Thursdays.", True),
        ("The clinic appointment is on 3 March.", "The clinic moved my appointment to 10 March.", True),
        ("My commute is 40 minutes by bus.", "Now that I cycle, my commute is 25 minutes.", True),
        ("The book club meets every other Thursday.", "The book club now meets once a month.", True),
        ("I ran my first 10k in 58 minutes.", "I ran the Bristol half marathon in 2 hours 5 minutes now.", False),
        ("My son is 7.", "My daughter is 4 now.", False),
        ("I work 9am to 5pm.", "The gym now opens at 6am.", False),
        ("Our mortgage is £1,100 a month.", "Our council tax went up to £160 a month.", False),
        ("We have three chickens.", "The neighbours now have two goats.", False),
        ("I'm training for the Edinburgh marathon on 25 May.", "My sister's wedding moved to 14 June.", False),
        ("My daughter's school starts at 8:45am.", "My son's nursery now starts at 9am.", False),
    ],
)
def test_values_in_everyday_talk(mem: Memory, old: str, new: str, closes: bool) -> None:
    chat(mem, old, new)
    closed = [r for r in mem.get_all(scope=S, filters={"include_superseded": True}) if r.superseded_by]
    assert bool(closed) is closes
