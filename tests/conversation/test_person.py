"""First-to-third person rewriting: grammatical or not at all."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdesk.conversation.person import conjugate, third_person, to_third_person


@pytest.mark.parametrize(
    "text,expected",
    [
        ("I now live in Clifton.", "Priya now lives in Clifton."),
        ("I no longer work in Manchester.", "Priya no longer works in Manchester."),
        ("It's been ages since I heard from Dana.", "It's been ages since Priya heard from Dana."),
        ("I haven't decided yet.", "Priya hasn't decided yet."),
        ("I don't eat meat anymore.", "Priya doesn't eat meat anymore."),
        ("I moved out of the flat.", "Priya moved out of the flat."),
        ("I need a new phone.", "Priya needs a new phone."),
        ("I try to swim twice a week.", "Priya tries to swim twice a week."),
        ("I watch films on Fridays.", "Priya watches films on Fridays."),
        ("I'd been there before.", "Priya had been there before."),
        ("I'd love to go.", "Priya would love to go."),
        ("Sam and I live together.", "Sam and Priya live together."),
        ("My husband and I love hiking.", "Priya's husband and Priya love hiking."),
        ("I bought a van and I love it.", "Priya bought a van and Priya loves it."),
        ("Am I late?", "Is Priya late?"),
        ("Did I tell you about it?", "Did Priya tell Leo about it?"),
        ("Do you like it?", "Does Leo like it?"),
        ("Are you still coaching?", "Is Leo still coaching?"),
        ("You were right.", "Leo was right."),
        ("You'd better hurry!", "Leo had better hurry!"),
        ("I'll call you tomorrow.", "Priya will call Leo tomorrow."),
        ("I hope you like it.", "Priya hopes Leo likes it."),
        ("If I ever get a cat, I'll name it Miso.", "If Priya ever gets a cat, Priya will name it Miso."),
        ("Your sister is lovely.", "Leo's sister is lovely."),
        ("We made pizza.", "We made pizza."),
        ("Thank you for the tea!", "Thank you for the tea!"),
        ("I wanna learn the cello.", "Priya wants to learn the cello."),
        ("I gotta leave early.", "Priya has to leave early."),
        ("So you gonna enter the race?", "So Leo is gonna enter the race?"),
        ("The club is lucky to have you!", "The club is lucky to have Leo!"),
        ("We'd love to have you over.", "We'd love to have Leo over."),
        ("How long have you been rowing?", "How long has Leo been rowing?"),
        ("You guys are great.", "You guys are great."),
        ("Mine is the blue one.", "Priya's is the blue one."),
        ("I went to the park.", "Priya went to the park."),
        ("I really love my dog.", "Priya really loves Priya's dog."),
        ("I'm a nurse and I've got two kids.", "Priya is a nurse and Priya has got two kids."),
        ("You'd be a great teacher! Your patience helps.", "Leo would be a great teacher! Leo's patience helps."),
        ("What did you make of it?", "What did Leo make of it?"),
        ("Where do you find it?", "Where does Leo find it?"),
    ],
)
def test_rewrites_are_grammatical(text: str, expected: str) -> None:
    assert third_person(text, "Priya", "Leo") == expected
    assert to_third_person(text, "Priya", "Leo") == expected


@pytest.mark.parametrize("text", ["I myself prefer tea.", "I Priya take thee.", "I cooking now."])
def test_a_rewrite_that_would_break_the_sentence_is_refused(text: str) -> None:
    assert third_person(text, "Priya", "Leo") is None
    assert to_third_person(text, "Priya", "Leo") == text


def test_without_a_speaker_nothing_changes() -> None:
    assert third_person("I went home.", None) == "I went home."


@pytest.mark.parametrize(
    "verb,third", [("love", "loves"), ("go", "goes"), ("watch", "watches"), ("study", "studies"), ("play", "plays"), ("have", "has")]
)
def test_conjugate(verb: str, third: str) -> None:
    assert conjugate(verb) == third


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=150))
def test_never_fails_and_keeps_text_without_pronouns(text: str) -> None:
    out = third_person(text, "Priya", "Leo")
    assert out is None or isinstance(out, str)
    if not any(w in text.lower() for w in ("i", "me", "my", "you", "mine")):
        assert out == text.replace("\u2019", "'")


@pytest.mark.parametrize(
    "text,expected",
    [
        ("I'm Priya, a nurse in Leeds.", "Priya is a nurse in Leeds."),
        ("Hi, I'm Priya, the new cook at the bistro.", "Hi, Priya is the new cook at the bistro."),
        ("I am Priya, from Goa originally.", "Priya is from Goa originally."),
        ("I'm Priya, 34, and I sell candles.", "Priya is 34, and Priya sells candles."),
        ("I'm Priya and I teach maths.", "Priya teaches maths."),
        ("I'm Priya, I teach maths at Müller's school.", "Priya teaches maths at Müller's school."),
        ("I'm Priya, Dev's sister.", "Priya is Dev's sister."),
        ("I'm Priya, nice to meet you.", "Priya is Priya, nice to meet Leo."),
        ("I'm tired, Priya said.", "Priya is tired, Priya said."),
    ],
)
def test_a_self_introduction_names_the_speaker_once(text: str, expected: str) -> None:
    assert third_person(text, "Priya", "Leo") == expected


def test_a_self_introduction_by_first_name_under_a_full_name() -> None:
    assert third_person("I'm Priya, a nurse.", "Priya Shah") == "Priya Shah is a nurse."


@pytest.mark.parametrize(
    "text,expected",
    [
        ("I moved with my cousin to a flat near My Khe beach.", "Priya moved with Priya's cousin to a flat near My Khe beach."),
        ("My sister loves the My Little Pony films.", "Priya's sister loves the My Little Pony films."),
        ("I live with my parents in Hội An and I guide tours.", "Priya lives with Priya's parents in Hội An and Priya guides tours."),
        ("My friend Thái and I run a café in Kraków.", "Priya's friend Thái and Priya run a café in Kraków."),
    ],
)
def test_names_are_words_in_any_alphabet_and_a_capital_my_inside_a_sentence_is_a_names(text: str, expected: str) -> None:
    assert third_person(text, "Priya") == expected
