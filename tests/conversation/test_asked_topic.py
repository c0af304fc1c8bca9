"""A reply to another speaker's question is found by what it was asked about (memdesk.conversation.asked): the
question's content words go beside the record's words (``metadata["asked_about"]``, first in ``embed_text``), never
into its text."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memdesk.conversation.asked import asked_about
from memdesk.conversation.base import Utterance
from memdesk.records import Message, Scope, SemanticRecord

SCOPE = Scope(user_id="u-asked")
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def _utt(previous: Message, text: str, after: timedelta = timedelta(minutes=1)) -> Utterance:
    message = Message(id="r1", speaker="Ines", role="user", content=text, timestamp=(previous.timestamp or T0) + after)
    return Utterance(message_id="r1", message=message, scope=SCOPE, context=[previous])


def _asked(text: str, speaker: str = "Desk", role: str = "assistant") -> Message:
    return Message(id="q1", speaker=speaker, role=role, content=text, timestamp=T0)  # type: ignore[arg-type]


def test_the_topic_is_the_last_question_s_content_words() -> None:
    u = _utt(_asked("That sounds busy. Which instrument did you pick up in the end?"), "The cello.")
    assert asked_about(u) == ("q1", "instrument pick end")


def test_no_topic_for_the_speaker_s_own_turn_a_statement_or_a_turn_said_hours_before() -> None:
    assert asked_about(_utt(_asked("Which instrument did I pick?", speaker="Ines", role="user"), "The cello.")) is None
    assert asked_about(_utt(_asked("The shop shuts at six."), "The cello.")) is None
    assert asked_about(_utt(_asked("Which instrument did you pick?"), "The cello.", after=timedelta(hours=9))) is None


def test_the_topic_shapes_what_is_embedded_never_the_text() -> None:
    r = SemanticRecord(fact="The cello.", scope=SCOPE, speaker="Ines", metadata={"embed_context": "Ines:", "asked_about": "instrument pick"})
    assert r.embed_text() == "instrument pick: Ines: The cello."
    assert r.text() == "The cello."


def test_an_answer_to_the_assistant_s_question_is_found_by_what_was_asked(mem) -> None:
    turns = [
        ("user", "Ines", "I've joined the community orchestra on Thursdays."),
        ("assistant", "Desk", "Lovely. Which instrument will you be playing in it?"),
        ("user", "Ines", "The viola my grandad left me, it is nearly a hundred years old."),
        ("user", "Ines", "My brother Tomas lent me his car for the drive to rehearsals."),
        ("user", "Ines", "We had a power cut at the flat on Monday evening."),
        ("user", "Ines", "The conductor wants us to learn the Elgar by March."),
    ]
    for i, (role, speaker, text) in enumerate(turns):
        mem.add([{"id": f"m{i}", "role": role, "speaker": speaker, "content": text, "timestamp": T0 + timedelta(minutes=i)}], scope=SCOPE)
    reply = [r for r in mem.get_all(scope=SCOPE) if "m2" in r.provenance]
    assert reply and all(r.metadata.get("asked_about") == "instrument playing" for r in reply)
    assert all("instrument" not in r.text() for r in reply)  # the record keeps the reply's own words
    hits = mem.search("Which instrument does Ines play?", scope=SCOPE)  # the orchestra record first without the topic
    assert hits[0].record.provenance[0] == "m2"


def test_no_topic_from_a_turn_the_processor_was_shown() -> None:
    # another user's question reaches the extractor, whose context view embeds it whole already
    u = _utt(_asked("Which instrument did you pick?", speaker="Tomas", role="user"), "The cello.")
    assert asked_about(u) == ("q1", "instrument pick")
    assert asked_about(u, shown={"user"}) is None
