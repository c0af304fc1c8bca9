"""No module of the package over 400 lines (issue 33: a module says one thing; split one that grows past it)."""

from pathlib import Path

import memdesk

LIMIT = 400


def test_no_module_is_over_the_limit():
    root = Path(memdesk.__file__).parent
    long = {str(p.relative_to(root)): n for p in root.rglob("*.py") if (n := len(p.read_text(encoding="utf-8").splitlines())) > LIMIT}
    assert not long, f"modules over {LIMIT} lines: {long}"
