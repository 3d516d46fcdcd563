"""The one error table: every code has one row (exit code, HTTP status, MCP advice,
retryable), every error class and every fetch outcome has its row, and each surface words
its own hints (the CLI names flags, HTTP and MCP name fields)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sleuth import errors
from sleuth.errors import ERRORS, EXIT_CODES, SleuthError
from sleuth.pages.paging import page_text
from sleuth.pages.result import ErrorInfo, FetchResult, Outcome
from sleuth.server.mcp import advice
from sleuth.server.responses import from_error


def _classes(base: type[SleuthError] = SleuthError) -> list[type[SleuthError]]:
    found: list[type[SleuthError]] = []
    for sub in base.__subclasses__():
        if sub.__module__ == errors.__name__:
            found.append(sub)
        found.extend(_classes(sub))
    return found


CLASSES = _classes()
READ_ENDINGS = (errors.FetchError, errors.BlockedError, errors.RenderUnavailable)


def _bare(cls: type[SleuthError]) -> SleuthError:
    """An instance without running a constructor whose keywords differ per class."""
    error = cls.__new__(cls)
    SleuthError.__init__(error, "something failed")
    error.retry_after = 1.0  # type: ignore[attr-defined]  # what the keyword-taking ones set
    error.choices = []  # type: ignore[attr-defined]
    return error


def test_every_error_class_has_its_own_row() -> None:
    assert len(CLASSES) > 60
    assert sorted(cls.__name__ for cls in CLASSES if cls.code not in ERRORS) == []


def test_exit_codes_come_from_the_rows_and_no_two_codes_share_one() -> None:
    assert {c: row.exit for c, row in ERRORS.items() if row.exit is not None} == EXIT_CODES
    assert len(set(EXIT_CODES.values())) == len(EXIT_CODES)
    assert EXIT_CODES["ok"] == 0
    assert EXIT_CODES["out_of_scope"] == 25


def test_outcomes_and_the_table_name_the_same_read_endings() -> None:
    assert {str(o) for o in Outcome} <= set(ERRORS)
    endings = {cls.code for cls in CLASSES if issubclass(cls, READ_ENDINGS)}
    assert endings | {"ok"} == {str(o) for o in Outcome}


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_a_class_takes_retryable_status_and_exit_from_its_row(cls: type[SleuthError]) -> None:
    row = ERRORS[cls.code]
    error = _bare(cls)
    assert error.http_status == row.status
    answer = from_error(error)
    assert answer.status_code == row.status
    assert json.loads(answer.body)["code"] == cls.code.upper()
    if row.exit is not None:
        assert error.exit_code == row.exit
    else:  # a refusal only the server makes: the CLI's usage error, should it ever meet one
        assert error.exit_code == EXIT_CODES["usage_error"]
    if cls is not errors.FetchError:  # a base whose code belongs to NetworkError
        assert cls.default_retryable is row.retryable


def test_the_server_refusals_keep_their_statuses() -> None:
    statuses = {
        errors.StartPastEnd: 422,
        errors.MisdirectedRequest: 421,
        errors.OriginNotAllowed: 403,
        errors.BodyTooLarge: 413,
        errors.UnsupportedMediaType: 415,
        errors.OutOfScope: 403,
    }
    for cls, status in statuses.items():
        assert issubclass(cls, errors.UsageError | errors.BlockedError)
        assert _bare(cls).http_status == status


def test_mcp_advice_is_the_rows_advice_or_the_retry_default() -> None:
    for code, row in ERRORS.items():
        for retryable in (False, True):
            got = advice(ErrorInfo(code=code, message="m", retryable=retryable))
            expected = row.advice or (errors.RETRY_ADVICE if retryable else errors.OTHER_ADVICE)
            assert got == expected
    assert advice(ErrorInfo(code="made_up", message="m")) == errors.OTHER_ADVICE


WORDED = [cls for cls in CLASSES if cls.remedies]


@pytest.mark.parametrize("cls", WORDED, ids=lambda cls: cls.__name__)
def test_the_cli_hint_names_a_flag_and_the_http_one_never_does(cls: type[SleuthError]) -> None:
    error = _bare(cls)
    assert "--" in str(error)
    assert "--" not in error.worded("api")
    body: dict[str, Any] = json.loads(from_error(error).body)
    assert "--" not in body["error"]
    # A message that already left its exception is worded for an HTTP caller too.
    assert errors.api_words(cls.code, str(error)) == error.worded("api")


def test_no_default_hint_names_a_flag_outside_its_remedies() -> None:
    for cls in CLASSES:
        assert "--" not in cls.hint_for("api"), cls.__name__


def test_a_hint_given_by_the_raiser_is_shown_as_given() -> None:
    error = errors.JSRequired("no text", hint="ask the site for its feed")
    assert error.worded("api") == str(error) == "no text (ask the site for its feed)"


def test_a_start_index_past_the_end_is_its_own_error() -> None:
    result = FetchResult(url="https://example.org/", text="short")
    with pytest.raises(errors.StartPastEnd) as raised:
        page_text(result, start_index=50, max_chars=None)
    assert raised.value.exit_code == 2
    assert raised.value.http_status == 422
    assert "start_index 50 is past the end" in str(raised.value)
