"""The learned small-talk test (memdesk.conversation.filler): what anchors a fact, the threshold, the packaged
weights on sentences written here (none of them in bench/filler/sentences.txt), and the same decision for the
rule extractor and the LLM processor (scripted model). Speaker labels stay out of record text."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from memdesk.conversation.base import Utterance
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.filler import FillerTest, anchor_strength, anchored
from memdesk.conversation.llm_processor import LLMProcessor
from memdesk.conversation.router import RuleRouter
from memdesk.llm import ScriptedChatModel
from memdesk.records import Message, RouteMask, Scope

S = Scope(user_id="tess")
TS = datetime(2025, 5, 6, 18, 0, tzinfo=timezone.utc)
NAMES = ["Tess", "Desk"]
TRAINING = Path(__file__).resolve().parents[2] / "bench" / "filler" / "sentences.txt"


def utt(text: str, speaker: str = "Tess", role: str = "user", context: list[Message] | None = None) -> Utterance:
    return Utterance(message_id="m5", message=Message(id="m5", speaker=speaker, role=role, content=text, timestamp=TS),
                     scope=S, context=context or [])  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [
        "Then Tomasz passed it first time.",  # a name that is not a speaker's
        "We paid 40 quid for it.",  # a number
        "Please answer in French.",  # an instruction
        "Honestly it was one of those weeks where every single thing that could go wrong went wrong.",  # long
    ],
)
def test_strongly_anchored_sentences_are_never_small_talk(text: str) -> None:
    assert anchor_strength(text, NAMES) == 2
    assert not FillerTest(_FixedEmbedder(), [4.0, 4.0], 10.0).is_filler(text, NAMES)  # whatever the weights say


@pytest.mark.parametrize(
    "text",
    [
        "I detest loud restaurants.",  # first person + two concrete words
        "Her greenhouse leaks.",  # a possessive + concrete words
        "The gutters need clearing before winter storms.",  # three concrete words
    ],
)
def test_concrete_words_raise_the_bar(text: str) -> None:
    assert anchor_strength(text, NAMES) == 1 and anchored(text, NAMES)
    sure, likely = FillerTest(_FixedEmbedder(), [0.0, 0.0], 3.0), FillerTest(_FixedEmbedder(), [0.0, 0.0], 0.8)
    assert sure.is_filler(text, NAMES) and not likely.is_filler(text, NAMES)  # p 0.95 vs p 0.69 against 0.8


@pytest.mark.parametrize("text", ["We're so pleased.", "Keeps me smiling.", "Tess is thrilled.", "That's lovely, Desk!"])
def test_feelings_and_reactions_anchor_nothing(text: str) -> None:
    assert not anchored(text, NAMES)


class _FixedEmbedder:
    """Maps a sentence to a one-hot vector by its first word: a stand-in with a known geometry."""

    model_id = "fixed"

    def embed(self, texts):
        out = np.zeros((len(texts), 2), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, 0 if t.lower().startswith("yay") else 1] = 1.0
        self.calls = getattr(self, "calls", 0) + 1
        return out


def test_threshold_and_cache() -> None:
    emb = _FixedEmbedder()
    test = FillerTest(emb, [4.0, -4.0], 0.0, threshold=0.6)
    assert test.probability("Yay, sorted.") > 0.95 and test.probability("Nope.") < 0.05
    assert test.is_filler("Yay, sorted.", NAMES) and not test.is_filler("Nope.", NAMES)
    assert not test.is_filler("Yay, 3 goals!", NAMES)  # a number anchors it whatever the weights say
    calls = emb.calls
    test.is_filler("Yay, sorted.", NAMES)
    assert emb.calls == calls  # read once per sentence


@pytest.fixture(scope="module")
def packaged() -> FillerTest:
    return FillerTest.packaged()


SMALL_TALK = ["We're absolutely made up.", "Keeps me smiling.", "Aw, bless them.", "Lovely to catch up again.",
              "Yay, we made it.", "Well, that's that then."]  # fmt: skip
FACTS = ["I hate coriander.", "We bought a tandem bike.", "My boss is retiring.", "The ferry was cancelled.",
         "I'm learning the cello.", "I felt sick before the interview."]  # fmt: skip


def test_the_sentences_here_are_not_training_sentences() -> None:
    trained = {line.split("\t", 1)[1].strip() for line in TRAINING.read_text().splitlines() if "\t" in line}
    assert not trained & set(SMALL_TALK + FACTS)


def test_packaged_weights_tell_small_talk_from_facts(packaged: FillerTest) -> None:
    caught = [s for s in SMALL_TALK if packaged.is_filler(s, NAMES)]
    dropped = [s for s in FACTS if packaged.is_filler(s, NAMES)]
    assert len(caught) >= 4, caught
    assert dropped == []


def test_the_router_and_extractor_share_the_decision(packaged: FillerTest) -> None:
    router, extractor = RuleRouter(filler=packaged), RuleExtractor(filler=packaged)
    said = utt("Keeps me smiling.")
    assert router.route(said) == RouteMask()
    fact = utt("Keeps me smiling: Nell got into the conservatoire.")
    assert router.route(fact).bits and any("conservatoire" in r.text() for r in extractor.extract(fact, router.route(fact)))
    # without the learned test the word rules alone decide (they keep it)
    assert RuleRouter().route(said).bits


def test_the_llm_processor_applies_the_same_test(packaged: FillerTest) -> None:
    reply = {"mask": "010", "semantic": [{"fact": "Smiling keeps Tess going.", "when": None}]}
    [p] = LLMProcessor(ScriptedChatModel([reply]), filler=packaged).process([utt("Keeps me smiling.")])
    assert p.mask == RouteMask() and p.records == []
    [p] = LLMProcessor(ScriptedChatModel([reply])).process([utt("Keeps me smiling.")])
    assert p.records  # the word rules alone keep it: the learned test made the difference
    [p] = LLMProcessor(ScriptedChatModel([reply]), filler=packaged).process([utt("We're absolutely made up.")])
    assert p.mask == RouteMask() and p.records == []
    fact = {"mask": "010", "semantic": [{"fact": "Tess bought a tandem bike.", "when": None}]}
    [p] = LLMProcessor(ScriptedChatModel([fact]), filler=packaged).process([utt("We bought a tandem bike.")])
    assert [r.text() for r in p.records] == ["Tess bought a tandem bike."]


def test_a_record_holds_no_speaker_label() -> None:
    router, extractor = RuleRouter(), RuleExtractor()
    for text in ("Our Bea loved the fish pie we made on Sunday.", "I myself prefer the hills."):
        u = utt(text)
        records = extractor.extract(u, router.route(u))
        assert records and all(not r.text().startswith("Tess:") and r.speaker == "Tess" for r in records)
        assert all("Tess" in r.embed_text() for r in records)  # whose words: in what is embedded


def test_the_llm_processor_keeps_no_speaker_label() -> None:
    reply = {"mask": "100", "episodic": [{"title": "Curry", "summary": "Tess: Bea loved the fish pie we made.", "when": None}]}
    [p] = LLMProcessor(ScriptedChatModel([reply])).process([utt("Bea loved the fish pie we made.")])
    assert [r.text() for r in p.records] == ["Curry: Bea loved the fish pie we made."]
    assert p.records[0].embed_text().startswith("Tess:")


@pytest.mark.parametrize(
    "text, phatic",
    [
        ("Good for Ravi!", True),  # "good for <anyone>": a verdict with a name in it
        ("Good on them.", True),
        ("Happy Burns Night, both of you!", True),  # a wish for a named occasion
        ("Happy birthday to my daughter Ada, who is six today!", False),  # ... with a fact of the speaker's
        ("Phew, I hope he's on the mend soon.", True),  # an interjection before a wish
        ("How thoughtful, congratulations on the new flat!", True),  # an exclamative opener
        ("Phew, the boiler passed its service.", False),  # an interjection before a fact
        ("How many rooms does the cottage have?", False),
        ("Good for the soil, apparently.", False),
    ],
)
def test_word_rules_read_the_class_not_the_phrase(text: str, phatic: bool) -> None:
    from memdesk.conversation.rules import is_phatic

    assert is_phatic(text, NAMES) is phatic
