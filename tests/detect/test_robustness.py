"""Whatever a manifest holds, detection finishes and reports sane numbers."""

from __future__ import annotations

import json
import tempfile
import tomllib
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sleuth.stack import detect_path
from sleuth.stack.formats.jsonc import loads as jsonc_loads
from sleuth.stack.formats.yaml_lite import load as yaml_load
from sleuth.stack.manifests import KNOWN, looks_like_manifest, shape_format

NAMES = sorted(KNOWN | {"App.csproj", "Shop.sln", "x.gemspec"})
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)
contents = st.one_of(
    st.text(max_size=300),
    st.binary(max_size=300),
    json_values.map(json.dumps),
    st.dictionaries(
        st.sampled_from(
            ["name", "workspaces", "scripts", "dependencies", "projects", "packageManager"]
        ),
        json_values,
    ).map(json.dumps),
    st.sampled_from(["[package]\nname = 1\n", "[workspace]\nmembers = 3\n", "<project><modules>"]),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(files={"mkdocs.yaml": "", "mkdocs.yml": ""})  # both spellings of one site's config
@given(files=st.dictionaries(st.sampled_from(NAMES), contents, min_size=1, max_size=4))
def test_any_manifest_content_is_survivable(files: dict[str, str | bytes]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, content in files.items():
            path = root / "svc" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8", errors="surrogatepass")
        projects = detect_path(root)
        if not any(_names_a_project(name, content) for name, content in files.items()):
            assert projects == []  # JSON named like a manifest, without its tool's keys
            return
        assert len(projects) == 1
        assert 0.0 <= projects[0].confidence <= 1.0
        assert projects[0].path == "svc"


def _names_a_project(name: str, content: str | bytes) -> bool:
    """What the detector must make of one file: broken text stays a (broken) manifest."""
    fmt = shape_format(name)
    if fmt is None:
        return True
    try:
        text = content.decode() if isinstance(content, bytes) else content
        if fmt == "json":
            data = jsonc_loads(text)
        else:
            data = tomllib.loads(text) if fmt == "toml" else yaml_load(text)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return True
    return looks_like_manifest(name, data)
