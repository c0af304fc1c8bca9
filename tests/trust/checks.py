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
