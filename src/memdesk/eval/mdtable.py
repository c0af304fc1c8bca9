"""Markdown tables for the evaluation reports (``report.md`` of ``memdesk eval locomo|longmemeval|chats``): one
renderer and one way to write a number in a cell."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def fmt(x: Any, nd: int = 3) -> str:
    """A cell: ``–`` for None, a float with ``nd`` decimals, anything else as ``str``."""
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.{nd}f}"
    return str(x)


def table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a Markdown table (header, rule, one line a row) and a blank line after it."""
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head), *("| " + " | ".join(r) + " |" for r in rows), ""]
