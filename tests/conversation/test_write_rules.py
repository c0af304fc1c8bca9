"""What the offline processor stores is what a person would note (issue 28): no small talk from any role,
one speaker's words per record, compound statements closed separately, negations close what they
negate, dates with the year a person infers, kept beside the words."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memdesk.conversation.atoms import atoms
from memdesk.conversation.base import RoutedExtraction
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.memory import Memory
from memdesk.conversation.router import RuleRouter
from memdesk.embed import HashingEmbedder
from memdesk.records import Scope
from memdesk.store import open_store

S = Scope(user_id="nadia")
MAR = datetime(2025, 3, 18, 9, 12, tzinfo=timezone.utc)
JUN = datetime(2025, 6, 2, 18, 0, tzinfo=timezone.utc)


@pytest.fixture
def mem(tmp_path):
    m = Memory(open_store(f"sqlite:///{tmp_path}/w.db"), HashingEmbedder(256), RoutedExtraction(RuleRouter(), RuleExtractor()))
    yield m
    m.close()


def user(text: str, when: datetime = MAR, mid: str | None = None) -> dict:
    out = {"content": text, "speaker": "Nadia", "role": "user", "timestamp": when}
    return out | ({"id": mid} if mid else {})


def desk(text: str, when: datetime = MAR) -> dict:
    return {"content": text, "speaker": "Desk", "role": "assistant", "timestamp": when}


def texts(mem: Memory) -> list[str]:
    return [r.text() for r in mem.get_all(scope=S)]


@pytest.mark.parametrize(
    "message",
    [
        desk("Good morning! How can I help today?"),
        desk("Congratulations on the pottery course!"),
        desk("Of course, happy to help!"),
        desk("They can be quite engaging."),
        desk("Nice to meet you, Nadia."),
        desk("Is there anything else I can help you with?"),
        desk("Good luck with the race on Sunday!"),
        user("Thanks so much, that makes a lot of sense."),
        user("Congrats to you too! Hope you have a lovely weekend."),
        user("Glad to hear the curry went down well!"),
        # a reply that only takes up the other turn, thanks in another language, a generic "it helps",
        # a return greeting
        user("I'll give it a try."),
        user("We do that already."),
        user("Already done!"),
        user("Yeah, we'll miss him."),
        user("That's the long-term plan."),
        user("Thanks, I'll pass that on."),
        user("Merci !"),
        desk("Great, weekly lessons can help a lot."),
        user("Back from Oslo!"),
    ],
)
def test_small_talk_from_any_role_makes_no_record(mem: Memory, message: dict) -> None:
    result = mem.add([message], scope=S)
    assert result.records == [] and texts(mem) == []
    assert len(mem.messages(scope=S)) == 1  # the raw log keeps it


def test_content_after_a_pleasantry_is_kept(mem: Memory) -> None:
    mem.add([user("Thanks! By the way, I moved to Porto last month.")], scope=S)
    assert any("Porto" in t for t in texts(mem))
    assert not any(t.startswith("Thanks") for t in texts(mem))


def test_an_acknowledgement_that_repeats_the_turn_before_makes_no_record(mem: Memory) -> None:
    mem.add([user("Always list my runs first and keep the plan under ten lines."), desk("Noted: runs first, ten lines at most.")], scope=S)
    assert [r.speaker for r in mem.get_all(scope=S)] == ["Nadia"]


def test_a_reply_holds_its_own_speakers_words_only(mem: Memory) -> None:
    mem.add([user("My sister is vegetarian, so I need a dinner idea without meat."),
             desk("A red lentil curry would work well for a vegetarian guest.")], scope=S)  # fmt: skip
    replies = [r for r in mem.get_all(scope=S) if r.speaker == "Desk"]
    assert replies and all("Nadia" not in r.text() and "sister" not in r.text() for r in replies)
    context = [r for r in replies if r.metadata.get("view") == "context"]
    # the turn it answers shapes its embedding only
    assert context and "sister" in context[0].embed_text() and context[0].text().startswith("A red lentil curry")


def test_a_lone_string_is_not_read_as_a_reply(mem: Memory) -> None:
    mem.add([desk("Your dentist appointment is at 3pm.")], scope=S)
    mem.add("I prefer tea to coffee.", scope=S, speaker="Nadia")
    mine = [r for r in mem.get_all(scope=S) if r.speaker == "Nadia"]
    assert mine and all("Reply" not in r.text() and "dentist" not in r.embed_text() for r in mine)


def test_atoms_split_a_compound_statement() -> None:
    assert atoms("I live in a flat in Leith with my cat, Biscuit.") == ["I live in a flat in Leith.", "My cat is called Biscuit."]
    assert atoms("I live in Hackney with my partner Jess and our tortoise, Sheldon.") == [
        "I live in Hackney.", "My partner is Jess.", "Our tortoise is called Sheldon."]
    assert atoms("I no longer work at the clinic; I'm at St Mary's now.") == ["I no longer work at the clinic.", "I'm at St Mary's now."]
    assert atoms("Tom and I went to the fair.") == ["Tom and I went to the fair."]
    assert atoms("Nadia lives in Leith with her cat, Biscuit.", "Nadia") == ["Nadia lives in Leith.", "Nadia's cat is called Biscuit."]


@pytest.mark.parametrize(
    "sentence, expected",
    [
        # a clause about someone else after ", and" is a statement of its own
        ("I rent a room in Didsbury with my lodger Pete, and he's a night nurse.",
         ["I rent a room in Didsbury.", "My lodger is called Pete.", "He's a night nurse."]),
        ("I work at the bakery on Elm Street, and she works at the café opposite.",
         ["I work at the bakery on Elm Street.", "She works at the café opposite."]),
        # a description after the companion's name stays with the name
        ("We live in Hove with our rabbit Pip, a grumpy old lop.", ["We live in Hove.", "Our rabbit is called Pip, a grumpy old lop."]),
        # a lead-in before a colon stays with the first statement of what follows
        ("Quick update: I live in Dundee with my sister, Morag.", ["Quick update: I live in Dundee.", "My sister is Morag."]),
        # "and it's ..." says how the first clause went: no split
        ("I moved to Cardiff in May, and it's been lovely.", ["I moved to Cardiff in May, and it's been lovely."]),
        # nor a consequence that restates the first clause
        ("My aunt left the cottage to Rhian, so she's the owner now.", ["My aunt left the cottage to Rhian, so she's the owner now."]),
    ],
)  # fmt: skip
def test_atoms_split_clauses_of_someone_else_and_keep_what_describes(sentence: str, expected: list[str]) -> None:
    assert atoms(sentence) == expected


def test_a_move_closes_the_address_not_the_cat(mem: Memory) -> None:
    mem.add([user("I live in a flat in Leith with my cat, Biscuit.", MAR)], scope=S)
    mem.add([user("We moved to Portobello.", JUN)], scope=S)
    current = texts(mem)
    assert not any("Leith" in t for t in current)
    assert any("Biscuit" in t for t in current)


def test_no_longer_working_somewhere_closes_the_job_there(mem: Memory) -> None:
    mem.add([user("I work as a nurse at the Riverside clinic.", MAR)], scope=S)
    mem.add([user("I no longer work at the Riverside clinic; I'm at St Mary's now.", JUN)], scope=S)
    current = texts(mem)
    assert not any("nurse at the Riverside" in t for t in current)
    assert any("St Mary's" in t for t in current)


def test_a_negation_closes_what_it_negates_and_nothing_else(mem: Memory) -> None:
    mem.add([user("I play the violin in a community orchestra."), user("I grow tomatoes on my balcony.")], scope=S)
    mem.add([user("I no longer play the violin.", JUN)], scope=S)
    current = texts(mem)
    assert not any("violin in a community orchestra" in t for t in current)
    assert any("tomatoes" in t for t in current)


def test_a_date_after_the_message_is_in_the_coming_year_and_is_not_spliced(mem: Memory) -> None:
    mem.add([user("I accepted a place on a pottery course last week, starting on 15 April.")], scope=S)
    records = mem.get_all(scope=S)
    course = [r for r in records if "15 April" in r.text()]
    # the date is a field beside the words: the acceptance is anchored last week, the start date is kept
    assert course and all(r.temporal_anchor == "week of 2025-03-10" for r in course)
    start = {"text": "15 April", "label": "2025-04-15", "granularity": "day", "start": "2025-04-15", "end": "2025-04-16"}
    assert all(start in r.metadata["time_expressions"] for r in course)
    assert not any("(2025-04-15)" in r.text() or "2024" in r.text() for r in records)
    mem.add([user("The course starts on 15 April.", mid="m2")], scope=S)
    (start,) = [r for r in mem.get_all(scope=S) if r.provenance == ["m2"]]
    assert start.temporal_anchor == "2025-04-15" and start.text() == "The course starts on 15 April."


def test_a_date_narrated_as_past_stays_in_the_past(mem: Memory) -> None:
    mem.add([user("I met my new neighbour on 15 April.", JUN)], scope=S)
    assert [r.temporal_anchor for r in mem.get_all(scope=S)] == ["2025-04-15"]
    mem.add([user("I met my cousin on 20 December.", MAR)], scope=S)
    assert any(r.temporal_anchor == "2024-12-20" for r in mem.get_all(scope=S))


def test_a_first_person_fact_answers_a_question_about_the_user(mem: Memory) -> None:
    mem.add([user("I work as a nurse at the Riverside clinic.")], scope=S)
    (record,) = mem.get_all(scope=S)
    assert record.text() == "Nadia works as a nurse at the Riverside clinic."


@pytest.mark.parametrize(
    "text,remark",
    [
        ("Staying positive is key.", True),
        ("You've got so much talent!", True),
        ("We can make a difference!", True),
        ("She is vegetarian.", False),  # no word of evaluation: a fact
        ("My new job is great.", False),  # the first person
        ("We love prepping the feast on Thanksgiving.", False),  # what "we" do
        ("Been real busy tackling a project for veterans, it's rewarding.", False),  # a dropped "I"
        ("The pride parade was awesome!", False),  # narrated
    ],
)
def test_a_sentiment_is_told_from_a_fact(text: str, remark: bool) -> None:
    from memdesk.conversation.rules import generic_remark

    assert generic_remark(text) is remark


def test_a_short_reaction_is_small_talk_unless_it_answers_or_names() -> None:
    from memdesk.conversation.rules import short_remark

    assert short_remark("Long, but good.") and short_remark("Busy!")
    assert not short_remark("Pepperoni.", answers_question=True)
    assert not short_remark("Figo is asleep.") and not short_remark("I'm vegan.") and not short_remark("Poor Moss!")


@pytest.mark.parametrize(
    "text",
    ["I'll try the new bakery on Friday.", "We already have two dogs.", "I miss my sister in Perth.", "Stretching helps my back.",
     "Back pain kept me up all night.", "I'm back at work from Monday."],
)  # fmt: skip
def test_a_reply_with_its_own_content_is_kept(mem: Memory, text: str) -> None:
    mem.add([desk("You could try the new bakery."), user(text)], scope=S)
    assert any(r.speaker == "Nadia" for r in mem.get_all(scope=S))


@pytest.mark.parametrize(
    "text,phatic",
    [
        ("Your backing means a lot.", True),  # a remark on the person spoken to
        ("All your hard work paid off!", True),
        ("That bowl is gorgeous!", True),  # a verdict on what was shown
        ("Mmm, that looks delicious!", True),
        ("I'm sure you'll do great.", True),  # encouragement
        ("Let me know what you think.", True),
        ("I'll keep you posted.", True),
        ("I'll definitely check it out.", True),
        ("You could net the balcony against pigeons.", False),  # advice stays
        ("Keep your answers short.", False),  # an instruction stays
        ("That dress is from a shop in Leith.", False),  # names something
        ("Your sister called about Sunday.", False),
        ("Your sister called.", False),  # tells something
        ("A mix of emotions for sure.", True),  # no word of anyone's world
        ("Something massive happened since we last spoke.", True),
        ("If you need anything, I'll reach out.", True),
        ("I'm nervous and excited.", False),  # how someone feels is worth noting
        ("My kids love it.", False),
        ("The roof leaks.", False),
        ("They're a real support.", False),  # said of someone in particular
        ("Wow Mel, that painting's amazing!", True),  # a nickname after an interjection is a vocative
        ("Wow Paris was amazing.", False),  # a place is not
        ("Anything new happening?", True),  # a small-talk question that names nothing
        ("How did the game go?", False),
        ("And congratulations on the win!", True),  # a formula after a conjunction
        ("Something big happened today!", True),  # a teaser: what happened comes in its own sentence
        ("Something big happened - I got the job at the bakery!", False),
        ("Here's a pic from last week.", True),
        ("Here's a pic of Pepper.", False),  # names the dog
        ("Challenges force us to grow.", True),  # a truism
        ("Yoga helps me sleep.", False),  # the speaker's own
        ("It's amazing how fast kids learn.", True),
        ("We're in this together!", True),  # an exhortation
        ("Love that purple scarf!", True),
        ("I love that my kids enjoy hiking.", False),
        ("I'll do my best to help.", True),  # a commitment that promises nothing in particular
        ("I won't give up on it.", True),
        ("I'll give up sugar in January.", False),
        ("Bet the atmosphere was incredible.", True),  # a reaction
        ("I couldn't agree more!", True),
        ("I agree to the new terms.", False),
        ("Can't wait to see the video!", True),  # looking forward to the other person's news
        ("Can't wait to see Lisbon in May!", False),  # names a place and a time
        ("Support from loved ones is vital.", True),  # a truism
        ("They can really comfort us and make us feel understood.", True),
        ("It can feel like a step back sometimes.", True),
        ("The bus takes us to school.", False),
        ("My sister is vital to the team.", False),
        ("Rome is a must-see city!", False),
        ("We're all moved in!", False),
        ("Looks delish!", True),  # a verdict with its subject dropped
        ("So glad you had a blast at the party.", True),  # glad about the other person's news
        ("It must have felt great.", True),
        ("No doubts, Nadia.", True),
        ("I'm glad my sister moved to Leeds.", False),  # the speaker's own news
        ("Looks like rain tomorrow.", False),
    ],
)
def test_remarks_on_the_other_person_and_encouragement_are_small_talk(text: str, phatic: bool) -> None:
    from memdesk.conversation.rules import analyze

    from memdesk.conversation.social import social_question
    from memdesk.conversation.rules import content_words

    said = analyze(text)
    small = all(s.kind == "phatic" or (s.kind == "question" and social_question(s.text, content_words(s.text))) for s in said)
    assert small is phatic


def test_a_small_talk_question_makes_no_record_but_a_question_about_something_does(mem: Memory) -> None:
    mem.add([user("I started a new job at the library."), desk("How have you been feeling about it lately?")], scope=S)
    assert [r.speaker for r in mem.get_all(scope=S)] == ["Nadia"]
    mem.add([user("What's the best way to store sourdough starter?", mid="q2")], scope=S)
    assert any(r.provenance == ["q2"] for r in mem.get_all(scope=S))


def test_a_stored_date_keeps_the_message_s_local_day(mem: Memory) -> None:
    """A message said at 07:30 in Auckland (the evening before in UTC): its "tomorrow" and lone "the 20th" are the local
    days, and stay so once stored and read back."""
    from datetime import timedelta

    auckland = datetime(2025, 3, 4, 7, 30, tzinfo=timezone(timedelta(hours=13)))
    mem.add([user("My new glasses are ready tomorrow, and the eye test is on the 20th.", auckland)], scope=S)
    found = {t["text"]: t["start"] for r in mem.get_all(scope=S) for t in r.metadata.get("time_expressions", [])}
    assert found == {"tomorrow": "2025-03-05", "on the 20th": "2025-03-20"}
    assert all(r.event_time is None or r.event_time.utcoffset() == timedelta(hours=13) for r in mem.get_all(scope=S))
