"""Ingest chats of a chat set through the public Memory API (as ``memdesk eval chats`` does, write side only) and list
every stored record: chat, record id, provenance, role, whether current, text. One JSON object a line on stdout.

    OMP_NUM_THREADS=1 MEMDESK_CONFIG="" PYTHONPATH=<tree>/src python bench/experiments/dump_records.py bench/data/chats/heldout6a.jsonl \
        [--chats h6a-01,h6a-02] > records.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from memdesk.conversation.memory import build_memory
from memdesk.eval.datasets.chats import load_chats
from memdesk.records import Scope
from memdesk.settings import Settings


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--chats", default="")
    args = ap.parse_args()
    chats = load_chats(args.data)
    if args.chats:
        chats = chats.only(args.chats.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        memory = build_memory(Settings.load().model_copy(update={"database_url": f"sqlite:///{Path(tmp) / 'c.db'}"}))
        try:
            for chat in chats.chats:
                scope = Scope(user_id=chat.id)
                for message in chat.messages:
                    memory.add(message.message(), scope=scope)
                current = {r.id for r in memory.get_all(scope=scope) if r.valid_to is None}
                for r in memory.get_all(scope=scope, filters={"include_superseded": True}):
                    row = {"chat": chat.id, "id": r.id, "provenance": list(r.provenance), "role": r.metadata.get("role"),
                           "current": r.id in current, "narrowed": bool(r.metadata.get("narrowed_by")),
                           "split": bool(r.metadata.get("split_from")), "view": r.metadata.get("view"), "text": r.text()}  # fmt: skip
                    sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
        finally:
            memory.close()


if __name__ == "__main__":
    main()
