"""Older import paths of modules that moved into subpackages (issue 33's layout), kept for user code.

``import memdesk.remote`` or ``from memdesk.retrieve import Retriever`` keep working: the finder maps such a path to
the module's new home (the same module object, so ``isinstance`` and monkeypatching agree) and warns once with a
:class:`DeprecationWarning`. Only modules a user could have imported from the documented surface are listed; the
package root (``from memdesk import Memory, RemoteMemory, ...``) is the supported way.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

#: old dotted path -> new dotted path
MOVED_MODULES: dict[str, str] = {
    "memdesk.remote": "memdesk.client.remote",
    "memdesk.remote_banks": "memdesk.client.banks",
    "memdesk.async_api": "memdesk.client.async_api",
    "memdesk.retrieve": "memdesk.retrieval.retrieve",
    "memdesk.serialize": "memdesk.retrieval.serialize",
    "memdesk.relevance": "memdesk.retrieval.relevance",
    "memdesk.packing": "memdesk.retrieval.packing",
    "memdesk.reembed": "memdesk.store.reembed",
    "memdesk.supersede": "memdesk.conversation.supersede",
    "memdesk.tokens": "memdesk.text.tokens",
    "memdesk.redaction": "memdesk.text.redaction",
}


class MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves the old paths in ``moved`` to the modules at their new paths."""

    def __init__(self, moved: dict[str, str]) -> None:
        self.moved = dict(moved)

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.moved:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = self.moved[spec.name]
        warnings.warn(f"{spec.name} moved to {new}; import it from there (or from memdesk)", DeprecationWarning,
                      stacklevel=3)
        module = importlib.import_module(new)
        sys.modules[spec.name] = module
        return module

    def exec_module(self, module: ModuleType) -> None:  # the new module is already executed
        return None


def install(moved: dict[str, str] = MOVED_MODULES) -> None:
    """Put one :class:`MovedModuleFinder` on ``sys.meta_path`` (idempotent)."""
    if not any(isinstance(f, MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder(moved))
