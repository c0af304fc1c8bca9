"""What both MCP tool modules share: the optional MCP SDK's names, the caller of a tool call and the scope it
may use, tool errors."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any, TypeVar, get_type_hints

from ..errors import ForbiddenScopeError, MemdeskError
from ..records import Scope
from ..tenants import Caller

try:  # the MCP SDK is an optional dependency (memdesk[server])
    from mcp.server import MCPServer
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:  # pragma: no cover - exercised only without the extra
    MCPServer = None  # type: ignore[assignment,misc]
    Context = None  # type: ignore[assignment,misc]
    ToolError = None  # type: ignore[assignment,misc]

CALLER_STATE = "memdesk_caller"
"""Where the HTTP key guard leaves the request's :class:`~memdesk.tenants.Caller` (``request.state``)."""

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

ScopeOf = Callable[[Caller, dict[str, Any]], Scope]
"""The scope a tool call may use, from its caller and its arguments by name (the scope ids among them)."""


def caller_of(ctx: Any, default: Caller) -> Caller:
    """Who a tool call runs as: the request's caller over HTTP, else ``default`` (stdio, in process)."""
    request = getattr(ctx.request_context, "request", None) if ctx is not None else None
    if request is None:
        return default
    caller = getattr(request.state, CALLER_STATE, None)  # the key guard always leaves it; fail closed if not
    if not isinstance(caller, Caller):
        raise ForbiddenScopeError("this MCP request carries no authenticated caller")
    return caller


def tool_errors(fn: F) -> F:
    """Report memdesk errors as tool errors ("InvalidScopeError: ...") the model can act on."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except MemdeskError as e:
            raise ToolError(f"{type(e).__name__}: {e}") from e

    return wrapper  # type: ignore[return-value]


def scoped(default: Caller, ids: Sequence[str], scope_of: ScopeOf) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """A tool written with a ``scope`` parameter, served with ``ctx`` and the scope ids ``ids`` (each
    ``str | None = None``) in its place: every call gets the scope ``scope_of(caller, arguments)`` decides, the
    caller being the request's over HTTP (its API key) or ``default`` (stdio, in process), as for the HTTP
    routes. So each tool's scope check is this one path, and the ids its schema shows are the same for all."""

    def decorate(fn: Callable[..., T]) -> Callable[..., T]:
        hints = get_type_hints(fn, include_extras=True)
        params: list[inspect.Parameter] = []
        for p in inspect.signature(fn).parameters.values():
            if p.name != "scope":
                params.append(p.replace(annotation=hints[p.name]))
                continue
            params.append(inspect.Parameter("ctx", p.kind, annotation=Context))
            params += [inspect.Parameter(name, p.kind, default=None, annotation=str | None) for name in ids]
        signature = inspect.Signature(params, return_annotation=hints["return"])

        @wraps(fn)
        def tool(*args: Any, **kwargs: Any) -> T:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            arguments = dict(bound.arguments)
            caller = caller_of(arguments.pop("ctx"), default)
            scope = scope_of(caller, arguments)
            return fn(**{k: v for k, v in arguments.items() if k not in ids}, scope=scope)

        tool.__signature__ = signature  # type: ignore[attr-defined]
        tool.__annotations__ = {p.name: p.annotation for p in params} | {"return": signature.return_annotation}
        return tool

    return decorate
