"""Tool definitions the provider suites declare, the same in every wire format."""

from sleuth.llm import ToolSpec

SEARCH = ToolSpec(
    "web_search",
    "Search the web",
    {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
)
FETCH = ToolSpec(
    "fetch",
    "Read one page",
    {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]},
)
