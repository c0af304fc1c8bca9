"""Where ingest time goes: embed calls, texts per message, batch sizes, tokens, seconds (issue 30).

Ingests the first sessions of one LongMemEval question's haystack (or of a LoCoMo conversation) into a fresh
SQLite store through the same ``Memory`` the harness's memdesk-default system uses (``build_memory``, one
``add`` per session), with the embedder the settings name (``MEMDESK_EMBEDDER``). Every ``embed`` call is
recorded (texts, characters, seconds), and, for a GGUF embedder, every llama.cpp call and the tokens it read.
Prints one JSON object: messages/s, embedded texts per message, the split of the wall time, the calls.

    MEMDESK_EMBEDDER=nomic python bench/ingest_profile.py longmemeval 75499fd8 --sessions 4
    python bench/ingest_profile.py locomo conv-26 --sessions 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path


def _conversation(benchmark: str, conv_id: str, data: str | None):
    from memdesk.eval.run import load_dataset

    dataset = load_dataset(benchmark, data)
    return dataset.conversations[conv_id]


def _wrap(obj, name: str, log: list[dict], measure=None) -> None:
    inner = getattr(obj, name)

    def timed(texts, *a, **kw):
        start = time.perf_counter()
        out = inner(texts, *a, **kw)
        row = {"n": len(texts), "chars": sum(len(t) for t in texts), "s": time.perf_counter() - start}
        if measure is not None:
            row.update(measure(texts, out))
        log.append(row)
        return out

    setattr(obj, name, timed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("benchmark", choices=["longmemeval", "locomo"])
    ap.add_argument("conversation", help="a LongMemEval question id or a LoCoMo conversation id")
    ap.add_argument("--sessions", type=int, default=4, help="how many sessions of it to ingest")
    ap.add_argument("--skip", type=int, default=0, help="start after this many sessions (into an empty store)")
    ap.add_argument("--data", default=None, help="the benchmark file (default: the shared data)")
    args = ap.parse_args()

    from memdesk.conversation.memory import build_memory
    from memdesk.embed import make_embedder
    from memdesk.settings import Settings
    from memdesk.store import open_store

    conv = _conversation(args.benchmark, args.conversation, args.data)
    sessions: dict[str, list] = {}
    for m in conv.messages:
        sessions.setdefault(conv.session_of.get(m.id or "", ""), []).append(m)
    chosen = list(sessions.values())[args.skip : args.skip + args.sessions]
    settings = Settings.load()
    embedder = make_embedder(settings)
    calls: list[dict] = []
    model_calls: list[dict] = []
    _wrap(embedder, "embed", calls)
    if hasattr(embedder, "_call"):  # a GGUF embedder: what llama.cpp is asked, and the tokens it read

        def tokens(texts, reply):
            usage = reply.get("usage", {}) if isinstance(reply, dict) else {}
            return {"tokens": usage.get("prompt_tokens")}

        _wrap(embedder, "_call", model_calls, tokens)
    start = time.perf_counter()
    if hasattr(embedder, "load"):
        embedder.load()
    load_s = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"sqlite:///{Path(tmp) / 'profile.db'}")
        memory = build_memory(settings, store=store, embedder=embedder)
        per_session = []
        cpu0, t0 = time.process_time(), time.perf_counter()
        for batch in chosen:
            s0, c0 = time.perf_counter(), len(calls)
            result = memory.add(batch, scope={"user_id": conv.id})
            per_session.append({"messages": len(batch), "records": len(result.records), "s": round(time.perf_counter() - s0, 2),
                                "embed_calls": len(calls) - c0})
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        memory.close()
    n_messages = sum(len(b) for b in chosen)
    embed_s = sum(c["s"] for c in calls)
    texts = sum(c["n"] for c in calls)
    sizes = Counter(c["n"] for c in calls)
    out = {
        "embedder": embedder.model_id,
        "settings": {k: getattr(embedder, k, None) for k in ("n_ctx", "batch_size", "threads")},
        "benchmark": args.benchmark, "conversation": conv.id, "skip": args.skip, "sessions": len(chosen), "messages": n_messages,
        "records": sum(s["records"] for s in per_session),
        "load_s": round(load_s, 2), "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
        "messages_per_s": round(n_messages / wall, 3),
        "embed_calls": len(calls), "embedded_texts": texts, "texts_per_message": round(texts / n_messages, 2),
        "embed_s": round(embed_s, 2), "embed_share": round(embed_s / wall, 3),
        "embed_call_sizes": dict(sorted(sizes.items())),
        "chars_per_text": round(sum(c["chars"] for c in calls) / max(texts, 1), 1),
        "per_session": per_session,
        "load_average": os.getloadavg()[0],
    }
    if model_calls:
        tok = [c["tokens"] for c in model_calls if c.get("tokens") is not None]
        out["model_calls"] = len(model_calls)
        out["model_call_sizes"] = dict(sorted(Counter(c["n"] for c in model_calls).items()))
        out["model_tokens"] = sum(tok)
        out["model_s"] = round(sum(c["s"] for c in model_calls), 2)
        out["tokens_per_s"] = round(sum(tok) / max(out["model_s"], 1e-9), 1) if tok else None
        out["single_text_call_ms_median"] = round(1000 * statistics.median([c["s"] for c in model_calls if c["n"] == 1]), 1) if any(c["n"] == 1 for c in model_calls) else None
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
