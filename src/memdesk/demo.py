"""``memdesk demo``: ingest one real LoCoMo conversation and answer some of its questions from memory."""

from __future__ import annotations

import json
import time
from typing import Any, Callable

from .datapaths import default_data_dir
from .errors import MalformedFileError
from .records import Scope


def run_demo(ctx: Any, *, data_dir: str | None, conversation: str, n_questions: int, echo: Callable[[str], None]) -> None:
    from .conversation.files import read_conversations

    path = default_data_dir(data_dir or ctx.settings().data_dir) / "locomo" / "locomo_dev5.json"
    if not path.exists():
        raise MalformedFileError(str(path), "LoCoMo data not found: pass --data DIR or set MEMDESK_DATA_DIR")
    convs = {c.id: c for c in read_conversations(path)}
    if conversation not in convs:
        raise MalformedFileError(str(path), f"no conversation {conversation!r}; have {sorted(convs)}")
    conv = convs[conversation]
    mem = ctx.memory()
    scope = Scope(user_id="demo", run_id=conversation)
    echo(f"database: {ctx.settings().database_url}")
    echo(f"embedder: {mem.embedder.model_id}; processor: {type(mem.processor).__name__}")
    t0 = time.perf_counter()
    n_records = 0
    for i in range(0, len(conv.messages), 64):
        n_records += len(mem.add(conv.messages[i : i + 64], scope=scope).records)
    dt = time.perf_counter() - t0
    echo(
        f"ingested {conversation}: {len(conv.messages)} messages between {' and '.join(conv.speakers)} "
        f"-> {n_records} new records in {dt:.1f}s (0 new means it was already stored)"
    )
    sample = next(s for s in json.loads(path.read_text()) if s["sample_id"] == conversation)
    asked = 0
    for qa in sample["qa"]:
        if asked >= n_questions:
            break
        if qa.get("category") == 5 or not qa.get("evidence") or "answer" not in qa:
            continue
        asked += 1
        t1 = time.perf_counter()
        ans = mem.answer(qa["question"], scope=scope)
        ms = (time.perf_counter() - t1) * 1000
        covered = {p for h in ans.evidence.hits for p in h.record.provenance}
        found = [e for e in qa["evidence"] if e in covered]
        echo("")
        echo(f"Q{asked}: {qa['question']}   (gold: {qa['answer']})")
        label = "best evidence (extractive)" if ans.extractive else f"answer ({ans.model})"
        echo(f"  {label}: {ans.answer}")
        echo(
            f"  evidence: {len(ans.evidence.hits)} records, {ans.evidence.tokens} tokens, {ms:.0f} ms; "
            f"gold turns {qa['evidence']} retrieved: {found or 'none'}"
        )
        for line in ans.evidence.text.splitlines()[:3]:
            echo(f"    {line}")
