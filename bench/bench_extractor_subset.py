"""Offline rules vs an LLM processor on the same LoCoMo subset: what the LLM path changes in recall.

Ingesting all of LoCoMo through a local 1.5B model takes hours on 2 cores, so this compares the two
processors on a subset both can afford: the first S sessions of chosen conversations, with only the
questions whose gold evidence lies entirely inside those sessions. The subset file is derived from
the shared data at run time (never committed); everything else is the normal harness
(``python -m memdesk.eval locomo``), run once per processor into its own directory, with the same
embedder, retriever and K.

Usage:
  MEMDESK_LLM_BASE_URL=http://127.0.0.1:8088/v1 MEMDESK_LLM_MODEL=NAME \\
  python bench/bench_extractor_subset.py [--convs conv-26:4,conv-30:3] [--processors rules,llm] \\
      [--out bench/results/locomo-extractor]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from benchinfo import write_result

REPO = Path(__file__).resolve().parents[1]


def session_number(key: str) -> int | None:
    parts = key.split("_")
    if len(parts) == 2 and parts[0] == "session" and parts[1].isdigit():
        return int(parts[1])
    return None


def evidence_sessions(qa: dict) -> set[int]:
    out: set[int] = set()
    for e in qa.get("evidence") or []:
        head = str(e).split(":")[0].strip().lstrip("D")
        out.add(int(head) if head.isdigit() else 10**6)  # a malformed id keeps the question out
    return out


def make_subset(data: list[dict], wanted: dict[str, int]) -> list[dict]:
    """The conversations in ``wanted`` cut to their first S sessions, with the questions answerable there."""
    out = []
    for conv in data:
        sessions = wanted.get(conv["sample_id"])
        if sessions is None:
            continue
        c = conv["conversation"]
        kept = {}
        for key, value in c.items():
            n = session_number(key.removesuffix("_date_time"))
            if n is None or n <= sessions:
                kept[key] = value
        qa = [q for q in conv["qa"] if q.get("evidence") and max(evidence_sessions(q)) <= sessions]
        out.append({"sample_id": conv["sample_id"], "conversation": kept, "qa": qa})
    missing = set(wanted) - {c["sample_id"] for c in out}
    if missing:
        raise SystemExit(f"conversations not in the data file: {sorted(missing)}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=None, help="locomo JSON (default: the shared locomo_dev5.json)")
    ap.add_argument("--convs", default="conv-26:4,conv-30:3", help="sample_id:sessions, comma-separated")
    ap.add_argument("--processors", default="rules,llm")
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "locomo-extractor"))
    ap.add_argument("--work", default=None, help="run directories (default: $TMPDIR/memdesk-eval/locomo-extractor)")
    args = ap.parse_args()

    data_dir = Path(os.environ.get("MEMDESK_DATA_DIR", REPO.parent / "shared" / "data"))
    data_path = Path(args.data) if args.data else data_dir / "locomo" / "locomo_dev5.json"
    wanted = {c.split(":")[0]: int(c.split(":")[1]) for c in args.convs.split(",") if c.strip()}
    work = Path(args.work or Path(os.environ.get("TMPDIR", "/tmp")) / "memdesk-eval" / "locomo-extractor")
    work.mkdir(parents=True, exist_ok=True)
    subset = make_subset(json.loads(data_path.read_text()), wanted)
    subset_path = work / "subset.json"
    subset_path.write_text(json.dumps(subset))
    n_utt = sum(len(v) for c in subset for k, v in c["conversation"].items() if isinstance(v, list))
    n_q = sum(len(c["qa"]) for c in subset)
    print(f"subset: {len(subset)} conversations, {n_utt} utterances, {n_q} questions -> {subset_path}", flush=True)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs = {}
    for proc in [p.strip() for p in args.processors.split(",") if p.strip()]:
        run_dir = work / proc
        cmd = [
            sys.executable, "-m", "memdesk.eval", "locomo", "--data", str(subset_path), "--out", str(run_dir),
            "--systems", "memdesk-typed,flat-rag", "--no-sweep", "--processor", proc, "--quiet",
        ]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True)
        summary = json.loads((run_dir / "summary.json").read_text())
        runs[proc] = {"seconds": round(time.perf_counter() - t0, 1), "summary": summary}

    model = os.environ.get("MEMDESK_LLM_MODEL")
    lines = [
        "# LoCoMo subset: offline rules vs LLM processor",
        "",
        f"Measured {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC on {os.cpu_count()} shared CPU cores. "
        f"Subset: {', '.join(f'{k} sessions 1-{v}' for k, v in wanted.items())} of `{data_path.name}`: "
        f"{n_utt} utterances, {n_q} questions whose gold evidence lies in those sessions (categories 1-4 in the "
        f"headline). LLM processor: `{model}` through the OpenAI-compatible client. Embedder, retriever (k=20, K=25) "
        "and serializer are the same in every row.",
        "",
        f"Command: `MEMDESK_LLM_BASE_URL=... MEMDESK_LLM_MODEL={model} python bench/bench_extractor_subset.py "
        f"--convs {args.convs} --processors {args.processors}`",
        "",
        "| processor | system | questions | recall@K | recall@5 | recall@10 | median evidence tokens | records stored | ingest s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    table = {}
    for proc, run in runs.items():
        s = run["summary"]
        stages = s.get("stages", {}).get("ingest", {})
        typed = stages.get("typed", {})
        for system, m in s["systems"].items():
            o = m.get("overall", m)
            row = {
                "questions": o.get("n"),
                "recall": o.get("recall"),
                "recall@5": o.get("recall@5"),
                "recall@10": o.get("recall@10"),
                "median_evidence_tokens": o.get("median_evidence_tokens"),
            }
            table[f"{proc}/{system}"] = row
            records = typed.get("records") if system == "memdesk-typed" else stages.get("raw", {}).get("records")
            secs = typed.get("seconds") if system == "memdesk-typed" else stages.get("raw", {}).get("seconds")

            def f(x: object) -> str:
                return "n/a" if x is None else f"{x:.3f}" if isinstance(x, float) else str(x)

            lines.append(
                f"| {proc} | {system} | {f(row['questions'])} | {f(row['recall'])} | {f(row['recall@5'])} | "
                f"{f(row['recall@10'])} | {f(row['median_evidence_tokens'])} | {f(records)} | {f(secs)} |"
            )
    lines.append("")
    (out / "comparison.md").write_text("\n".join(lines) + "\n")
    write_result(out / "comparison.json", {"convs": wanted, "utterances": n_utt, "questions": n_q, "model": model,
                                           "rows": table, "runs": {p: r["seconds"] for p, r in runs.items()}}, echo=False)
    for proc in runs:
        for name in ("summary.json", "report.md"):
            src = work / proc / name
            if src.exists():
                (out / f"{proc}-{name}").write_text(src.read_text())
    print("\n".join(lines))


if __name__ == "__main__":
    main()
