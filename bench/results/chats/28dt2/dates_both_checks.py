"""Wrong dates of a chat set under both checks: the chats are written once (``ChatEval.write_chat``, the default
processor, a fresh SQLite store) and every chat's records are judged by the current check
(``memdesk.eval.chat_checks``) and by the old one (that module at f26aeaf, before session 6's conventions; pass its
file with ``--old``). Prints each wrong date of both and the two counts.

    git show f26aeaf:src/memdesk/eval/chat_checks.py > /tmp/old_chat_checks.py
    PYTHONPATH=src MEMDESK_CONFIG="" python bench/results/chats/28dt2/dates_both_checks.py \
        bench/data/chats/heldout4a.jsonl --old /tmp/old_chat_checks.py --out RESULT.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile

from memdesk.conversation.memory import Memory
from memdesk.eval import chat_checks
from memdesk.eval.chat_run import ChatEval, _every_record
from memdesk.eval.datasets.chats import load_chats


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--old", required=True)
    ap.add_argument("--out")
    args = ap.parse_args()
    # loaded as a module of memdesk.eval, so its relative imports are those of the current tree
    spec = importlib.util.spec_from_file_location("memdesk.eval._old_chat_checks", args.old)
    old = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[spec.name] = old  # type: ignore[union-attr]
    spec.loader.exec_module(old)  # type: ignore[union-attr]
    chats = load_chats(args.data)
    totals = {"new": [0, 0], "old": [0, 0]}
    lines: dict[str, list[str]] = {"new": [], "old": []}
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory.open(database_url=f"sqlite:///{tmp}/chats.db")
        try:
            ev = ChatEval(mem)
            for chat in chats.chats:
                ev.write_chat(chat)
                records = _every_record(mem, ev.scope_of(chat))
                for name, mod in (("new", chat_checks), ("old", old)):
                    checked, wrong = mod.wrong_date_records(records, chat)
                    totals[name][0] += len(wrong)
                    totals[name][1] += checked
                    lines[name] += [f"{w.message_id} found {w.found} ({w.where}), expected {w.expected}" for w in wrong]
        finally:
            mem.close()
    for name in ("new", "old"):
        print(f"{name} check: wrong dates {totals[name][0]}/{totals[name][1]}")
        for line in lines[name]:
            print("  ", line)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"data": args.data, "totals": totals, "wrong": lines}, f, indent=1)


if __name__ == "__main__":
    main()
