"""Integrations with agent frameworks, each an optional extra that memdesk's core never imports.

* :mod:`memdesk.integrations.langgraph`: ``MemdeskStore``, a LangGraph ``BaseStore`` (``pip install 'memdesk[langgraph]'``);
* :mod:`memdesk.integrations.langchain`: ``MemdeskRetriever``, a LangChain ``BaseRetriever`` (same extra).
"""

__all__ = ["langchain", "langgraph"]  # the surface is the two submodules, imported on demand
