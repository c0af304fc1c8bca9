"""Drop-in faces for code written against other memory libraries.

* :mod:`memdesk.compat.mem0`: ``Memory`` and ``AsyncMemory`` with mem0's OSS calls and result shapes
  (``from memdesk.compat.mem0 import Memory``); see docs/mem0.md for the migration note.
"""

__all__ = ["mem0"]  # the surface is the submodule, imported on demand
