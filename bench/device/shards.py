"""Split a conversational benchmark into shard files, and merge the shard runs into one summary.

`memdesk eval locomo|longmemeval` ingests and evaluates one conversation after another in one process. To
use many cores, `split` writes the selected conversations into shard files of the benchmark's own format
(whole conversations: a LoCoMo conversation, a LongMemEval question with its haystack), each run as its own
`memdesk eval ... --data shard-NN.json --out runs/NN` process; `merge` reads the shard runs' results.jsonl
and work/state.json and writes one run directory (results.jsonl, summary.json, report.md, table.md) whose
summary is what one process over the selected questions would have written (the harness's own
`summarize`), plus a `sharding` block in its config.

    python bench/device/shards.py split locomo DATA DIR --shards 5 --categories headline
    python bench/device/shards.py split longmemeval DATA DIR --shards 11 --limit 48 --seed 0
    python bench/device/shards.py split longmemeval DATA DIR --shards 16 --ids longmemeval_ids.txt
    python bench/device/shards.py merge DIR/manifest.json RUN_DIR... --out MERGED [--wall-seconds S --cores N]

The question selection (categories, then a seeded stratified --limit sample) is the harness's own
(`select_categories`, `stratified_sample`), done once over the whole file, so the merged run evaluates the
same questions as `memdesk eval ... --limit N --seed S`; `--ids FILE` instead names the questions (an earlier
merged run's `question_ids`, to measure another commit on exactly the same ones). Conversations go to shards by size (messages),
largest first onto the lightest shard, so the shards finish close together. A shard run that did not finish
leaves questions without rows: the merge keeps only the questions every system answered, and says how many
it dropped (`sharding.dropped_questions`).

Only the harness's public pieces are used (loaders, sampling, `summarize`, `write_report`), so the script
runs against any memdesk checkout that has them (the device run measures a source snapshot of a commit).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from memdesk.eval.datasets import EvalQuestion
from memdesk.eval.markdown_report import write_report
from memdesk.eval.results_file import ResultsFile
from memdesk.eval.rows import QuestionResult
from memdesk.eval.run import load_dataset
from memdesk.eval.sampling import select_categories, stratified_sample
from memdesk.eval.summary import EvalSummary, summarize
from memdesk.eval.systems import SystemSpec

#: The key of a raw item that names its conversation (LoCoMo: a conversation; LongMemEval: a question).
ITEM_ID = {"locomo": "sample_id", "longmemeval": "question_id"}


def read_raw(path: Path) -> list[dict[str, Any]]:
    """The benchmark file's JSON list (plain or gzipped)."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    items = json.loads(raw)
    if not isinstance(items, list):
        raise SystemExit(f"{path}: expected a JSON list of items")
    return items


def select(benchmark: str, data: Path, categories: list[str] | None, limit: int | None, seed: int,
           ids: list[str] | None = None) -> tuple[Any, list[EvalQuestion]]:
    """The dataset and the questions a harness run with these options evaluates; ``ids`` (a list of question
    ids, e.g. an earlier merged run's ``question_ids``) keeps only those, after the categories and instead of
    a sample."""
    ds = load_dataset(benchmark, data)  # type: ignore[arg-type]
    questions = select_categories(ds.questions, categories, ds.categories, ds.headline_categories)
    if ids is not None:
        if limit is not None:
            raise SystemExit("--ids and --limit exclude each other")
        known = {q.id for q in questions}
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise SystemExit(f"{len(unknown)} of --ids are not questions of the selection (first: {unknown[0]})")
        wanted = set(ids)
        questions = [q for q in questions if q.id in wanted]
    elif limit is not None:
        questions = stratified_sample(questions, limit, seed)
    return ds, questions


def assign(sizes: dict[str, int], n: int) -> list[list[str]]:
    """Conversation ids spread over at most ``n`` shards: largest first onto the lightest shard (ties: lower
    shard); empty shards are dropped and each shard keeps its conversations in ``sizes``' order."""
    if n < 1:
        raise SystemExit("--shards must be at least 1")
    loads = [0] * n
    members: list[list[str]] = [[] for _ in range(n)]
    order = {cid: i for i, cid in enumerate(sizes)}
    for cid in sorted(sizes, key=lambda c: (-sizes[c], order[c])):
        i = min(range(n), key=lambda j: (loads[j], j))
        loads[i] += sizes[cid]
        members[i].append(cid)
    return [sorted(m, key=order.__getitem__) for m in members if m]


def split(args: argparse.Namespace) -> None:
    data = Path(args.data).resolve()
    categories = [c for c in args.categories.split(",") if c] if args.categories else None
    ids = Path(args.ids).read_text(encoding="utf-8").split() if args.ids else None
    ds, questions = select(args.benchmark, data, categories, args.limit, args.seed, ids)
    by_conv: dict[str, list[str]] = defaultdict(list)
    for q in questions:
        by_conv[q.conversation_id].append(q.id)
    sizes = {cid: len(ds.conversations[cid].messages) for cid in by_conv}
    shards = assign(sizes, args.shards)
    items = {str(item.get(ITEM_ID[args.benchmark])): item for item in read_raw(data)}
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for i, convs in enumerate(shards):
        name = f"shard-{i:02d}.json"
        (out / name).write_text(json.dumps([items[c] for c in convs]), encoding="utf-8")
        entries.append({"file": name, "conversations": convs, "messages": sum(sizes[c] for c in convs),
                        "questions": sum(len(by_conv[c]) for c in convs)})  # fmt: skip
    manifest = {
        "benchmark": args.benchmark, "data": str(data), "categories": categories, "limit": args.limit,
        "seed": args.seed, "ids": args.ids, "question_ids": [q.id for q in questions], "shards": entries,
    }  # fmt: skip
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    print(f"{args.benchmark}: {len(questions)} questions in {len(by_conv)} conversations -> {len(shards)} shards in {out}")


def _specs(run_dirs: list[Path]) -> list[SystemSpec]:
    """The systems of the shard runs, from the first summary.json found (every shard runs the same line-up)."""
    for d in run_dirs:
        path = d / "summary.json"
        if path.exists():
            summary = EvalSummary.model_validate_json(path.read_bytes())
            return [SystemSpec(name=name, **e.spec.model_dump()) for name, e in summary.systems.items()]
    raise SystemExit("no shard run finished (no summary.json): nothing to merge")


def _first_config(run_dirs: list[Path]) -> dict[str, Any]:
    for d in run_dirs:
        if (d / "summary.json").exists():
            return dict(EvalSummary.model_validate_json((d / "summary.json").read_bytes()).config)
    return {}


def _account(run_dirs: list[Path]) -> dict[str, float]:
    """The shards' stage accounts summed (seconds are then process-seconds, not wall time)."""
    total: dict[str, float] = defaultdict(float)
    for d in run_dirs:
        path = d / "work" / "state.json"
        if path.exists():
            for key, value in json.loads(path.read_text(encoding="utf-8")).get("account", {}).items():
                total[key] += value
    return dict(total)


def merge_runs(manifest_path: Path, run_dirs: list[Path], out: Path, *, data: Path | None = None,
               wall_seconds: float | None = None, cores: int | None = None) -> EvalSummary:
    """Merge shard run directories into ``out`` (see the module docstring); returns the summary."""
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    ds = load_dataset(manifest["benchmark"], data or manifest["data"])
    wanted = manifest["question_ids"]
    by_id = {q.id: q for q in ds.questions}
    missing_ids = [i for i in wanted if i not in by_id]
    if missing_ids:
        raise SystemExit(f"{len(missing_ids)} manifest questions are not in the data (first: {missing_ids[0]})")
    specs = _specs(run_dirs)
    names = {s.name for s in specs}
    rows: dict[tuple[str, str], QuestionResult] = {}
    wanted_set = set(wanted)
    for d in run_dirs:
        path = d / "results.jsonl"
        if path.exists():
            for r in ResultsFile(path, QuestionResult).read():
                if r.question_id in wanted_set and r.system in names:
                    rows[r.key] = r
    answered = defaultdict(set)
    for system, qid in rows:
        answered[qid].add(system)
    complete = [i for i in wanted if answered[i] == names]
    keep = set(complete)
    questions = [by_id[i] for i in complete]
    kept_rows = [r for r in rows.values() if r.question_id in keep]
    order = {i: n for n, i in enumerate(complete)}
    kept_rows.sort(key=lambda r: (order[r.question_id], r.system))
    config = _first_config(run_dirs)
    config.update({
        "limit": manifest["limit"], "seed": manifest["seed"] if manifest["limit"] is not None else None,
        "sample": ("the questions named by " + manifest["ids"]) if manifest.get("ids") else
                  "stratified over categories and conversations" if manifest["limit"] is not None else "all questions",
        "categories": sorted({q.category for q in questions}) if manifest["categories"] is not None else None,
        "sharding": {
            "shards": len(manifest["shards"]), "runs": len(run_dirs), "wall_seconds": wall_seconds, "cores": cores,
            "selected_questions": len(wanted), "dropped_questions": len(wanted) - len(complete),
        },
    })  # fmt: skip
    summary = summarize(kept_rows, ds, systems=specs, questions=questions, config=config, account=_account(run_dirs))
    out.mkdir(parents=True, exist_ok=True)
    results = ResultsFile(out / "results.jsonl", QuestionResult, exclude_none=True)
    if (out / "results.jsonl").exists():
        (out / "results.jsonl").unlink()
    results.extend(kept_rows)
    (out / "summary.json").write_text(summary.model_dump_json(indent=2), encoding="utf-8")
    write_report(summary, out, kept_rows)
    (out / "table.md").write_text(table(summary), encoding="utf-8")
    return summary


def _f(x: float | None, nd: int = 3) -> str:
    return "–" if x is None else f"{x:.{nd}f}"


def table(summary: EvalSummary) -> str:
    """Short markdown tables: per system recall, median tokens, P@1, MRR@10 (LongMemEval: session recall@10),
    then recall and P@1 / MRR@10 per category."""
    sharding = summary.config.get("sharding", {})
    lines = [f"### {summary.benchmark}: {summary.n_questions} questions"
             + (f" ({sharding.get('dropped_questions')} of {sharding.get('selected_questions')} dropped: unfinished shards)"
                if sharding.get("dropped_questions") else "")]  # fmt: skip
    lme = summary.benchmark == "longmemeval"
    head = ["system", "n", "recall", "median tokens", "P@1", "MRR@10"] + (["session recall@10"] if lme else [])
    lines += ["", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    systems = [(n, e) for n, e in summary.systems.items() if not e.spec.sweep]
    for name, e in systems:
        o = e.overall
        n = str(o.n) if o.n_retrieval == o.n else f"{o.n} ({o.n_retrieval} with gold turns)"
        cells = [name, n, _f(o.recall), _f(o.median_evidence_tokens, 1), _f(o.precision_at_1), _f(o.mrr_at_10)]
        if lme:
            sr = o.session_recall_at.get(10)
            cells.append(_f(sr.fraction if sr else None))
        lines.append("| " + " | ".join(cells) + " |")
    cats = [c for c in summary.headline_categories if any(c in e.by_category for _, e in systems)]
    if cats:
        lines += ["", "Recall per category (n):", "", "| system | " + " | ".join(
            f"{c} ({next((e.by_category[c].n for _, e in systems if c in e.by_category), 0)})" for c in cats) + " |",
            "|" + "---|" * (len(cats) + 1)]  # fmt: skip
        for name, e in systems:
            lines.append(f"| {name} | " + " | ".join(_f(e.by_category[c].recall) if c in e.by_category else "–" for c in cats) + " |")
        lines += ["", "P@1 / MRR@10 per category:", "", "| system | " + " | ".join(cats) + " |", "|" + "---|" * (len(cats) + 1)]
        for name, e in systems:
            lines.append(f"| {name} | " + " | ".join(
                f"{_f(e.by_category[c].precision_at_1)} / {_f(e.by_category[c].mrr_at_10)}" if c in e.by_category else "–"
                for c in cats) + " |")  # fmt: skip
    if sharding.get("wall_seconds") is not None:
        wall = f"Wall time {sharding['wall_seconds']:.0f} s on {sharding.get('cores')} cores, {sharding.get('runs')} shard processes."
        lines += ["", wall]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("split", help="write shard files and manifest.json")
    s.add_argument("benchmark", choices=sorted(ITEM_ID))
    s.add_argument("data")
    s.add_argument("out_dir")
    s.add_argument("--shards", type=int, required=True)
    s.add_argument("--categories", default=None, help="as memdesk eval --categories (e.g. headline)")
    s.add_argument("--limit", type=int, default=None, help="as memdesk eval --limit: a seeded stratified sample")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--ids", default=None, help="a file of question ids (whitespace-separated): evaluate only these")
    m = sub.add_parser("merge", help="merge shard run directories into one")
    m.add_argument("manifest")
    m.add_argument("runs", nargs="+")
    m.add_argument("--out", required=True)
    m.add_argument("--data", default=None, help="the benchmark file, if not where the manifest says")
    m.add_argument("--wall-seconds", type=float, default=None)
    m.add_argument("--cores", type=int, default=None)
    args = p.parse_args(argv)
    if args.cmd == "split":
        split(args)
    else:
        summary = merge_runs(Path(args.manifest), [Path(r) for r in args.runs], Path(args.out),
                             data=Path(args.data) if args.data else None, wall_seconds=args.wall_seconds,
                             cores=args.cores)  # fmt: skip
        sys.stdout.write(table(summary))


if __name__ == "__main__":
    main()
