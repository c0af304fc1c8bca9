"""What a reasoning evaluation runs: one :class:`EvalConfig` per run, and :func:`sweep_configs`, every
combination of methods, memory on/off, k, formats, gammas and temperatures (paired runs share their
output budget, :data:`DEFAULT_MAX_TOKENS`)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from .methods import Method
from .solved_examples import MemoryFormat


#: Default maximum output tokens per method (standard CoT gets a larger budget, as in the paper;
#: a compressed method and its memory-augmented counterpart always share theirs).
DEFAULT_MAX_TOKENS: dict[Method, int] = {
    Method.COT: 1024,
    Method.NOCOT: 128,
    Method.COD: 512,
    Method.TOKENSKIP: 512,
    Method.EXTRACOT: 512,
}


class EvalConfig(BaseModel):
    """One evaluation run."""

    bench: str
    method: Method
    memory: bool
    k: int = Field(default=5, ge=1)
    format: MemoryFormat = MemoryFormat.LONG
    gamma: float | None = None
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(default=512, ge=1)

    @property
    def run_id(self) -> str:
        parts = [self.bench, self.method.value]
        if self.gamma is not None:
            parts.append(f"g{self.gamma:g}")
        parts.append(f"mem-k{self.k}-{self.format.value}" if self.memory else "nomem")
        parts.append(f"t{self.temperature:g}")
        return "_".join(parts)


def sweep_configs(
    bench: str,
    methods: Sequence[Method],
    *,
    memory: Sequence[bool] = (False, True),
    ks: Sequence[int] = (5,),
    formats: Sequence[MemoryFormat] = (MemoryFormat.LONG,),
    gammas: Sequence[float] = (0.5,),
    temperatures: Sequence[float] = (0.0,),
    max_tokens: int | dict[Method, int] | None = None,
) -> list[EvalConfig]:
    """Every combination; memory-off runs ignore k/format (one per method/gamma/temperature).

    The max output length depends on the method only, never on memory, so each memory-on run has a
    memory-off partner with the same budget.
    """
    out: list[EvalConfig] = []
    seen: set[str] = set()
    for method in methods:
        method = Method(method)
        budget = max_tokens if isinstance(max_tokens, int) else (max_tokens or DEFAULT_MAX_TOKENS)[method]
        method_gammas: Sequence[float | None] = gammas if method in (Method.TOKENSKIP, Method.EXTRACOT) else (None,)
        for gamma in method_gammas:
            for temperature in temperatures:
                for mem in memory:
                    for k in ks if mem else (ks[0],):
                        for fmt in formats if mem else (formats[0],):
                            cfg = EvalConfig(
                                bench=bench, method=method, memory=mem, k=k, format=fmt, gamma=gamma,
                                temperature=temperature, max_tokens=budget,
                            )  # fmt: skip
                            if cfg.run_id not in seen:
                                seen.add(cfg.run_id)
                                out.append(cfg)
    return out
