"""Reasoning banks over HTTP: the ``/v1/banks`` routes around one :class:`~memdesk.reasoning.service.ReasoningBanks`.

A bank belongs to a user (and optionally one agent of it); a tenant key reaches its own banks only
(:meth:`memdesk.tenants.Caller.bank_owner`): naming another tenant is a 404 for reads (a bank read by name
reads as missing) and a 403 for writes. The owner travels as ``user_id`` / ``agent_id`` in the body (POST) or
the query string (GET, DELETE), as for memories.
"""


from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, status

from ..reasoning.service import ReasoningBanks
from ..reasoning.service_models import AddedExamples, BankInfo, ExampleRetrieval, Solution
from ..tenants import Caller
from .schemas import AddExamplesRequest, ErrorBody, ExamplesDeleted, RetrieveRequest, SolveRequest

_FORBIDDEN: dict[int | str, dict[str, Any]] = {403: {"model": ErrorBody, "description": "Another tenant's bank."}}
_UNKNOWN: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorBody, "description": "No bank of that name under the owner (also: another tenant's)."}
}
_NO_MODEL: dict[int | str, dict[str, Any]] = {501: {"model": ErrorBody, "description": "No chat model configured."}}


class QueryOwner:
    """The owner fields of a query string (``?user_id=...&agent_id=...``), as the caller gives them."""

    def __init__(
        self,
        user_id: Annotated[str | None, Query(description="user_id of the bank's owner (a tenant key fills its own)")] = None,
        agent_id: Annotated[str | None, Query(description="agent_id of the bank's owner")] = None,
    ) -> None:
        self.user_id, self.agent_id = user_id, agent_id


def bank_router(banks: ReasoningBanks, require_key: Any) -> APIRouter:
    """The ``/v1/banks`` routes; ``require_key`` is the HTTP API's key dependency (it returns the :class:`Caller`)."""
    Who = Annotated[Caller, Depends(require_key)]
    Owner = Annotated[QueryOwner, Depends()]
    router = APIRouter(prefix="/v1/banks", tags=["reasoning banks"])

    @router.get("", responses={404: _UNKNOWN[404]})
    def list_banks(owner: Owner, caller: Who) -> list[BankInfo]:
        """The banks under the owner (an unset agent_id: the user's own banks and its agents'), by name."""
        return banks.list_banks(scope=caller.bank_owner(owner.user_id, owner.agent_id, access="read"))

    @router.post("/{bank}/examples", status_code=status.HTTP_201_CREATED, responses=_FORBIDDEN)
    def add_examples(bank: str, req: AddExamplesRequest, caller: Who) -> AddedExamples:
        """Add verified solved examples (each solution must reach its answer, or nothing is added); the bank is
        created on its first examples."""
        scope = caller.bank_owner(req.user_id, req.agent_id, access="write")
        return banks.add_examples(bank, req.examples, scope=scope, answer_kind=req.answer_kind)

    @router.post("/{bank}/retrieve", responses=_UNKNOWN)
    def retrieve_examples(bank: str, req: RetrieveRequest, caller: Who) -> ExampleRetrieval:
        """The ``k`` solved examples nearest a problem, best first, with scores, tags and content in ``format``."""
        scope = caller.bank_owner(req.user_id, req.agent_id, access="read", bank=bank)
        return banks.retrieve_examples(bank, req.problem, scope=scope, k=req.k, format=req.format, tags=req.tags)

    @router.post("/{bank}/solve", responses={**_UNKNOWN, **_NO_MODEL})
    def solve(bank: str, req: SolveRequest, caller: Who) -> Solution:
        """Solve a problem with the server's chat model under an inference method, the bank's examples first."""
        scope = caller.bank_owner(req.user_id, req.agent_id, access="read", bank=bank)
        return banks.solve(
            bank, req.problem, scope=scope, method=req.method, k=req.k, format=req.format, gamma=req.gamma,
            tags=req.tags, gold=req.gold, max_tokens=req.max_tokens,
        )  # fmt: skip

    @router.delete("/{bank}/examples/{example_id}", responses={**_UNKNOWN, **_FORBIDDEN})
    def delete_example(bank: str, example_id: str, owner: Owner, caller: Who) -> ExamplesDeleted:
        """Delete one example (a bank left empty goes with it)."""
        banks.delete_example(bank, example_id, scope=caller.bank_owner(owner.user_id, owner.agent_id, access="write"))
        return ExamplesDeleted(deleted=1)

    @router.delete("/{bank}", responses={**_UNKNOWN, **_FORBIDDEN})
    def delete_bank(bank: str, owner: Owner, caller: Who) -> ExamplesDeleted:
        """Delete a bank and every example in it; ``deleted`` counts the examples."""
        return ExamplesDeleted(deleted=banks.delete_bank(bank, scope=caller.bank_owner(owner.user_id, owner.agent_id, access="write")))

    return router
