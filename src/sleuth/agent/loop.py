"""The bounded tool loop behind ``sleuth ask``.

One question goes in; the model may call tools for a bounded number of turns
under one deadline and one budget (the turns and the calls run through the one
:class:`~sleuth.toolkit.loop.ToolLoop`); one answer comes out whose ``[n]`` marks
were checked against the ids sleuth issued.

Search comes in three ways: ``local`` declares sleuth's ``web_search``,
``native`` lets the provider search (its citations become ledger ids too),
and ``directive`` serves models that cannot call tools: they write
``[[WEB_SEARCH: query]]`` and are asked again with the findings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sleuth import log
from sleuth.agent import prompts
from sleuth.agent.models import Answer, SearchMode
from sleuth.errors import LLMToolsUnsupported, LLMTurnLimit
from sleuth.llm.finish import no_answer
from sleuth.llm.jsonreply import strip_reasoning
from sleuth.llm.meter import Meter
from sleuth.llm.models import ChatRequest, Completion, Message, StopReason
from sleuth.toolkit.loop import ToolLoop, malformed_call

_DIRECTIVE = re.compile(r"\[\[\s*WEB_SEARCH\s*:\s*(.+?)\s*\]\]", re.IGNORECASE)
MAX_DIRECTIVES = 3


@dataclass
class Session:
    """``ask``'s policy over the one tool loop: what a turn without calls, a malformed call
    or the last turn means for an answer."""

    loop: ToolLoop
    max_turns: int
    max_output_tokens: int = 2048

    @property
    def meter(self) -> Meter:
        return self.loop.meter

    @property
    def turns(self) -> int:
        return self.loop.turns

    async def ask(self, question: str, search: SearchMode) -> Answer:
        if search == "directive":
            return await self._directive(question)
        try:
            return await self._tools(question, search)
        except LLMToolsUnsupported as error:
            if self.turns > 1:
                raise
            self.loop.turns = 0  # the refused call answered nothing; the fallback gets every turn
            log.event(
                "llm_directive_fallback", provider=self.meter.provider.name, reason=error.message
            )
            return await self._directive(question)

    async def _tools(self, question: str, search: SearchMode) -> Answer:
        native = search == "native"
        # Never shadow the provider's own search tool with a function of that name.
        shadowed = ("web_search", self.meter.provider.native_search) if native else ()
        tools = self.loop.specs(leave_out=[name for name in shadowed if name])
        messages = [
            Message(
                "system", prompts.system_prompt("native" if native else "tools", self.loop.envelope)
            ),
            Message("user", question),
        ]
        reasked = False
        while True:
            last = self.turns >= self.max_turns - 1
            request = ChatRequest(
                messages,
                tools=tools,
                native_search=native,
                tool_choice="none" if last else "auto",
                max_output_tokens=self.max_output_tokens,
            )
            completion = await self.loop.complete(request)
            messages.append(completion.message)
            text = self._cite_native(completion)
            if completion.stop_reason is StopReason.PAUSE and not last:
                continue  # the server paused its own search; sending the turn back resumes it
            calls = completion.message.tool_calls
            if completion.stop_reason is StopReason.MALFORMED_CALL and not calls:
                if reasked or last:
                    raise no_answer(completion, self.meter.provider.name)
                reasked = True  # once: a model that cannot write the call twice will not
                log.event("llm_malformed_call", detail=completion.finish_message[:300])
                if not completion.message.content and completion.message.native is None:
                    messages.pop()  # an empty turn is refused by every API
                messages.append(Message("user", malformed_call(completion.finish_message)))
                continue
            if not calls:
                return self._final(completion, text, search)
            if last:
                if text.strip():
                    return self._answer(text, search, "max_turns")
                raise LLMTurnLimit(
                    f"the model still wanted tools after {self.turns} turns",
                    provider=self.meter.provider.name,
                )
            note = f"\n{prompts.LAST_TURN}" if self.turns >= self.max_turns - 1 else ""
            messages += await self.loop.run_calls(completion.message.tool_calls, note=note)

    async def _directive(self, question: str) -> Answer:
        messages = [
            Message("system", prompts.system_prompt("directive", self.loop.envelope)),
            Message("user", question),
        ]
        while True:
            last = self.turns >= self.max_turns - 1
            completion = await self.loop.complete(
                ChatRequest(messages, max_output_tokens=self.max_output_tokens)
            )
            text = strip_reasoning(completion.message.content)
            queries = list(dict.fromkeys(_DIRECTIVE.findall(text)))[:MAX_DIRECTIVES]
            if not queries or last:
                answer = _DIRECTIVE.sub("", text)
                if queries and not strip_reasoning(answer).strip():
                    raise LLMTurnLimit(
                        f"the model still wanted to search after {self.turns} turns",
                        provider=self.meter.provider.name,
                    )
                return self._final(completion, answer, "directive")
            messages.append(Message("assistant", completion.message.content))
            findings = [
                (await self.loop.run("research", {"question": query}))[0] for query in queries
            ]
            closing = prompts.ANSWER_NOW if self.turns >= self.max_turns - 1 else ""
            messages.append(
                Message("user", "\n\n".join([prompts.FINDINGS, *findings, closing]).strip())
            )

    def _cite_native(self, completion: Completion) -> str:
        """The reply text with the provider's own citations turned into ledger ``[n]`` marks."""
        text = completion.message.content
        marks: dict[int, list[int]] = {}
        for annotation in completion.annotations:
            source = annotation.source
            source_id = self.loop.context.ledger.issue(
                source.url, source.title, kind="native_search"
            )
            ids = marks.setdefault(min(max(annotation.end, 0), len(text)), [])
            if source_id not in ids:
                ids.append(source_id)
        for end in sorted(marks, reverse=True):
            text = text[:end] + "".join(f"[{n}]" for n in marks[end]) + text[end:]
        return text

    def _final(self, completion: Completion, text: str, search: SearchMode) -> Answer:
        """The answer of a turn that called no tools; no text is never an answer."""
        if not strip_reasoning(text).strip():
            raise no_answer(completion, self.meter.provider.name)
        stop = completion.stop_reason
        if stop not in (StopReason.END, StopReason.TOOL_CALLS):
            # Text cut short by a limit or a filter is kept, and says so.
            log.warn("llm_partial_answer", stop=stop.value, finish=completion.finish)
        return self._answer(text, search, stop.value)

    def _answer(self, text: str, search: SearchMode, stop: str) -> Answer:
        checked = self.loop.context.ledger.check(strip_reasoning(text))
        if checked.flagged:
            log.warn("citations_flagged", ids=checked.flagged)
        return Answer(
            answer=checked.text,
            citations=checked.citations,
            flagged_citations=checked.flagged,
            tool_calls=self.loop.calls,
            native_searches=self.loop.searches,
            usage=self.meter.usage,
            cost_usd=None if self.meter.cost is None else round(self.meter.cost, 6),
            cost_estimated=self.meter.estimated,
            provider=self.meter.provider.name,
            model=self.meter.config.model,
            search=search,
            turns=self.turns,
            stop_reason=stop,
        )
