"""What a sentence states: the speaker's stance toward the listener or the listener's news makes no record
(:mod:`memdesk.conversation.stance`); an evaluation that states a preference, an event or a fact stays."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memdesk.conversation.base import Utterance
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.router import RuleRouter
from memdesk.conversation.stance import instructs_reply, news_question, stance_only
from memdesk.records import Message, Scope

TS = datetime(2024, 9, 14, 18, 5, tzinfo=timezone.utc)
SCOPE = Scope(user_id="u1")
NAMES = ["Ines", "Bashir"]
NEWS = "I passed my welding certification this morning, after three tries!"


def stance(text: str, previous: str = NEWS, *, asked: bool = False) -> bool:
    return stance_only(text, names=NAMES, addressee="Bashir", previous=previous, asked=asked)


@pytest.mark.parametrize(
    "text",
    [
        # a feeling toward the listener, what it is for being the listener's own
        "So proud of you!",
        "I'm incredibly proud of you for sticking with the welding.",
        "We're all thrilled for you, Bashir.",
        "Honestly, I'm in awe of you.",
        "I believe in you.",
        "I really admire your grit.",
        # the listener: what they are, deserve, can or will do
        "You deserve it.",
        "You totally earned every bit of this.",
        "You're such a natural.",
        "You'll do great.",
        "Your family must be so proud.",
        "Bashir, your patience is amazing.",
        # a verdict on the listener's news, restating it at most
        "That sounds amazing.",
        "Wow, what an achievement!",
        "Such a huge relief.",
        "That's a certification well deserved.",
        "Those three tries really paid off.",
        # encouragement
        "Keep going!",
        "Don't ever be afraid to take a leap.",
        "Stay positive and keep pushing.",
        # clauses of stance together
        "That's so inspiring, I'm really proud of you for taking the leap.",
    ],
)
def test_stance_toward_the_listener_states_nothing(text: str) -> None:
    assert stance(text)


@pytest.mark.parametrize(
    "text",
    [
        "I find pottery relaxing.",  # a preference of the speaker's
        "Caroline's painting won a prize.",  # an event, of someone named
        "Your painting won first prize.",  # an event, not an evaluation
        "I'm so happy here in the new flat.",  # the speaker's own state
        "I'm proud of you, my brother took four tries.",  # something of the speaker's own beside the feeling
        "I'm glad you liked my lemon tart.",  # the speaker's tart
        "You should try the night classes at the college.",  # advice
        "You're moving to Leeds?",  # a question
        "That reminds me of my first job.",  # the speaker's own
        "Keep the receipts for the accountant.",  # an instruction with an object of its own
        "That took 40 hours of practice.",  # a number
        "Your brother is a paramedic.",  # what someone is, not an evaluation
        "We love cycling along the canal.",  # what the speaker does
    ],
)
def test_evaluations_that_state_something_stay(text: str) -> None:
    assert not stance(text)


def test_after_a_question_a_verdict_answers_it() -> None:
    # "How was it?" "It was amazing!": how the speaker's trip went, worth noting
    assert stance("It was amazing!", "I just got back from the coast.")
    assert not stance("It was amazing!", "How was the coast?", asked=True)
    assert not stance("Just a little.", "Were you nervous?", asked=True)


def _utt(text: str, previous: str, speaker: str = "Ines", other: str = "Bashir") -> Utterance:
    before = Message(id="m1", speaker=other, content=previous, timestamp=TS)
    return Utterance(message_id="m2", message=Message(id="m2", speaker=speaker, content=text, timestamp=TS), scope=SCOPE, context=[before])


def _records(u: Utterance) -> list[str]:
    return [r.body() for r in RuleExtractor().extract(u, RuleRouter().route(u))]


def test_a_turn_of_stance_makes_no_record() -> None:
    for reply in (
        "Bashir!! I'm so proud of you for not giving up. You totally deserve this.",
        "That sounds amazing. You worked so hard for it, keep going!",
        "Wow, what a relief. Your persistence is inspiring.",
    ):
        assert _records(_utt(reply, NEWS)) == [], reply


def test_a_turn_keeps_what_the_speaker_states_beside_the_stance() -> None:
    recs = _records(_utt("So proud of you! I start my own course at the college in October.", NEWS))
    assert recs and all("proud" not in r for r in recs)
    assert any("college" in r for r in recs)


def test_a_verdict_of_the_speakers_own_event_stays() -> None:
    # "it" speaks of the speaker's own sentence, not of the listener's news
    recs = _records(_utt("We repainted the whole boat on Sunday. It was so rewarding.", NEWS))
    assert any("rewarding" in r for r in recs)


@pytest.mark.parametrize(
    "text",
    ["Bom trabalho. Obrigada!", "Fine by me. Merci!", "shukran habibi", "Hej då, Bashir!", "Görüşürüz!", "Grazie mille, ciao!"],
)
def test_thanks_and_greetings_in_other_languages_make_no_record(text: str) -> None:
    assert _records(_utt(text, "Here's the schedule for Saturday.")) == []


def test_a_mixed_language_wish_states_nothing() -> None:
    assert stance("Tanti auguri to you both!")
    assert not stance("Tanti auguri, we're getting married in May too!")


@pytest.mark.parametrize(
    "text",
    [
        "Beyond happy for Bashir!",  # the listener named where "you" would be
        "Wishing you the very best with the next one.",
        "Cheers, Bash!",  # a nickname: a prefix of the listener's name
        "That welding news is huge 🔥 so thrilled for you.",  # an emoji between two clauses
        "Trust your instincts and keep pushing.",  # the listener's own thing after "your"
        "Three tries, including the practical!",  # the listener's news said back
    ],
)
def test_stance_in_other_shapes(text: str) -> None:
    assert stance(text, "I passed my welding certification after three tries, including the practical.")


def test_a_name_that_is_not_the_listeners_keeps_the_sentence() -> None:
    assert not stance("Beyond happy for Tomasz!")
    assert not stance("Cheers, Bash! I'm off to Porto now.")


@pytest.mark.parametrize(
    "text",
    ["Hi Bashir, thanks for asking.", "Thank you so much for the pointers.", "Your welding course sounds brilliant.", "Your new workshop bench looks so good!"],
)
def test_thanks_and_compliments_on_the_listeners_things(text: str) -> None:
    assert stance(text, "How are you doing? Here's my new workshop bench [shares an image: a workbench].", asked=True) or stance(text)


def test_thanks_that_say_something_of_the_speakers_stay() -> None:
    assert not stance("Thanks for the tip about my landlord.")
    assert not stance("Your welding course won an award at the fair.")


def test_encouragement_between_peers_and_an_instruction_to_an_assistant() -> None:
    # between two people an imperative of going on is encouragement; said to an assistant, it instructs
    assert _records(_utt("Don't forget, trust yourself and your instincts. Keep going!", NEWS)) == []
    before = Message(id="m1", role="assistant", speaker="Desk", content="Here's the draft of your cover letter.", timestamp=TS)
    u = Utterance(message_id="m2", message=Message(id="m2", role="user", speaker="Ines", content="Don't forget, trust yourself and keep going.", timestamp=TS), scope=SCOPE, context=[before])
    assert _records(u) != []


@pytest.mark.parametrize(
    "text,instructs",
    [
        ("Keep it short.", True),
        ("Be brief.", True),
        ("Please keep your replies concise from now on.", True),
        ("Always answer in bullet points.", True),
        ("No emojis, please.", True),
        ("Make the summaries simpler.", True),
        ("Keep going!", False),
        ("Keep it up!", False),
        ("Be careful on the ice.", False),
        ("Can you keep it short?", False),
    ],
)
def test_an_imperative_on_how_to_answer_is_an_instruction(text: str, instructs: bool) -> None:
    assert instructs_reply(text) is instructs


def test_a_users_instruction_survives_when_the_processor_sees_only_user_turns() -> None:
    # the default admission shows the processor only user turns as context: no assistant turn to see
    first = Message(id="m1", role="user", speaker="Ines", content="Can you help me plan meals this week?", timestamp=TS)
    for text in ("Keep it short.", "Be brief, and no emojis."):
        u = Utterance(message_id="m2", message=Message(id="m2", role="user", speaker="Ines", content=text, timestamp=TS), scope=SCOPE, context=[first])
        assert _records(u) != [], text
    # between two people the same shape of encouragement stays small talk
    assert _records(_utt("Keep going!", NEWS)) == []


def test_a_users_instruction_is_kept_through_memory() -> None:
    from memdesk import Memory

    with Memory.open(database_url="sqlite:///:memory:") as mem:
        scope = Scope(user_id="ines")
        mem.add(
            [
                {"role": "user", "speaker": "Ines", "content": "Can you help me plan meals this week?"},
                {"role": "assistant", "speaker": "Desk", "content": "Of course! What do you like to eat?"},
                {"role": "user", "speaker": "Ines", "content": "Keep it short."},
            ],
            scope=scope,
        )
        assert any(r.body() == "Keep it short." for r in mem.get_all(scope=scope))


GARDEN = "The allotment flooded again, so I moved the leeks to the raised beds by the shed."


@pytest.mark.parametrize(
    "text",
    [
        # a commitment to nothing: what the speaker will do names nothing of its own
        "I'll let you know how it goes.",
        "Good luck with the leeks, I'll definitely keep you posted!",
        "We should totally add it to our list.",
        # understanding of the listener's news, the news said back at most
        "I can see why you moved the leeks.",
        "I remember you mentioning the allotment.",
        "I totally get why you moved them to the raised beds.",
        # a verdict on the listener's reply in the speaker's words
        "Perfect, that's just what I needed.",
    ],
)
def test_commitments_and_reactions_that_name_nothing_state_nothing(text: str) -> None:
    assert stance(text, GARDEN)


@pytest.mark.parametrize(
    "text",
    [
        "I'll bring the spare hose on Saturday.",  # a plan with an object and a day
        "We'll be there!",  # being somewhere is a plan
        "I'll send you photos of my greenhouse.",  # the speaker's own greenhouse
        "I'll try growing leeks in pots on the balcony.",  # a plan of the speaker's own
        "We'll let them grow.",  # a commitment that does something with them
        "I can see why, my uncle lost his beans to a flood.",  # something of the speaker's beside the reaction
        "I know a drainage contractor near the allotment.",  # what the speaker knows of the world
        "Raised beds by the shed, and Odile wants some too.",  # a name the listener did not say
        'Leeks! "The Vegetable Grower" says leeks love it wet.',  # a title
    ],
)
def test_commitments_and_reactions_with_something_of_their_own_stay(text: str) -> None:
    assert not stance(text, GARDEN)


def test_a_name_said_back_is_the_news_said_back() -> None:
    assert stance("Every Thursday evening it is.", "Yes, remind me every Thursday evening, not every day.")
    assert not stance("Every Thursday evening, and Odile comes on Fridays.", "Yes, remind me every Thursday evening, not every day.")


def test_a_commitment_after_a_question_answers_it() -> None:
    assert not stance("I'll let you know.", "Will you come to the harvest supper?", asked=True)


@pytest.mark.parametrize("text", ["Anything new on your end?", "How have things been since we last spoke?", "Any photos?", "How's everything going, Bashir?"])
def test_a_question_that_asks_after_the_listener_states_nothing(text: str) -> None:
    assert news_question(text, names=NAMES)


@pytest.mark.parametrize(
    "text",
    [
        "Did the flood reach the greenhouse?",  # asks about something the listener did not say
        "Should I move my carrots too?",  # the asker's own matter
        "Can you recommend a leek variety?",  # a request
        "When did the allotment flood?",  # asks for a fact
        "How is Odile getting on?",  # someone not named in the exchange
        "Any photos of the raised beds?",  # takes up the listener's news: about something
    ],
)
def test_a_question_about_something_stays(text: str) -> None:
    assert not news_question(text, names=NAMES)


def test_a_turn_of_reactions_and_a_question_after_news_makes_no_record() -> None:
    assert _records(_utt("I can see why you moved them. Anything else new on your end?", GARDEN)) == []
    assert _records(_utt("I'll keep you posted! Did the flood reach the greenhouse?", GARDEN)) != []


@pytest.mark.parametrize("text", ["Keep practising and enjoying it!", "Keep strummin' it!", "Don't get discouraged, just keep going."])
def test_encouragement_to_go_on_with_whatever_the_listener_does_states_nothing(text: str) -> None:
    assert stance(text, "I sketched the harbour again today.")


@pytest.mark.parametrize("text", ["Keep taking your iron tablets.", "Keep watering the ferns twice a week.", "Keep sketching the harbour boats for Odile."])
def test_going_on_with_something_named_is_advice_and_stays(text: str) -> None:
    assert not stance(text, "I sketched the harbour again today.")


def test_a_number_said_back_is_the_news_but_a_number_of_its_own_is_kept() -> None:
    news = "I'm 74 and I just finished my first half marathon in Tartu."
    assert stance("A half marathon at 74, that's impressive!", news)
    assert not stance("At 74 you need 3 rest days after it, that's important.", news)
    assert _records(_utt("A half marathon at 74, that's impressive!", news)) == []
