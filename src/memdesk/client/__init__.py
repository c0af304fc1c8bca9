"""Clients of a memdesk server (``RemoteMemory``) and the async faces (``AsyncMemory``, ``AsyncRemoteMemory``)."""

# its modules; the public names are re-exported by memdesk itself
__all__ = [
    "async_api",
    "banks",
    "remote",
]
