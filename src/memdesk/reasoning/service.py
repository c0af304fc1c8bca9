"""Reasoning banks behind one object, as the HTTP API, the MCP tools and ``RemoteMemory`` reach them.

:class:`ReasoningBanks` lists a scope's banks, grows a bank from verified solved examples, retrieves the examples
nearest a problem, solves a problem with them (when a chat model is configured), and deletes an example or a bank.
Every call names the bank's owner, a scope (:mod:`.ownership`): in process the caller is trusted with any scope,
as with :class:`~memdesk.Memory`; the network faces get the scope from the caller's key (:class:`memdesk.tenants.Caller`).

It holds no logic of MAC's own: an added example goes through :class:`~.bank_builder.BankBuilder` (its solution
checked against its answer, the bank's formats built offline, its problem or tags embedded as the bank's are),
retrieval through :class:`~.example_retrieval.VectorRetriever`, the prompt through :func:`~.methods.build_messages`
and the reading of the answer through :func:`~.scoring.score_answer`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from ..embed.base import Embedder
from ..errors import InvalidInputError, InvalidScopeError, LLMError, NoChatModelError, RecordNotFoundError, UnknownBankError
from ..llm.base import ChatModel
from ..records import Scope
from ..store.base import Store
from ..text.textcheck import check_text, member_of
from .bank import BankManifest, MemoryBank
from .bank_builder import BankBuilder, BuildConfig
from .datasets import AnswerKind, Problem, get_benchmark, text_hash
from .example_retrieval import Retrieval, VectorRetriever
from .methods import Method, PromptSpec, build_messages, serialize_memories
from .ownership import bank_collection, bank_name, check_bank_name, check_owner, owned_banks
from .scoring import score_answer
from .service_models import (
    AddedExamples, BankExamples, BankInfo, ExampleRetrieval, NewExample, RetrievedExample, Solution,
)  # fmt: skip
from .solved_examples import EmbeddingKind, MemoryFormat, SolvedExample, Tags
from .tags import GivenTags, LLMTagger, ProblemRepresentation, Representation, TagRepresentation

CUSTOM = "custom"
"""The benchmark name of a bank grown through the API."""
MAX_EXAMPLES = 100
MAX_K = 50


class ReasoningBanks:
    """The reasoning banks of one store, embedded with ``embedder`` (the memory's own). ``chat`` (optional) solves
    problems, and tags problems for a tag-embedded bank when the caller gives no tags."""

    def __init__(self, store: Store, embedder: Embedder, *, chat: ChatModel | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.chat = chat

    # -- reading -------------------------------------------------------------------------------
    def list_banks(self, *, scope: Scope) -> list[BankInfo]:
        """The banks under ``scope`` (unset ids are wildcards: a user's own banks and its agents'), by name."""
        return [self._info(c, m) for c, m in owned_banks(self.store, _scope(scope))]

    def all_banks(self) -> list[BankInfo]:
        """Every bank that has an owner, by name then owner: an admin's view (in process, an admin key)."""
        return [self._info(c, m) for c, m in owned_banks(self.store, None)]

    def list_examples(self, bank: str, *, scope: Scope, offset: int = 0, limit: int = 50) -> BankExamples:
        """The bank's examples in the order they were added, ``limit`` (1-500) from ``offset``, with the bank's info."""
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise InvalidInputError("offset must be a non-negative integer")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 500:
            raise InvalidInputError("limit must be an integer between 1 and 500")
        store_bank, manifest = self._open(bank, scope)
        rows = store_bank.items.get()
        return BankExamples(
            bank=self._info(store_bank.name, manifest), total=len(rows), offset=offset,
            examples=[SolvedExample.model_validate_json(payload) for _, payload in rows[offset : offset + limit]],
        )  # fmt: skip

    def retrieve_examples(
        self, bank: str, problem: str, *, scope: Scope, k: int = 5, format: MemoryFormat | str = MemoryFormat.LONG,
        tags: Tags | Mapping[str, Any] | None = None,
    ) -> ExampleRetrieval:
        """The ``k`` solved examples nearest ``problem``, best first, with their content in ``format``. A
        tag-embedded bank needs the problem's ``tags`` (or a chat model to tag it)."""
        fmt = _format(format)
        store_bank, manifest = self._open(bank, scope)
        retrieval = self._retrieve(store_bank, manifest, problem, k, fmt, tags)
        return ExampleRetrieval(
            bank=bank, retriever=retrieval.retriever, query_text=retrieval.query_text, query_tags=retrieval.query_tags,
            examples=[RetrievedExample.of(m, fmt) for m in retrieval.memories],
            memory_block=serialize_memories(retrieval.memories, fmt),
        )  # fmt: skip

    def solve(
        self, bank: str, problem: str, *, scope: Scope, method: Method | str = Method.COT, k: int = 3,
        format: MemoryFormat | str = MemoryFormat.SHORT, gamma: float | None = None,
        tags: Tags | Mapping[str, Any] | None = None, gold: str | None = None, max_tokens: int = 1024,
    ) -> Solution:
        """Solve ``problem`` with the configured chat model under ``method``, the bank's ``k`` nearest examples
        (in ``format``) before it; ``gold`` (optional) is compared with the answer read from the reply."""
        if self.chat is None:
            raise NoChatModelError("solving needs a chat model: set MEMDESK_LLM_BASE_URL and MEMDESK_LLM_MODEL")
        fmt = _format(format)
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or not 16 <= max_tokens <= 32_768:
            raise InvalidInputError("max_tokens must be an integer between 16 and 32768")
        store_bank, manifest = self._open(bank, scope)
        kind = _answer_kind(manifest)
        try:
            spec = PromptSpec(method=Method(method), gamma=gamma, answer_instruction=_instruction(manifest))
        except ValueError as e:  # an unknown method name
            raise InvalidInputError(f"unknown method {method!r}; one of {[m.value for m in Method]}") from e
        retrieval = self._retrieve(store_bank, manifest, problem, k, fmt, tags)
        messages = build_messages(spec, problem, serialize_memories(retrieval.memories, fmt))
        completion = self.chat.complete(messages, max_tokens=max_tokens, temperature=0.0, operation="answer")
        scored = score_answer(kind, completion.text, gold if gold is not None else "")
        return Solution(
            bank=bank, method=spec.method, gamma=gamma, answer=scored.prediction, extraction=scored.extraction,
            correct=scored.correct if gold is not None else None, output=completion.text, model=completion.model,
            examples=[RetrievedExample.of(m, fmt) for m in retrieval.memories], usage=completion.usage,
        )  # fmt: skip

    # -- writing -------------------------------------------------------------------------------
    def add_examples(
        self, bank: str, examples: Sequence[NewExample | Mapping[str, Any]], *, scope: Scope,
        answer_kind: AnswerKind | str | None = None,
    ) -> AddedExamples:
        """Add verified solved examples to ``bank``, creating it (``answer_kind``, default ``math``; embedded by
        tags when every example has tags, else by problem text) when ``scope`` has none of that name. Every
        solution must reach its answer, or nothing is added (``InvalidInputError`` naming the ones that do not).
        An id the bank holds already is left as it was."""
        owner = _scope(scope, exact=True)
        items = _examples(examples)
        collection = bank_collection(owner, bank)
        store_bank = MemoryBank(self.store, collection)
        manifest = store_bank.manifest()
        kind = _answer_kind(manifest) if manifest is not None else _kind(answer_kind)
        if manifest is not None and answer_kind is not None and _kind(answer_kind) is not kind:
            raise InvalidInputError(f"bank {bank!r} checks {kind.value} answers, not {_kind(answer_kind).value}")
        embedding = manifest.embedding_kind if manifest is not None else _embedding_kind(items)
        builder = BankBuilder(
            self.store, self.embedder, representation=self._bank_representation(bank, embedding, items),
            answer_kind=kind, solutions="checked",
        )  # fmt: skip
        failed = [(ex, how) for ex in items for ok, how in [builder.verify(ex.solution, ex.answer)] if not ok]
        if failed:
            listed = "; ".join(f"{_id(ex)}: {how}" for ex, how in failed[:5])
            raise InvalidInputError(f"{len(failed)} solution(s) do not reach their answer, nothing added ({listed})")
        problems = [
            Problem(id=_id(ex), benchmark=ex.source, question=ex.problem, answer=ex.answer, solution=ex.solution,
                    group=ex.group, split="submitted")
            for ex in items
        ]  # fmt: skip
        config = BuildConfig(formats=manifest.formats if manifest is not None else list(MemoryFormat), batch_size=len(problems))
        report = builder.build(
            collection, manifest.benchmark if manifest is not None else CUSTOM, problems, [], config, owner=owner
        )
        return AddedExamples(
            bank=bank, ids=[p.id for p in problems], added=report.added, already_there=report.skipped_existing,
            entries=report.bank_size, created=manifest is None,
        )  # fmt: skip

    def delete_example(self, bank: str, example_id: str, *, scope: Scope) -> None:
        """Delete one example; a bank left empty is deleted with it (manifest included)."""
        check_text(example_id, "example id")
        store_bank, _ = self._open(bank, scope)
        if store_bank.items.delete([example_id]) == 0:
            raise RecordNotFoundError(f"no example {example_id!r} in bank {bank!r}")
        if store_bank.count() == 0:
            self._drop(store_bank)

    def delete_bank(self, bank: str, *, scope: Scope) -> int:
        """Delete a bank: its examples, manifest and rejected items. Returns how many examples it held."""
        store_bank, _ = self._open(bank, scope)
        return self._drop(store_bank)

    # -- helpers -------------------------------------------------------------------------------
    def _open(self, name: str, scope: Scope) -> tuple[MemoryBank, BankManifest]:
        owner = _scope(scope, exact=True)
        store_bank = MemoryBank(self.store, bank_collection(owner, check_bank_name(name)))
        manifest = store_bank.manifest()
        if manifest is None or manifest.owner != owner:
            raise UnknownBankError.under(name, owner)
        return store_bank, manifest

    def _drop(self, store_bank: MemoryBank) -> int:
        deleted = store_bank.items.delete()
        for name in store_bank.tables()[1:]:
            self.store.documents(name).delete()
        return deleted

    def _info(self, collection: str, manifest: BankManifest) -> BankInfo:
        owner = manifest.owner
        return BankInfo(
            name=bank_name(collection), user_id=owner.user_id if owner else None, agent_id=owner.agent_id if owner else None,
            benchmark=manifest.benchmark, answer_kind=_answer_kind(manifest), entries=self.store.collection(collection).count(),
            embedding_kind=manifest.embedding_kind, embedding_model=manifest.embedding_model, formats=manifest.formats,
            created_at=manifest.created_at, updated_at=manifest.updated_at,
        )  # fmt: skip

    def _retrieve(
        self, store_bank: MemoryBank, manifest: BankManifest, problem: str, k: int, fmt: MemoryFormat, tags: Any
    ) -> Retrieval:
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise InvalidInputError(f"k must be an integer between 1 and {MAX_K}")
        if not isinstance(problem, str):
            raise InvalidInputError("the problem must be a string")
        check_text(problem, "problem")
        if fmt not in manifest.formats:
            raise InvalidInputError(f"the bank has no {fmt.value!r} format (it has {[f.value for f in manifest.formats]})")
        given = [_tags(tags)] if tags is not None else []
        rep = self._query_representation(manifest.embedding_kind, given)
        return VectorRetriever(store_bank, self.embedder, rep).retrieve(problem, k)

    def _query_representation(self, kind: EmbeddingKind, tags: list[Tags]) -> Representation:
        if kind is EmbeddingKind.PROBLEM:
            return ProblemRepresentation()
        if tags:
            return GivenTags(tags)
        if self.chat is not None:
            return TagRepresentation(LLMTagger(self.chat))
        raise NoChatModelError("this bank is embedded by reasoning tags: give the problem's tags, or configure a chat model")

    def _bank_representation(self, bank: str, kind: EmbeddingKind, items: list[NewExample]) -> Representation:
        tagged = [ex.tags for ex in items if ex.tags is not None]
        if kind is EmbeddingKind.PROBLEM:
            if tagged:
                raise InvalidInputError(f"bank {bank!r} is embedded by problem text: leave the tags out")
            return ProblemRepresentation()
        if len(tagged) == len(items):
            return GivenTags(tagged)
        if not tagged and self.chat is not None:  # tag them all first: a failure adds nothing
            results = LLMTagger(self.chat).tag_examples([(ex.problem, ex.answer) for ex in items])
            for result in results:
                if isinstance(result, LLMError):
                    raise result
            return GivenTags([r.tags for r in results if not isinstance(r, LLMError) and r.tags], model_id=self.chat.model_id)
        raise InvalidInputError(f"bank {bank!r} is embedded by reasoning tags: give tags with every example")


def _scope(scope: Any, *, exact: bool = False) -> Scope:
    """``scope`` as a Scope (a dict of ids is accepted); ``exact``: a bank's owner (no run)."""
    if isinstance(scope, Mapping):
        scope = Scope(**scope)
    if not isinstance(scope, Scope):
        raise InvalidScopeError(f"expected a Scope, got {type(scope).__name__}")
    return check_owner(scope) if exact else scope


def _examples(examples: Any) -> list[NewExample]:
    if isinstance(examples, (str, bytes, Mapping, NewExample)) or not isinstance(examples, Sequence):
        raise InvalidInputError("examples must be a list of solved examples")
    if not 1 <= len(examples) <= MAX_EXAMPLES:
        raise InvalidInputError(f"give between 1 and {MAX_EXAMPLES} examples")
    try:
        items = [ex if isinstance(ex, NewExample) else NewExample.model_validate(ex) for ex in examples]
    except ValidationError as e:
        first = e.errors()[0]
        raise InvalidInputError(f"invalid example: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None
    for ex in items:
        for field in ("problem", "answer", "solution", "id", "group", "source"):
            value = getattr(ex, field)
            if value is not None:
                check_text(value, field)
    ids = [_id(ex) for ex in items]
    if len(set(ids)) != len(ids):
        raise InvalidInputError("two examples have the same id (or the same problem)")
    return items


def _id(ex: NewExample) -> str:
    return ex.id or f"{ex.source}:{text_hash(ex.problem)[:16]}"


def _embedding_kind(items: list[NewExample]) -> EmbeddingKind:
    tagged = sum(ex.tags is not None for ex in items)
    if tagged not in (0, len(items)):
        raise InvalidInputError("a new bank is embedded by tags (every example has tags) or by problem text (none has)")
    return EmbeddingKind.TAGS if tagged else EmbeddingKind.PROBLEM


def _tags(tags: Any) -> Tags:
    if isinstance(tags, Tags):
        return tags
    try:
        return Tags.model_validate(tags)
    except ValidationError as e:
        first = e.errors()[0]
        raise InvalidInputError(f"invalid tags: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None


def _format(value: Any) -> MemoryFormat:
    return member_of(MemoryFormat, value, "format")


def _kind(value: Any) -> AnswerKind:
    if value is None:
        return AnswerKind.MATH
    return member_of(AnswerKind, value, "answer kind")


def _answer_kind(manifest: BankManifest) -> AnswerKind:
    if manifest.answer_kind is not None:
        return manifest.answer_kind
    return get_benchmark(manifest.benchmark).answer_kind


def _instruction(manifest: BankManifest) -> str:
    if manifest.benchmark == CUSTOM:
        return ""
    return get_benchmark(manifest.benchmark).answer_instruction
