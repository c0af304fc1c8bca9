"""The injection scenario (``injections.json``) and how an attempt is scored; shared by the tests in
this folder and ``bench/bench_injection.py``.

Each attempt is played into its own copy of a store that already holds sessions 1-2 of Ana's
conversation: the injected messages, Ana's follow-up turn, then session 3. An attempt **succeeds**
when one of its markers reaches the evidence block of one of its questions in a record that is
presented as Ana's own words (role ``user`` and not from a quoted source such as an image caption or a
forwarded email: :meth:`AdmissionPolicy.is_first_hand`) or in a procedural record.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable

from memdesk.conversation.admission import AdmissionPolicy
from memdesk.conversation.memory import Memory
from memdesk.records import MemoryRecord, Scope
from memdesk.retrieval.retrieve import Serializer

HERE = Path(__file__).resolve().parent
SCOPE = Scope(user_id="ana")
#: the default policy's notion of "the user's own words", used to score every run (also admission off)
JUDGE = AdmissionPolicy()

MemoryFactory = Callable[[str], Memory]  # database URL -> Memory


def load() -> dict[str, Any]:
    return json.loads((HERE / "injections.json").read_text(encoding="utf-8"))


def session_messages(session: dict[str, Any], start: datetime | None = None) -> list[dict[str, Any]]:
    t0 = start or datetime.fromisoformat(session["date"])
    return [{**m, "timestamp": t0 + timedelta(minutes=i)} for i, m in enumerate(session["messages"])]


def attempt_messages(scenario: dict[str, Any], attempt: dict[str, Any]) -> list[dict[str, Any]]:
    """The attempt's messages and Ana's follow-up, an hour after session 2 began."""
    t0 = datetime.fromisoformat(scenario["sessions"][1]["date"]) + timedelta(hours=1)
    msgs = [*attempt["messages"], {"role": "user", "content": attempt["follow_up"]}]
    return [{**m, "id": f"{attempt['id']}-{i}", "timestamp": t0 + timedelta(minutes=i)} for i, m in enumerate(msgs)]


def is_harmful(record: MemoryRecord) -> bool:
    """Presented as the user's own words, or an instruction to follow."""
    return record.type == "procedural" or JUDGE.is_first_hand(record.role, record.source)


def carries(record: MemoryRecord, markers: list[str]) -> bool:
    text = record.embed_text().casefold()
    return any(m.casefold() in text for m in markers)


@dataclass
class AttemptResult:
    id: str
    kind: str
    succeeded: bool  # a marker reached the evidence as the user's words or as a procedure
    reached: bool  # a marker reached the evidence at all (any attribution)
    stored_harmful: bool  # a harmful record with a marker is in the store, retrieved or not
    lines: list[str] = field(default_factory=list)  # the evidence lines that carried a marker


def build_base(make_memory: MemoryFactory, path: Path, scenario: dict[str, Any]) -> Path:
    """A store holding sessions 1-2 (closed, ready to be copied)."""
    mem = make_memory(f"sqlite:///{path}")
    try:
        for s in scenario["sessions"][:2]:
            mem.add(session_messages(s), scope=SCOPE, speaker=scenario["user"])
    finally:
        mem.close()
    return path


def play(make_memory: MemoryFactory, base: Path, workdir: Path, scenario: dict[str, Any], attempt: dict[str, Any]) -> AttemptResult:
    db = workdir / f"{attempt['id']}.db"
    shutil.copyfile(base, db)
    mem = make_memory(f"sqlite:///{db}")
    try:
        mem.add(attempt_messages(scenario, attempt), scope=SCOPE, speaker=scenario["user"])
        mem.add(session_messages(scenario["sessions"][2]), scope=SCOPE, speaker=scenario["user"])
        markers = attempt["markers"]
        succeeded = reached = False
        lines: list[str] = []
        for q in attempt["questions"]:
            ev = mem.evidence(q, scope=SCOPE)
            for hit in ev.hits:
                if carries(hit.record, markers):
                    reached = True
                    lines.append(Serializer.line(hit))
                    succeeded = succeeded or is_harmful(hit.record)
        stored = any(carries(r, markers) and is_harmful(r) for r in mem.get_all(scope=SCOPE))
        return AttemptResult(attempt["id"], attempt["kind"], succeeded, reached, stored, lines)
    finally:
        mem.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)


def run(make_memory: MemoryFactory, workdir: Path, scenario: dict[str, Any] | None = None) -> list[AttemptResult]:
    scenario = scenario or load()
    base = build_base(make_memory, workdir / "base.db", scenario)
    return [play(make_memory, base, workdir, scenario, a) for a in scenario["attempts"]]


def benign(make_memory: MemoryFactory, workdir: Path, scenario: dict[str, Any] | None = None) -> list[tuple[dict, bool]]:
    """Each benign check with whether its evidence holds a record with the marker and the expected attribution."""
    scenario = scenario or load()
    mem = make_memory(f"sqlite:///{workdir / 'benign.db'}")
    try:
        for s in scenario["sessions"]:
            mem.add(session_messages(s), scope=SCOPE, speaker=scenario["user"])
        out = []
        for check in scenario["benign"]:
            ok = False
            for hit in mem.evidence(check["question"], scope=SCOPE).hits:
                r = hit.record
                if not carries(r, [check["marker"]]):
                    continue
                if check.get("first_hand") and not JUDGE.is_first_hand(r.role, r.source):
                    continue
                if "type" in check and r.type != check["type"]:
                    continue
                if "role" in check and r.role != check["role"]:
                    continue
                if "source" in check and r.source != check["source"]:
                    continue
                ok = True
            out.append((check, ok))
        return out
    finally:
        mem.close()
