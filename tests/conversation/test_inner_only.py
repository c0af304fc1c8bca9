"""What holds nothing worth remembering about anyone, by structure (memdesk.conversation.filler.inner_only), and what
the rule extractor makes of it: no sentence view of its own beside a fact, no statement record of its own beside
another statement, no record for a turn of nothing else unless it answers a question about something. Sentences
written here."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memdesk.conversation.base import RoutedExtraction, Utterance
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.filler import FillerTest, evaluation_only, inner_only
from memdesk.conversation.router import RuleRouter
from memdesk.records import Message, Scope

NAMES = ["Ines", "Ravi"]
S = Scope(user_id="ines")
TS = datetime(2025, 4, 2, 10, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "text",
    [
        "Honestly it gives me a real sense of purpose and calm.",
        "I'm trying to embrace the stress and keep my focus.",
        "It was a good reminder to trust myself a bit more.",
        "Step by step it all starts to feel worthwhile.",
        "It is great to see people putting their hearts into it.",
        "Ravi, it hasn't been easy, but I admire how calm you've stayed.",
    ],
)
def test_a_sentiment_that_names_nothing_holds_nothing_to_remember(text: str) -> None:
    assert inner_only(text, NAMES)


@pytest.mark.parametrize(
    "text",
    [
        "I ran 12 miles and it felt great.",  # a number
        "Meeting Odile made me so happy.",  # a name other than the speakers'
        "I love the smell of fresh bread on our street.",  # a concrete thing
        "She has been my rock through all of it.",  # someone in particular
        "I find real peace in my pottery classes.",  # an activity
        "What made you feel that way?",  # a question, read as a statement
    ],
)
def test_a_number_a_name_a_thing_or_someone_keeps_the_sentence(text: str) -> None:
    assert not inner_only(text, NAMES)


def test_a_time_expression_keeps_the_sentence() -> None:
    assert inner_only("Step by step it all starts to feel worthwhile.", NAMES)
    assert not inner_only("Step by step it all starts to feel worthwhile.", NAMES, timed=True)


def _views(text: str, previous: str) -> dict[str, list[str]]:
    before = Message(id="m1", speaker="Ravi", content=previous, timestamp=TS)
    u = Utterance(message_id="m2", message=Message(id="m2", speaker="Ines", content=text, timestamp=TS), scope=S, context=[before])
    [p] = RoutedExtraction(RuleRouter(), RuleExtractor()).process([u])
    out: dict[str, list[str]] = {}
    for r in p.records:
        out.setdefault(str(r.metadata.get("view")), []).append(r.text())
    return out


def test_a_sentiment_beside_a_fact_gets_no_view_of_its_own() -> None:
    made = _views("We planted three apple trees behind the barn. I'm trying to embrace the stress and keep my focus.", "I repainted the kitchen.")
    assert any("apple trees" in t for t in made["sentence"])
    assert not any("stress" in t for t in made["sentence"])
    assert any("apple trees" in t and "stress" in t for t in made.get("turn", []) + made.get("context", []))


def test_a_turn_of_sentiment_only_makes_no_record() -> None:
    assert _views("Honestly it gives me a real sense of purpose and calm. I'm trying to embrace the stress and keep my focus.", "I repainted the kitchen.") == {}


def test_an_answer_to_a_question_about_something_keeps_its_record() -> None:
    made = _views("Honestly it gives me a real sense of purpose and calm. I'm trying to embrace the stress and keep my focus.", "What does the choir give you?")
    assert any("purpose" in t for ts in made.values() for t in ts)


def test_a_statement_of_nothing_beside_a_claim_makes_no_record_of_its_own() -> None:
    made = _views("I moved to Leeds with my partner last spring. It's so fulfilling.", "I repainted the kitchen.")
    texts = [t for ts in made.values() for t in ts]
    assert any("Leeds" in t for t in texts)
    assert not any("fulfilling" in t and "Leeds" not in t for t in texts)


@pytest.mark.parametrize(
    "text",
    [
        "We should have you over soon.",  # a plan with the listener
        "We aren't doing anything then, so that's fine by us!",  # a time the context gave
        "Honestly I'd love to be there.",  # a place the context gave
    ],
)
def test_a_plan_with_the_listener_or_a_time_pointed_back_to_is_not_empty(text: str) -> None:
    assert not inner_only(text, NAMES)
    assert not evaluation_only(text, NAMES)


@pytest.mark.parametrize(
    "text",
    [
        "The choreography was so mesmerising!",  # a quality of a definite phrase, in words no lexicon holds
        "That sounds unreal.",
        "It was truly otherworldly.",
        "It's so freeing to let go of the worry.",  # a quality of an activity of inner life, by extraposition
    ],
)
def test_a_quality_predicated_of_what_the_context_names_is_evaluation_only(text: str) -> None:
    assert evaluation_only(text, NAMES)


@pytest.mark.parametrize(
    "text",
    [
        "The choreography was by Lucinda.",  # a name
        "It was 40 degrees in the shade.",  # a number
        "The barn roof was so leaky it flooded the hayloft.",  # more than a quality: what followed
        "We repainted the whole kitchen.",  # an event
        "It's so refreshing to swim in the lake before breakfast.",  # an activity with things in it
        "Was the choreography mesmerising?",  # a question
    ],
)
def test_a_name_a_number_an_event_or_a_thing_is_not_evaluation_only(text: str) -> None:
    assert not evaluation_only(text, NAMES)


def test_an_evaluation_beside_a_fact_gets_no_sentence_view() -> None:
    extractor = RuleExtractor(filler=FillerTest.packaged())
    before = Message(id="m1", speaker="Ravi", content="We went to the ballet.", timestamp=TS)
    text = "We sat in the front row of the balcony. The choreography was so mesmerising!"
    u = Utterance(message_id="m2", message=Message(id="m2", speaker="Ines", content=text, timestamp=TS), scope=S, context=[before])
    [p] = RoutedExtraction(RuleRouter(), extractor).process([u])
    views = [(r.metadata.get("view"), r.text()) for r in p.records]
    assert any(v == "sentence" and "balcony" in t for v, t in views)
    assert not any(v == "sentence" and "mesmerising" in t and "balcony" not in t for v, t in views)
    assert any(v in ("turn", "context") and "mesmerising" in t for v, t in views)
