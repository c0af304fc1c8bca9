"""Facts that change: is the current value ranked above the superseded one, and does as_of find the old one?

Each scenario of ``tests/data/update_scenarios.jsonl`` (64 two-session chats written for the project: where
someone lives or works, their job, partner, plans, favourites, preferences, possessions, counts, in phrasings like
"I moved", "not X anymore", "we broke up", "changed my mind", "actually it's...") is added to its own scope; then
its question is searched (typed read path, K=25):

* **current first**: the first hit naming the new value ranks above every hit that names only the old value;
* **as_of**: searched as of a time between the two sessions, the first hit naming either value names the old one.

    python bench/update_scenarios.py [--embedder minilm] [--out bench/results/updates/offline.json]
    python bench/update_scenarios.py --processor llm-scripted   # the LLM processor's add / update / no-op path

``--processor llm-scripted`` runs the LLM processor with a scripted chat model that answers as a good model
would (it knows each scenario's old and new value: it checks memdesk's plumbing of the decisions, known facts
shown, UPDATE closed through the supersession, not any model), one ``add`` per session.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from memdesk.conversation.llm_processor import LLMProcessor
from memdesk.conversation.memory import Memory
from memdesk.embed import make_embedder
from memdesk.factory import build_processor
from memdesk.llm import ScriptedChatModel, make_chat_model
from memdesk.llm.base import ChatMessage
from memdesk.records import Scope
from memdesk.hits import SearchHit
from memdesk.settings import Settings
from memdesk.store import open_store

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "update_scenarios.jsonl"


def load(path: Path = DATA) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def first_of_each_kind(scenarios: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """The first ``n`` scenarios of each kind, in file order."""
    taken: dict[str, int] = {}
    out = []
    for sc in scenarios:
        if taken.get(sc["kind"], 0) < n:
            out.append(sc)
            taken[sc["kind"]] = taken.get(sc["kind"], 0) + 1
    return out


def messages_of(scenario: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for si, session in enumerate(scenario["sessions"], 1):
        for ti, turn in enumerate(session["turns"], 1):
            out.append({"id": f"S{si}:{ti}", "speaker": turn["speaker"], "content": turn["content"], "timestamp": session["date"]})
    return out


def _names(hit: SearchHit, value: str) -> bool:
    return value.lower() in hit.record.text().lower()


def judge(hits: list[SearchHit], old: str, new: str) -> bool:
    """The first hit naming ``new`` comes before every hit naming only ``old``."""
    first_new = next((i for i, h in enumerate(hits) if _names(h, new)), None)
    first_old = next((i for i, h in enumerate(hits) if _names(h, old) and not _names(h, new)), None)
    return first_new is not None and (first_old is None or first_new < first_old)


def judge_as_of(hits: list[SearchHit], old: str, new: str) -> bool:
    """The first hit naming either value names the old one and not the new one."""
    first = next((h for h in hits if _names(h, old) or _names(h, new)), None)
    return first is not None and _names(first, old) and not _names(first, new)


_KNOWN = re.compile(r"^- (f\d+)(?: \[[^\]]*\])?: (.*)$", re.MULTILINE)


def scripted_replies(scenarios: list[dict[str, Any]]) -> Callable[[list[ChatMessage]], dict[str, Any]]:
    """Replies of a scripted chat model for the LLM processor's single-utterance prompt, as a good model would
    give them: the scenario speaker's sentences that name the old or new value become facts; one naming the new
    value while a known fact names only the old one is an update of that fact; everything else is small talk."""
    by_turn = {(m["speaker"], m["content"]): sc for sc in scenarios for m in messages_of(sc) if m["speaker"] == sc["speaker"]}

    def names(text: str, value: str) -> bool:
        return re.search(rf"\b{re.escape(value.lower())}\b", text.lower()) is not None

    def reply(messages: list[ChatMessage]) -> dict[str, Any]:
        user = messages[-1].content
        speaker, text = (part.strip() for part in user.rsplit("Message from ", 1)[1].split(":\n", 1))
        sc = by_turn.get((speaker, text))
        if sc is None or not (names(text, sc["old"]) or names(text, sc["new"])):
            return {"mask": "000"}
        known = dict(_KNOWN.findall(user.split("Known facts about", 1)[1].split("Message from", 1)[0]))
        stale = [a for a, t in known.items() if names(t, sc["old"]) and not names(t, sc["new"])]
        fact: dict[str, Any] = {"fact": f"{speaker}: {text}", "when": None}
        if names(text, sc["new"]) and stale:
            fact.update(decision="update", replaces=stale[0])
        return {"mask": "010", "semantic": [fact]}

    return reply


def run(memory: Memory, scenarios: list[dict[str, Any]], *, as_of: bool = True, by_session: bool = False) -> dict[str, Any]:
    """Add each scenario (in one ``add``, or one per session with ``by_session``), then judge its question."""
    rows = []
    for sc in scenarios:
        scope = Scope(user_id=sc["id"])
        msgs = messages_of(sc)
        for batch in ([[m for m in msgs if m["id"].startswith(f"S{i}:")] for i in range(1, len(sc["sessions"]) + 1)]
                      if by_session else [msgs]):  # fmt: skip
            memory.add(batch, scope=scope)
        current = judge(memory.search(sc["question"], scope=scope), sc["old"], sc["new"])
        past = None
        if as_of:
            past = judge_as_of(memory.search(sc["question"], scope=scope, as_of=datetime.fromisoformat(sc["as_of"])), sc["old"], sc["new"])
        rows.append({"id": sc["id"], "kind": sc["kind"], "current_first": current, "as_of_old": past})
    n = len(rows)
    by_kind: dict[str, list[int]] = {}
    for r in rows:
        k = by_kind.setdefault(r["kind"], [0, 0])
        k[0] += r["current_first"]
        k[1] += 1
    out: dict[str, Any] = {
        "scenarios": n,
        "current_first": round(sum(r["current_first"] for r in rows) / n, 3),
        "by_kind": {k: f"{a}/{b}" for k, (a, b) in sorted(by_kind.items())},
        "failed": [r["id"] for r in rows if not r["current_first"]],
    }
    if as_of:
        out["as_of_old"] = round(sum(bool(r["as_of_old"]) for r in rows) / n, 3)
        out["as_of_failed"] = [r["id"] for r in rows if not r["as_of_old"]]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--embedder", default="minilm", choices=["minilm", "multilingual", "hashing"])
    ap.add_argument("--processor", default="rules", choices=["rules", "llm-scripted", "llm"],
                    help="llm: the LLM processor on the model MEMDESK_LLM_BASE_URL / MEMDESK_LLM_MODEL name")
    ap.add_argument("--per-kind", type=int, default=None, help="only the first N scenarios of each kind (slow models)")
    ap.add_argument("--no-as-of", dest="as_of", action="store_false", help="for code without as_of")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    from benchinfo import write_result  # here: tests/conversation/test_supersede.py loads this file by path, without bench/ on sys.path

    settings = Settings.load(embedder=args.embedder)
    scenarios, scripted = load(), args.processor == "llm-scripted"
    if args.per_kind is not None:
        scenarios = first_of_each_kind(scenarios, args.per_kind)
    model = make_chat_model(settings) if args.processor == "llm" else None
    if args.processor == "llm" and model is None:
        ap.error("--processor llm needs MEMDESK_LLM_BASE_URL and MEMDESK_LLM_MODEL")
    if scripted:
        processor = LLMProcessor(ScriptedChatModel(scripted_replies(scenarios)))
    elif model is not None:
        processor = build_processor(settings.model_copy(update={"processor": "llm"}), model)
    else:
        processor = build_processor(settings)
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory(open_store(f"sqlite:///{tmp}/u.db"), make_embedder(settings), processor)
        start = time.perf_counter()
        scores = run(mem, scenarios, as_of=args.as_of, by_session=args.processor != "rules")
        result = {"data": "tests/data/update_scenarios.jsonl", "embedder": args.embedder, "processor": args.processor,
                  "model": model.model_id if model is not None else None, **scores,
                  "seconds": round(time.perf_counter() - start, 1)}  # fmt: skip
        mem.close()
    write_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
