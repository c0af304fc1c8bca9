"""The optional extras (``pip install 'memdesk[NAME]'``): what each brings, and one-line checks a command runs
before it does any work. Nothing here imports the optional modules; it only looks whether they are installed."""

from __future__ import annotations

import importlib.util

from ..errors import ConfigError

#: extra -> the top-level modules it installs that memdesk imports
EXTRAS: dict[str, tuple[str, ...]] = {
    "server": ("fastapi", "uvicorn", "mcp"),
    "postgres": ("psycopg",),
    "eval": ("matplotlib", "sympy"),
    "langgraph": ("langgraph", "langchain_core"),
    "quality": ("xllamacpp", "gguf"),
}


def missing(*modules: str) -> list[str]:
    """The modules of ``modules`` that are not installed."""
    out = []
    for m in modules:
        try:
            found = importlib.util.find_spec(m) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            out.append(m)
    return out


def install_hint(extra: str) -> str:
    return f"pip install 'memdesk[{extra}]'"


def require(extra: str, what: str, modules: tuple[str, ...] | None = None) -> None:
    """Raise ConfigError (one line) when ``what`` cannot run for want of ``extra`` (or of some of its ``modules``)."""
    absent = missing(*(modules or EXTRAS[extra]))
    if absent:
        raise ConfigError(f"{what} needs the {extra} extra: {install_hint(extra)} (missing: {', '.join(absent)})")


def can_plot() -> bool:
    return not missing("matplotlib")


PLOTS_SKIPPED = f"plots skipped: matplotlib is not installed ({install_hint('eval')})"
