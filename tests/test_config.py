"""The one config object: precedence, sources, validation and masking."""

from __future__ import annotations

from pathlib import Path

import pytest

from sleuth.config import SECTIONS, Settings, describe, load_settings, mask_url
from sleuth.errors import ConfigError


@pytest.fixture(autouse=True)
def no_user_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No developer's config file is read (the environment is cleaned in conftest)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))


def test_environment_beats_the_file_which_beats_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "c.toml"
    config.write_text('cache = "memory"\nmax_pages = 4\n')
    monkeypatch.setenv("SLEUTH_MAX_PAGES", "6")
    settings = load_settings(config)
    assert (settings.cache, settings.max_pages, settings.render) == ("memory", 6, "auto")
    sources = settings.config_sources
    assert sources["cache"] == f"file {config}"
    assert sources["max_pages"] == "env SLEUTH_MAX_PAGES"
    assert sources["render"] == "default"


def test_a_sleuth_table_in_the_file_is_read_too(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[sleuth]\nallow_hosts = ["wiki.intranet", "10.0.0.0/8"]\n')
    assert load_settings(config).allow_hosts == ["wiki.intranet", "10.0.0.0/8"]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("SEARXNG_URL", "notaurl"),
        ("SLEUTH_ALLOW_PORTS", "99999"),
        ("SLEUTH_ALLOW_PORTS", "8080,abc"),
        ("SLEUTH_FETCH_DEADLINE", "inf"),
        ("SLEUTH_FETCH_DEADLINE", "nan"),
        ("SLEUTH_CACHE", "floppy"),
        ("SLEUTH_MAX_RESULTS", "50"),
    ],
)
def test_bad_values_are_config_errors_that_name_the_variable(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert name in str(caught.value)


def test_binary_config_file_is_a_config_error(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(ConfigError, match="not valid UTF-8 TOML"):
        load_settings(config)


def test_a_directory_named_as_config_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLEUTH_CONFIG", str(tmp_path))
    with pytest.raises(ConfigError, match="is not a file") as caught:
        load_settings()
    assert "SLEUTH_CONFIG" in str(caught.value)


def test_empty_sleuth_config_means_the_default_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLEUTH_CONFIG", "")
    assert load_settings().cache == "file"


def test_secrets_and_url_credentials_are_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "brave-secret-1234567")
    monkeypatch.setenv("SLEUTH_REDIS_URL", "redis://:hunter2hunter2@127.0.0.1:6379/0")
    monkeypatch.setenv("SEARXNG_URL", "https://me:topsecret@searx.example/?token=abc123&lang")
    shown = {name: value for name, value, _ in describe(load_settings())}
    text = repr(shown)
    for secret in ("brave-secret-1234567", "hunter2hunter2", "topsecret", "abc123"):
        assert secret not in text
    assert shown["searxng_url"] == "https://me:******@searx.example/?token=******&lang"


@pytest.mark.parametrize(
    ("url", "masked"),
    [
        ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
        ("http://u:p@h/x?a=1&b", "http://u:******@h/x?a=******&b"),
        ("not a url", "not a url"),
    ],
)
def test_mask_url(url: str, masked: str) -> None:
    assert mask_url(url) == masked


def test_a_bad_environment_value_is_pointed_at_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLEUTH_MAX_PAGES", "abc")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert caught.value.hint == "fix the environment variable SLEUTH_MAX_PAGES"
    assert "config.toml" not in str(caught.value.hint)  # no such file exists here


def test_a_bad_file_value_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "sleuth.toml"
    path.write_text("max_pages = 'abc'\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    assert caught.value.hint == f"fix `max_pages` in {path}"


def test_environment_names_match_in_any_case_and_the_first_listed_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("sleuth_max_pages", "4")
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "second-name")
    monkeypatch.setenv("SLEUTH_BRAVE_API_KEY", "first-name")
    monkeypatch.setenv("SLEUTH_ALLOW_PORTS", "8080, 8443")
    settings = load_settings()
    assert settings.max_pages == 4
    assert settings.secret("brave_api_key") == "first-name"
    assert settings.allow_ports == [8080, 8443]
    assert settings.config_sources["brave_api_key"] == "env SLEUTH_BRAVE_API_KEY"


def test_settings_built_directly_read_the_environment_under_their_keywords(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SLEUTH_MAX_PAGES", "6")
    monkeypatch.setenv("SLEUTH_CACHE", "memory")
    settings = Settings(max_pages=2)
    assert (settings.max_pages, settings.cache) == (2, "memory")


def test_config_show_lists_every_setting_once_section_by_section() -> None:
    names = [name for name, _, _ in describe(load_settings())]
    assert names == [name for model in SECTIONS.values() for name in model.model_fields]
    assert sorted(names) == sorted(Settings.model_fields)


def test_a_misspelt_setting_is_refused_with_the_name_it_is_near(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"keyword arguments: max_pagez; did you mean max_pages"):
        load_settings(max_pagez=5)
    with pytest.raises(ConfigError, match=r"unknown settings in the keyword arguments: a, b"):
        load_settings(a=1, b=2)
    path = tmp_path / "config.toml"
    path.write_text("reserch_max_pages = 2\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"config file .*: reserch_max_pages; did you mean"):
        load_settings(path)
    with pytest.raises(ConfigError, match=r"in Settings\(...\): max_pagez"):
        Settings(max_pagez=5)
    assert load_settings(max_pages=5).max_pages == 5  # a real name still passes


def test_a_session_takes_a_settings_object_or_keywords_not_both() -> None:
    from sleuth.errors import UsageError
    from sleuth.session import AsyncSession

    with pytest.raises(UsageError, match="not both"):
        AsyncSession(Settings(), max_pages=3)
    assert AsyncSession(max_pages=3).settings.max_pages == 3


@pytest.mark.parametrize(
    ("home", "config_home", "cache_home"),
    [
        ("/home/ada", None, None),
        ("/home/ada/", "/srv/conf", "/srv/cache/"),
        ("/", "relative/conf", ""),
        ("relative", None, "/srv/cache"),  # a HOME that is not absolute: platformdirs' case
    ],
)
def test_the_user_folders_are_where_platformdirs_puts_them(
    monkeypatch: pytest.MonkeyPatch,
    home: str,
    config_home: str | None,
    cache_home: str | None,
) -> None:
    """sleuth reads the XDG rule itself (platformdirs is not imported at start-up on
    Linux) and lands where platformdirs does, relative and unset variables included."""
    import platformdirs

    from sleuth.config import default_cache_dir, default_config_path

    monkeypatch.setenv("HOME", home)
    for name, value in (("XDG_CONFIG_HOME", config_home), ("XDG_CACHE_HOME", cache_home)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert default_config_path() == Path(platformdirs.user_config_dir("sleuth"), "config.toml")
    assert default_cache_dir() == Path(platformdirs.user_cache_dir("sleuth"))
