"""The MCP tools of the reasoning banks: list banks, retrieve solved examples for a problem, solve with them, add
an agent's verified solution, delete an example or a bank. Scoped as the memory tools are (the request's API key,
or the server's bound caller): :meth:`memdesk.tenants.Caller.bank_owner`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import Field

from .mcp_common import scoped, tool_errors
from ..reasoning.datasets import AnswerKind
from ..reasoning.methods import Method
from ..reasoning.service import MAX_K, ReasoningBanks
from ..reasoning.service_models import AddedExamples, BankInfo, ExampleRetrieval, NewExample, Solution
from ..reasoning.solved_examples import MemoryFormat, Tags
from ..records import Scope
from ..tenants import Access, Caller

BANK_INSTRUCTIONS = (
    " Reasoning banks hold verified solved problems: before solving a problem, retrieve_examples from a bank "
    "(list_banks names them) and follow their reasoning pattern; after solving one whose answer you checked, "
    "add_solved_example so the bank grows."
)
_IDS = ("user_id", "agent_id")


def register_bank_tools(server: Any, banks: ReasoningBanks, default: Caller) -> None:
    """Add the bank tools to ``server``; a call runs as the request's caller (over HTTP) or ``default``."""

    def owner(access: Access, *, named: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """A bank tool's ``scope``: the owner the ids name, checked for ``access`` (with ``named``: to read the
        bank the call names) against the caller (see :func:`.mcp_common.scoped`)."""

        def scope_of(caller: Caller, args: dict[str, Any]) -> Scope:
            return caller.bank_owner(args["user_id"], args["agent_id"], access=access, bank=args["bank"] if named else None)

        return scoped(default, _IDS, scope_of)

    @server.tool()
    @tool_errors
    @owner("read")
    def list_banks(scope: Scope) -> list[BankInfo]:
        """The reasoning banks of a user (and its agents), with their size, formats and answer kind."""
        return banks.list_banks(scope=scope)

    @server.tool()
    @tool_errors
    @owner("read", named=True)
    def retrieve_examples(
        bank: str,
        problem: str,
        scope: Scope,
        k: int = Field(default=5, ge=1, le=MAX_K, description="Examples to return."),
        format: MemoryFormat = Field(default=MemoryFormat.LONG, description="long (full solution), short, or summary."),
        tags: Tags | None = Field(default=None, description="The problem's reasoning tags (a tag-embedded bank)."),
    ) -> ExampleRetrieval:
        """The solved examples nearest a problem, best first, with scores, and the memory block to read first."""
        return banks.retrieve_examples(bank, problem, scope=scope, k=k, format=format, tags=tags)

    @server.tool()
    @tool_errors
    @owner("read", named=True)
    def solve_with_bank(
        bank: str,
        problem: str,
        scope: Scope,
        method: Method = Field(default=Method.COT, description="cot, nocot, cod, tokenskip or extracot."),
        k: int = Field(default=3, ge=1, le=MAX_K),
        format: MemoryFormat = MemoryFormat.SHORT,
        gamma: float | None = Field(default=None, description="Kept-token ratio (tokenskip, extracot)."),
        tags: Tags | None = None,
    ) -> Solution:
        """Solve a problem with the server's chat model, the bank's nearest examples placed before it."""
        return banks.solve(bank, problem, scope=scope, method=method, k=k, format=format, gamma=gamma, tags=tags)

    @server.tool()
    @tool_errors
    @owner("write")
    def add_solved_example(
        bank: str,
        problem: str,
        answer: str,
        solution: str,
        scope: Scope,
        tags: Tags | None = None,
        group: str | None = None,
        source: str = Field(default="agent", description="Who solved it."),
        answer_kind: AnswerKind | None = Field(default=None, description="A new bank's answer checker (default math)."),
    ) -> AddedExamples:
        """Add a solved problem to a bank (created if new). The solution must reach the answer, ending with
        \\boxed{answer}; otherwise nothing is added."""
        example = NewExample(problem=problem, answer=answer, solution=solution, tags=tags, group=group, source=source)
        return banks.add_examples(bank, [example], scope=scope, answer_kind=answer_kind)

    @server.tool()
    @tool_errors
    @owner("write")
    def delete_example(bank: str, example_id: str, scope: Scope) -> Literal["deleted"]:
        """Delete one example from a bank."""
        banks.delete_example(bank, example_id, scope=scope)
        return "deleted"

    @server.tool()
    @tool_errors
    @owner("write")
    def delete_bank(bank: str, scope: Scope) -> int:
        """Delete a bank and all its examples; returns how many examples it held."""
        return banks.delete_bank(bank, scope=scope)
