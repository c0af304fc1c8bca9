"""Supersession probe: ingest a chat set message by message as ``memdesk eval chats`` does (rules processor, in-memory
SQLite) and, after each message with supersession labels, print every ``closes``/``keeps`` item not satisfied with the
records it matched, what closed each and its claims; then each narrowed record with the record that narrowed it.
Output holds benchmark text: keep it under /tmp, never commit it.

    OMP_NUM_THREADS=1 MEMDESK_CONFIG="" PYTHONPATH=src python bench/experiments/supersession_probe.py \
        bench/data/chats/heldout5a.jsonl [chat-id,chat-id] [--all] > /tmp/probe.txt

Its counts of unsatisfied items equal the harness's (checked on heldout5b, 4b, 3a, 3b, 2 against main); about 15 s a
set against 1-5 min for the whole harness.
"""
import sys
from memdesk.conversation.memory import build_memory
from memdesk.settings import Settings
from memdesk.eval.datasets.chats import load_chats
from memdesk.eval.chat_run import ChatEval, _every_record, _current_ids
from memdesk.eval.chat_checks import supersession_checks

path, ids = sys.argv[1], set(sys.argv[2].split(",")) if len(sys.argv) > 2 and sys.argv[2] else None
show_all = "--all" in sys.argv
chats = load_chats(path)
mem = build_memory(Settings().model_copy(update={"database_url": "sqlite:///:memory:"}))
for chat in chats.chats:
    if ids and chat.id not in ids: continue
    scope = ChatEval.scope_of(chat)
    for m in chat.messages:
        mem.add(m.message(), scope=scope)
        if any(l.message_id == m.id for l in chat.labels.supersession):
            recs = _every_record(mem, scope); cur = _current_ids(mem, scope)
            byid = {r.id: r for r in recs}
            for c in supersession_checks(chat, m, recs, cur):
                if c.ok and not show_all: continue
                print(f"\n## {'OK' if c.ok else 'FAIL'} {c.expect} after {m.id} [{m.content[:200]}] from {c.from_message} '{c.contains}'")
                for r in recs:
                    if c.from_message in r.provenance and c.contains.lower() in r.text().lower():
                        by = byid.get(r.superseded_by)
                        print(f"   {'CUR' if r.id in cur else 'CLOSED'} {r.memory_type.value} {r.text()[:200]!r} claims={[ (x['attribute'],x.get('op'),x.get('slot'),x.get('value')) for x in r.metadata.get('claims') or []]} nb={r.metadata.get('narrowed_by')}")
                        if by is not None:
                            print(f"      BY {by.text()[:200]!r} claims={[ (x['attribute'],x.get('op'),x.get('slot'),x.get('value')) for x in by.metadata.get('claims') or []]}")
    for r in _every_record(mem, scope):
        if r.metadata.get("narrowed_by"):
            by = {x.id: x for x in _every_record(mem, scope)}.get(r.metadata["narrowed_by"]); print(f"   NARROWED {r.provenance[0]} -> {r.text()[:220]!r}  BY {by.text()[:120] if by else None!r}")
