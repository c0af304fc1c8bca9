"""How long the memory browser's pages take on a large scope: the scope listing (every memory with its metadata
table and source words), the listing with a search, and one memory's page.

A scope of ``--messages`` synthetic messages (our own sentences) is added with the offline rules processor and
the hashing embedder; each page is fetched ``--repeat`` times in process (FastAPI's test client, no socket) and the
median is reported with the page's size.

    OMP_NUM_THREADS=1 python bench/bench_ui_pages.py --messages 500 --out bench/results/ui_pages.json
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from benchinfo import machine_info, measured_at, write_result  # noqa: E402

from memdesk.conversation.memory import Memory  # noqa: E402
from memdesk.embed import HashingEmbedder  # noqa: E402
from memdesk.factory import build_processor  # noqa: E402
from memdesk.records import Scope  # noqa: E402
from memdesk.server import create_app  # noqa: E402
from memdesk.settings import Settings  # noqa: E402
from memdesk.store import open_store  # noqa: E402

PLACES = ["garden", "cello lesson", "train station", "bakery", "museum", "river", "market", "library"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    from fastapi.testclient import TestClient

    with tempfile.TemporaryDirectory() as folder:
        memory = Memory(open_store(f"sqlite:///{folder}/ui.db"), HashingEmbedder(256), build_processor(Settings(processor="rules")))
        ana = Scope(user_id="ana")
        memory.add([
            {"content": f"On day {i} I went to the {PLACES[i % 8]} with my friend number {i % 13}, and it was lovely.",
             "speaker": "Ana", "metadata": {"day": i, "tags": [PLACES[i % 8], "outing"]}}
            for i in range(args.messages)
        ], scope=ana)  # fmt: skip
        client = TestClient(create_app(memory, mcp=False, allowed_hosts=["*"]))
        record_id = memory.get_all(scope=ana)[0].id
        pages = {
            "scope": ("/ui/scope", {"user_id": "ana"}),
            "scope_with_search": ("/ui/scope", {"user_id": "ana", "q": "When did Ana go to the museum?"}),
            "memory": (f"/ui/memory/{record_id}", {"user_id": "ana"}),
        }
        timings = {}
        for name, (path, params) in pages.items():
            seconds = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                response = client.get(path, params=params)
                seconds.append(time.perf_counter() - start)
                assert response.status_code == 200, response.text[:200]
            timings[name] = {"median_ms": round(statistics.median(seconds) * 1000, 1), "kib": round(len(response.content) / 1024)}
        result = {
            "measured_at": measured_at(), "messages": args.messages, "records": len(memory.get_all(scope=ana)),
            "repeat": args.repeat, "pages": timings, "machine": machine_info(),
        }  # fmt: skip
        memory.close()
    write_result(args.out, result)


if __name__ == "__main__":
    main()
