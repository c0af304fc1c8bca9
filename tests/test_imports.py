"""Every module of the package imports on its own, first: an import circle that only works in one import order (a
half-initialized module) fails here, whatever order the other tests import in. ``import memdesk`` runs before any
of its modules is imported, so each module is imported afresh after it, with the modules the root did not load
removed again (the root's own modules are the order every user gets)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "memdesk"

SCRIPT = r"""
import importlib, sys, warnings
warnings.simplefilter("ignore")
import memdesk
root = set(sys.modules)
failed = []
for name in sys.argv[1:]:
    if name in root:
        continue
    for loaded in [m for m in sys.modules if m not in root]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except ImportError as e:
        if "memdesk" in str(e) or "partially initialized" in str(e):
            failed.append(f"{name}: {e}")
    except Exception as e:  # noqa: BLE001 - a module that fails at import for another reason is reported too
        failed.append(f"{name}: {type(e).__name__}: {e}")
print("\n".join(failed))
sys.exit(1 if failed else 0)
"""


def _modules() -> list[str]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__main__":
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.append(".".join(parts))
    return out


def test_every_module_imports_first() -> None:
    modules = _modules()
    assert len(modules) > 100
    r = subprocess.run([sys.executable, "-c", SCRIPT, *modules], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr[-2000:]
