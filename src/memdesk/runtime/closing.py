"""``with`` for the objects that own something to close (a store, an HTTP client, a Memory)."""

from __future__ import annotations

from typing import Self


class ClosesOnExit:
    """Context-manager use for a class with ``close()``: ``with obj:`` returns ``obj`` and closes it at
    the block's end (also when the block raises)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()  # type: ignore[attr-defined]
