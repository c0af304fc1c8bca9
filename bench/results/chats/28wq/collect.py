"""Numbers of a ``memdesk eval chats`` run beside the baseline's, ids only (no chat text): P@1, extractive answers,
records per message, small-talk records (their message ids), wrong dates (message id, date found, dates labelled),
supersession.

    python collect.py BASE_DIR NEW_DIR > set.json      (each holds summary.json and scopes.jsonl)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _one(run: Path) -> dict:
    o = json.loads((run / "summary.json").read_text())["overall"]
    scopes = [json.loads(line) for line in (run / "scopes.jsonl").read_text().splitlines() if line.strip()]
    return {
        "questions": o["questions"], "precision_at_1": o["precision_at_1"], "answer_accuracy": o["answer_accuracy"],
        "records": o["records"], "records_per_message": o["records_per_message"],
        "small_talk_records": o["small_talk_records"], "dates_checked": o["dates_checked"], "wrong_dates": o["wrong_dates"],
        "supersession": o["supersession"]["fraction"],
        "small_talk_ids": sorted(r["provenance"][0] for s in scopes for r in s["small_talk_records"]),
        "wrong_date_ids": sorted({(w["message_id"], w["found"], ",".join(w["expected"])) for s in scopes for w in s["wrong_dates"]}),
    }  # fmt: skip


def main() -> None:
    base, new = Path(sys.argv[1]), Path(sys.argv[2])
    print(json.dumps({"base": _one(base), "new": _one(new)}, indent=1))


if __name__ == "__main__":
    main()
