"""Whose words a question asks about: the grammatical person of the question, and the bonus it gives."""

from __future__ import annotations

import pytest

from memdesk.retrieval.question_person import grammatical_person, names_user, role_boosts


@pytest.mark.parametrize(
    "question, person",
    [
        ("How many concerts did I go to this year?", "first"),
        ("What is my sister's name?", "first"),
        ("Where did I'd planned... where had I’ve been staying?", "first"),  # both apostrophes
        ("What did you suggest for the herb garden?", "second"),
        ("Which book did you recommend last time?", "second"),
        ("Can you remind me which bakery I liked?", None),  # both: no side taken
        ("Where did Tomasz move from?", None),  # third person
        ("¿Dónde vivo ahora?", None),  # another language: no English pronoun
        ("", None),
        ("Is the timeline of the mine accurate?", "first"),  # "mine" is a pronoun here too: the cue is lexical
    ],
)
def test_grammatical_person(question, person):
    assert grammatical_person(question) == person


def test_role_boosts_name_the_role_and_weight():
    assert role_boosts("What did I plant in May?", 0.3) == {"user": 0.3}
    assert role_boosts("What did you plant in May?", 0.3) == {}  # "you" alone: no side taken (module doc)
    assert role_boosts("What did Ines plant in May?", 0.3) == {"assistant": -0.3, "tool": -0.3, "system": -0.3}
    assert role_boosts("What did I plant in May?", 0.0) == {}
    assert role_boosts(None, 0.3) == {}


@pytest.mark.parametrize(
    "question, names, named",
    [
        ("Where does Dana live?", {"Dana"}, True),
        ("What is Dana's cat called?", {"Dana"}, True),
        ("What is DANA’s cat called?", {"Dana"}, True),  # any case, either apostrophe
        ("Where does Dana live?", {"Dana Kim"}, True),  # a first name names the user "Dana Kim"
        ("Where does Danae live?", {"Dana"}, False),  # whole words only
        ("Where does Kim live?", {"Dana Kim"}, False),
        ("Where does Noor live?", {"Dana"}, False),  # someone else
        ("Where does Dana live?", set(), False),
    ],
)
def test_names_user(question, names, named):
    assert names_user(question, names) is named


def test_a_question_naming_the_user_puts_everyone_else_s_words_below():
    """The same order as a first-person question, told as a penalty so the user's records keep their scores."""
    assert role_boosts("Where does Dana live?", 3.0, {"Dana"}) == {"assistant": -3.0, "tool": -3.0, "system": -3.0}
    assert role_boosts("Where do I live?", 3.0, {"Dana"}) == {"user": 3.0}
    others = {"assistant": -3.0, "tool": -3.0, "system": -3.0}
    assert role_boosts("Do you know where Dana lives?", 3.0, {"Dana"}) == others
    assert role_boosts("Where does Dana live?", 0.0, {"Dana"}) == {}


def test_a_question_in_the_third_person_puts_everyone_else_s_words_below():
    """"How old is Theo?" (the user's son): the user's words tell it, the assistant's replies only discuss it."""
    penalty = {"assistant": -3.0, "tool": -3.0, "system": -3.0}
    assert role_boosts("How old is Theo?", 3.0) == penalty
    assert role_boosts("Where does Noor live?", 3.0, {"Dana"}) == penalty
    assert role_boosts("What did you suggest for Theo's party?", 3.0) == {}  # put to the assistant
    assert role_boosts("Can you remind me how old Theo is?", 3.0) == {}  # both: no side taken
    assert role_boosts("¿Qué edad tiene Theo?", 3.0) == penalty  # no English pronoun: read as the third person


def test_the_setting_reaches_the_default_read_path(tmp_path, monkeypatch):
    from memdesk.factory import build_retriever
    from memdesk.settings import Settings
    from memdesk.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 'm.db'}")
    try:
        assert build_retriever(Settings(), store).person_weight == 3.0
        monkeypatch.setenv("MEMDESK_PERSON_WEIGHT", "0")
        assert build_retriever(Settings(), store).person_weight == 0.0
        monkeypatch.setenv("MEMDESK_PERSON_WEIGHT", "-1")
        with pytest.raises(Exception, match="person_weight"):
            Settings()
    finally:
        store.close()


@pytest.mark.parametrize(
    "question",
    [
        "Which films did the assistant suggest for the weekend?",
        "What did the bot say about repotting ferns?",
        "What budget did the AI propose for Noor's trip?",
    ],
)
def test_a_question_naming_the_assistant_asks_for_its_words(question):
    assert role_boosts(question, 3.0, {"Noor"}) == {"assistant": 3.0}


@pytest.mark.parametrize(
    "question",
    [
        "What should Noor bring to the first climbing session?",  # a modal of advice
        "How long should the cover letter be?",
        "How do I rotate the log files nightly?",  # how something is done
        "How can we keep the sourdough starter alive over a holiday?",
        "What's the quickest way to descale a kettle?",
        "What does FIFO stand for?",  # what a term means
        "What does 'mise en place' mean?",
        "Which spices were on the shopping list?",  # what a document drawn up says
        "What did the training plan say about rest days?",
        "What was the third stop on the itinerary?",
    ],
)
def test_a_question_asking_for_know_how_takes_no_side(question):
    assert role_boosts(question, 3.0, {"Noor"}) == {}


@pytest.mark.parametrize(
    "question",
    [
        "Where does Noor live now?",
        "How does Noor take her coffee?",  # a habit of someone's: their own words tell it
        "What is the name of Noor's rabbit?",
        "Which plan did Noor's landlord mention?",  # "plan" without a document drawn up: "which plan" asks a fact
    ],
)
def test_facts_of_the_user_s_life_keep_the_user_s_words_first(question):
    assert role_boosts(question, 3.0, {"Noor"}) == {"assistant": -3.0, "tool": -3.0, "system": -3.0}


@pytest.mark.parametrize(
    "question",
    [
        "In which language should the assistant answer Noor?",
        "How long should replies to Noor be?",
        "How should messages to Noor be formatted?",
    ],
)
def test_a_question_about_how_the_assistant_is_to_answer_keeps_the_user_s_instruction_first(question):
    assert role_boosts(question, 3.0, {"Noor"}) == {"assistant": -3.0, "tool": -3.0, "system": -3.0}


def test_a_question_about_what_the_user_wants_from_the_assistant_takes_the_user_s_side():
    others = {"assistant": -3.0, "tool": -3.0, "system": -3.0}
    assert role_boosts("How does Ilka want the assistant to write?", 3.0) == others
    assert role_boosts("What kind of tips does Ilka not want from the assistant?", 3.0) == others
    assert role_boosts("What did Ilka ask the assistant to stop doing?", 3.0) == others
    assert role_boosts("What did the assistant suggest for Ilka's garden?", 3.0) == {"assistant": 3.0}  # its own words
