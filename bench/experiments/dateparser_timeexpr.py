"""memdesk's time expressions (timeexpr.resolve) against dateparser's search_dates on the same sentences.

The cases are the resolution table of tests/timeexpr/test_timeexpr.py (our own sentences, each with the interval a person
would resolve it to from the reference time). A resolver is right on a case when it finds exactly one date and
that date lies in the expected interval. Also times both. The reason memdesk keeps its own resolver is in
docs/architecture.md.

    nice python bench/experiments/dateparser_timeexpr.py --out bench/results/experiments/dateparser.json
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.benchinfo import machine_info, measured_at, write_result  # noqa: E402
from memdesk.timeexpr.resolve import resolve  # noqa: E402
from tests.test_timeexpr import CASES, REF  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    from dateparser.search import search_dates

    ref = REF if isinstance(REF, datetime) else datetime.combine(REF, datetime.min.time())
    ours_right, theirs_right, wrong = 0, 0, []
    t_ours, t_theirs = [], []
    for text, _label, _gran, start, end, _approx in CASES:
        t = time.perf_counter()
        found = resolve(text, ref)
        t_ours.append(time.perf_counter() - t)
        ok_ours = len(found) == 1 and start <= found[0].start.date() < end
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = search_dates(text, languages=["en"],
                                  settings={"RELATIVE_BASE": ref.replace(tzinfo=None), "PREFER_DATES_FROM": "past"}) or []
        t_theirs.append(time.perf_counter() - t)
        ok_theirs = len(theirs) == 1 and start <= theirs[0][1].date() < end
        ours_right += ok_ours
        theirs_right += ok_theirs
        if not ok_theirs:
            wrong.append({"text": text, "dateparser": [(s, d.date().isoformat()) for s, d in theirs]})
    result = {
        "measured_at": measured_at(), "command": "bench/experiments/dateparser_timeexpr.py " + " ".join(sys.argv[1:]),
        "machine": machine_info(), "cases": len(CASES),
        "right": {"memdesk.timeexpr.resolve": ours_right, "dateparser.search_dates": theirs_right},
        "ms_p50": {"memdesk.timeexpr.resolve": round(1000 * statistics.median(t_ours), 3),
                   "dateparser.search_dates": round(1000 * statistics.median(t_theirs), 3)},
        "dateparser_misses": wrong,
    }
    write_result(args.out, result)


if __name__ == "__main__":
    main()
