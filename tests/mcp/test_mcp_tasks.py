"""crawl_site as an MCP task (2025-11-25), backed by a crawl job: the SDK's client polls
one to its result and cancels another, in process, on every server, and through another
instance on the same Redis.

The SDK defines the task types but its client has no task-augmented call (it checks any
``tools/call`` answer as a tool result), so that one request goes through the client's
dispatcher, raw; ``tasks/get``, ``tasks/result``, ``tasks/cancel`` and ``tasks/list`` go
through its typed ``send_request``.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    CallToolResult,
    CancelTaskRequest,
    CancelTaskRequestParams,
    CancelTaskResult,
    CreateTaskResult,
    GetTaskPayloadRequest,
    GetTaskPayloadRequestParams,
    GetTaskRequest,
    GetTaskRequestParams,
    GetTaskResult,
    ListTasksRequest,
    ListTasksResult,
)
from mcp_web import SearxngWeb, ServerProcess

from loopback import article
from mcp_cancel import hold_page, wait_thread_event
from redis_server import running_redis
from server.harness import OTHER_TOKEN, TOKEN
from server.harness import ServerProcess as ServeProcess
from sleuth.api import AsyncSleuth
from sleuth.server.mcp import build_server
from sleuth.server.mcp_tasks import KEPT_MS, RELATED_TASK

CRAWLED = "A slow Nimbus page"


@pytest.fixture
async def sleuth(web: SearxngWeb) -> AsyncIterator[AsyncSleuth]:
    async with AsyncSleuth(web.settings()) as client:
        yield client


def connect(sleuth: AsyncSleuth) -> Client:
    """The SDK's in-process client over the initialize handshake (2025-11-25)."""
    return Client(build_server(client=sleuth), mode="legacy")


async def start_task(client: Client, name: str, arguments: dict[str, Any]) -> CreateTaskResult:
    raw = await client.session._dispatcher.send_raw_request(
        "tools/call", {"name": name, "arguments": arguments, "task": {"ttl": 60_000}}
    )
    return CreateTaskResult.model_validate(raw, by_name=False)


async def get_task(client: Client, task_id: str) -> GetTaskResult:
    request = GetTaskRequest(params=GetTaskRequestParams(task_id=task_id))
    return await client.session.send_request(request, GetTaskResult)


async def task_result(client: Client, task_id: str) -> CallToolResult:
    request = GetTaskPayloadRequest(params=GetTaskPayloadRequestParams(task_id=task_id))
    return await client.session.send_request(request, CallToolResult)


async def cancel_task(client: Client, task_id: str) -> CancelTaskResult:
    request = CancelTaskRequest(params=CancelTaskRequestParams(task_id=task_id))
    return await client.session.send_request(request, CancelTaskResult)


async def test_the_server_offers_crawl_site_as_a_task(sleuth: AsyncSleuth) -> None:
    async with connect(sleuth) as client:
        tasks = client.server_capabilities.tasks
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert tasks is not None
    assert tasks.requests is not None
    assert tasks.requests.tools is not None
    assert tasks.requests.tools.call is not None
    assert tasks.cancel is not None
    assert tasks.list is not None
    crawl = listed["crawl_site"].execution
    assert crawl is not None
    assert crawl.task_support == "optional"
    assert all(tool.execution is None for name, tool in listed.items() if name != "crawl_site")


async def test_a_server_that_runs_no_jobs_offers_crawl_site_as_a_bounded_call(
    sleuth: AsyncSleuth,
) -> None:
    from sleuth.server.mcp import mcp_registry

    server = build_server(mcp_registry(local=False), client=sleuth, tasks=False)
    async with Client(server, mode="legacy") as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        tasks = client.server_capabilities.tasks
    assert listed["crawl_site"].execution is None
    assert tasks is None or tasks.requests is None or tasks.requests.tools is None


async def test_a_crawl_site_task_is_polled_to_its_result(
    sleuth: AsyncSleuth, web: SearxngWeb
) -> None:
    stall = threading.Event()
    start = web.site.origin + "/slow/start"
    paragraph = "Nimbus answers slowly on this page, and the crawl waits for it patiently."
    web.site.add("/slow/start", article(CRAWLED, [paragraph] * 3), stall=stall)
    async with connect(sleuth) as client:
        try:
            created = await start_task(client, "crawl_site", {"url": start, "max_pages": 1})
            task_id = created.task.task_id
            assert created.task.status == "working"
            assert created.task.ttl == KEPT_MS  # a task is kept as long as its job
            assert created.task.poll_interval is not None
            polled = await get_task(client, task_id)
            assert (polled.task_id, polled.status) == (task_id, "working")  # the page waits
            assert polled.status_message == "0 of 0 pages read, 1 to go"
        finally:
            stall.set()
        result = await task_result(client, task_id)
        ended = await get_task(client, task_id)
        listed = await client.session.send_request(ListTasksRequest(), ListTasksResult)
        with pytest.raises(MCPError) as late:
            await cancel_task(client, task_id)
    assert ended.status == "completed"
    assert ended.status_message == "1 of 1 pages read"
    assert not result.is_error
    assert result.meta is not None
    assert result.meta[RELATED_TASK] == {"taskId": task_id}
    assert result.structured_content is not None
    pages = result.structured_content["pages"]
    assert [(p["url"], p["outcome"]) for p in pages] == [(start, "ok")]
    assert CRAWLED in pages[0]["title"]
    assert [task.task_id for task in listed.tasks] == [task_id]
    assert late.value.code == INVALID_PARAMS  # an ended task cannot be cancelled


async def test_a_crawl_site_task_is_cancelled_before_its_next_request(
    sleuth: AsyncSleuth, web: SearxngWeb
) -> None:
    held = hold_page(web.site)
    async with connect(sleuth) as client:
        created = await start_task(client, "crawl_site", {"url": held.url, "max_pages": 5})
        task_id = created.task.task_id
        assert await wait_thread_event(held.asked, 30)
        cancelled = await cancel_task(client, task_id)
        # sleuth hangs up on the page it was reading: the crawl has stopped.
        assert await wait_thread_event(held.dropped, 30)
        after = await get_task(client, task_id)
        with pytest.raises(MCPError) as no_result:
            await task_result(client, task_id)
        # The session goes on: a plain call is still a bounded call.
        plain = await client.call_tool(
            "crawl_site", {"url": web.site.origin + "/docs/timeouts", "max_pages": 1}
        )
    assert cancelled.status == "cancelled"
    assert after.status == "cancelled"
    assert no_result.value.code == INVALID_PARAMS
    assert not held.answered.is_set()
    assert not plain.is_error
    assert web.site.paths().count("/slow/held") == 1  # asked once, never again


async def test_only_crawl_site_runs_as_a_task(sleuth: AsyncSleuth) -> None:
    async with connect(sleuth) as client:
        with pytest.raises(MCPError) as refused:
            await start_task(client, "web_search", {"query": "nimbus"})
        with pytest.raises(MCPError) as unknown:
            await start_task(client, "no_such_tool", {})
        with pytest.raises(MCPError) as missing:
            await get_task(client, "no-such-task")
        with pytest.raises(MCPError) as bad_url:
            await start_task(client, "crawl_site", {"url": "not a url"})
        listed = await client.session.send_request(ListTasksRequest(), ListTasksResult)
    assert refused.value.code == METHOD_NOT_FOUND
    assert unknown.value.code == INVALID_PARAMS
    assert missing.value.code == INVALID_PARAMS
    assert bad_url.value.code == INVALID_PARAMS
    assert "is not a URL" in bad_url.value.message
    assert listed.tasks == []  # nothing was started


@pytest.fixture(params=["sleuth mcp", "sleuth mcp --transport http", "sleuth serve /mcp"])
def server(
    request: pytest.FixtureRequest, web: SearxngWeb, tmp_path: Path
) -> Iterator[str | StdioServerParameters]:
    """A server in its own process, as a client reaches it. Over HTTP each task request is
    a request of its own (``/mcp`` of ``sleuth serve`` is stateless); the task outlives it."""
    if request.param == "sleuth mcp":
        yield StdioServerParameters(
            command=sys.executable,
            args=["-m", "sleuth.server.mcp", "--transport", "stdio"],
            env={**os.environ, **web.env(tmp_path)},
        )
        return
    if request.param == "sleuth serve /mcp":
        served = ServeProcess(web.env(tmp_path))
        try:
            yield served.wait_ready().url + "/mcp"
        finally:
            served.kill()
        return
    process = ServerProcess(web.env(tmp_path))
    try:
        yield process.wait_ready()
    finally:
        process.kill()


async def test_every_server_polls_a_task_to_its_result_and_cancels_another(
    server: str | StdioServerParameters, web: SearxngWeb
) -> None:
    held = hold_page(web.site)
    start = web.site.origin + "/docs/timeouts"
    async with Client(server, mode="legacy") as client:
        done = await start_task(client, "crawl_site", {"url": start, "max_pages": 1})
        result = await task_result(client, done.task.task_id)
        polled = await get_task(client, done.task.task_id)
        stopped = await start_task(client, "crawl_site", {"url": held.url, "max_pages": 1})
        assert await wait_thread_event(held.asked, 30)
        cancelled = await cancel_task(client, stopped.task.task_id)
        assert await wait_thread_event(held.dropped, 30)
        after = await get_task(client, stopped.task.task_id)
    assert polled.status == "completed"
    assert result.structured_content is not None
    assert [p["outcome"] for p in result.structured_content["pages"]] == ["ok"]
    assert (cancelled.status, after.status) == ("cancelled", "cancelled")
    assert not held.answered.is_set()


async def test_a_task_has_the_tool_bounds_and_the_caller_job_quota(web: SearxngWeb) -> None:
    held = hold_page(web.site)
    settings = web.settings().model_copy(update={"crawl_jobs_per_token": 1})
    async with AsyncSleuth(settings) as sleuth, connect(sleuth) as client:
        with pytest.raises(MCPError) as too_many_pages:
            await start_task(client, "crawl_site", {"url": held.url, "max_pages": 21})
        working = await start_task(client, "crawl_site", {"url": held.url, "max_pages": 1})
        assert await wait_thread_event(held.asked, 30)
        with pytest.raises(MCPError) as over_quota:
            await start_task(client, "crawl_site", {"url": held.url, "max_pages": 1})
        await cancel_task(client, working.task.task_id)
        # The cancelled job gave its slot back.
        again = await start_task(
            client, "crawl_site", {"url": web.site.origin + "/docs/timeouts", "max_pages": 1}
        )
        result = await task_result(client, again.task.task_id)
    assert too_many_pages.value.code == INVALID_PARAMS  # crawl_site reads at most 20 pages
    assert over_quota.value.code == INVALID_REQUEST
    assert "1 crawl jobs are already running" in over_quota.value.message
    assert not result.is_error


async def test_a_task_that_read_no_page_fails_with_the_tool_error_result(
    sleuth: AsyncSleuth, web: SearxngWeb
) -> None:
    web.site.add("/robots.txt", "User-agent: *\nDisallow: /private/\n")
    web.site.add("/private/page", article("Private", ["Nobody should read this page."]))
    async with connect(sleuth) as client:
        created = await start_task(
            client, "crawl_site", {"url": web.site.origin + "/private/page", "max_pages": 1}
        )
        result = await task_result(client, created.task.task_id)
        ended = await get_task(client, created.task.task_id)
        plain = await client.call_tool(
            "crawl_site", {"url": web.site.origin + "/private/page", "max_pages": 1}
        )
    assert (ended.status, ended.status_message) == ("failed", "0 of 1 pages read")
    assert result.is_error
    assert plain.is_error
    # The same answer as the bounded call, but for the ids the ledger gave.
    assert result.structured_content == plain.structured_content
    assert "/private/page" not in web.site.paths()


@pytest.mark.redis
async def test_two_serve_instances_on_one_redis_answer_for_each_other_tasks(
    web: SearxngWeb, tmp_path: Path
) -> None:
    """A task started through one ``sleuth serve``'s ``/mcp`` is polled to its result and
    cancelled through the other's: the task is a job in the shared Redis."""
    held = hold_page(web.site)
    start = web.site.origin + "/docs/timeouts"
    with running_redis() as redis:
        env = {
            **web.env(tmp_path),
            "SLEUTH_CACHE": "redis",
            "SLEUTH_REDIS_URL": redis.url,
            "SLEUTH_API_TOKENS": f"{TOKEN},{OTHER_TOKEN}",
        }
        first, second = ServeProcess(env), ServeProcess(env)
        try:
            urls = [server.wait_ready().url + "/mcp" for server in (first, second)]
            async with (
                mcp_client(urls[0], TOKEN) as one,
                mcp_client(urls[1], TOKEN) as other,
                mcp_client(urls[1], OTHER_TOKEN) as stranger,
            ):
                done = await start_task(one, "crawl_site", {"url": start, "max_pages": 1})
                result = await task_result(other, done.task.task_id)
                polled = await get_task(other, done.task.task_id)
                with pytest.raises(MCPError) as not_theirs:
                    await get_task(stranger, done.task.task_id)
                held_task = await start_task(one, "crawl_site", {"url": held.url, "max_pages": 1})
                assert await wait_thread_event(held.asked, 30)
                cancelled = await cancel_task(other, held_task.task.task_id)
                assert await wait_thread_event(held.dropped, 30)
                after = await get_task(one, held_task.task.task_id)
                # The caller's HTTP job is no task of theirs.
                http_job = first.post("/api/v1/crawl", {"url": start, "max_pages": 1}).json()
                with pytest.raises(MCPError) as not_a_task:
                    await get_task(one, http_job["id"])
            # The task is the caller's crawl job, under the same id on the HTTP API.
            job = second.get(f"/api/v1/crawl/{done.task.task_id}").json()
        finally:
            first.kill()
            second.kill()
    assert (polled.task_id, polled.status) == (done.task.task_id, "completed")
    assert (job["status"], job["pages"], job["options"]["tool"]["max_pages"]) == ("done", 1, 1)
    assert result.structured_content is not None
    assert [(p["url"], p["outcome"]) for p in result.structured_content["pages"]] == [(start, "ok")]
    assert not_theirs.value.code == INVALID_PARAMS  # another token's task is no task of theirs
    assert not_a_task.value.code == INVALID_PARAMS
    assert (cancelled.status, after.status) == ("cancelled", "cancelled")
    assert not held.answered.is_set()
    assert web.site.paths().count("/slow/held") == 1


@asynccontextmanager
async def mcp_client(url: str, token: str) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
    ):
        yield client


@pytest.mark.redis
async def test_sleuth_mcp_runs_its_tasks_on_the_shared_redis(
    web: SearxngWeb, tmp_path: Path
) -> None:
    """Two ``sleuth mcp --transport http`` on one Redis: a task started on one is read to
    its end through the other, whose worker may have read it."""
    start = web.site.origin + "/docs/timeouts"
    with running_redis() as redis:
        env = {**web.env(tmp_path), "SLEUTH_CACHE": "redis", "SLEUTH_REDIS_URL": redis.url}
        first, second = ServerProcess(env), ServerProcess(env)
        try:
            urls = [process.wait_ready() for process in (first, second)]
            async with Client(urls[0], mode="legacy") as one:
                created = await start_task(one, "crawl_site", {"url": start, "max_pages": 1})
            async with Client(urls[1], mode="legacy") as other:
                result = await task_result(other, created.task.task_id)
                polled = await get_task(other, created.task.task_id)
        finally:
            first.kill()
            second.kill()
    assert polled.status == "completed"
    assert result.structured_content is not None
    assert [p["outcome"] for p in result.structured_content["pages"]] == ["ok"]
