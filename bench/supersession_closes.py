"""What supersession closes on LoCoMo conversations: the records closed, and those holding a QA evidence turn.

Each chosen conversation is added session by session (as the evaluation harness adds it) to a fresh SQLite store
through ``Memory.open()`` (the default processor and embedder); then every record, current or closed, is read back
and counted: records, closed records, closed records whose provenance holds an evidence turn of a question of
categories 1-4 (a proxy for what a change of supersession could cost recall), and the attribute claims the records
carry. ``--show`` prints each closed record beside the record that closed it.

    python bench/supersession_closes.py --data DIR --conversations conv-26,conv-30 [--out RESULT.json] [--show]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from memdesk.conversation.locomo import parse_evidence_ids, parse_locomo
from memdesk.conversation.memory import Memory
from memdesk.records import Scope


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.environ.get("MEMDESK_DATA_DIR", "../shared/data"))
    ap.add_argument("--conversations", default="conv-26,conv-30")
    ap.add_argument("--out")
    ap.add_argument("--show", action="store_true")
    args = ap.parse_args(argv)
    raw = json.loads((Path(args.data) / "locomo" / "locomo_dev5.json").read_text(encoding="utf-8"))
    wanted = args.conversations.split(",")
    out: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory.open(database_url=f"sqlite:///{tmp}/closes.db")
        try:
            for conv in parse_locomo(raw, path="locomo_dev5.json", strict=False).conversations:
                if conv.id not in wanted:
                    continue
                started = time.perf_counter()
                scope = Scope(user_id=conv.id)
                sessions: dict[str, list] = defaultdict(list)
                for m in conv.messages:
                    sessions[conv.session_of.get(m.id or "", "")].append(m)
                for batch in sessions.values():
                    mem.add(batch, scope=scope)
                gold = {e for qa in conv.qa if qa.get("category") in (1, 2, 3, 4) for e in parse_evidence_ids(qa.get("evidence"))}
                records = mem.get_all(scope=scope, filters={"include_superseded": True})
                by_id = {r.id: r for r in records}
                closed = [r for r in records if r.superseded_by]
                if args.show:
                    for r in closed:
                        by = by_id.get(r.superseded_by or "")
                        print(f"{conv.id} closed {r.text()!r} <- {by.text() if by else '?'!r}")
                out[conv.id] = {
                    "records": len(records),
                    "closed": len(closed),
                    "closed_with_evidence": sum(bool(set(r.provenance) & gold) for r in closed),
                    "evidence_turns": len(gold),
                    "claims": dict(Counter(c["attribute"] for r in records for c in r.metadata.get("claims") or [])),
                    "seconds": round(time.perf_counter() - started, 1),
                }
        finally:
            mem.close()
    text = json.dumps(out, indent=2)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
