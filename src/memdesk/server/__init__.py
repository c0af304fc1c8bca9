"""memdesk's network faces: the HTTP API (:func:`create_app`) and the MCP server (:func:`create_mcp_server`).

Both need the ``server`` extra (``pip install 'memdesk[server]'``) and wrap a :class:`~memdesk.Memory`
the caller builds and closes; ``memdesk serve`` and ``memdesk mcp`` do that from settings.
"""

from .auth import ApiKeys
from .http import create_app
from .mcp_tools import create_mcp_server

__all__ = ["ApiKeys", "create_app", "create_mcp_server"]
