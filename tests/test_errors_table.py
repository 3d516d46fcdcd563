"""The exception tree is the error table: every class carries its code's exit code, HTTP
status, MCP advice and retryable, every fetch outcome has its class, and each surface words
its own hints (the CLI names flags, HTTP and MCP name fields)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sleuth import errors
from sleuth.commands.output import error_text, reworded
from sleuth.errors import ERRORS, EXIT_CODES, SleuthError
from sleuth.pages.paging import page_text
from sleuth.pages.result import ErrorInfo, FetchResult, Outcome
from sleuth.server.mcp import OTHER_ADVICE, RETRY_ADVICE, advice
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
    # One class per code: only a base shares its code with the class that owns it.
    assert [cls for cls in CLASSES if ERRORS[cls.code] is not cls] == [errors.FetchError]


def test_exit_codes_come_from_the_classes_and_no_two_codes_share_one() -> None:
    owned = {c: cls.exit_code for c, cls in ERRORS.items() if "exit_code" in vars(cls)}
    assert {"ok": 0, **owned} == EXIT_CODES
    assert len(set(EXIT_CODES.values())) == len(EXIT_CODES)
    assert EXIT_CODES["ok"] == 0
    assert EXIT_CODES["out_of_scope"] == 25


def test_outcomes_and_the_table_name_the_same_read_endings() -> None:
    assert {str(o) for o in Outcome} - {"ok"} <= set(ERRORS)
    endings = {cls.code for cls in CLASSES if issubclass(cls, READ_ENDINGS)}
    assert endings | {"ok"} == {str(o) for o in Outcome}


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_a_class_answers_with_its_own_status_and_exit(cls: type[SleuthError]) -> None:
    error = _bare(cls)
    answer = from_error(error)
    assert answer.status_code == cls.http_status == ERRORS[cls.code].http_status
    assert json.loads(answer.body)["code"] == cls.code.upper()
    if "exit_code" in vars(cls):
        assert error.exit_code == EXIT_CODES[cls.code]
    elif cls is errors.ContentSignalRefused:  # a record code: robots.txt's exit, alone
        assert cls.code not in EXIT_CODES
        assert error.exit_code == EXIT_CODES["robots_disallowed"]
    else:  # a refusal only the server makes: the CLI's usage error, should it ever meet one
        assert cls.code not in EXIT_CODES
        assert error.exit_code == EXIT_CODES["usage_error"]
    assert error.retryable is cls.default_retryable
    if cls is not errors.FetchError:  # a base whose code belongs to NetworkError
        assert cls.default_retryable is ERRORS[cls.code].default_retryable


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


def test_mcp_advice_is_the_class_advice_or_the_retry_default() -> None:
    for code, cls in ERRORS.items():
        for retryable in (False, True):
            got = advice(ErrorInfo(code=code, message="m", retryable=retryable))
            assert got == cls.advice or (RETRY_ADVICE if retryable else OTHER_ADVICE)
    assert advice(ErrorInfo(code="made_up", message="m")) == OTHER_ADVICE
    # Advice belongs to a code: a class never inherits its parent's.
    assert errors.UsageError.advice
    assert not errors.SuspiciousName.advice


WORDED = [cls for cls in CLASSES if cls.refs]


@pytest.mark.parametrize("cls", WORDED, ids=lambda cls: cls.__name__)
def test_the_cli_hint_names_a_flag_and_the_http_one_never_does(cls: type[SleuthError]) -> None:
    error = _bare(cls)
    assert "--" in error_text(error)
    assert "--" not in str(error)
    body: dict[str, Any] = json.loads(from_error(error).body)
    assert body["error"] == str(error)
    # A message that already left its exception (a fetch result's) the CLI words too.
    assert reworded(cls.code, str(error)) == error_text(error)


def test_no_default_hint_names_a_flag() -> None:
    for cls in CLASSES:
        assert "--" not in cls.default_hint, cls.__name__
        assert "--" not in cls.hint_for(), cls.__name__


def test_a_hint_given_by_the_raiser_is_shown_as_given() -> None:
    error = errors.JSRequired("no text", hint="ask the site for its feed")
    assert error_text(error) == str(error) == "no text (ask the site for its feed)"


def test_a_start_index_past_the_end_is_its_own_error() -> None:
    result = FetchResult(url="https://example.org/", text="short")
    with pytest.raises(errors.StartPastEnd) as raised:
        page_text(result, start_index=50, max_chars=None)
    assert raised.value.exit_code == 2
    assert raised.value.http_status == 422
    assert "start_index 50 is past the end" in str(raised.value)
