"""Fixtures for the detect suite: a way to lay out a repository and detect in it."""

from __future__ import annotations

from pathlib import Path

import pytest

from detect.trees import Repo, Spec, write_tree


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    """Write a repository under ``tmp_path/repo`` and return its root."""

    def make(spec: Spec) -> Path:
        return write_tree(tmp_path / "repo", spec)

    (tmp_path / "repo").mkdir()
    return make
