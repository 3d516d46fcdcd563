"""What sleuth tells the model, in one place so cassettes change only when this does."""

from __future__ import annotations

from sleuth.llm.envelope import Envelope

TOOLS = """You answer questions using web tools. Work like a careful researcher:
- Look things up instead of guessing; prefer official and primary sources.
- After each claim that comes from a tool, cite its source id in square brackets, like [3]. \
Use only ids that appear in tool output; never invent ids or URLs.
- If the sources do not settle the question, say so plainly.
- Keep the answer short and direct."""

NATIVE = """You answer questions using web search. Prefer official and primary sources, \
and say so plainly when the sources do not settle the question. Keep the answer short and \
direct. Ids like [3] in tool output may be cited the same way, in square brackets."""

DIRECTIVE = """You cannot call tools, but sleuth can search the web for you. If you need \
current or specific facts, reply with nothing but one to three lines of the form
[[WEB_SEARCH: a search query]]
and you will receive findings from pages sleuth read, each with an id like [3]. Then answer, \
citing those ids in square brackets right after each claim; never invent ids or URLs. If you \
need no web facts, answer directly."""

LAST_TURN = (
    "Note from sleuth: that was the last tool turn. Answer now from the material above, "
    "without calling tools."
)
FINDINGS = "Findings for your searches:"
ANSWER_NOW = "Answer the question now, citing the ids above. No more searches are possible."


def system_prompt(kind: str, envelope: Envelope) -> str:
    base = {"tools": TOOLS, "native": NATIVE, "directive": DIRECTIVE}[kind]
    return f"{base}\n\n{envelope.rule()}"
