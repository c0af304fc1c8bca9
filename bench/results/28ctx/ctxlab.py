"""Write-side embedding variants screened through the whole fused read path, without re-ingesting.

A store ingested once by ``bench/chat_replay.py`` (``<st>/chats.db``) is copied; each record's vector (and, for
variants that add words, its ``embed_context``, which the BM25 index reads) is rewritten by a variant; then every
question is asked as ``chat_replay.py`` asks it (``Memory.search`` + ``Memory.answer``: the fused path, the
answerer). Prints P@1 / answers overall and by scope size and writes per-question rows.

    PYTHONPATH=$WT/src python bench/results/28ctx/ctxlab.py bench/data/chats/heldout9b.jsonl /tmp/28ctx/st-heldout9b VARIANT [--w 0.5]

Variants (names combine: a variant does each part its name contains): ``base`` (no change: reproduces the replay),
``mix-split`` (a user record of a message stored as 2+ records: own vector + w x the vector of its whole source
message "Speaker: content"), ``mix-short`` (as mix-split, only records of at most 4 content words), ``mix-all``
(every user record), ``topic`` (a user record replying to another speaker's question: own vector + w x the vector of
the question's content words), ``topictext`` (those words put before ``embed_context``: vector and BM25; what
``conversation/asked.py`` does), ``qtext`` (the whole question "X asked: ..." put there instead), ``first`` (a split
part not holding its message's first sentence: that sentence's first 6 content words put there), ``anyrole``
(assistant records too), ``short`` (the topic only on records of at most 6 content words). The stores must be main's (``chat_replay.py`` at 8f865f2): the variants model a write-side
change on top of what main stored.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from chat_replay import BUCKETS, ingest, open_work

from memdesk.conversation.rules import content_words
from memdesk.eval import metrics as M
from memdesk.eval.chat_run import ChatEval, records_bucket
from memdesk.eval.datasets.chats import load_chats
from memdesk.store.codec import record_from_json

TABLES = {"episodic": "episodic_memory", "semantic": "semantic_memory", "procedural": "procedural_memory"}


def norm(v: np.ndarray) -> np.ndarray:
    return (v / max(float(np.linalg.norm(v)), 1e-9)).astype(np.float32)


def rewrite(db: Path, variant: str, w: float, embedder) -> int:
    conn = sqlite3.connect(db)
    msgs: dict[tuple[str, str], tuple] = {}
    order: dict[str, list[tuple]] = defaultdict(list)
    for scope, mid, speaker, role, content, seq in conn.execute(
        "SELECT scope_key, id, speaker, role, content, seq FROM messages ORDER BY seq"
    ):
        msgs[(scope, mid)] = (speaker, role, content, len(order[scope]))
        order[scope].append((mid, speaker, role, content))
    rows = []
    for mt, table in TABLES.items():
        for rid, scope, payload, blob in conn.execute(f"SELECT id, scope_key, record, vector FROM {table}"):
            rows.append((table, rid, scope, record_from_json(mt, payload), np.frombuffer(blob, dtype=np.float32).copy()))
    per_msg = Counter((r[2], r[3].provenance[0]) for r in rows if r[3].provenance)
    plans: dict[int, tuple[str | None, list[str]]] = {}
    for i, (table, rid, scope, rec, vec) in enumerate(rows):
        if not rec.provenance or (rec.role != "user" and "anyrole" not in variant):
            continue
        key = (scope, rec.provenance[0])
        if key not in msgs:
            continue
        speaker, role, content, idx = msgs[key]
        mix, prefix = [], None
        short = len(content_words(rec.text(), [speaker] if speaker else [])) <= 4
        if "mix-all" in variant or ("mix-split" in variant and per_msg[key] >= 2) or ("mix-short" in variant and per_msg[key] >= 2 and short):
            mix.append(f"{speaker}: {content}" if speaker else content)
        if "first" in variant and per_msg[key] >= 2:
            first = re.split(r"(?<=[.!?])\s+", content.strip())[0]
            if first and first.rstrip(".!?") not in rec.text():
                head = content_words(first, [speaker] if speaker else [])[:6]
                if head:
                    prefix = " ".join(head) + ":"
        if ("topic" in variant or "qtext" in variant) and idx > 0 and ("short" not in variant or len(content_words(rec.text(), [speaker] if speaker else [])) <= 6):
            _, psp, _, pcontent = order[scope][idx - 1]
            if psp != speaker and "?" in pcontent:
                q = pcontent[: pcontent.rfind("?") + 1]
                start = max(q.rfind(". ", 0, len(q) - 1), q.rfind("! ", 0, len(q) - 1), q.rfind("? ", 0, len(q) - 1))
                q = q[start + 1:].strip()
                topic = " ".join(content_words(q, [s for s in (speaker, psp) if s]))
                if "qtext" in variant:
                    prefix = f"{psp} asked: {q}"
                elif topic and "topictext" in variant:
                    prefix = f"{topic}: {prefix}" if prefix else f"{topic}:"
                elif topic:
                    mix.append(topic)
        if mix or prefix:
            plans[i] = (prefix, mix)
    todo = sorted(plans)
    texts = []
    for i in todo:
        prefix, mix = plans[i]
        rec = rows[i][3]
        if prefix:
            old = rec.metadata.get("embed_context")
            rec.metadata["embed_context"] = f"{prefix} {old}".strip() if isinstance(old, str) else prefix
            texts.append(rec.embed_text())
        texts.extend(mix)
    vecs = embedder.embed(texts) if texts else np.zeros((0, 1), np.float32)
    k = 0
    for i in todo:
        table, rid, scope, rec, vec = rows[i]
        prefix, mix = plans[i]
        v = vec.astype(np.float32)
        if prefix:
            v = vecs[k].astype(np.float32)
            k += 1
            payload = json.loads(conn.execute(f"SELECT record FROM {table} WHERE id = ?", (rid,)).fetchone()[0])
            payload["metadata"]["embed_context"] = rec.metadata["embed_context"]
            conn.execute(f"UPDATE {table} SET record = ? WHERE id = ?", (json.dumps(payload), rid))
        for _ in mix:
            v = v + w * vecs[k]
            k += 1
        conn.execute(f"UPDATE {table} SET vector = ? WHERE id = ?", (norm(v).tobytes(), rid))
    conn.commit()
    conn.close()
    return len(todo)


def main() -> None:
    data, st, variant = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    w = float(sys.argv[sys.argv.index("--w") + 1]) if "--w" in sys.argv else 0.5
    work = Path(f"{st}-{variant}-{w}")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(st, work)
    chats = load_chats(data)
    memory = open_work(work)
    changed = rewrite(work / "chats.db", variant, w, memory.embedder) if variant != "base" else 0
    memory.close()
    memory = open_work(work)
    runner = ChatEval(memory)
    rows: dict[str, list[tuple[float, float]]] = defaultdict(list)
    with (work / "rows.jsonl").open("w") as out:
        done = ingest(memory, chats, work)
        for chat in chats.chats:
            bucket = records_bucket(done[chat.id])
            scope = runner.scope_of(chat)
            for q in chat.questions:
                hits = memory.search(q.question, scope=scope, asked_at=q.asked_at)
                ranked = [list(h.record.provenance) for h in hits]
                answer = memory.answer(q.question, scope=scope, question_time=q.asked_at.isoformat(), asked_at=q.asked_at)
                p1 = M.precision_at_1(q.gold_message_ids, ranked) or 0.0
                right = float(M.accepted(answer.answer, q.accept))
                rows[bucket].append((p1, right))
                out.write(json.dumps({"id": q.id, "kind": q.kind, "bucket": bucket, "p1": p1, "right": right}) + "\n")
    memory.close()
    allv = [v for vs in rows.values() for v in vs]

    def s(vs):
        return f"{sum(v[0] for v in vs) / len(vs):.3f}/{sum(v[1] for v in vs) / len(vs):.3f} (n={len(vs)})"

    line = f"{data.stem} {variant} w={w} changed={changed} all {s(allv)} " + " ".join(
        f"{b} {s(rows[b])}" for b in BUCKETS if rows.get(b)
    )
    print(line)
    with open(Path(st).parent / "lab.log", "a") as f:
        f.write(line + "\n")


if __name__ == "__main__":
    main()
