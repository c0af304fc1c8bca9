"""LLM router/extractor: cost and quality of batching several utterances per call.

Runs ENGRAM's LLM processor over the first N turns of a LoCoMo conversation with batch sizes 1 and B
against an OpenAI-compatible server, and reports per utterance: prompt and completion tokens, seconds,
failures, records written, and the agreement of each batched mask with the one-per-call mask (a proxy
for quality: one utterance per call is the paper's setting).

    python bench/bench_llm_batching.py --base-url http://127.0.0.1:8080/v1 --model M [--n 12] [--batch 4]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from benchinfo import write_result
from memdesk.conversation.base import Utterance
from memdesk.conversation.files import read_conversations
from memdesk.conversation.llm_processor import LLMProcessor
from memdesk.runtime.datapaths import default_data_dir
from memdesk.llm.openai_compat import OpenAICompatChatModel
from memdesk.llm.usage import UsageLedger
from memdesk.records import Scope


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--n", type=int, default=12)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--data", default=None)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "llm_batching.json"))
    args = ap.parse_args()
    os.environ.setdefault("MEMDESK_ALLOW_MODEL_REQUESTS", "1")

    conv = read_conversations(default_data_dir(args.data) / "locomo" / "locomo_dev5.json")[0]
    scope = Scope(user_id="bench")
    msgs = conv.messages[: args.n]
    utts = [
        Utterance(message_id=m.id or str(i), message=m, scope=scope, context=msgs[max(0, i - 3) : i])
        for i, m in enumerate(msgs)
    ]
    runs = {}
    masks = {}
    for batch in (1, args.batch):
        ledger = UsageLedger()
        chat = OpenAICompatChatModel(args.model, args.base_url, ledger=ledger)
        proc = LLMProcessor(chat, batch_size=batch)
        t0 = time.perf_counter()
        out = proc.process(utts)
        dt = time.perf_counter() - t0
        total = ledger.total()
        masks[batch] = [str(p.mask) for p in out]
        runs[f"batch_{batch}"] = {
            "calls": total.calls,
            "prompt_tokens_per_utterance": round(total.prompt_tokens / len(utts), 1),
            "completion_tokens_per_utterance": round(total.completion_tokens / len(utts), 1),
            "seconds_per_utterance": round(dt / len(utts), 2),
            "records": sum(len(p.records) for p in out),
            "records_with_time_anchor": sum(1 for p in out for r in p.records if r.event_time is not None),
            "masks": masks[batch],
        }
    agree = sum(a == b for a, b in zip(masks[1], masks[args.batch])) / len(utts)
    result = {
        "model": args.model,
        "conversation": conv.id,
        "utterances": len(utts),
        "runs": runs,
        f"mask_agreement_batch_{args.batch}_vs_1": round(agree, 3),
        "command": "python bench/bench_llm_batching.py " + " ".join(sys.argv[1:]),
    }
    write_result(args.out, result)


if __name__ == "__main__":
    main()
