"""A writer that is SIGKILLed at random moments, and the checks after each kill; shared by
``test_crash_safety.py`` (small, for CI) and ``bench/bench_crash.py`` (the long run).

The writer (``python tests/admission/crashing.py DB_URL``) adds a fixed, seeded conversation in batches of
1-3 messages through :class:`~memdesk.conversation.memory.Memory` (rule processor, hashing embedder, real
SQLite) and prints each message id on stdout once its ``add`` has returned: that line is the
acknowledgment. Killed, it is started again and resumes: re-adding a logged message stores nothing twice.
After every kill the database must pass ``PRAGMA integrity_check``, hold every acknowledged message, and
hold no record whose message is missing; at the end it must hold exactly the records of an uninterrupted
run of the same conversation.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCOPE_USER = "crash"
_PLACES = ["Lisbon", "Porto", "Madeira", "Coimbra", "Braga", "Faro", "Sintra", "Évora"]
_TEMPLATES = [
    "I went hiking near {place} yesterday with my sister.",
    "My favorite bakery in {place} sells the best custard tarts.",
    "Here's how I pack for {place}: first roll the clothes, then fill the shoes with socks.",
    "We are planning to visit {place} next month for a concert.",
    "Did you ever try the fish market in {place}?",
    "I work three days a week at the clinic in {place} now.",
]


def conversation(n: int, seed: int = 7) -> list[dict]:
    """``n`` messages of a two-person chat, deterministic for a seed."""
    rng = random.Random(seed)
    t0 = datetime(2025, 1, 6, 9, 0, tzinfo=timezone.utc)
    out = []
    for i in range(n):
        text = rng.choice(_TEMPLATES).format(place=rng.choice(_PLACES)) + f" (note {i})"
        out.append({"id": f"c{i:05d}", "speaker": "Ana" if i % 2 == 0 else "Ben", "content": text, "timestamp": t0 + timedelta(minutes=7 * i)})
    return out


def batches(messages: list[dict], seed: int = 11) -> list[list[dict]]:
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(messages):
        k = rng.randint(1, 3)
        out.append(messages[i : i + k])
        i += k
    return out


def open_memory(url: str):
    from memdesk.conversation.base import RoutedExtraction
    from memdesk.conversation.extract import RuleExtractor
    from memdesk.conversation.memory import Memory
    from memdesk.conversation.router import RuleRouter
    from memdesk.embed import HashingEmbedder
    from memdesk.store import open_store

    return Memory(open_store(url, busy_timeout_ms=30_000), HashingEmbedder(128), RoutedExtraction(RuleRouter(), RuleExtractor()))


def write_all(url: str, n: int, out=sys.stdout) -> None:
    """Add the conversation, printing each id once its add returned (the acknowledgment)."""
    from memdesk.records import Scope

    mem = open_memory(url)
    scope = Scope(user_id=SCOPE_USER)
    print("ready", file=out, flush=True)
    for batch in batches(conversation(n)):
        mem.add(batch, scope=scope)
        for m in batch:
            print(m["id"], file=out, flush=True)
    mem.close()
    print("done", file=out, flush=True)


@dataclass
class CrashReport:
    kills: int = 0
    restarts: int = 0
    acknowledged: int = 0
    problems: list[str] = field(default_factory=list)
    final_records: int = 0
    reference_records: int = 0
    seconds: float = 0.0


def check(db: Path, acknowledged: set[str]) -> list[str]:
    """Integrity, every acknowledged message logged, no record without its message."""
    problems = []
    con = sqlite3.connect(db)
    try:
        ok = con.execute("PRAGMA integrity_check").fetchone()[0]
        if ok != "ok":
            problems.append(f"integrity_check: {ok}")
        logged = {r[0] for r in con.execute("SELECT id FROM messages")}
        lost = acknowledged - logged
        if lost:
            problems.append(f"{len(lost)} acknowledged messages lost, e.g. {sorted(lost)[:3]}")
    finally:
        con.close()
    return problems + orphans(db, logged)


def records_of(db: Path) -> list[tuple[str, str, str]]:
    """(first provenance id, type, text) of every record, sorted: what a run stored."""
    from memdesk.records import Scope

    mem = open_memory(f"sqlite:///{db}")
    try:
        return sorted((r.provenance[0], r.type, r.embed_text()) for r in mem.get_all(scope=Scope(user_id=SCOPE_USER)))
    finally:
        mem.close()


def orphans(db: Path, logged: set[str]) -> list[str]:
    stray = [r for r in records_of(db) if r[0] not in logged]
    return [f"{len(stray)} records whose message is not logged"] if stray else []


def run(workdir: Path, *, messages: int, kills: int, max_delay_s: float, seed: int = 0) -> CrashReport:
    """Kill the writer ``kills`` times at random moments, restarting it each time, then let it finish.

    Each kill comes after a seeded number of acknowledgments of that start (spread so that every kill
    finds work left) plus a random delay of up to ``max_delay_s`` into the following ``add``."""
    rng = random.Random(seed)
    db = workdir / "crash.db"
    url = f"sqlite:///{db}"
    report = CrashReport()
    acknowledged: set[str] = set()
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    while True:
        proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), url, str(messages)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            proc.kill()
            raise RuntimeError(f"writer did not start: {proc.communicate()[1][-2000:]}")
        report.restarts += 1
        seen: list[str] = []
        if report.kills < kills:
            # Kill after a seeded number of acknowledgments (so a fast machine cannot finish before
            # the kills are spent), then a random delay into the next add.
            left = messages - len(acknowledged)
            target = rng.randint(0, max(0, left // (kills - report.kills + 1) - 1))
            while len(seen) < target:
                line = proc.stdout.readline()
                if not line:
                    break
                seen.append(line.strip())
            time.sleep(rng.uniform(0, max_delay_s))
            if proc.poll() is None:  # still writing: kill it wherever it is
                proc.send_signal(signal.SIGKILL)
                report.kills += 1
        out, err = proc.communicate()
        lines = seen + out.split()
        acknowledged.update(x for x in lines if x.startswith("c"))
        if proc.returncode not in (0, -signal.SIGKILL):
            report.problems.append(f"writer failed ({proc.returncode}): {err[-500:]}")
            break
        report.problems.extend(check(db, acknowledged))
        if "done" in lines:
            break
    report.acknowledged = len(acknowledged)
    if len(acknowledged) != messages:
        report.problems.append(f"only {len(acknowledged)} of {messages} messages acknowledged at the end")
    final = records_of(db)
    reference_db = workdir / "reference.db"
    with open(os.devnull, "w") as sink:
        write_all(f"sqlite:///{reference_db}", messages, out=sink)
    reference = records_of(reference_db)
    report.final_records, report.reference_records = len(final), len(reference)
    if final != reference:
        report.problems.append(f"final records differ from an uninterrupted run: {len(final)} vs {len(reference)}")
    report.seconds = round(time.perf_counter() - start, 1)
    return report


if __name__ == "__main__":
    write_all(sys.argv[1], int(sys.argv[2]))
