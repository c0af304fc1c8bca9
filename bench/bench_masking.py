"""Time of the text paths strangers can feed (issue 29): secret masking, a cut log line, time expressions.

Each is timed on hostile inputs of doubling length (a long URL of letters, many ``://``, many unclosed quotes, many
time expressions); linear work shows as a ratio of about 2 per doubling (the masker this replaced took 1.2 s, 5.8 s
and 21.7 s on 10k, 20k and 40k letters: quadratic).

    python bench/bench_masking.py [--out bench/results/masking.json]
"""

from __future__ import annotations

import argparse
import time
from datetime import datetime, timezone

from benchinfo import machine_info, measured_at, write_result

from memdesk.retrieval.question_time import parse_asked_at
from memdesk.text.redaction import mask_secrets, mask_shortened
from memdesk.timeexpr.resolve import resolve

INPUTS = {
    "url of letters": lambda n: "GET /healthz?x=" + "a" * n,
    "many ://": lambda n: "x://" * (n // 4),
    "unclosed quotes": lambda n: "password='" + "a" * n,
    "names without =": lambda n: "a-" * (n // 2),
}
REF = datetime(2024, 5, 1, tzinfo=timezone.utc)


def best_of(fn, text: str, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(text)
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="bench/results/masking.json")
    args = ap.parse_args()
    sizes = [125_000, 250_000, 500_000, 1_000_000]
    rows = []
    cases = [(f"mask_secrets: {k}", mask_secrets, f) for k, f in INPUTS.items()]
    cases += [("mask_shortened (a log line): url of letters", mask_shortened, INPUTS["url of letters"]),
              ("resolve time expressions: 'yesterday ' repeated", lambda t: resolve(t, REF, prefer="auto"),
               lambda n: "yesterday " * (n // 10)),
              ("parse_asked_at (question_time)", parse_asked_at, lambda n: "30 May 2023 " + "last week " * (n // 10))]  # fmt: skip
    for name, fn, make in cases:
        seconds = [best_of(fn, make(n)) for n in sizes]
        ratios = [round(b / a, 2) if a > 0 else None for a, b in zip(seconds, seconds[1:])]
        rows.append({"case": name, "chars": sizes, "seconds": [round(s, 5) for s in seconds], "ratio_per_doubling": ratios})
        print(rows[-1], flush=True)
    write_result(args.out, {"measured_at": measured_at(), "machine": machine_info(),
                            "command": "python bench/bench_masking.py", "cases": rows})  # fmt: skip


if __name__ == "__main__":
    main()
