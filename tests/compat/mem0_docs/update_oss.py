# mem0 docs/core-concepts/memory-operations/update.mdx (mem0ai/mem0 at 8d5b786), the open-source block as written
from mem0 import Memory

memory = Memory()

# Replace the content
memory.update(
    memory_id="mem_123",
    text="Alex now prefers decaf coffee",
)

# Update content plus metadata and an expiration date (None clears it)
memory.update(
    memory_id="mem_123",
    text="Alex now prefers decaf coffee",
    metadata={"category": "preferences"},
    expiration_date="2030-01-31",
)
