"""Fit the default read path's hand-set weights, validated leave-one-author-out on the burned chat sets (issue 28).

The fused read path (:meth:`memdesk.retrieval.retrieve.Retriever.fused`, ranking in
:meth:`memdesk.retrieval.scope_index.ScopeIndex.rank`) adds hand-set bonuses and penalties to a standardized
cosine + BM25 score. This script scores a vector of those parameters with the real :class:`Retriever` over chat
stores ingested once (:func:`chat_replay.ingest`, the harness's write side), and fits them with
leave-one-author-out cross-validation: each fold fits on every author's sets but one (plus the ``dev-*`` sets,
written by helpers who knew the rules: training only) and scores the left-out author's sets, before
(the shipped values) and after (the fold's fit). The fit is a greedy forward selection over one-parameter moves
from the shipped values, in rounds (:meth:`Fitter.fit`); the folds share the first round's scored vectors. Run from
the repository root:

    export OMP_NUM_THREADS=1 MEMDESK_CONFIG="" PYTHONPATH=$PWD/src
    python bench/fit_read_path.py ingest --work /tmp/rpf                 # every set, once (minutes)
    python bench/fit_read_path.py score --work /tmp/rpf [--set focus_weight=1.5 ...] [--budget]
    python bench/fit_read_path.py cv --work /tmp/rpf --out bench/results/read-path-fit/cv.json
    python bench/fit_read_path.py locomo --run /tmp/e2e/base/work/runs/locomo --data /tmp/e2e/base/work/split/locomo [--set ...]

``score`` prints precision@1 and MRR@10 per set and by scope size (records stored: 1-15, 16-60, 61+); with
``--budget`` also recall within the 900-token budget (the packed block, as ``memdesk eval chats`` reports it;
slower). ``cv`` ranks without the budget packer, the first 10 distinct hits only (the first hit and the order are the
packer's too; MRR@10 may differ from the packed list's by a hit the packer drops as a repeat) and writes each fold's chosen values and left-out
scores, then the fit on all sets. The objective is the mean over authors (each author weighs the same, the
``dev-*`` sets together as one) of precision@1 plus a tenth of MRR@10; a move is taken only when it gains more
than ``--min-gain``. ``locomo`` replays the LoCoMo questions over an evaluation run's ingested stores (each
``shard-*/work/typed.db`` with its ``state.json``) with the same parameters and prints what ``memdesk eval`` reports
for ``memdesk-default``: gold-turn recall within the budget, median evidence tokens, precision@1, MRR@10.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chat_replay import ingest, open_work  # noqa: E402  (bench/ is not a package)

from memdesk.embed.base import embed_queries  # noqa: E402
from memdesk.eval import metrics as M  # noqa: E402
from memdesk.eval.chat_run import MRR_CUTOFF, ChatEval, records_bucket  # noqa: E402
from memdesk.eval.datasets.chats import load_chats  # noqa: E402
from memdesk.filters import as_filter  # noqa: E402
from memdesk.retrieval import question_focus, scope_index  # noqa: E402
from memdesk.retrieval.retrieve import Retriever  # noqa: E402
from memdesk.retrieval.scope_cache import ScopeIndexCache  # noqa: E402
from memdesk.retrieval.stemming import StemmingTokenizer  # noqa: E402

CHATS = Path(__file__).resolve().parent / "data" / "chats"
AUTHORS: dict[str, tuple[str, ...]] = {
    "A": ("tune", "heldout"),  # one writer, one day (git log of bench/data/chats/{tune,heldout}.jsonl)
    "B": ("heldout2",),  # 28h2 (README-heldout2.md)
    "C": ("heldout3a",),  # 28h3a
    "D": ("heldout3b",),  # 28h3b
    "E": ("heldout4a",),  # 28h4a
    "F": ("heldout4b",),  # 28h4b
}
"""The validation folds: the burned sets by who wrote them (sets of one writer are never split across folds)."""
TRAIN_ONLY = "dev"
"""The ``dev-*`` sets, written by helpers who knew memdesk's rules: fitted on, never a left-out fold."""

GRID: dict[str, tuple] = {
    "lexical_weight": (0.15, 0.3, 0.45),
    "person_weight": (1.5, 3.0, 4.5),
    "time_weight": (0.75, 1.5, 2.5),
    "bonus_gate": (0.5, 1.0, 2.0),
    "lexical_prior": (0.0, 10.0, 30.0),
    "lexical_floor": (0.25, 0.5, 0.75),
    "focus_weight": (0.5, 1.0, 1.5, 2.0),
    "focus_scope": (0.0, 200.0, 600.0),
    "now_weight": (0.75, 1.5, 2.5),
    "asking_weight": (0.25, 0.5, 1.0),
    "denial_weight": (0.25, 0.5, 1.0),
    "superseded_weight": (0.25, 0.5, 0.6, 0.75, 0.9, 1.0),
    "type_prior": (20.0, 200.0, 1e6),
}
"""Each parameter's candidate values. ``focus_scope`` and ``denial_weight`` are the module constants
:data:`~memdesk.retrieval.question_focus.FOCUS_SCOPE` and :data:`~memdesk.retrieval.question_focus.DENIAL_WEIGHT`;
the others are :meth:`Retriever.fused` options (``asking_weight`` 1.0 is the same as off)."""
MODULE = {"focus_scope": (question_focus, "FOCUS_SCOPE"), "denial_weight": (scope_index, "DENIAL_WEIGHT")}


def shipped(r: Retriever) -> dict:
    """The values a read path (the configured Memory's: the fold's "before") uses now."""
    values = {name: getattr(r, name) for name in GRID if name not in MODULE and name != "type_prior"}
    values["type_prior"] = r.indexes.type_prior
    values |= {name: getattr(module, attr) for name, (module, attr) in MODULE.items()}
    return values


@contextmanager
def module_constants(values: dict):
    """The module constants of ``values`` set for the duration (the ranking reads them when it runs)."""
    old = {name: getattr(module, attr) for name, (module, attr) in MODULE.items()}
    try:
        for name, (module, attr) in MODULE.items():
            setattr(module, attr, values.get(name, old[name]))
        yield
    finally:
        for name, (module, attr) in MODULE.items():
            setattr(module, attr, old[name])


class ChatStore:
    """One ingested chat set: its Memory, questions with their query vectors, and per-type-prior index caches."""

    def __init__(self, name: str, work: Path) -> None:
        self.name = name
        self.chats = load_chats(CHATS / f"{name}.jsonl")
        self.memory = open_work(work / name)
        done = ingest(self.memory, self.chats, work / name)
        self.questions = [(c, q) for c in self.chats.chats for q in c.questions]
        self.buckets = [records_bucket(done[c.id]) for c, _ in self.questions]
        self.vectors = embed_queries(self.memory.embedder, [q.question for _, q in self.questions])
        self.where = as_filter(None)
        self._caches: dict[float, ScopeIndexCache] = {}

    def retriever(self, values: dict, budget: bool) -> Retriever:
        options = {k: v for k, v in values.items() if k not in MODULE and k != "type_prior"}
        base = self.memory.retriever
        r = Retriever.fused(
            base.store, k=base.k, K=base.K if budget else MRR_CUTOFF, token_budget=base.token_budget if budget else None,
            serializer=base.serializer, redundancy_penalty=base.redundancy_penalty, **options,
        )  # fmt: skip
        prior = float(values["type_prior"])
        if prior not in self._caches:  # one cache per type prior: the indexes are built once per prior
            self._caches[prior] = ScopeIndexCache(base.store, size=256, tokenizer=StemmingTokenizer(), type_prior=prior)
        r.indexes = self._caches[prior]
        return r

    def score(self, values: dict, budget: bool = False) -> np.ndarray:
        """Per question: precision@1, reciprocal rank within MRR@10, and (``budget``) gold in the packed block."""
        r = self.retriever(values, budget)
        out = np.zeros((len(self.questions), 3))
        with module_constants(values):
            for n, ((chat, q), vector) in enumerate(zip(self.questions, self.vectors)):
                hits = r.retrieve(vector, ChatEval.scope_of(chat), query_text=q.question, where=self.where, asked_at=q.asked_at)
                ranked = [list(h.record.provenance) for h in hits]
                out[n] = (
                    M.precision_at_1(q.gold_message_ids, ranked) or 0.0,
                    M.reciprocal_rank(q.gold_message_ids, ranked, MRR_CUTOFF) or 0.0,
                    float(M.first_gold_rank(q.gold_message_ids, ranked) is not None) if budget else np.nan,
                )
        return out


def dev_sets() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in CHATS.glob("dev-*.jsonl")))


class Fitter:
    """Scores of parameter vectors on every set, each vector scored once (folds share them)."""

    def __init__(self, work: Path, dev: bool = True) -> None:
        self.groups = dict(AUTHORS) | ({TRAIN_ONLY: dev_sets()} if dev else {})
        self.sets = {name: ChatStore(name, work) for names in self.groups.values() for name in names}
        first = next(iter(self.sets.values()))
        self.start = shipped(first.memory.retriever)
        self._seen: dict[tuple, dict[str, np.ndarray]] = {}
        self.evaluations = 0

    def scores(self, values: dict) -> dict[str, np.ndarray]:
        key = tuple(sorted(values.items()))
        if key not in self._seen:
            t = time.perf_counter()
            self._seen[key] = {name: s.score(values) for name, s in self.sets.items()}
            self.evaluations += 1
            moved = {k: v for k, v in values.items() if v != self.start.get(k, v)}
            print(f"    [{self.evaluations}] {moved} scored ({time.perf_counter() - t:.0f} s)", file=sys.stderr, flush=True)
        return self._seen[key]

    def group_score(self, values: dict, group: str) -> tuple[float, float]:
        rows = np.vstack([self.scores(values)[name] for name in self.groups[group]])
        return float(rows[:, 0].mean()), float(rows[:, 1].mean())

    def objective(self, values: dict, groups: list[str]) -> float:
        return float(np.mean([p1 + 0.1 * rr for p1, rr in (self.group_score(values, g) for g in groups)]))

    def deviations(self, origin: dict | None = None) -> list[dict]:
        """``origin`` (default the shipped values) with one parameter moved to another value of its grid."""
        origin = origin or self.start
        return [origin | {n: v} for n, grid in GRID.items() for v in grid if v != origin[n]]

    def fit(self, groups: list[str], min_gain: float, rounds: int, log) -> dict:
        """Greedy forward selection over one-parameter moves, on the objective over ``groups``: each parameter's
        best move that gains more than ``min_gain`` alone, tried best first on top of what was taken, kept when
        the combination still gains more than ``min_gain``; repeated from what was taken, at most ``rounds`` times
        (the first round's moves, from the shipped values, are shared by every fold)."""
        chosen = dict(self.start)
        for n in range(rounds):
            origin = dict(chosen)
            base = self.objective(origin, groups)
            best: dict[str, tuple[object, float]] = {}
            for trial in self.deviations(origin):
                (name, value), = ((k, v) for k, v in trial.items() if v != origin[k])
                gain = self.objective(trial, groups) - base
                if gain > min_gain and gain > best.get(name, (None, 0.0))[1]:
                    best[name] = (value, gain)
            score = base
            for name, (value, alone) in sorted(best.items(), key=lambda kv: -kv[1][1]):
                trial = chosen | {name: value}
                s = self.objective(trial, groups)
                kept = s > score + min_gain
                log(f"  round {n + 1}: {name}={value}: alone {alone:+.4f}, with those taken {s - score:+.4f}{' (taken)' if kept else ''}")
                if kept:
                    chosen, score = trial, s
            if chosen == origin:
                break
        return chosen


def cmd_ingest(args) -> None:
    for names in list(AUTHORS.values()) + [dev_sets()]:
        for name in names:
            t = time.perf_counter()
            ChatStore(name, args.work)
            print(f"{name}: ingested ({time.perf_counter() - t:.0f} s)", flush=True)


def summary(rows: np.ndarray) -> str:
    recall = "" if np.isnan(rows[:, 2]).all() else f" in_budget={rows[:, 2].mean():.3f}"
    return f"n={len(rows)} p@1={rows[:, 0].mean():.3f} mrr@10={rows[:, 1].mean():.3f}{recall}"


def cmd_score(args) -> None:
    fitter = Fitter(args.work, dev=False)
    values = fitter.start | {k: json.loads(v) for k, v in (o.split("=", 1) for o in args.set)}
    unknown = set(values) - set(GRID)
    if unknown:
        raise SystemExit(f"unknown parameters: {sorted(unknown)}")
    print(json.dumps(values))
    every = []
    for name, s in fitter.sets.items():
        rows = s.score(values, budget=args.budget)
        every.append(rows)
        by = defaultdict(list)
        for b, row in zip(s.buckets, rows):
            by[b].append(row)
        print(f"{name:10} {summary(rows)} | " + " | ".join(f"{b} {np.vstack(by[b])[:, 0].mean():.3f}" for b in sorted(by)))
    print(f"{'all':10} {summary(np.vstack(every))}")


def cmd_cv(args) -> None:
    fitter = Fitter(args.work)
    log = lambda m: print(m, flush=True)  # noqa: E731
    start = fitter.start
    folds = []
    for held in AUTHORS:
        train = [g for g in fitter.groups if g != held]
        log(f"fold {held} (left out: {', '.join(AUTHORS[held])})")
        chosen = fitter.fit(train, args.min_gain, args.rounds, log)
        before, after = fitter.group_score(start, held), fitter.group_score(chosen, held)
        folds.append({
            "left_out": held, "sets": list(AUTHORS[held]),
            "changed": {k: v for k, v in chosen.items() if v != start[k]},
            "p1_before": before[0], "p1_after": after[0], "mrr_before": before[1], "mrr_after": after[1],
            "train_objective_before": fitter.objective(start, train), "train_objective_after": fitter.objective(chosen, train),
        })  # fmt: skip
        log(f"fold {held}: p@1 {before[0]:.3f} -> {after[0]:.3f}, mrr {before[1]:.3f} -> {after[1]:.3f} "
            f"({fitter.evaluations} vectors scored)")  # fmt: skip
    log("fit on all sets")
    final = fitter.fit(list(fitter.groups), args.min_gain, args.rounds, log)
    per_set = {
        name: {"before": list(fitter.scores(start)[name][:, :2].mean(0)), "after": list(fitter.scores(final)[name][:, :2].mean(0))}
        for name in fitter.sets
    }
    screen = [
        {"moved": {k: v for k, v in trial.items() if v != start[k]}, "p1": {g: fitter.group_score(trial, g)[0] for g in fitter.groups}}
        for trial in [start] + fitter.deviations()
    ]  # each one-parameter move's precision@1 per author (every fold's fit reads these)
    result = {
        "start": start, "grid": GRID, "min_gain": args.min_gain, "rounds": args.rounds, "folds": folds, "screen": screen,
        "all_sets": {"changed": {k: v for k, v in final.items() if v != start[k]}, "per_set": per_set},
    }  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    gains = [f["p1_after"] - f["p1_before"] for f in folds]
    log(f"left-out p@1 gain: mean {np.mean(gains):+.4f}, positive on {sum(g > 0 for g in gains)}/{len(gains)} folds")
    log(f"all sets: {result['all_sets']['changed']}")


def cmd_locomo(args) -> None:
    from memdesk.embed import MiniLMEmbedder
    from memdesk.eval.run import load_dataset
    from memdesk.factory import build_retriever
    from memdesk.records import Scope
    from memdesk.settings import Settings
    from memdesk.store import open_store

    embedder = MiniLMEmbedder()
    rows = []
    values = None
    for shard in sorted(p for p in args.run.glob("shard-*") if p.is_dir()):
        done = json.loads((shard / "work" / "state.json").read_text())["ingested"]["typed"]
        dataset = load_dataset("locomo", args.data / f"{shard.name}.json" if args.data and args.data.is_dir() else args.data)
        store = open_store(f"sqlite:///{shard / 'work' / 'typed.db'}")
        base = build_retriever(Settings(), store, embedder.model_id)
        values = shipped(base) | {k: json.loads(v) for k, v in (o.split("=", 1) for o in args.set)}
        options = {k: v for k, v in values.items() if k not in MODULE and k != "type_prior"}
        r = Retriever.fused(store, k=base.k, K=base.K, token_budget=base.token_budget, serializer=base.serializer,
                            redundancy_penalty=base.redundancy_penalty, type_prior=values["type_prior"], **options)  # fmt: skip
        questions = [q for q in dataset.questions if q.conversation_id in done and q.retrieval_scored
                     and q.category in dataset.headline_categories]  # `memdesk eval --categories headline`
        vectors = embed_queries(embedder, [q.question for q in questions])
        with module_constants(values):
            for q, vector in zip(questions, vectors):
                hits = r.retrieve(vector, Scope(user_id=q.conversation_id), query_text=q.question, where=as_filter(None),
                                  asked_at=q.question_time)  # fmt: skip
                prov = [list(h.record.provenance) for h in hits]
                rows.append((M.evidence_recall(q.evidence_ids, prov), M.precision_at_1(q.evidence_ids, prov),
                             M.reciprocal_rank(q.evidence_ids, prov, MRR_CUTOFF), r.serializer.serialize(hits).tokens))  # fmt: skip
        store.close()
    a = np.array(rows, dtype=float)
    print(json.dumps(values))
    print(f"locomo n={len(a)} recall={a[:, 0].mean():.4f} p@1={a[:, 1].mean():.4f} mrr@10={a[:, 2].mean():.4f} "
          f"median_tokens={np.median(a[:, 3]):.0f}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("ingest")
    a.add_argument("--work", type=Path, required=True)
    s = sub.add_parser("score")
    s.add_argument("--work", type=Path, required=True)
    s.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a parameter of GRID (JSON value)")
    s.add_argument("--budget", action="store_true", help="also recall within the 900-token budget (packed)")
    c = sub.add_parser("cv")
    c.add_argument("--work", type=Path, required=True)
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--min-gain", type=float, default=0.002)
    c.add_argument("--rounds", type=int, default=2, help="rounds of moves from what the last one took")
    lo = sub.add_parser("locomo")
    lo.add_argument("--run", type=Path, required=True, help="a LoCoMo run's folder of shard-*/ (read only)")
    lo.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    lo.add_argument("--data", type=Path, default=None, help="the LoCoMo file the run read, or its split folder of shard-*.json (default: the shared file)")
    args = ap.parse_args()
    {"ingest": cmd_ingest, "score": cmd_score, "cv": cmd_cv, "locomo": cmd_locomo}[args.cmd](args)


if __name__ == "__main__":
    main()
