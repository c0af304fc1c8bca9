"""An assistant's reply to a user turn that asked for nothing makes no record (memdesk.conversation.reactions), in
any language, for the rule processor and the LLM processor (scripted model); a reply to a request, or one that
gives something of its own, stays. Sentences written here, in no chat file."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memdesk.conversation.base import RoutedExtraction, Utterance
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.llm_processor import LLMProcessor
from memdesk.conversation.memory import Memory
from memdesk.conversation.reactions import asks_for_something, gives_something, reaction_turn
from memdesk.conversation.router import RuleRouter
from memdesk.embed.hashing import HashingEmbedder
from memdesk.llm import ScriptedChatModel
from memdesk.records import Message, RouteMask, Scope
from memdesk.store import open_store

S = Scope(user_id="noor")
TS = datetime(2025, 9, 3, 19, 0, tzinfo=timezone.utc)


def user(text: str) -> Message:
    return Message(id="m1", role="user", speaker="Noor", content=text, timestamp=TS)


def reply(text: str, to: str, role: str = "assistant") -> Utterance:
    message = Message(id="m2", role=role, speaker=None if role == "assistant" else "Idris", content=text, timestamp=TS)
    return Utterance(message_id="m2", message=message, scope=S, context=[user(to)])


TELLS = [
    "I passed my welding certificate today!",
    "Please never suggest recipes with peanuts, my son is allergic.",
    "Our old cat died last night.",
    "thanks, that was useful",
    "Nous avons enfin signé le bail.",  # "We finally signed the lease."
]
ASKS = [
    "Which bus goes to the airport from here?",
    "Can you plan a three-day trip to Porto",
    "suggest a name for my new puppy",
    "I need some ideas for a retirement speech",
    "any tips for a first half marathon",
    "how to descale a kettle",
]


@pytest.mark.parametrize("text", ASKS)
def test_questions_requests_and_needs_ask_for_something(text: str) -> None:
    assert asks_for_something(text)


@pytest.mark.parametrize("text", TELLS)
def test_news_thanks_and_instructions_ask_for_nothing(text: str) -> None:
    assert not asks_for_something(text)


@pytest.mark.parametrize(
    "text,gives",
    [
        ("Well done, that's a real milestone.", False),
        ("Noted: nothing with peanuts from now on.", False),
        ("Je suis vraiment désolé. Prenez soin de vous.", False),  # "I'm so sorry. Look after yourselves."
        ("¡Qué buena noticia, enhorabuena!", False),
        ("Lower the oven to 160 degrees for a fan oven.", True),  # a number
        ("Lovely. You might want to book the ferry early, it fills up.", True),  # advice
        ("Nice! Try a squeeze of lime on it next time.", True),
        ("Good for you. I'd recommend a warm-up lap first.", True),
        ("Then you're in safe hands.", False),  # a verdict, not advice
        ("You'll love it there.", False),  # a prediction, not advice
        ("Three things to bring:\n- ID\n- payslips\n- a utility bill", True),  # a list
        ("A sensible order would be to sort the paperwork first, then book the removal van, then tell the school and "
         "the surgery about the new address once the date is fixed.", True),  # long
    ],
)  # fmt: skip
def test_a_reply_gives_something_with_a_number_a_list_or_length(text: str, gives: bool) -> None:
    assert gives_something(text) is gives


@pytest.mark.parametrize(
    "said,to",
    [
        ("Congratulations, Noor! All that practice paid off.", TELLS[0]),
        ("Understood, I'll leave peanuts out of every suggestion.", TELLS[1]),  # the instruction said back
        ("I'm so sorry. She was lucky to have you.", TELLS[2]),
        ("Anytime!", TELLS[3]),
        ("Félicitations ! C'est une étape importante.", TELLS[4]),  # another language
    ],
)
def test_an_assistant_reaction_to_a_turn_that_asks_nothing_makes_no_record(said: str, to: str) -> None:
    u = reply(said, to)
    assert reaction_turn(u)
    processor = RoutedExtraction(RuleRouter(), RuleExtractor())
    [p] = processor.process([u])
    assert p.mask == RouteMask() and p.records == []


def test_a_reply_to_a_request_or_with_something_of_its_own_stays() -> None:
    processor = RoutedExtraction(RuleRouter(), RuleExtractor())
    answer = reply("Take the express coach from the central station.", ASKS[0])
    fan_oven = reply("Nice upgrade: bake 20 degrees lower than the recipe says.", "I bought a new fan oven.")
    for u in (answer, fan_oven):
        assert not reaction_turn(u)
        [p] = processor.process([u])
        assert p.records, u.message.content


def test_the_user_and_other_people_are_never_read_as_reactions() -> None:
    # what a person says in reply may be a fact ("Same here, I've got two."), so the rule is the assistant's only
    assert not reaction_turn(reply("Lovely, we went there in May too.", TELLS[0], role="user"))
    alone = Utterance(message_id="m2", message=Message(id="m2", role="assistant", content="Welcome back!"), scope=S, context=[])
    assert not reaction_turn(alone)  # nothing replied to


def test_the_llm_processor_drops_the_models_records_of_a_reaction() -> None:
    said = {"mask": "010", "semantic": [{"fact": "The assistant will leave peanuts out of suggestions.", "when": None}]}
    [p] = LLMProcessor(ScriptedChatModel([said])).process([reply("Understood, I'll leave peanuts out of every suggestion.", TELLS[1])])
    assert p.records == []
    kept = {"mask": "010", "semantic": [{"fact": "The express coach leaves from the central station.", "when": None}]}
    [p] = LLMProcessor(ScriptedChatModel([kept])).process([reply("Take the express coach from the central station.", ASKS[0])])
    assert [r.text() for r in p.records] == ["The express coach leaves from the central station."]


def test_through_memory_the_reaction_stays_in_the_raw_log_only(tmp_path) -> None:
    mem = Memory(open_store(f"sqlite:///{tmp_path}/m.db"), HashingEmbedder(), RoutedExtraction(RuleRouter(), RuleExtractor()))
    try:
        mem.add(Message(role="user", speaker="Noor", content="I passed my welding certificate today!", timestamp=TS), scope=S)
        mem.add(Message(role="assistant", content="Congratulations! All that practice paid off.", timestamp=TS), scope=S)
        texts = [r.text() for r in mem.get_all(scope=S)]
        assert any("welding" in t for t in texts) and not any("practice" in t for t in texts)
        assert any("practice" in m.content for m in mem.messages(scope=S))
    finally:
        mem.close()


def test_the_llm_prompts_state_the_rule() -> None:
    from memdesk.llm.templates import load_prompt

    for name in ("extract_utterance", "extract_batch"):
        prompt = load_prompt(name)
        assert "an assistant's reply to a user message that asked for nothing" in (prompt.system or "") + prompt.user


@pytest.mark.parametrize(
    ("told", "said_back"),
    [
        ("Ran my first 21 km this morning.", "21 km, what a milestone!"),
        ("Still off sugar. Day 47.", "47 days! Superb."),
        ("The bakery audit came back: 93 out of 100.", "93 is a great score, well done to the whole crew."),
    ],
)
def test_a_number_said_back_is_not_something_of_its_own(told: str, said_back: str) -> None:
    assert not gives_something(said_back, told)
    assert reaction_turn(reply(said_back, told))


def test_a_number_of_the_replys_own_is_still_given() -> None:
    told = "Still off sugar. Day 47."
    assert gives_something("47 days! Most cravings fade after 60.", told)
    assert not reaction_turn(reply("47 days! Most cravings fade after 60.", told))
