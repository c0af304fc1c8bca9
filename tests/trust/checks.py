"""What the isolation machine's rules (``test_isolation.py``, ``pending_rules.py``) share: the refusal check, the
tenants' marker words and the strategies for words and for how a call names its scope."""

from __future__ import annotations

from hypothesis import strategies as st

WORDS = st.sampled_from(["bees", "cello", "Lisbon", "wedding", "train", "cat", "garden", "bank", "June", "number"])
NAMING = st.sampled_from(["omit", "own", "other"])


class refused:
    """``with refused(Error): ...`` asserts the block raises ``Error`` (an AssertionError otherwise, which hypothesis
    reports and shrinks like any other failed property; pytest.raises' own failure is a BaseException)."""

    def __init__(self, error: type[Exception]) -> None:
        self.expected = error
        self.error: Exception | None = None

    def __enter__(self) -> "refused":
        return self

    def __exit__(self, kind, value, tb) -> bool:
        assert kind is not None, f"did not raise {self.expected.__name__}"
        if not issubclass(kind, self.expected):
            return False  # another error: let it through as the failure
        self.error = value
        return True


def marker(user: str) -> str:
    """A word only ``user``'s texts contain."""
    return f"mark{user}z"


def compound(user: str) -> str:
    """A statement of several facts, one of them carrying ``user``'s marker, that :func:`change` changes."""
    return f"I have a wooden dinghy called Puffin, a {marker(user)} 6hp outboard, and two oars."


def change(user: str) -> str:
    """A change of one fact of :func:`compound`: supersession narrows the compound record in place (a new version,
    ``narrowed_by``) and closes what changed in a record split off it (``split_from``), which holds the marker."""
    return "I sold the old 6hp outboard and bought a 9.9hp one."


class ChangeReading:
    """The served memory's processor: the rules (claims, so supersession narrows and splits) for the sentences of
    :func:`compound` and :func:`change`, one record per turn kept as said for every other message."""

    def __init__(self) -> None:
        from memdesk.conversation.base import RoutedExtraction
        from memdesk.conversation.extract import RuleExtractor
        from memdesk.conversation.raw import RawTurnProcessor
        from memdesk.conversation.router import RuleRouter

        self.rules, self.raw = RoutedExtraction(RuleRouter(), RuleExtractor()), RawTurnProcessor()

    @staticmethod
    def scripted(text: str) -> bool:
        return text.startswith("I have a wooden dinghy called Puffin") or text == change("")

    def process(self, utterances):
        out = []
        for u in utterances:  # one at a time, in order: each message's records are its own
            reader = self.rules if self.scripted(u.message.text().strip()) else self.raw
            out += reader.process([u])
        return out
