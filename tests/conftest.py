"""Every test starts from a clean environment: no developer's settings or keys leak in."""

from __future__ import annotations

import os

import pytest
from pydantic import AliasChoices

from sleuth.config import Settings


def _foreign_names() -> frozenset[str]:
    """Names Settings reads besides SLEUTH_* (OPENAI_API_KEY, REDIS_URL ...)."""
    names: set[str] = set()
    for field in Settings.model_fields.values():
        if isinstance(field.validation_alias, AliasChoices):
            names.update(str(choice).upper() for choice in field.validation_alias.choices)
    return frozenset(name for name in names if not name.startswith("SLEUTH_"))


_FOREIGN = _foreign_names()


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        upper = name.upper()
        if upper.startswith("SLEUTH_") or upper in _FOREIGN:
            monkeypatch.delenv(name)
