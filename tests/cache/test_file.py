"""What only the file backend has to get right: its files, crashes, and other processes."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from sleuth.cache import FileCache
from sleuth.errors import CacheError

from ._incr_worker import bump
from .conftest import FakeClock


def entry_path(directory: Path, key: str) -> Path:
    digest = hashlib.sha256(key.encode()).hexdigest()
    return directory / digest[:2] / digest


def temp_files(directory: Path) -> list[Path]:
    return [p for p in directory.rglob("*") if p.name.endswith(".tmp")]


@pytest.fixture
def directory(tmp_path: Path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def cache(directory: Path) -> FileCache:
    return FileCache(directory)


async def test_one_file_per_key_named_by_its_hash(cache: FileCache, directory: Path) -> None:
    await cache.set("page:https://example.org/", b"hello")
    path = entry_path(directory, "page:https://example.org/")
    assert path.is_file()
    assert path.read_bytes().endswith(b"hello")
    assert [p for p in directory.rglob("*") if p.is_file() and p.name != ".sleuth-lock"] == [path]


async def test_entries_survive_into_a_new_instance(cache: FileCache, directory: Path) -> None:
    await cache.set("k", b"v", ttl=3600)
    assert await FileCache(directory).get("k") == b"v"


@pytest.mark.parametrize(
    "damage",
    [
        lambda blob: b"garbage that is no cache entry at all",
        lambda blob: blob[:-1],
        lambda blob: blob[:10],
        lambda blob: b"",
        lambda blob: blob + b"trailing",
        lambda blob: blob[:-3] + bytes([blob[-3] ^ 0x01]) + blob[-2:],
    ],
    ids=["garbage", "truncated-value", "truncated-header", "empty", "too-long", "flipped-bit"],
)
async def test_a_damaged_file_is_a_miss_and_is_removed(
    cache: FileCache, directory: Path, damage: Callable[[bytes], bytes]
) -> None:
    await cache.set("k", b"the value that gets damaged")
    path = entry_path(directory, "k")
    path.write_bytes(damage(path.read_bytes()))
    assert await cache.get("k") is None
    assert not path.exists()
    assert (await cache.stats()).misses == 1


async def test_an_unreadable_entry_is_a_miss(cache: FileCache, directory: Path) -> None:
    path = entry_path(directory, "k")
    path.mkdir(parents=True)  # reading a directory fails like an unreadable file
    assert await cache.get("k") is None


async def test_expired_file_is_removed_when_read(directory: Path) -> None:
    clock = FakeClock(1_700_000_000.0)
    cache = FileCache(directory, clock=clock)
    await cache.set("k", b"v", ttl=10)
    clock.now += 11
    assert await cache.get("k") is None
    assert not entry_path(directory, "k").exists()


async def test_expiry_is_wall_clock_shared_across_instances(directory: Path) -> None:
    clock = FakeClock(1_700_000_000.0)
    await FileCache(directory, clock=clock).set("k", b"v", ttl=10)
    later = FakeClock(1_700_000_011.0)
    assert await FileCache(directory, clock=later).get("k") is None


async def test_crash_before_rename_leaves_no_entry_and_no_temp_file(
    cache: FileCache, directory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await cache.set("old", b"kept")

    def crash(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(CacheError, match="No space left"):
        await cache.set("new", b"lost")
    with pytest.raises(CacheError):
        await cache.set("old", b"replacement")
    monkeypatch.undo()

    assert await cache.get("new") is None
    assert await cache.get("old") == b"kept"
    assert temp_files(directory) == []
    assert (await cache.stats()).entries == 1


async def test_leftover_temp_files_are_never_read_and_clear_removes_them(
    cache: FileCache, directory: Path
) -> None:
    await cache.set("k", b"v")
    path = entry_path(directory, "k")
    leftover = path.parent / ".sleuth-abc123.tmp"  # what a process killed mid-write leaves
    leftover.write_bytes(path.read_bytes()[:5])
    assert await cache.get("k") == b"v"
    assert (await cache.stats()).entries == 1
    assert await cache.clear() == 1
    assert not leftover.exists()


async def test_clear_removes_only_sleuth_files(cache: FileCache, directory: Path) -> None:
    await cache.set("a", b"1")
    await cache.set("b", b"2")
    directory.joinpath("notes.txt").write_text("mine")
    foreign_dir = directory / "ab"
    foreign_dir.mkdir(exist_ok=True)
    foreign_dir.joinpath("keep.bin").write_bytes(b"x")
    foreign_dir.joinpath("0" * 64).write_bytes(b"looks like an entry, wrong folder")
    other = directory / "photos"
    other.mkdir()
    other.joinpath("a.jpg").write_bytes(b"jpg")

    assert await cache.clear() == 2
    assert directory.joinpath("notes.txt").read_text() == "mine"
    assert foreign_dir.joinpath("keep.bin").exists()
    assert foreign_dir.joinpath("0" * 64).exists()
    assert other.joinpath("a.jpg").exists()
    assert await cache.get("a") is None


async def test_stats_reports_files_and_bytes(cache: FileCache, directory: Path) -> None:
    empty = await cache.stats()
    assert (empty.entries, empty.size_bytes, empty.location) == (0, 0, str(directory))
    await cache.set("a", b"x" * 1000)
    await cache.set("b", b"y" * 10)
    on_disk = sum(entry_path(directory, k).stat().st_size for k in ("a", "b"))
    stats = await cache.stats()
    assert (stats.entries, stats.size_bytes) == (2, on_disk)


async def test_write_into_an_unusable_directory_is_a_cache_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    cache = FileCache(blocker)
    with pytest.raises(CacheError, match=str(blocker)):
        await cache.set("k", b"v")
    assert await cache.get("k") is None  # reads degrade to misses
    with pytest.raises(CacheError, match="Not a directory"):
        await cache.stats()


async def test_incr_is_atomic_across_processes(directory: Path) -> None:
    workers, times = 4, 50
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(workers)
    results = context.Queue()
    processes = [
        context.Process(target=bump, args=(str(directory), times, start, results))
        for _ in range(workers)
    ]
    for process in processes:
        process.start()
    counts = [n for _ in processes for n in results.get(timeout=60)]
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0

    assert sorted(counts) == list(range(1, workers * times + 1))
    assert await FileCache(directory).get("budget") == str(workers * times).encode()
