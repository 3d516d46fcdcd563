"""The server's small pure parts: rate strings, token files, field clearing, the prompt check."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from sleuth import errors
from sleuth.cache import MemoryCache
from sleuth.config import Settings
from sleuth.errors import ConfigError, TooManyRequests, Unauthorized
from sleuth.server.auth import Tokens
from sleuth.server.ratelimit import Rate, RateLimiter, parse_rate
from sleuth.server.responses import from_error
from sleuth.suggest.fields import clean, clean_tags
from sleuth.suggest.prompt import check, default_template, load_template, render


@pytest.mark.parametrize(
    ("text", "rate"),
    [
        ("60/minute", Rate(60, 60)),
        ("10/s", Rate(10, 1)),
        ("1000 / hour", Rate(1000, 3600)),
        ("500/30m", Rate(500, 1800)),
        ("5/days", Rate(5, 86400)),
    ],
)
def test_rates_read_as_people_write_them(text: str, rate: Rate) -> None:
    assert parse_rate(text) == rate
    assert Settings(rate_limit=text).rate_limit == text


@pytest.mark.parametrize("text", ["lots", "0/minute", "60/fortnight", "60/0s", "-1/s"])
def test_bad_rates_are_configuration_errors(text: str) -> None:
    with pytest.raises(ConfigError):
        parse_rate(text)


async def test_a_window_ends_and_a_new_one_starts() -> None:
    now = [1_000_000.0]
    limiter = RateLimiter(MemoryCache(), Rate(2, 60), clock=lambda: now[0])
    assert await limiter.hit("a") == 1
    assert await limiter.hit("a") == 0
    with pytest.raises(TooManyRequests) as refused:
        await limiter.hit("a")
    assert refused.value.retry_after == pytest.approx(20.0)  # the window ends at 1_000_020
    assert await limiter.hit("b") == 1  # another token has its own count
    now[0] += 60
    assert await limiter.hit("a") == 1


def test_tokens_from_a_list_and_from_a_file_of_hashes(tmp_path: Path) -> None:
    listed = Tokens.from_settings(Settings(api_tokens=" one , two ,").server)
    assert listed.verify("Bearer two") == hashlib.sha256(b"two").hexdigest()
    assert listed.verify("bearer   one") == hashlib.sha256(b"one").hexdigest()
    for header in (None, "", "Bearer", "Bearer three", "Basic one", "one"):
        with pytest.raises(Unauthorized):
            listed.verify(header)
    hashes = tmp_path / "hashes"
    hashes.write_text(f"{hashlib.sha256(b'filed').hexdigest().upper()}  # ops team\n\n")
    filed = Tokens.from_settings(Settings(api_tokens=f"@{hashes}").server)
    assert filed.verify("Bearer filed")
    assert not Tokens.from_settings(Settings().server).enabled
    hashes.write_text("# nothing yet\n")
    with pytest.raises(ConfigError, match="lists no token hashes"):
        Tokens.from_settings(Settings(api_tokens=f"@{hashes}").server)


def test_tags_are_lowered_merged_dropped_and_capped() -> None:
    assert clean_tags(["Python", "python", "web dev", "web-dev", "", 3, "a" * 31]) == [
        "python",
        "web-dev",
    ]
    assert clean_tags(["one"]) == []
    assert clean_tags(["a", "b", "c", "d", "e", "f"]) == ["a", "b", "c", "d", "e"]
    assert clean_tags(None) == []


def test_clearing_names_the_fields_it_emptied() -> None:
    suggestion, cleared = clean(
        {"slug": "API", "title": "x" * 201, "description": 5, "tags": ["a"]}, ["api"]
    )
    assert suggestion.model_dump() == {"slug": "", "title": "", "description": "", "tags": []}
    assert sorted(cleared) == ["description", "slug", "tags", "title"]
    kept, none = clean({"slug": "ok-1", "title": " T ", "tags": ["x", "y"]}, ["api"])
    assert (kept.slug, kept.title, kept.tags, none) == ("ok-1", "T", ["x", "y"], [])


def test_the_shipped_prompt_uses_only_known_placeholders() -> None:
    check(default_template())
    text = render(default_template(), ["admin", "api"])
    assert "$" not in text
    assert "admin, api" in text
    assert "30" in text
    assert load_template("") == default_template()
    assert load_template("Plain text prompt") == "Plain text prompt"


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (errors.LLMServerError("boom"), 502),
        (errors.LLMNoAnswer("silence"), 502),
        (errors.LLMIncomplete("cut short"), 502),
        (errors.LLMContentFiltered("filtered"), 422),
        (errors.LLMRefused("refused"), 422),
        (errors.LLMTimeout("slow"), 504),
        (errors.BudgetExceeded("spent"), 429),
        (errors.EmptyExtraction("nothing"), 422),
        (errors.SleuthError("a bug"), 500),
    ],
)
def test_every_error_gets_its_family_status(error: errors.SleuthError, status: int) -> None:
    response = from_error(error)
    assert response.status_code == status
    assert json.loads(bytes(response.body))["code"] == error.code.upper()


@pytest.mark.parametrize(
    "field",
    ["ignore_robots", "ignore_content_signals", "respect_content_signals", "resolve"],
)
def test_no_route_body_grants_what_http_never_offers(field: str) -> None:
    """Strict bodies and the lenient links body alike: a 400, never silently ignored."""
    from sleuth.server.routes import parse, served

    models = [op.operation.model("http") for op in served()]
    assert any(model.model_config.get("extra") == "ignore" for model in models)
    for model in models:
        with pytest.raises(errors.UsageError, match=f"{field} is not accepted"):
            parse(model, {"url": "https://example.org/", field: True})
