"""docs/architecture.md names every module of the package, and every module it names exists."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "memdesk"
DOC = REPO / "docs" / "architecture.md"


def _table_modules(text: str) -> set[str]:
    """Module paths in the first cell of the module-by-module table."""
    section = text.split("## Module by module", 1)[1]
    cells = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    return {m for cell in cells for m in re.findall(r"`([\w/]+\.py)`", cell)}


def test_every_module_has_its_line() -> None:
    modules = {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")}
    listed = _table_modules(DOC.read_text())
    assert sorted(modules - listed) == [], "modules missing from docs/architecture.md"
    assert sorted(listed - modules) == [], "docs/architecture.md lists modules that do not exist"


def test_the_paths_the_text_names_exist() -> None:
    text = DOC.read_text()
    named = set(re.findall(r"`((?:[\w.]+/)+[\w.]+\.py)`", text))
    missing = [n for n in sorted(named) if not (PACKAGE / n).exists() and not (REPO / n).exists()]
    assert missing == []
