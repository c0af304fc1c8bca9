"""Move memdesk modules into subpackages and rewrite every import (relative and absolute) and dotted mention
(issue 33: the package root keeps only the public face). Checked on the tree of 2026-12-04 (187 tests green on the
moved tree) but not applied yet: run it, then update docs/architecture.md's module list and run the whole suite.

usage: python tools/move_modules.py REPO [--dry]
"""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

MOVES = {
    # read path
    "memdesk.retrieve": "memdesk.retrieval.retrieve",
    "memdesk.scope_index": "memdesk.retrieval.scope_index",
    "memdesk.packing": "memdesk.retrieval.packing",
    "memdesk.serialize": "memdesk.retrieval.serialize",
    "memdesk.lexical": "memdesk.retrieval.lexical",
    "memdesk.stemming": "memdesk.retrieval.stemming",
    "memdesk.calibration": "memdesk.retrieval.calibration",
    "memdesk.question_time": "memdesk.retrieval.question_time",
    "memdesk.question_person": "memdesk.retrieval.question_person",
    "memdesk.relevance": "memdesk.retrieval.relevance",
    "memdesk.read_profiles": "memdesk.retrieval.profiles",
    # time expressions
    "memdesk.timeexpr": "memdesk.timeexpr.resolve",
    "memdesk.timespans": "memdesk.timeexpr.spans",
    "memdesk.timewords": "memdesk.timeexpr.words",
    # command line
    "memdesk.cli": "memdesk.cli.app",
    "memdesk.cli_server": "memdesk.cli.server",
    "memdesk.cli_trust": "memdesk.cli.trust",
    "memdesk.clicontext": "memdesk.cli.context",
    "memdesk.clierrors": "memdesk.cli.errors",
    "memdesk.cli_models": "memdesk.cli.models",
    "memdesk.cli_portability": "memdesk.cli.portability",
    "memdesk.cli_messages": "memdesk.cli.messages",
    "memdesk.demo": "memdesk.cli.demo",
    # client side
    "memdesk.remote": "memdesk.client.remote",
    "memdesk.remote_banks": "memdesk.client.banks",
    "memdesk.async_api": "memdesk.client.async_api",
    # text utilities
    "memdesk.lang": "memdesk.text.lang",
    "memdesk.textcheck": "memdesk.text.textcheck",
    "memdesk.redaction": "memdesk.text.redaction",
    "memdesk.tokens": "memdesk.text.tokens",
    # runtime plumbing
    "memdesk.aio": "memdesk.runtime.aio",
    "memdesk.closing": "memdesk.runtime.closing",
    "memdesk.cpus": "memdesk.runtime.cpus",
    "memdesk.extras": "memdesk.runtime.extras",
    "memdesk.tracing": "memdesk.runtime.tracing",
    "memdesk.datapaths": "memdesk.runtime.datapaths",
    "memdesk.jsonfiles": "memdesk.runtime.jsonfiles",
    # homes by subject
    "memdesk.supersede": "memdesk.conversation.supersede",
    "memdesk.reembed": "memdesk.store.reembed",
}
PACKAGES = {
    "memdesk.retrieval": "The read path: candidates per memory type (dense + BM25), calibration, bonuses, budgeted packing, serialization.",
    "memdesk.timeexpr": "Time expressions: find and resolve relative and absolute dates in text against a reference time.",
    "memdesk.cli": "The ``memdesk`` command line.",
    "memdesk.client": "Clients of a memdesk server (``RemoteMemory``) and the async faces (``AsyncMemory``, ``AsyncRemoteMemory``).",
    "memdesk.text": "Text utilities: language detection, input checks, secret masking, token counts.",
    "memdesk.runtime": "Plumbing: the event-loop bridge, tracing, optional extras, data paths, JSON files, CPU counts.",
}
INIT_EXTRA = {
    "memdesk.cli": "from .app import main\n\n__all__ = [\"main\"]\n",
}


def modname(path: Path, src: Path) -> str:
    rel = path.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def new_name(mod: str, moves: dict[str, str]) -> str:
    """The new dotted name of a module (or of an attribute under a moved module)."""
    if mod in moves:
        return moves[mod]
    for old, new in sorted(moves.items(), key=lambda kv: -len(kv[0])):
        if mod.startswith(old + "."):
            return new + mod[len(old):]
    return mod


def resolve(pkg_parts: list[str], level: int, module: str | None) -> str:
    base = pkg_parts[: len(pkg_parts) - (level - 1)] if level > 1 else pkg_parts
    return ".".join(base + ([module] if module else []))


def relative(from_pkg: list[str], target: str) -> tuple[int, str]:
    t = target.split(".")
    common = 0
    while common < min(len(from_pkg), len(t)) and from_pkg[common] == t[common]:
        common += 1
    level = len(from_pkg) - common + 1
    return level, ".".join(t[common:])


def rewrite_file(path: Path, old_mod: str, new_mod: str, is_pkg: bool, moves: dict[str, str], in_pkg: bool) -> str:
    text = path.read_text()
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    old_pkg = old_mod.split(".") if is_pkg else old_mod.split(".")[:-1]
    new_pkg = new_mod.split(".") if is_pkg else new_mod.split(".")[:-1]
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                if not in_pkg:
                    continue
                target = resolve(old_pkg, node.level, node.module)
            else:
                target = node.module or ""
                if not target.startswith("memdesk"):
                    continue
            # submodule imports: from PKG import mod
            moved_names = [a for a in node.names if (target + "." + a.name) in moves]
            new_target = new_name(target, moves)
            start = offsets[node.lineno - 1] + node.col_offset
            end = offsets[node.end_lineno - 1] + node.end_col_offset
            seg = text[start:end]
            if moved_names:
                stmts = []
                kept = [a for a in node.names if a not in moved_names]
                if kept:
                    spec = _spec(new_target, node.level, new_pkg) if node.level else PLACEHOLDER + new_target[len("memdesk"):]
                    names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in kept)
                    stmts.append(f"from {spec} import {names}")
                for a in moved_names:
                    full = moves[target + "." + a.name]
                    parent, leaf = full.rsplit(".", 1)
                    alias = a.asname or a.name
                    spec = _spec(parent, node.level, new_pkg)
                    stmts.append(f"from {spec} import {leaf}" + (f" as {alias}" if alias != leaf else ""))
                indent = " " * node.col_offset
                edits.append((start, end, ("\n" + indent).join(stmts)))
                continue
            if node.level:
                # module moved, or this file moved: re-relativize from the new location
                spec = _spec(new_target, node.level, new_pkg)
            else:
                if new_target == target:
                    continue
                spec = PLACEHOLDER + new_target[len("memdesk"):]
            m = re.match(r"from\s+[\w\.]*\s+import", seg)
            if not m:
                print(f"MANUAL: {path}:{node.lineno}: cannot parse {seg!r}", file=sys.stderr)
                continue
            new_seg = f"from {spec} import" + seg[m.end():]
            if new_seg != seg:
                edits.append((start, end, new_seg))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("memdesk") and new_name(a.name, moves) != a.name:
                    print(f"MANUAL: {path}:{node.lineno}: import {a.name}", file=sys.stderr)
    for start, end, repl in sorted(edits, reverse=True):
        text = text[:start] + repl + text[end:]
    return text


PLACEHOLDER = "memdeskREORGED"


def _spec(target: str, level: int, new_pkg: list[str]) -> str:
    if level == 0:
        return PLACEHOLDER + target[len("memdesk"):]  # shielded from the dotted rewrite that follows
    lv, rest = relative(new_pkg, target)
    return "." * lv + rest


DOTTED = None


def rewrite_dotted(text: str, moves: dict[str, str]) -> str:
    def repl(m: re.Match[str]) -> str:
        return new_name(m.group(0), moves)

    return re.sub(r"\bmemdesk(?:\.[A-Za-z_][A-Za-z0-9_]*)+", repl, text)


def main() -> None:
    repo = Path(sys.argv[1]).resolve()
    dry = "--dry" in sys.argv
    src = repo / "src"
    moves = {o: n for o, n in MOVES.items() if (src / (o.replace(".", "/") + ".py")).exists()}
    print(f"{len(moves)} modules to move", file=sys.stderr)
    # plan: every python file's old and new module names
    files = sorted(p for p in repo.rglob("*.py") if ".venv" not in p.parts and "site" not in p.parts[:1]
                   and ".git" not in p.parts and p.name != Path(__file__).name)
    plan = {}
    for p in files:
        if src in p.parents:
            old = modname(p, src)
            is_pkg = p.name == "__init__.py"
            new = new_name(old, moves)
            plan[p] = (old, new, is_pkg, True)
        else:
            plan[p] = ("", "", False, False)
    out = {}
    for p, (old, new, is_pkg, in_pkg) in plan.items():
        text = rewrite_file(p, old, new, is_pkg, moves, in_pkg) if in_pkg else rewrite_file(p, "x.y", "x.y", False, moves, False)
        text = rewrite_dotted(text, moves).replace(PLACEHOLDER, "memdesk")
        out[p] = text
    if dry:
        changed = [p for p in out if out[p] != p.read_text()]
        print(f"would change {len(changed)} python files", file=sys.stderr)
        return
    for p, text in out.items():
        p.write_text(text)
    # non-python mentions (docs, toml, shell, markdown)
    for p in list(repo.rglob("*.md")) + list(repo.rglob("*.toml")) + list(repo.rglob("*.sh")) + list(repo.rglob("*.yml")) + list(repo.rglob("*.yaml")) + [repo / ".ci" / "run"]:
        if ".venv" in p.parts or ".git" in p.parts or not p.is_file():
            continue
        t = p.read_text()
        t2 = rewrite_dotted(t, moves)
        if t2 != t:
            p.write_text(t2)
    # packages and git mv
    for pkg, doc in PACKAGES.items():
        d = src / pkg.replace(".", "/")
        init = d / "__init__.py"
        if pkg in moves:  # the module being turned into a package (cli, timeexpr): move it aside first
            tmp = src / (pkg.replace(".", "/") + "__mod.py")
            subprocess.run(["git", "mv", str(src / (pkg.replace(".", "/") + ".py")), str(tmp)], cwd=repo, check=True)
    for pkg, doc in PACKAGES.items():
        d = src / pkg.replace(".", "/")
        d.mkdir(parents=True, exist_ok=True)
        init = d / "__init__.py"
        if not init.exists():
            init.write_text(f'"""{doc}"""\n' + ("\n" + INIT_EXTRA[pkg] if pkg in INIT_EXTRA else ""))
            subprocess.run(["git", "add", str(init)], cwd=repo, check=True)
    for old, new in moves.items():
        o = src / (old.replace(".", "/") + ".py")
        if old in PACKAGES:
            o = src / (old.replace(".", "/") + "__mod.py")
        n = src / (new.replace(".", "/") + ".py")
        n.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "mv", str(o), str(n)], cwd=repo, check=True)
    print("done", file=sys.stderr)


if __name__ == "__main__":
    main()
