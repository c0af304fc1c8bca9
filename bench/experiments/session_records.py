"""Session-level episodic records, measured (issue 13's "what happened in a session, with its date").

Adds to a copy of an evaluation run's typed store one episodic record per conversation session: "Session on
<date>: <title>; <title>; ..." built from the episodic titles the rule extractor wrote for that session's turns
(in turn order, each title once, up to ``--chars`` characters), its provenance the turns whose titles it holds,
its anchor the session's date. Then replays the default read path over the copy and reports recall twice:
counting every hit's provenance, and counting only the ordinary records' (so a session record is credited only
with the turns its lines also brought by another record; what it displaced shows there).

    python bench/experiments/session_records.py /tmp/memdesk-eval/locomo --chars 300 [--out RESULT.json]

No LLM: the titles are the extractor's first clauses, so a session record is a table of contents of the session.
"""

from __future__ import annotations

import argparse
import json
import sys
import shutil
import statistics
from collections import defaultdict
from pathlib import Path

import numpy as np

from memdesk.eval import metrics as M
from memdesk.records import EpisodicRecord, MemoryType, Scope
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for retrieval_replay
from retrieval_replay import config_of, open_run, reader  # noqa: E402 - after the sys.path line


def session_records(store, conv, scope: Scope, chars: int) -> list[EpisodicRecord]:
    """One record per session of ``conv`` from its episodic records' titles (see the module docstring)."""
    by_session: dict[str, list] = defaultdict(list)
    for rec in store.scan(scope, MemoryType.EPISODIC):
        if rec.provenance and rec.metadata.get("view") != "context":
            by_session[conv.session_of.get(rec.provenance[0], "")].append(rec)
    out = []
    for session, recs in by_session.items():
        recs.sort(key=lambda r: (r.said_time() or r.ingest_time, r.provenance[0]))
        anchor = next((r.said_time().date().isoformat() for r in recs if r.said_time()), None)
        head = f"Session on {anchor}" if anchor else "Session"
        parts, ids, seen, size = [], [], set(), len(head) + 2
        for r in recs:
            title = r.title.strip().rstrip(".…")
            if title.lower() in seen or size + len(title) + 2 > chars:
                continue
            seen.add(title.lower())
            parts.append(title)
            ids.extend(i for i in r.provenance[:1] if i not in ids)
            size += len(title) + 2
        if parts:
            out.append(
                EpisodicRecord(
                    scope=scope, title=head, summary=f"{head}: " + "; ".join(parts) + ".", provenance=ids,
                    temporal_anchor=anchor, event_time=recs[0].event_time, metadata={"view": "session"},
                )
            )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--chars", type=int, default=300)
    ap.add_argument("--work", type=Path, default=Path("/tmp/session-records"))
    ap.add_argument("--config", default="fused")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    copy = a.work / f"chars-{a.chars}"
    (copy / "work").mkdir(parents=True, exist_ok=True)
    for name in ("typed.db", "state.json", "embeddings.sqlite"):
        shutil.copy(a.run_dir / "work" / name, copy / "work" / name)
    ds, done, store, embedder = open_run("locomo", copy)
    added = 0
    try:
        for cid in sorted(done):
            recs = session_records(store, ds.conversations[cid], Scope(user_id=cid), a.chars)
            if recs:
                store.write(recs, np.asarray(embedder.embed([r.embed_text() for r in recs]), dtype=np.float32))
                added += len(recs)
        make, search_args = config_of(a.config)
        memory = reader(store, embedder, *make(store))
        full, strict, tokens, shown = defaultdict(list), defaultdict(list), [], []
        for q in (q for q in ds.questions if q.conversation_id in done and q.retrieval_scored):
            ev = memory.evidence(q.question, scope=Scope(user_id=q.conversation_id), asked_at=q.question_time, **search_args)
            prov = [list(h.record.provenance) for h in ev.hits]
            plain = [list(h.record.provenance) for h in ev.hits if h.record.metadata.get("view") != "session"]
            for into, p in ((full, prov), (strict, plain)):
                r = M.evidence_recall(q.evidence_ids, p)
                if r is not None:
                    into[q.category].append(r)
            tokens.append(ev.tokens)
            shown.append(len(prov) - len(plain))
    finally:
        store.close()
    cats = ds.headline_categories
    result = {
        "chars": a.chars, "config": a.config, "session_records": added,
        "recall": round(float(np.mean([r for c in cats for r in full.get(c, [])])), 4),
        "recall_without_session_records": round(float(np.mean([r for c in cats for r in strict.get(c, [])])), 4),
        "by_category": {c: round(float(np.mean(full[c])), 4) for c in cats if full.get(c)},
        "by_category_without": {c: round(float(np.mean(strict[c])), 4) for c in cats if strict.get(c)},
        "median_tokens": statistics.median(tokens), "session_records_per_block": round(statistics.fmean(shown), 2),
    }
    print(json.dumps(result))
    if a.out:
        with a.out.open("a") as f:
            f.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
