"""A large scope's first write after a cold start, then ``close()`` (which writes its graph file), then a
new store's cold start on it: run on a COPY of a ``bench_ann.py --work`` folder (it adds one record).

    python bench/bench_ann_close.py WORK_COPY      # prints one JSON line
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from memdesk.records import MemoryType, SemanticRecord  # noqa: E402 - after the sys.path line
from memdesk.store import SQLiteStore  # noqa: E402
from bench.bench_ann import SCOPE  # noqa: E402


def main() -> None:
    work = Path(sys.argv[1])
    q, mt, out = np.load(work / "queries.npy"), MemoryType.SEMANTIC, {}
    t0 = time.perf_counter()
    s = SQLiteStore(work / "ann.db")
    s.search(q[0], SCOPE, mt, 10)
    out["open_first_search_s"], out["cold"] = round(time.perf_counter() - t0, 2), s._search.ann.cold
    t0 = time.perf_counter()
    s.write([SemanticRecord(id="close-test", scope=SCOPE, fact="close test")], q[1:2])
    out["first_write_s"] = round(time.perf_counter() - t0, 2)
    t0 = time.perf_counter()
    s.close()
    out["close_s"] = round(time.perf_counter() - t0, 2)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    t0 = time.perf_counter()
    s = SQLiteStore(work / "ann.db")
    hits = s.search(q[1], SCOPE, mt, 10)
    out["reopen_first_search_s"], out["reopen_cold"] = round(time.perf_counter() - t0, 2), s._search.ann.cold
    out["reopen_top_hit_is_the_new_record"] = bool(hits) and hits[0].record.id == "close-test"
    s.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
