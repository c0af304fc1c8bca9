# mem0 docs/core-concepts/memory-operations/delete.mdx (mem0ai/mem0 at 8d5b786), the open-source block as written
from mem0 import Memory

memory = Memory()
memory.delete(memory_id="mem_123")
memory.delete_all(user_id="alice")
