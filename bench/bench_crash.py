"""Crash benchmark: a writer SIGKILLed at random moments, many times (the CI test in
``tests/admission/test_crash_safety.py`` runs the same harness small).

The writer adds a seeded two-person conversation through ``Memory.add`` (rule processor, hashing embedder, real
SQLite, batches of 1-3 messages) and acknowledges each message on stdout once its add returned. It is killed after a
seeded number of acknowledgments of that start plus a random delay of up to ``--max-delay`` seconds into the next
add, restarted, and killed again, ``--kills`` times, then allowed to finish. After every kill: ``PRAGMA integrity_check``, every acknowledged message in the raw log, no record without
its message; at the end the records must equal those of an uninterrupted run of the same conversation.

    python bench/bench_crash.py [--messages 1500] [--kills 120] [--max-delay 0.5] [--out bench/results/crash.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # for tests.admission.crashing (the harness the CI test uses)
sys.path.insert(0, str(REPO / "bench"))

from benchinfo import machine_info, measured_at, write_result  # noqa: E402 - after the sys.path lines

from tests.admission import crashing  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=1500)
    ap.add_argument("--kills", type=int, default=120)
    ap.add_argument("--max-delay", type=float, default=0.5, help="at most this many seconds after the seeded acknowledgment each kill waits for")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "crash.json"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="admit-crash-") as d:
        report = crashing.run(Path(d), messages=args.messages, kills=args.kills, max_delay_s=args.max_delay, seed=args.seed)
    result = {
        "what": "writer SIGKILLed at random moments during Memory.add; checks after every kill and at the end",
        "command": f"python bench/bench_crash.py --messages {args.messages} --kills {args.kills} --max-delay {args.max_delay} --seed {args.seed}",
        "measured_at": measured_at(),
        "machine": machine_info(),
        **asdict(report),
        "passed": not report.problems,
    }
    write_result(args.out, result, echo=False)
    print(f"{report.kills} kills, {report.acknowledged} messages acknowledged, problems: {report.problems or 'none'}; "
          f"{report.final_records} records (uninterrupted run: {report.reference_records})")
    sys.exit(0 if not report.problems else 1)


if __name__ == "__main__":
    main()
