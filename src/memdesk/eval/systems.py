"""The systems compared in one evaluation run, all on the same embedder.

- ``memdesk-default``: what a user gets without flags: the processor and the retriever (k, K,
  hybrid, and whatever else the defaults say) built from the settings by
  :func:`memdesk.conversation.memory.build_memory`, the code behind ``Memory.open()``, searched with no
  per-call overrides; it reads the typed store when its processor is the run's typed processor
  (the same settings), else a store of its own;
- ``memdesk-typed``: ENGRAM's read path over the typed store (per-type top-k, merge, truncate K);
- ``memdesk-untyped``: the same records ranked in one list (the ENGRAM ablation);
- ``memdesk-hybrid`` / ``memdesk-hybrid-K40``: the typed read path with a BM25 ranking fused in (a memdesk
  extension), at the same K and at K=40;
- ``flat-rag`` / ``flat-rag-K50``: one record per raw turn, top-K turns (no routing, no typing);
- ``full-context``: every turn of the conversation (token and accuracy reference; no retrieval);
- ``typed-k{k}-K{K}``: the k/K sweep of the typed system (retrieval metrics only, never answered).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from ..errors import UsageError

StoreKind = Literal["typed", "raw", "default"]
DEFAULT_SYSTEM = "memdesk-default"

SWEEP_K = (5, 10, 20)
SWEEP_BIG_K = (10, 25, 50)


class SystemSpec(BaseModel):
    """How one system gets its evidence.

    ``kind``: ``memory`` (a Memory searched with this spec's k, K, mode and hybrid), ``default``
    (the default Memory from the settings, searched without overrides; its k, K and hybrid are
    filled in from the retriever it was built with) or ``full`` (the whole conversation).
    ``store`` names the ingested store it reads (``typed``: the run's processor, ``raw``: one record
    per turn, ``default``: the default processor when it is not the run's); ``None`` for full
    context. ``answered`` says whether a configured chat model answers with this system's evidence
    (the sweep is retrieval-only).
    """

    model_config = ConfigDict(frozen=True)

    name: str
    kind: Literal["memory", "default", "full"] = "memory"
    store: StoreKind | None = "typed"
    mode: Literal["typed", "untyped"] = "typed"
    k: int = 20
    K: int = 25
    hybrid: bool = False
    sweep: bool = False
    answered: bool = True
    keep_hits: bool = True


def default_systems(
    k: int = 20,
    K: int = 25,
    *,
    sweep: bool = True,
    sweep_k: Sequence[int] = SWEEP_K,
    sweep_big_k: Sequence[int] = SWEEP_BIG_K,
    default_store: StoreKind = "typed",
) -> list[SystemSpec]:
    """The standard line-up: the default, typed, untyped, hybrid, flat RAG at K and at 50, full
    context, and the sweep."""
    out = [
        SystemSpec(name=DEFAULT_SYSTEM, kind="default", store=default_store),
        SystemSpec(name="memdesk-typed", store="typed", mode="typed", k=k, K=K),
        SystemSpec(name="memdesk-untyped", store="typed", mode="untyped", k=k, K=K),
        SystemSpec(name="memdesk-hybrid", store="typed", mode="typed", k=k, K=K, hybrid=True),
        # the recall a larger evidence budget buys with hybrid ranking (retrieval only)
        SystemSpec(name="memdesk-hybrid-K40", store="typed", mode="typed", k=k, K=40, hybrid=True, answered=False),
        SystemSpec(name="flat-rag", store="raw", mode="untyped", k=K, K=K),
    ]
    if K != 50:
        out.append(SystemSpec(name="flat-rag-K50", store="raw", mode="untyped", k=50, K=50, answered=False))
    out.append(SystemSpec(name="full-context", kind="full", store=None, k=0, K=0))
    if sweep:
        for sk in sweep_k:
            for sK in sweep_big_k:
                out.append(
                    SystemSpec(
                        name=f"typed-k{sk}-K{sK}", store="typed", mode="typed", k=sk, K=sK,
                        sweep=True, answered=False, keep_hits=False,
                    )
                )
    return out


def select_systems(all_systems: Sequence[SystemSpec], names: Iterable[str] | None) -> list[SystemSpec]:
    """The systems named in ``names`` (``"sweep"`` selects the whole sweep); all when ``names`` is
    None. ``memdesk-default`` is always measured, named or not."""
    if names is None:
        return list(all_systems)
    wanted = [n.strip() for n in names if n.strip()]
    if DEFAULT_SYSTEM not in wanted and any(s.name == DEFAULT_SYSTEM for s in all_systems):
        wanted.insert(0, DEFAULT_SYSTEM)
    by_name = {s.name: s for s in all_systems}
    out: list[SystemSpec] = []
    for n in wanted:
        if n == "sweep":
            out.extend(s for s in all_systems if s.sweep and s not in out)
        elif n in by_name:
            if by_name[n] not in out:
                out.append(by_name[n])
        else:
            raise UsageError(f"unknown system {n!r}; known: {', '.join(by_name)} or 'sweep'")
    return out
