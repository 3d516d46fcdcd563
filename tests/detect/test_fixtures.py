"""Every fixture repository produces exactly its expected report, field by field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from detect.fixtures import MONO, SINGLE
from detect.trees import write_tree
from sleuth.stack import detect_path

EXPECTED = Path(__file__).parent / "expected"
ALL = {**SINGLE, **MONO}


def test_every_fixture_has_an_expected_report_and_back() -> None:
    assert {p.stem for p in EXPECTED.glob("*.json")} == set(ALL)


@pytest.mark.parametrize("name", sorted(ALL))
def test_report_matches_expected(tmp_path: Path, name: str) -> None:
    root = write_tree(tmp_path / name, ALL[name])
    actual = [p.model_dump(mode="json") for p in detect_path(root)]
    expected = json.loads((EXPECTED / f"{name}.json").read_text())
    assert [p["path"] for p in actual] == [p["path"] for p in expected]
    for got, want in zip(actual, expected, strict=True):
        assert list(got) == list(want), "field order"
        for field in want:
            assert got[field] == want[field], f"{name}:{want['path']}:{field}"
