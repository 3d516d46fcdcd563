"""What a new user reads when something is wrong: the cause in sleuth's words, the right exit."""

from __future__ import annotations

from sleuth.errors import EXIT_CODES
from test_cli import run


def test_an_empty_search_says_so_in_plain_words() -> None:
    done = run("search", "   ")
    assert done.returncode == EXIT_CODES["usage_error"] == 2
    assert "the search query is empty" in done.stderr
    assert "String should have" not in done.stderr  # not the validation library's wording
    assert "Traceback" not in done.stderr


def test_an_unknown_provider_option_is_a_usage_error_not_a_bad_setting() -> None:
    done = run("search", "sqlite wal", "--provider", "google")
    assert done.returncode == 2
    assert "unknown search provider 'google'" in done.stderr
    assert "duckduckgo" in done.stderr  # the hint lists the names that work


def test_an_unknown_provider_in_the_settings_stays_a_config_error() -> None:
    done = run("search", "sqlite wal", env={"SLEUTH_SEARCH_PROVIDERS": "google"})
    assert done.returncode == EXIT_CODES["config_error"]
    assert "google" in done.stderr


def test_a_bad_environment_value_names_the_variable_not_a_missing_file() -> None:
    done = run("config", "show", env={"SLEUTH_MAX_PAGES": "abc"})
    assert done.returncode == EXIT_CODES["config_error"]
    assert "SLEUTH_MAX_PAGES" in done.stderr
    assert "config.toml" not in done.stderr
