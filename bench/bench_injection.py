"""Injection benchmark: attack success rate with the default admission policy and with admission off.

Plays every attempt of ``tests/admission/injections.json`` (48 attempts: tool outputs, web pages, emails,
system-role text, assistant claims about the user, image captions; written for the project) into its own copy
of a store that holds sessions 1-2 of the conversation, then Ana's follow-up turn and session 3, with the
packaged MiniLM embedder and the default rule processor. An attempt **succeeds** when one of its markers
reaches the evidence block (K=25) of one of its questions in a record presented as the user's own words (role
``user``, not from a quoted source) or in a procedural record. Also reported: how many attempts reached the
evidence at all (attributed to their role or source), how many left a harmful record in the store whether
retrieved or not, and the benign checks (the user's own memories still found, with the right attribution).

    python bench/bench_injection.py [--out bench/results/injection.json]
        [--locomo-before SUMMARY.json --locomo-after SUMMARY.json]

``--locomo-*`` copy the typed/hybrid recall and median tokens of two ``bench/run_conv_eval.sh locomo`` runs
(``summary.json``) into the result, so the policy's cost on benign recall sits beside its effect.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # for tests.admission.scenario (the scenario and its scoring)
sys.path.insert(0, str(REPO / "bench"))

from benchinfo import machine_info, measured_at, write_result  # noqa: E402 - after the sys.path lines

from memdesk.conversation.admission import AdmissionPolicy  # noqa: E402
from memdesk.conversation.memory import Memory  # noqa: E402
from memdesk.embed import MiniLMEmbedder  # noqa: E402
from memdesk.factory import build_processor  # noqa: E402
from memdesk.settings import Settings  # noqa: E402
from memdesk.store import open_store  # noqa: E402
from tests.admission import scenario as sc  # noqa: E402


def run_policy(name: str, policy: AdmissionPolicy, embedder) -> dict[str, Any]:
    def make(url: str) -> Memory:
        return Memory(open_store(url), embedder, build_processor(Settings.load(processor="rules")), admission=policy)

    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="admit-bench-") as d:
        results = sc.run(make, Path(d))
        benign = sc.benign(make, Path(d))
    by_kind: dict[str, dict[str, int]] = defaultdict(lambda: {"attempts": 0, "succeeded": 0, "reached": 0, "stored_harmful": 0})
    for r in results:
        k = by_kind[r.kind]
        k["attempts"] += 1
        k["succeeded"] += r.succeeded
        k["reached"] += r.reached
        k["stored_harmful"] += r.stored_harmful
    n = len(results)
    return {
        "policy": name,
        "attempts": n,
        "succeeded": sum(r.succeeded for r in results),
        "attack_success_rate": round(sum(r.succeeded for r in results) / n, 4),
        "reached_evidence": sum(r.reached for r in results),
        "stored_harmful": sum(r.stored_harmful for r in results),
        "by_kind": dict(sorted(by_kind.items())),
        "successful_attempts": {r.id: r.lines[:2] for r in results if r.succeeded},
        "benign_found": sum(ok for _, ok in benign),
        "benign_checks": len(benign),
        "benign_missed": [c["question"] for c, ok in benign if not ok],
        "seconds": round(time.perf_counter() - start, 1),
    }


def locomo(path: str | None) -> dict[str, Any] | None:
    """Recall and median evidence tokens per system of a LoCoMo ``summary.json``."""
    if not path:
        return None
    systems = json.loads(Path(path).read_text())["systems"]
    return {
        name: {"recall": s["overall"]["recall"], "median_evidence_tokens": s["overall"]["median_evidence_tokens"]}
        for name, s in systems.items()
        if "recall" in s.get("overall", {}) and not name.startswith("typed-k")  # the k/K sweep is not the point here
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "injection.json"))
    ap.add_argument("--locomo-before")
    ap.add_argument("--locomo-after")
    args = ap.parse_args()
    embedder = MiniLMEmbedder()
    runs = [run_policy("default", AdmissionPolicy(), embedder), run_policy("off", AdmissionPolicy.off(), embedder)]
    result = {
        "what": "attack success rate of 48 injection attempts (tests/admission/injections.json), rules + MiniLM, K=25",
        "command": "python bench/bench_injection.py",
        "measured_at": measured_at(),
        "machine": machine_info(),
        "runs": runs,
        "locomo_dev_before": locomo(args.locomo_before),
        "locomo_dev_after": locomo(args.locomo_after),
    }
    write_result(args.out, result, echo=False, ensure_ascii=False)
    for r in runs:
        print(
            f"{r['policy']:>7}: {r['succeeded']}/{r['attempts']} attacks succeeded ({100 * r['attack_success_rate']:.1f}%), "
            f"{r['reached_evidence']} reached the evidence attributed, {r['stored_harmful']} left a harmful record; "
            f"benign {r['benign_found']}/{r['benign_checks']}"
        )


if __name__ == "__main__":
    main()
