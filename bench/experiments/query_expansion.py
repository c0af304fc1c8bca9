"""Query expansion with a chat model, measured on an evaluation run's store (issue 13; dropped, see
``bench/results/RETRIEVAL_EXPERIMENTS.md``, "Asking a language model what the evidence would say").

A small embedder and BM25 connect a question with its evidence only through shared words or close meaning;
"which sports does Dana play?" and "I spent the whole summer surfing" share neither, while a language model
knows that surfing is a sport. :class:`QueryExpander` asks a chat model (the prompt below, examples of our own)
for a short list of such terms; the read path then adds them to the BM25 query and/or the embedded text. With
the strongest model that runs here (Qwen2.5-Coder-1.5B) it gave no reliable gain, so the library does not ship it;
``Retriever.retrieve(lexical_text=...)`` is what lets this script rank with a BM25 query other than the question.

Two steps, so the slow one runs once:

    # 1. the terms of every scored question (resumable; the chat model from MEMDESK_LLM_*)
    python bench/experiments/query_expansion.py expand locomo /tmp/memdesk-eval/locomo --terms /tmp/locomo-terms.jsonl
    # 2. recall with the terms, through the real read path, beside the same path without them
    python bench/experiments/query_expansion.py replay locomo /tmp/memdesk-eval/locomo --terms /tmp/locomo-terms.jsonl \
        --configs none,lexical,embedded

``none``: the default read path; ``lexical``: the terms added to the BM25 query; ``embedded``: also appended
to the embedded text; ``embedded-dense``: appended to the embedded text only; ``mean:W``: the embedded query is
the question's vector plus W times the terms' own vector (BM25 on the question alone). ``--alpha A`` scores the
terms with a BM25 of their own, scaled to A times the question's top BM25 score, instead of one query of both.
"""

from __future__ import annotations

import argparse
import json
import sys
import logging
import re
import statistics
import time
from pathlib import Path
from typing import Annotated

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from memdesk.retrieval import scope_index
from memdesk.embed.base import embed_queries
from memdesk.errors import LLMError
from memdesk.retrieval.lexical import STOPWORDS
from memdesk.llm import make_chat_model
from memdesk.llm.base import ChatModel
from memdesk.llm.templates import PromptTemplate
from memdesk.records import Scope
from memdesk.retrieval.retrieve import Retriever, Serializer
from memdesk.settings import Settings
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for retrieval_replay
from retrieval_replay import Tally, open_run  # noqa: E402 - after the sys.path line

log = logging.getLogger("query_expansion")

PROMPT = PromptTemplate.parse("expand_query", """#! version: 1
### system
You help search a long chat history. Given a question about it, list words that a message answering the question would likely contain but the question does not: the concrete kinds of thing it asks about, typical examples, names, places and synonyms. Do not answer the question and do not repeat its words.
Reply with JSON: {"terms": [...]}, at most 12 short terms of one or two words.

Examples:
Question: Which pets has Jordan had?
{"terms": ["dog", "cat", "puppy", "kitten", "hamster", "adopted", "vet", "rescue"]}
Question: How does Tom unwind after work?
{"terms": ["yoga", "reading", "video games", "walk", "meditation", "music", "bath", "garden"]}
Question: What instruments can Priya play?
{"terms": ["guitar", "piano", "violin", "drums", "lessons", "band", "practice", "concert"]}
Question: Where did Sam travel last spring?
{"terms": ["trip", "flight", "vacation", "beach", "city", "visited", "hotel", "abroad"]}
### user
Question: $question
""")
MAX_TERMS = 12
_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
SEP = "\x00"  # between the question and its terms in a BM25 query scored with --alpha


class Expansion(BaseModel):
    """The chat model's reply: search terms, not an answer."""

    model_config = ConfigDict(extra="ignore")

    terms: list[Annotated[str, StringConstraints(strip_whitespace=True, max_length=40)]] = Field(
        default_factory=list, max_length=MAX_TERMS * 2
    )


class QueryExpander:
    """Search terms for a question from ``chat``: at most ``max_terms``, none a stopword or a word the question has."""

    def __init__(self, chat: ChatModel, *, max_terms: int = MAX_TERMS, max_tokens: int = 120) -> None:
        self.chat, self.max_terms, self.max_tokens = chat, max_terms, max_tokens

    @property
    def version(self) -> str:
        return f"{self.chat.model_id} {PROMPT.version}"

    def expand(self, question: str) -> tuple[str, ...]:
        """The terms for ``question`` (none when the chat model fails)."""
        try:
            reply = self.chat.complete(PROMPT.render(question=" ".join(question.split())), schema=Expansion,
                                       max_tokens=self.max_tokens, temperature=0.0, operation="search")
        except LLMError as e:
            log.warning("query expansion failed: %s", e)
            return ()
        parsed = reply.parsed if isinstance(reply.parsed, Expansion) else Expansion.model_validate_json(reply.text)
        return clean_terms(parsed.terms, question, self.max_terms)


def clean_terms(terms: list[str], question: str, max_terms: int = MAX_TERMS) -> tuple[str, ...]:
    """``terms`` lower-cased, without stopwords, the question's words and earlier terms' words; at most ``max_terms``."""
    seen = {w.lower() for w in _WORD.findall(question)} | STOPWORDS
    out: list[str] = []
    for term in terms:
        words = [w for w in (w.lower() for w in _WORD.findall(term)) if w not in seen]
        if words:
            seen.update(words)
            out.append(" ".join(words))
        if len(out) == max_terms:
            break
    return tuple(out)


def weigh_terms_apart(alpha: float) -> None:
    """Score a BM25 query ``question SEP terms`` as the question's BM25 plus the terms' own BM25 scaled to
    ``alpha`` times the question's top score (in place of one BM25 query of both)."""
    plain = scope_index.ScopeIndex.lexical

    def lexical(self, query: str, k: int):
        question, _, terms = query.partition(SEP)
        if not terms:
            return plain(self, query, k)
        sq, st = self.bm25.scores(question), self.bm25.scores(terms)
        top_q = sq.max() if sq.size and sq.max() > 0 else 1.0
        top_t = st.max() if st.size and st.max() > 0 else 1.0
        scores = sq + alpha * st * (top_q / top_t)
        return scores, scope_index._lexical_top(scores, k)

    scope_index.ScopeIndex.lexical = lexical


def expand(args) -> None:
    ds, done, store, _ = open_run(args.benchmark, args.run_dir)
    store.close()
    chat = make_chat_model(Settings.load())
    if chat is None:
        raise SystemExit("set MEMDESK_LLM_BASE_URL and MEMDESK_LLM_MODEL")
    expander = QueryExpander(chat)
    have = set()
    if args.terms.exists():
        have = {json.loads(line)["id"] for line in args.terms.read_text().splitlines() if line.strip()}
    todo = [q for q in ds.questions if q.conversation_id in done and q.retrieval_scored and q.id not in have
            and q.category in ds.headline_categories]
    print(f"{len(todo)} questions to expand ({len(have)} done) with {expander.version}", flush=True)
    with args.terms.open("a") as f:
        for i, q in enumerate(todo):
            start = time.perf_counter()
            terms = expander.expand(q.question)
            f.write(json.dumps({"id": q.id, "terms": list(terms), "s": round(time.perf_counter() - start, 2),
                                "version": expander.version}) + "\n")
            f.flush()
            if i % 50 == 0:
                print(i, q.id, terms, flush=True)


def replay(args) -> None:
    if args.alpha is not None:
        weigh_terms_apart(args.alpha)
    terms = {}
    for line in args.terms.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            terms[row["id"]] = tuple(row["terms"])
    ds, done, store, embedder = open_run(args.benchmark, args.run_dir)
    serializer = Serializer(group_by_anchor=True)
    retriever = Retriever.fused(store, serializer=serializer)
    try:
        for config in args.configs.split(","):
            tally = Tally()
            for q in ds.questions:
                if q.conversation_id not in done or not q.retrieval_scored or q.id not in terms:
                    continue
                extra = terms[q.id] if config != "none" else ()
                vector = query_vector(embedder, q.question, extra, config)
                lexical = None
                if extra and config in ("lexical", "embedded"):
                    lexical = q.question + (f" {SEP} " if args.alpha is not None else " ") + " ".join(extra)
                hits = retriever.retrieve(vector, Scope(user_id=q.conversation_id), query_text=q.question,
                                          lexical_text=lexical, asked_at=q.question_time)
                tally.add(q, ds.conversations[q.conversation_id], serializer.serialize(hits))
            head, sessions = tally.headline(ds), tally.session_fractions()
            print(json.dumps({
                "config": config, "alpha": args.alpha, "n": len(head), "recall": round(float(np.mean(head)), 4),
                "median_tokens": statistics.median(tally.tokens),
                "session_recall@10": round(float(np.mean(sessions)), 4) if sessions else None,
                "by_category": {c: round(float(np.mean(v)), 4) for c, v in sorted(tally.recall.items())},
            }), flush=True)
    finally:
        store.close()


def query_vector(embedder, question: str, extra: tuple[str, ...], config: str) -> np.ndarray:
    """The embedded query of ``config``: the question (none, lexical), the question and its terms as one text
    (embedded, embedded-dense), or ``mean:W``: the question's vector plus W times the terms' vector, normalized."""
    if not extra or config in ("none", "lexical"):
        return embed_queries(embedder, [question])[0]
    if config.startswith("mean:"):
        vq, vt = embed_queries(embedder, [question, ", ".join(extra)])
        v = vq + float(config.split(":")[1]) * vt
        return v / np.linalg.norm(v)
    return embed_queries(embedder, [question + " " + " ".join(extra)])[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("step", choices=["expand", "replay"])
    ap.add_argument("benchmark", choices=["locomo", "longmemeval"])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--terms", type=Path, required=True)
    ap.add_argument("--configs", default="none,lexical,embedded")
    ap.add_argument("--alpha", type=float, help="score the terms with a BM25 of their own at this weight")
    args = ap.parse_args()
    (expand if args.step == "expand" else replay)(args)


if __name__ == "__main__":
    main()
