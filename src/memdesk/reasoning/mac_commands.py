"""Command line of the reasoning memory: ``memdesk bank build|info``, and what it shares with
``memdesk eval reasoning`` (:mod:`.eval_command`): the common options and :class:`CommandEnv`.

Examples::

    memdesk bank build --bench gsm8k                       # offline: problem embeddings, no tags
    memdesk bank build --bench aime24 --llm                # traces + tags with the configured model
    memdesk eval reasoning --bench math500 --retrieval-only --out runs/math-retrieval
    memdesk eval reasoning --bench math500 --retrieval-only --search ivf --nprobe 8 --out runs/math-ivf
    memdesk eval reasoning --bench gsm8k --method cod --memory both --k 5 --limit 100 \\
        --llm-base-url http://localhost:8080/v1 --llm-model qwen2.5-1.5b --out runs/gsm8k-cod

The chat model is the configured one (``MEMDESK_LLM_BASE_URL``, ``MEMDESK_LLM_MODEL``) when ``--llm``
is given, or the one named by ``--llm-base-url``/``--llm-model``. Banks live in their own SQLite file
(``--store``, default ``<user data dir>/memdesk/reasoning-banks.db``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..cli.context import csv_list
from ..cli.errors import ErrorReportingGroup
from ..errors import UsageError
from ..settings import EMBEDDER_NAMES


def default_store_url() -> str:
    import platformdirs

    return "sqlite:///" + str(Path(platformdirs.user_data_dir("memdesk")) / "reasoning-banks.db")


def _settings(ctx: click.Context, **overrides: Any):
    from pydantic import SecretStr

    from ..settings import Settings

    values = {k: v for k, v in overrides.items() if v is not None}
    if isinstance(values.get("llm_api_key"), str):
        values["llm_api_key"] = SecretStr(values["llm_api_key"])
    obj = ctx.find_root().obj
    if obj is not None and hasattr(obj, "settings"):
        return obj.settings().model_copy(update=values)
    return Settings.load(**values)


def common_options(f: Callable) -> Callable:
    options = [
        click.option("--bench", required=True, type=click.Choice(["gsm8k", "math500", "bbh", "mmlu-sci", "aime24"])),
        click.option("--store", "store_url", default=None, help="Bank database URL (default: reasoning-banks.db in the user data dir)."),
        click.option("--name", default=None, help="Bank name (default: mac-<bench>-tags with a chat model, mac-<bench>-problem without)."),
        click.option("--data-dir", default=None, type=click.Path(file_okay=False), help="Benchmark data folder (default MEMDESK_DATA_DIR or ../shared/data)."),
        click.option("--embedder", type=click.Choice((*EMBEDDER_NAMES, "settings")), default="minilm", show_default=True,
                     help="'settings' uses MEMDESK_EMBEDDER; the others as MEMDESK_EMBEDDER takes them."),
        click.option("--llm", "use_llm", is_flag=True, help="Use the configured chat model (MEMDESK_LLM_BASE_URL / MEMDESK_LLM_MODEL)."),
        click.option("--llm-base-url", default=None, help="OpenAI-compatible endpoint (implies --llm)."),
        click.option("--llm-model", default=None, help="Model name at that endpoint (implies --llm)."),
        click.option("--llm-api-key", default=None, help="API key (local servers ignore it)."),
        click.option("--drop-overlap", is_flag=True, help="Drop bank items that overlap the eval set instead of refusing."),
        click.option("--quiet", is_flag=True, help="No progress bars."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


class CommandEnv:
    """What the commands share: settings, data, store, embedder, chat model."""

    def __init__(self, ctx: click.Context, kw: dict[str, Any]) -> None:
        from ..runtime.datapaths import require_data_dir
        from .datasets import get_benchmark

        use_llm = kw["use_llm"] or bool(kw["llm_base_url"] or kw["llm_model"])
        self.settings = _settings(
            ctx, llm_base_url=kw["llm_base_url"], llm_model=kw["llm_model"], llm_api_key=kw["llm_api_key"]
        )
        self.kw = kw
        self.benchmark = get_benchmark(kw["bench"])
        self.data_dir = require_data_dir(kw["data_dir"] or self.settings.data_dir)
        self.progress = not kw["quiet"]
        self._store = None
        self._embedder = None
        self.chat = None
        self.ledger = None
        if use_llm:
            from ..llm import UsageLedger, make_chat_model

            self.ledger = UsageLedger()
            self.chat = make_chat_model(self.settings, ledger=self.ledger)
            if self.chat is None:
                raise UsageError("--llm needs a model: set MEMDESK_LLM_BASE_URL and MEMDESK_LLM_MODEL or pass --llm-base-url/--llm-model")

    @property
    def store(self):
        if self._store is None:
            from ..store import open_store

            self._store = open_store(self.kw["store_url"] or default_store_url())
        return self._store

    @property
    def embedder(self):
        if self._embedder is None:
            from ..embed import named_embedder

            self._embedder = named_embedder(self.kw["embedder"], self.settings)
        return self._embedder

    def bank_name(self, tags: bool) -> str:
        return self.kw["name"] or f"mac-{self.benchmark.name}-{'tags' if tags else 'problem'}"

    def build_bank(self, name: str, tags: bool, extra: dict[str, Any], owner: Any = None) -> Any:
        """Build bank ``name`` (a tenant's bank when ``owner``, a Scope, is given: served by ``memdesk serve``
        from the same store)."""
        from .bank_builder import BankBuilder, BuildConfig
        from .ownership import bank_collection
        from .solved_examples import MemoryFormat
        from .tags import LLMTagger, TagRepresentation

        chat = self.chat if tags else None
        builder = BankBuilder(
            self.store,
            self.embedder,
            representation=TagRepresentation(LLMTagger(chat)) if chat else None,
            trace_model=self.chat if extra.get("generate_traces", True) else None,
            format_model=self.chat if extra.get("llm_formats", False) else None,
            answer_kind=self.benchmark.answer_kind,
            progress=self.progress,
        )
        config = BuildConfig(
            formats=[MemoryFormat(f) for f in extra.get("formats", ["long", "short", "summary"])],
            batch_size=extra.get("batch_size", 64),
            limit=extra.get("limit"),
            on_overlap="drop" if self.kw["drop_overlap"] else "error",
            max_trace_tokens=extra.get("max_trace_tokens", 1024),
            answer_instruction=self.benchmark.answer_instruction,
        )
        bank_items = self.benchmark.load_bank(self.data_dir)
        eval_items = self.benchmark.load_eval(self.data_dir)
        stored = bank_collection(owner, name) if owner is not None else name
        return builder.build(stored, self.benchmark.name, bank_items, eval_items, config, owner=owner)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def _owner_options(f: Callable) -> Callable:
    f = click.option("--agent", "agent_id", default=None, help="With --user: the bank of this agent of the user.")(f)
    return click.option("--user", "user_id", default=None, help="The tenant whose bank it is (served over the API).")(f)


def _owner(user_id: str | None, agent_id: str | None) -> Any:
    """The owner scope of --user/--agent, or None (a bank of no tenant)."""
    from ..errors import InvalidInputError
    from ..records import Scope

    if agent_id is not None and user_id is None:
        raise InvalidInputError("--agent names an agent of a user: give --user too")
    return Scope(user_id=user_id, agent_id=agent_id) if user_id is not None else None


@click.group("bank", cls=ErrorReportingGroup)
def bank_group() -> None:
    """Reasoning banks of solved examples (MAC)."""


@bank_group.command("build")
@common_options
@click.option("--offline", is_flag=True, help="Problem embeddings, no tags, even when a chat model is configured.")
@click.option("--formats", default="long,short,summary", show_default=True, help="Memory formats to build.")
@click.option("--llm-formats", is_flag=True, help="Have the chat model write Short-CoT and Summary (default: offline condensation).")
@click.option("--no-traces", is_flag=True, help="Do not generate traces for items without a solution (keep them answer-only).")
@click.option("--limit", default=None, type=int, help="Only the first N bank items.")
@click.option("--batch-size", default=64, show_default=True, type=int)
@click.option("--max-trace-tokens", default=1024, show_default=True, type=int)
@click.option("--json", "as_json", is_flag=True, help="Print the build report as JSON.")
@_owner_options
@click.pass_context
def build_cmd(ctx: click.Context, offline: bool, formats: str, llm_formats: bool, no_traces: bool, limit: int | None,
              batch_size: int, max_trace_tokens: int, as_json: bool, user_id: str | None, agent_id: str | None,
              **kw: Any) -> None:
    """Build (or resume) the bank of a benchmark: traces, formats, tags, embeddings. With --user (and --agent)
    the bank is that tenant's: with --store set to the server's database, `memdesk serve` serves it."""
    owner = _owner(user_id, agent_id)
    env = CommandEnv(ctx, kw)
    try:
        if env.chat is not None and not no_traces:
            check_extras({**kw, "retrieval_only": True, "retriever": None}, traces=True)
        tags = env.chat is not None and not offline
        name = env.bank_name(tags)
        report = env.build_bank(
            name,
            tags,
            {
                "formats": csv_list(formats),
                "llm_formats": llm_formats and env.chat is not None,
                "generate_traces": not no_traces,
                "limit": limit,
                "batch_size": batch_size,
                "max_trace_tokens": max_trace_tokens,
            },
            owner,
        )
        if as_json:
            click.echo(report.model_dump_json(indent=2))
        else:
            click.echo(
                f"bank {report.name}: {report.bank_size} entries (+{report.added} added, {report.skipped_existing} already there, "
                f"{report.rejected} rejected traces, {report.failed} failed, {report.absent_traces} without trace, "
                f"{len(report.dropped_overlap)} dropped for overlap) in {report.seconds:.1f}s"
            )
            for op, u in sorted(report.usage.items()):
                click.echo(f"  {op}: {u.calls} calls, {u.prompt_tokens}+{u.completion_tokens} tokens, ${u.cost_usd:.4f}")
    finally:
        env.close()


@bank_group.command("info")
@click.option("--store", "store_url", default=None, help="Bank database URL.")
@click.option("--name", required=True, help="Bank name.")
@_owner_options
def info_cmd(store_url: str | None, name: str, user_id: str | None, agent_id: str | None) -> None:
    """Show a bank's manifest and size."""
    from ..store import open_store
    from .bank import MemoryBank
    from .ownership import bank_collection

    owner = _owner(user_id, agent_id)
    store = open_store(store_url or default_store_url())
    try:
        bank = MemoryBank(store, bank_collection(owner, name) if owner is not None else name)
        manifest = bank.manifest()
        if manifest is None:
            raise UsageError(f"no bank named {name!r} in {store_url or default_store_url()}")
        out = manifest.model_dump(mode="json")
        out["entries"] = bank.count()
        click.echo(json.dumps(out, indent=2))
    finally:
        store.close()


def check_extras(kw: dict[str, Any], *, traces: bool = False) -> None:
    """Before any work: what this run needs from the eval extra (one line), and whether it can plot.
    ``traces``: the run checks generated solutions (``bank build`` with a chat model)."""
    from ..runtime.extras import PLOTS_SKIPPED, can_plot, require
    from .datasets import AnswerKind, get_benchmark

    scoring = traces or not kw["retrieval_only"]
    if scoring and get_benchmark(kw["bench"]).answer_kind is AnswerKind.MATH:
        require("eval", f"checking {kw['bench']} answers", ("sympy",))
    if not kw["retrieval_only"] and not can_plot():
        click.echo(PLOTS_SKIPPED, err=True)
