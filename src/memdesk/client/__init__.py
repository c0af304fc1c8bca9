"""Clients of a memdesk server (``RemoteMemory``) and the async faces (``AsyncMemory``, ``AsyncRemoteMemory``)."""
