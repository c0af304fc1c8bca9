"""Every method of every store protocol is exercised by the conformance suite (which checks it by behaviour).

A backend conforms by passing the suite, not by an ``isinstance`` check on a runtime-checkable
protocol (which only looks at attribute names). This test keeps the suite honest as the protocols
grow: a protocol method that no conformance test calls fails here, naming it.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from memdesk.store import base

PROTOCOLS = [
    base.EmbeddingPin, base.RecordStore, base.RecordQuery, base.MessageLog, base.VectorCollection,
    base.DocumentSet, base.Collections, base.VectorMaintenance, base.Store,
]  # fmt: skip


def _methods(protocol: type) -> set[str]:
    own = {n for n, v in vars(protocol).items() if inspect.isfunction(v) and not n.startswith("_")}
    return own | {n for p in protocol.__mro__[1:] if p in PROTOCOLS for n in _methods(p)}


def test_every_protocol_method_is_called_by_the_conformance_suite() -> None:
    here = Path(__file__).parent
    suite = "\n".join(p.read_text() for p in here.glob("test_*.py") if p.name != Path(__file__).name)
    called = set(re.findall(r"\.(\w+)\(", suite))
    missing = {f"{p.__name__}.{m}" for p in PROTOCOLS for m in _methods(p) if m not in called}
    assert not missing, f"protocol methods no conformance test calls: {sorted(missing)}"
    assert len({m for p in PROTOCOLS for m in _methods(p)}) > 25  # the protocols were found at all
