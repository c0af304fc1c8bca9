"""The server commands of ``memdesk``: ``serve`` (the HTTP API and MCP over streamable HTTP, behind API
keys) and ``mcp`` (the MCP tools over stdio, for agent hosts that launch memdesk)."""

from __future__ import annotations

from typing import Any

import click

from .context import Ctx
from ..errors import InvalidInputError


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--mcp/--no-mcp", "with_mcp", default=True, show_default=True, help="Also serve MCP at /mcp.")
@click.option(
    "--no-auth", "no_auth", is_flag=True,
    help="Allow listening beyond loopback without API keys (MEMDESK_API_KEYS unset). Do not use on a network.",
)
@click.option("--log-level", default="info", show_default=True, type=click.Choice(["debug", "info", "warning", "error"]))
@click.pass_obj
def serve_command(obj: Ctx, host: str, port: int, with_mcp: bool, no_auth: bool, log_level: str) -> None:
    """Serve the HTTP API (OpenAPI at /docs) and the MCP endpoint, keyed by MEMDESK_API_KEYS (admin keys) and the
    database's tenant keys (`memdesk keys create`)."""
    from ..errors import ConfigError
    from ..runtime.extras import require

    require("server", "`memdesk serve`")
    import uvicorn

    from ..server import ApiKeys, create_app
    from ..server.auth import LOOPBACK_HOSTS
    settings = obj.settings()
    memory = obj.memory()  # tenant keys (`memdesk keys create`) live in its database
    keys = ApiKeys.parse(settings.api_keys.get_secret_value() if settings.api_keys else None, tenant_keys=memory.store)
    if not keys.required and host not in LOOPBACK_HOSTS and not no_auth:
        raise ConfigError(
            f"refusing to listen on {host} without API keys: set MEMDESK_API_KEYS, listen on 127.0.0.1, or pass --no-auth"
        )
    from ..server.mcp_common import MCPServer

    with_mcp = with_mcp and MCPServer is not None
    # without keys a loopback server answers only loopback Host names (DNS-rebinding protection);
    # --no-auth on another address is the user's explicit choice to answer anyone
    hosts = ["*"] if no_auth and host not in LOOPBACK_HOSTS else None
    from ..factory import build_banks

    from ..text.redaction import mask_secrets
    from ..server.limits import ServerLimits

    app = create_app(
        memory, api_keys=keys, mcp=with_mcp, allowed_hosts=hosts, banks=build_banks(settings, memory),
        limits=ServerLimits.from_settings(settings), metrics=settings.metrics,
        sessions=dict(ttl_s=settings.session_ttl_s, secure=settings.cookie_secure),
    )  # fmt: skip
    auth = "API keys required" if keys.required else "no authentication"
    shown = mask_secrets(f"http://{host}:{port}")
    click.echo(f"memdesk on {shown} ({auth}; docs at /docs{', MCP at /mcp' if with_mcp else ''})", err=True)
    # h11 (not httptools): its request-line-plus-headers limit is the one setting both honour the same way
    uvicorn.run(
        app, host=host, port=port, log_level=log_level, log_config=_log_config(), http="h11",
        h11_max_incomplete_event_size=settings.max_header_bytes, timeout_keep_alive=settings.keep_alive_s,
        limit_concurrency=settings.max_connections,
    )  # fmt: skip


def _log_config() -> dict[str, Any]:
    """uvicorn's logging, with memdesk's own loggers on the same handlers and secrets masked in every line."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["redact"] = {"()": "memdesk.text.redaction.RedactingFilter"}
    for handler in config["handlers"].values():
        handler.setdefault("filters", []).append("redact")
    config["loggers"]["memdesk"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return config


@click.command("mcp")
@click.option("--user", "user_id", default=None, help="Bind the tools to this user's scopes (a tenant).")
@click.option("--agent", "agent_id", default=None, help="With --user: only this agent of the user.")
@click.pass_obj
def mcp_command(obj: Ctx, user_id: str | None, agent_id: str | None) -> None:
    """Serve the MCP tools over stdio (for agent hosts that launch memdesk as a subprocess). Without --user the
    tools may name any scope; with it they reach only that tenant's, as a tenant key does over HTTP."""
    from ..runtime.extras import require
    from ..tenants import Caller, Tenant

    require("server", "`memdesk mcp`")
    from ..server.mcp_tools import create_mcp_server

    if agent_id is not None and user_id is None:
        raise InvalidInputError("--agent binds the tools to one agent of a user: give --user too")
    caller = Caller(tenant=Tenant(user_id=user_id, agent_id=agent_id)) if user_id is not None else None
    from ..factory import build_banks

    memory = obj.memory()
    create_mcp_server(memory, caller=caller, banks=build_banks(obj.settings(), memory)).run("stdio")
