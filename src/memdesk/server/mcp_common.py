"""What both MCP tool modules share: the optional MCP SDK's names, the caller of a tool call, tool errors."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from ..errors import ForbiddenScopeError, MemdeskError
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
