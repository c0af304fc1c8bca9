"""The ``memdesk`` command line: the click group ``main`` (the entry point ``memdesk.cli:main``), its commands in
:mod:`memdesk.cli.app` and the modules beside it."""

from typing import Any

__all__ = ["main"]


def __getattr__(name: str) -> Any:
    # lazily: the command modules import this package's helpers (cli.context), so it must not import them first
    if name == "main":
        from .app import main

        return main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
