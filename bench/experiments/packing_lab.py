"""Where the default read path's misses are: cut by the token budget, or never ranked (issue 30, a measurement).

Reopens an evaluation run's typed store (as ``bench/retrieval_replay.py`` does, with the run's embedder from
``MEMDESK_EMBEDDER`` and that embedder's read profile), ranks each question's candidates once with the fused path
and no budget (``K`` records, duplicates dropped), then packs that ranking into several budgets with the real
:class:`~memdesk.retrieval.packing.BudgetPacker` and counts gold-turn recall, precision@1 and MRR@10 per budget.
For the budget named by ``--diagnose`` it sorts each missed gold turn into: *not ranked* (no candidate holds it),
*cut* (a candidate holds it, below what the budget kept), with the rank and the tokens the packer had spent by then.

    MEMDESK_EMBEDDER=nomic python bench/experiments/packing_lab.py locomo RUN --budgets 600,900,1200,2000 \\
        --conversations conv-26,conv-30 --configs fused,fused:time_weight=0

Packing variants (``--variants``): ``base`` (the packer as shipped) and ``overlap`` (also skip a record sharing any
turn with what is kept: a question-answer view of a turn already shown adds its question turn at the price of
repeating the answer) and ``penalty<x>`` (a record sharing a turn with records ranked above it loses x standard
deviations of score: it goes after records bringing new turns, not out; ``penalty<x>@<c>``: also one whose vector has
cosine >= c with a record ranked above it; ``penaltyf<x>``: x times the share of its turns already shown). Not a product feature: it reads the benchmark's gold turns.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for retrieval_replay

from retrieval_replay import config_of, open_run, profile_options, reader  # noqa: E402

from memdesk.eval import metrics as M  # noqa: E402
from memdesk.records import Scope  # noqa: E402
from memdesk.retrieval.packing import BudgetPacker, is_statement  # noqa: E402


class OverlapPacker(BudgetPacker):
    """The packer, skipping also a record that shares any turn with the records kept (statements excepted)."""

    def pack(self, ranked, budget=None, max_records=None):
        covered: set[str] = set()
        kept = []
        for h in ranked:
            prov = set(h.record.provenance)
            if prov and prov & covered and not is_statement(h.record):
                continue
            kept.append(h)
            covered |= prov
        return super().pack(kept, budget, max_records)


class PenaltyPacker(BudgetPacker):
    """The packer over a re-ordered ranking: a record sharing a turn with records ranked before it has ``PENALTY``
    (in the fused path's standard deviations) taken off its score, so that records bringing new turns go first
    (a turn-level redundancy penalty, like maximal marginal relevance over provenance)."""

    PENALTY = 1.0
    #: also penalize a record whose vector has at least this cosine with a record ranked before it (None: off)
    SIMILAR: float | None = None
    #: scale the penalty by the share of the record's turns already shown (``penaltyf<x>``)
    FRACTION = False
    #: also take this much per 50 tokens of its line off a record's score (``penalty<x>~<length>``)
    LENGTH = 0.0
    #: also take this much per record already shown from the same day (at most 3) (``penalty<x>^<day>``)
    DAY = 0.0

    def pack(self, ranked, budget=None, max_records=None):
        return super().pack(self.reordered(ranked), budget, max_records)

    def reordered(self, ranked):
        import heapq

        import numpy as np

        covered: set[str] = set()
        days: dict = {}
        shown: list[np.ndarray] = []
        heap: list[tuple[float, int, bool, object]] = []
        seq = 0

        def key(h):
            prov = set(h.record.provenance)
            hit = bool(prov & covered) and not is_statement(h.record)
            if not hit and self.SIMILAR is not None and shown:
                hit = float(np.max(np.stack(shown) @ VECTORS[h.record.id])) >= self.SIMILAR
            share = len(prov & covered) / len(prov) if self.FRACTION and prov else 1.0
            length = self.LENGTH * self.tokens(self.serializer.line(h)) / 50 if self.LENGTH else 0.0
            if self.DAY:
                day = h.record.event_time.date() if h.record.event_time else None
                crowd = min(days.get(day, 0), 3) if day else 0
                length += self.DAY * crowd
                hit = hit or bool(crowd)
            return h.score - (self.PENALTY * share if hit else 0.0) - length, hit

        def release(bound):
            nonlocal seq
            while heap and -heap[0][0] >= bound:
                _, _, was, h = heapq.heappop(heap)
                now, hit = key(h)
                if hit and not was:  # a turn it shares was shown since it was queued
                    seq += 1
                    heapq.heappush(heap, (-now, seq, True, h))
                    continue
                covered.update(h.record.provenance)
                if h.record.event_time:
                    days[h.record.event_time.date()] = days.get(h.record.event_time.date(), 0) + 1
                if self.SIMILAR is not None:
                    shown.append(VECTORS[h.record.id])
                yield h

        for h in ranked:
            yield from release(h.score)
            k, hit = key(h)
            seq += 1
            heapq.heappush(heap, (-k, seq, hit, h))
        yield from release(float("-inf"))


def packer_of(variant: str):
    """The packer class a variant names: ``base``, ``overlap`` or ``penalty<x>``, each optionally followed by
    ``+drop:<type>/<view>`` parts (records of that memory type and view are never packed)."""
    head, *drops = variant.split("+")
    base = {"base": BudgetPacker, "overlap": OverlapPacker}.get(head)
    if base is None:  # penalty<x> or penalty<x>@<cosine>
        head, _, day = head.partition("^")
        head, _, length = head.partition("~")
        penalty, _, similar = head.removeprefix("penalty").partition("@")
        fraction = penalty.startswith("f")
        base = type(head, (PenaltyPacker,), {
            "PENALTY": float(penalty.removeprefix("f")), "SIMILAR": float(similar) if similar else None, "FRACTION": fraction,
            "LENGTH": float(length or 0), "DAY": float(day or 0),
        })  # fmt: skip
    dropped = {tuple(d.removeprefix("drop:").split("/")) for d in drops}
    if not dropped:
        return base

    def pack(self, ranked, budget=None, max_records=None):
        kept = (h for h in ranked if (h.record.type, (h.record.metadata or {}).get("view")) not in dropped)
        return base.pack(self, kept, budget, max_records)

    return type(variant, (base,), {"pack": pack})


VECTORS: dict = {}
"""record id -> stored vector, for the hits of the rankings made with ``with_vectors``"""


def ranked_lists(benchmark: str, run_dir: Path, config: str, conversations: set[str] | None, K: int, with_vectors=False):
    """(question, full ranking) for every scored question of the chosen conversations."""
    ds, done, store, embedder = open_run(benchmark, run_dir)
    make, search_args = config_of(config + ("+" if ":" in config else ":") + f"token_budget=null+K={K}+calibrated=false", profile_options(embedder.model_id))
    memory = reader(store, embedder, *make(store))
    out = []
    try:
        for q in ds.questions:
            if q.conversation_id not in done or not q.retrieval_scored or q.category not in ds.headline_categories:
                continue
            if conversations and q.conversation_id not in conversations:
                continue
            ev = memory.evidence(q.question, scope=Scope(user_id=q.conversation_id), asked_at=q.question_time, **search_args)
            out.append((q, ev.hits))
            if with_vectors:
                by_type: dict = defaultdict(list)
                for h in ev.hits:
                    if h.record.id not in VECTORS:
                        by_type[h.memory_type].append(h.record.id)
                for t, ids in by_type.items():
                    VECTORS.update(zip(ids, store.get_vectors(t, ids)))
    finally:
        store.close()
    return out


def timeline_serializer(fold: bool):
    """A block with no memory-type headers: one timeline of anchor groups (a layout measured, not shipped)."""
    from memdesk.hits import Evidence
    from memdesk.retrieval.folding import folded
    from memdesk.retrieval.serialize import Serializer, _time_key

    class Timeline(Serializer):
        def layout(self, hit):
            anchor = self.anchor(hit)
            return [(f"anchor:{anchor}", f"[{anchor}]")], f"- {self.text(hit)}"

        def serialize(self, hits):
            skip = folded(hits, self.fold_key) if self.fold else set()
            by_anchor: dict = {}
            for i, h in enumerate(hits):
                if i not in skip:
                    by_anchor.setdefault(self.anchor(h), []).append(h)
            lines = []
            for anchor in sorted(by_anchor, key=lambda a: _time_key(by_anchor[a])):
                lines.append(f"[{anchor}]")
                lines.extend(f"- {self.text(h)}" for h in by_anchor[anchor])
            text = "\n".join(lines)
            return Evidence(hits=list(hits), text=text, tokens=self.token_counter.count(text) if text else 0)

    return Timeline(group_by_anchor=True, fold=fold)


def measure(rows, packer_cls, budgets, diagnose: int | None, fold: str = "on"):
    from memdesk.retrieval.serialize import Serializer

    if fold.startswith("timeline"):
        ser = timeline_serializer(fold != "timeline-off")
    else:
        ser = Serializer(group_by_anchor=True, fold=fold == "on")
    result = {}
    for budget in budgets:
        packer = packer_cls(ser, budget, max_records=100)
        recall, p1, rr, tokens = [], [], [], []
        per_cat: dict[str, list[float]] = defaultdict(list)
        why: Counter[str] = Counter()
        cut_ranks, cut_tokens = [], []
        for q, hits in rows:
            packed = packer.pack(hits)
            prov = [list(h.record.provenance) for h in packed]
            r = M.evidence_recall(q.evidence_ids, prov)
            if r is None:
                continue
            recall.append(r)
            per_cat[q.category].append(r)
            p1.append(M.precision_at_1(q.evidence_ids, prov) or 0.0)
            rr.append(M.reciprocal_rank(q.evidence_ids, prov, 10) or 0.0)
            tokens.append(ser.serialize(packed).tokens)
            if budget == diagnose and r < 1:
                kept = {t for p in prov for t in p}
                for gold in q.evidence_ids:
                    if gold in kept:
                        continue
                    at = next((i for i, h in enumerate(hits) if gold in h.record.provenance), None)
                    if at is None:
                        why["not ranked"] += 1
                    else:
                        why["cut"] += 1
                        cut_ranks.append(at)
                        cut_tokens.append(ser.serialize(packer.pack(hits[: at + 1], budget=100_000)).tokens)
        result[budget] = {
            "n": len(recall), "recall": round(statistics.fmean(recall), 4),
            "by_category": {c: round(statistics.fmean(v), 4) for c, v in sorted(per_cat.items())},
            "p@1": round(statistics.fmean(p1), 4), "mrr@10": round(statistics.fmean(rr), 4),
            "median_tokens": statistics.median(tokens),
        }
        if budget == diagnose:
            result[budget]["missed_gold_turns"] = dict(why)
            if cut_ranks:
                result[budget]["cut_rank_median"] = statistics.median(cut_ranks)
                result[budget]["cut_tokens_quartiles"] = [round(x) for x in statistics.quantiles(cut_tokens, n=4)]
    return result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("benchmark", choices=["locomo", "longmemeval"])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--configs", default="fused", help="comma-separated replay configs (bench/retrieval_replay.py)")
    ap.add_argument("--budgets", default="600,900,1200,2000")
    ap.add_argument("--diagnose", type=int, default=900)
    ap.add_argument("--variants", default="base")
    ap.add_argument("--conversations", default="", help="comma-separated conversation ids (default: all ingested)")
    ap.add_argument("--K", type=int, default=300, help="candidates kept in the unbudgeted ranking")
    ap.add_argument("--fold", default="on", help="comma-separated: on (fold repeated lines, the default block), off, timeline (no type headers), timeline-off")
    args = ap.parse_args()
    convs = set(filter(None, args.conversations.split(","))) or None
    budgets = [int(b) for b in args.budgets.split(",")]
    packers = {v: packer_of(v) for v in args.variants.split(",")}
    for config in args.configs.split(","):
        rows = ranked_lists(args.benchmark, args.run_dir, config, convs, args.K, with_vectors="@" in args.variants)
        for variant in args.variants.split(","):
            for fold in args.fold.split(","):
                row = {"config": config, "variant": variant, "fold": fold, "conversations": sorted(convs) if convs else "all",
                       "budgets": measure(rows, packers[variant], budgets, args.diagnose, fold)}
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
