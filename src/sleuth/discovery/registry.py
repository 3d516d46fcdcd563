"""Stage 1: the registry, a folder of JSON entries, one per name (``x/xy/name.json``).

Folders named by ``SLEUTH_DISCOVER_REGISTRY`` (several, ``os.pathsep``-separated,
first wins) come before the registry bundled with sleuth, which is generated from
the aqua registry by ``scripts/build-registry``. Looking a name up reads at most
one small file per folder, so the answer takes well under a millisecond. A broken
entry is a miss with a warning, never a crash.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from sleuth.discovery.models import BUILDER_ALIASES, BUILDERS
from sleuth.discovery.sources import check_source

BUNDLED = Path(__file__).parent / "data" / "registry"
NAMES_FILE = "names.txt"


class RegistryEntry(BaseModel):
    model_config = ConfigDict(extra="ignore")

    schema_version: Literal[1]
    builder: str
    source: str = Field(min_length=1)
    binary: str | None = None
    description: str | None = None
    homepage: str | None = None
    repo: str | None = None
    disambiguation: str | None = None
    downloads: int = Field(0, ge=0)
    version_count: int = Field(0, ge=0)
    has_repository: bool = False
    provenance: str | None = None

    @field_validator("builder")
    @classmethod
    def _known_builder(cls, value: str) -> str:
        builder = BUILDER_ALIASES.get(value.lower(), value.lower())
        if builder not in BUILDERS:
            raise ValueError(f"unknown builder {value!r} (known: {', '.join(BUILDERS)})")
        return builder


@dataclass(frozen=True)
class Hit:
    name: str
    entry: RegistryEntry
    path: Path
    bundled: bool

    @property
    def provenance(self) -> str:
        where = (
            "the bundled registry" if self.bundled else f"registry folder {self.path.parents[2]}"
        )
        detail = f"; {self.entry.provenance}" if self.entry.provenance else ""
        return f"registry entry {self.path.name} in {where}{detail}"


def relative_path(name: str) -> Path | None:
    """Where ``name`` lives in a registry folder, or None for a name no entry can have."""
    if "/" in name or name.startswith("."):
        return None
    return Path(name[0]) / (name[:2] if len(name) > 1 else "_") / f"{name}.json"


class SourceRegistry:
    def __init__(self, folders: list[Path], *, bundled: Path | None = BUNDLED) -> None:
        self.folders = folders
        self.bundled = bundled
        self._names: frozenset[str] | None = None

    @classmethod
    def from_setting(cls, value: str | None) -> SourceRegistry:
        folders = [Path(part).expanduser() for part in (value or "").split(os.pathsep) if part]
        return cls(folders)

    def _places(self) -> list[tuple[Path, bool]]:
        places = [(folder, False) for folder in self.folders]
        if self.bundled is not None:
            places.append((self.bundled, True))
        return places

    def lookup(self, name: str) -> tuple[Hit | None, list[str]]:
        """The first good entry for ``name``, and a warning for each broken one passed over."""
        warnings: list[str] = []
        relative = relative_path(name)
        if relative is None:
            return None, warnings
        for folder, bundled in self._places():
            path = folder / relative
            try:
                raw = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                continue
            except (OSError, UnicodeDecodeError) as error:
                warnings.append(f"registry entry {path} is unreadable ({error}); skipped")
                continue
            try:
                entry = RegistryEntry.model_validate(json.loads(raw))
                check_source(entry.builder, entry.source)
            except (ValueError, ValidationError) as error:
                reason = (
                    str(error).splitlines()[0]
                    if not isinstance(error, ValidationError)
                    else (
                        "; ".join(
                            f"{'.'.join(str(p) for p in item['loc']) or 'entry'}: {item['msg']}"
                            for item in error.errors()[:3]
                        )
                    )
                )
                warnings.append(f"registry entry {path} is broken ({reason}); skipped")
                continue
            return Hit(name, entry, path, bundled), warnings
        return None, warnings

    def names(self) -> frozenset[str]:
        """Every name the registry answers, for the typosquat check."""
        if self._names is None:
            names: set[str] = set()
            for folder, bundled in self._places():
                index = folder / NAMES_FILE
                if bundled and index.is_file():
                    names.update(_bundled_index(index))
                elif folder.is_dir():
                    names.update(path.stem for path in folder.glob("*/*/*.json"))
            self._names = frozenset(names)
        return self._names


@functools.cache
def _bundled_index(path: Path) -> frozenset[str]:
    """The bundled registry's names, read once per process (it ships with sleuth and does
    not change; each discovery builds its own ``SourceRegistry``, a batch of names many)."""
    return frozenset(path.read_text(encoding="utf-8").split())
