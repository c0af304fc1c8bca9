"""The learned small-talk test inside a turn that says something (memdesk.conversation.extract / router): a sentence
of small talk gets no sentence view of its own (the turn and context views keep every word, so nothing said is
lost), and a question beside small-talk statements does not keep them. A stand-in embedder with a known geometry;
sentences written here."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

from memdesk.conversation.base import RoutedExtraction, Utterance
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.filler import FillerTest
from memdesk.conversation.router import RuleRouter
from memdesk.records import Message, Scope

S = Scope(user_id="ines")
TS = datetime(2025, 4, 2, 10, 0, tzinfo=timezone.utc)
#: the stand-in reads a sentence as small talk when it holds one of these words
MARKED = ("unreal", "buzzing", "setup")


class _MarkedEmbedder:
    model_id = "marked"

    def embed(self, texts):
        out = np.zeros((len(texts), 2), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, 0 if any(w in t.lower() for w in MARKED) else 1] = 1.0
        return out


def processor(learned: bool = True) -> RoutedExtraction:
    test = FillerTest(_MarkedEmbedder(), [5.0, -5.0], 0.0) if learned else None
    return RoutedExtraction(RuleRouter(filler=test), RuleExtractor(filler=test))


def turn(text: str, previous: str = "How was the weekend?") -> Utterance:
    before = Message(id="m1", speaker="Ravi", content=previous, timestamp=TS)
    return Utterance(message_id="m2", message=Message(id="m2", speaker="Ines", content=text, timestamp=TS), scope=S, context=[before])


def views(u: Utterance, learned: bool = True) -> dict[str, list[str]]:
    [p] = processor(learned).process([u])
    out: dict[str, list[str]] = {}
    for r in p.records:
        out.setdefault(str(r.metadata.get("view")), []).append(r.text())
    return out


def test_a_small_talk_sentence_gets_no_view_of_its_own_but_stays_in_the_turn() -> None:
    u = turn("We finally moved into the cottage by the canal. Honestly the whole thing still feels unreal to me.")
    made = views(u)
    assert not any("unreal" in t for t in made["sentence"])
    assert any("cottage" in t for t in made["sentence"])
    assert any("cottage" in t and "unreal" in t for t in made.get("turn", []) + made.get("context", []))
    # without the learned test the sentence keeps its view
    assert any("unreal" in t for t in views(u, learned=False)["sentence"])


def test_a_question_beside_small_talk_does_not_keep_it() -> None:
    u = turn("Mirrors on every wall, quite the setup! Is the studio near the river?", previous="Here's my new studio.")
    texts = [t for ts in views(u).values() for t in ts]
    assert not any("setup" in t for t in texts)
    assert any("river" in t for t in texts)  # the question is kept as a question about something
    assert any("setup" in t for ts in views(u, learned=False).values() for t in ts)


def test_a_turn_of_facts_keeps_every_view() -> None:
    u = turn("We finally moved into the cottage by the canal. My brother helped us carry the piano up the stairs.")
    made = views(u)
    assert len(made["sentence"]) == 2 and made.get("turn")


def test_a_truism_has_a_generic_subject() -> None:
    from memdesk.conversation.rules import is_phatic

    for generic in ("Setbacks force us to adapt.", "Gardening teaches us patience.", "Travel reminds us how big the world is."):
        assert is_phatic(generic, ["Ines"]), generic
    for particular in ("The landlord lets us keep the two ferrets.", "Our neighbour lets us use her greenhouse.",
                       "The school lets us park behind the gym."):  # fmt: skip
        assert not is_phatic(particular, ["Ines"]), particular
