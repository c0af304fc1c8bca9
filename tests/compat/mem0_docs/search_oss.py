# mem0 docs/core-concepts/memory-operations/search.mdx (mem0ai/mem0 at 8d5b786), the open-source blocks as written
from mem0 import Memory

m = Memory()

# Minimal example that shows the concept in action
m.search("What are Alice's hobbies?", filters={"user_id": "alice"})

# Simple search: entity IDs go in `filters`
related_memories = m.search("Should I drink coffee or tea?", filters={"user_id": "alice"})

# Search with additional metadata filters (combine entity + metadata in the same dict)
memories = m.search(
    "food preferences",
    filters={"user_id": "alice", "categories": {"contains": "diet"}},
)

results = m.search(
    "food preferences",
    filters={"user_id": "alice"},
    explain=True,
)
print(results["results"][0]["score_details"])

# Get memories from a specific agent session: entity IDs combined in filters
m.search("query", filters={
    "user_id": "alice",
    "agent_id": "chatbot",
    "run_id": "session-123",
})
