"""What a local chat model behind an OpenAI-compatible server costs and how well it fills memdesk's
schema: prefill and decode tokens/s, and JSON validity of the LLM processor's route/extract output.

Speed: each repeat sends a fresh prompt of about ``--prompt-tokens`` tokens (a new random first line
defeats the server's prompt cache) with ``max_tokens=1`` (time = prefill), then the same prompt
again asking for ``--decode-tokens`` tokens (the prompt is now cached, so the time is decoding).
Token counts are the server's own ``usage``. Medians are reported.

Schema: the LLM processor (one call per utterance, ``extract_utterance`` prompt, the
``UtteranceExtraction`` schema) on hand-written utterances with an expected route mask. Reported:
replies valid at the first try (no re-ask), valid after re-asks, and route masks equal to the label.

Run it on a quiet machine (``flock /work/coord/quiet.lock ...`` here) against a server started with
the command ``python -m memdesk.llm.local assemble`` prints::

    python bench/bench_local_model.py --base-url http://127.0.0.1:8080/v1 --model qwen2.5-coder-1.5b \\
        --out bench/results/local-models/qwen2.5-coder-1.5b.json
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from datetime import datetime, timezone

from benchinfo import machine_info, measured_at, write_result

from memdesk.conversation.base import Utterance
from memdesk.conversation.llm_processor import LLMProcessor
from memdesk.llm.base import ChatMessage
from memdesk.llm.openai_compat import OpenAICompatChatModel
from memdesk.records import Message, Scope

# (speaker, text, expected mask episodic/semantic/procedural); written for this script.
UTTERANCES: list[tuple[str, str, str]] = [
    ("Tomas", "We drove to the coast last weekend and the car broke down halfway there.", "100"),
    ("Ines", "My brother is a carpenter and he lives in Porto.", "010"),
    ("Tomas", "To descale the kettle, fill it with vinegar, boil it twice, then rinse it three times.", "001"),
    ("Ines", "haha yes, same here", "000"),
    ("Tomas", "I'm allergic to shellfish, so I never order the paella.", "010"),
    ("Ines", "On Friday I finally handed in my thesis after two years of work.", "100"),
    ("Tomas", "Thanks a lot, that's really kind of you!", "000"),
    ("Ines", "When you water the basil, pour from below and let the pot drain for ten minutes.", "001"),
    ("Tomas", "My favourite film is an old black-and-white comedy about a lighthouse keeper.", "010"),
    ("Ines", "Yesterday my daughter lost her first tooth at school.", "100"),
    ("Tomas", "First unplug the printer, then hold the power button for thirty seconds, then plug it back in.", "001"),
    ("Ines", "I work night shifts at the hospital, so I sleep until noon.", "010"),
]
FILLER = (
    "The committee met on a grey morning to review the harbour plans. Each member read the summary, "
    "asked about the budget and the schedule, and wrote down questions for the engineers. "
)


def _prompt(n_tokens: int, rng: random.Random) -> str:
    words = max(1, int(n_tokens * 0.72))  # ~1.4 tokens per English word for Qwen's tokenizer
    body = (FILLER * (words // len(FILLER.split()) + 1)).split()[:words]
    return f"Note {rng.randrange(10**9)}.\n" + " ".join(body) + "\nSummarize the notes above in detail."


def measure_speed(model: OpenAICompatChatModel, prompt_tokens: int, decode_tokens: int, repeats: int) -> dict:
    rng = random.Random(7)
    rows = []
    for _ in range(repeats):
        msgs = [ChatMessage(role="user", content=_prompt(prompt_tokens, rng))]
        t0 = time.perf_counter()
        a = model.complete(msgs, max_tokens=1, operation="prefill")
        t1 = time.perf_counter()
        b = model.complete(msgs, max_tokens=decode_tokens, operation="decode")
        t2 = time.perf_counter()
        rows.append({
            "prompt_tokens": a.usage.prompt_tokens,
            "prefill_s": round(t1 - t0, 3),
            "completion_tokens": b.usage.completion_tokens,
            "decode_s": round(t2 - t1, 3),
        })  # fmt: skip
    prefill = [r["prompt_tokens"] / r["prefill_s"] for r in rows]
    decode = [r["completion_tokens"] / r["decode_s"] for r in rows if r["completion_tokens"] > 1]
    return {
        "prefill_tokens_per_s_median": round(statistics.median(prefill), 1),
        "decode_tokens_per_s_median": round(statistics.median(decode), 1) if decode else None,
        "rows": rows,
    }


def measure_schema(model: OpenAICompatChatModel, limit: int | None = None) -> dict:
    scope = Scope(user_id="bench-local-model")
    ts = datetime(2024, 3, 14, 18, 30, tzinfo=timezone.utc)
    proc = LLMProcessor(model, max_tokens=400)
    rows = []
    for i, (speaker, text, want) in enumerate(UTTERANCES[:limit]):
        u = Utterance(message_id=f"m{i}", message=Message(speaker=speaker, content=text, timestamp=ts), scope=scope)
        before = model.ledger.get("ingest").calls
        t0 = time.perf_counter()
        try:
            (p,) = proc.process([u])
            got, error = "".join("1" if b else "0" for b in (p.mask.episodic, p.mask.semantic, p.mask.procedural)), None
        except Exception as e:  # an invalid reply after every re-ask: counted, not fatal
            got, error = None, f"{type(e).__name__}: {e}"
        calls = model.ledger.get("ingest").calls - before
        rows.append({"text": text, "want": want, "got": got, "calls": calls, "seconds": round(time.perf_counter() - t0, 2),
                     "error": error})  # fmt: skip
    return {
        "utterances": len(rows),
        "valid_first_try": sum(r["error"] is None and r["calls"] == 1 for r in rows),
        "valid_after_reasks": sum(r["error"] is None for r in rows),
        "mask_equal_to_label": sum(r["got"] == r["want"] for r in rows),
        "seconds_per_utterance_median": statistics.median(r["seconds"] for r in rows),
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--prompt-tokens", type=int, default=1000)
    ap.add_argument("--decode-tokens", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-schema", action="store_true", help="speed only")
    ap.add_argument("--utterances", type=int, default=None, help="only the first N schema utterances (a smoke run)")
    ap.add_argument("--note", default="", help="free text stored with the result (build flags, server command)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    model = OpenAICompatChatModel(args.model, args.base_url, timeout_s=600, max_retries=1, concurrency=1)
    try:
        result = {
            "model": args.model,
            "measured_at": measured_at(),
            "note": args.note,
            "speed": measure_speed(model, args.prompt_tokens, args.decode_tokens, args.repeats),
            "schema": None if args.no_schema else measure_schema(model, args.utterances),
            "json_schema_mode": getattr(model, "json_schema_mode", None),
            "machine": machine_info(),
        }
    finally:
        model.close()
    write_result(args.out, result, echo=False)
    s = result["speed"]
    line = f"{args.model}: prefill {s['prefill_tokens_per_s_median']} tok/s, decode {s['decode_tokens_per_s_median']} tok/s"
    if result["schema"]:
        sc = result["schema"]
        line += (f"; schema valid {sc['valid_first_try']}/{sc['utterances']} first try, "
                 f"{sc['valid_after_reasks']} after re-asks, masks {sc['mask_equal_to_label']} right")  # fmt: skip
    sys.stdout.write(line + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
