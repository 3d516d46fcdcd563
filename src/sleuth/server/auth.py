"""Bearer tokens for the HTTP server: which are accepted, and checking one in constant time.

``SLEUTH_API_TOKENS`` is either a comma list of tokens or ``@path`` to a
file of their SHA-256 hashes (hex, one a line, ``#`` comments), so a
deployment can keep the tokens themselves out of its configuration. Only
hashes are held in memory; a presented token is hashed and compared with
every known hash, without stopping at the first match.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from pathlib import Path

from sleuth.config import ServerSettings
from sleuth.errors import ConfigError, Unauthorized

_HEX = re.compile(r"[0-9a-f]{64}")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Tokens:
    hashes: tuple[str, ...]

    @property
    def enabled(self) -> bool:
        return bool(self.hashes)

    @classmethod
    def from_settings(cls, server: ServerSettings) -> Tokens:
        value = (server.secret("api_tokens") or "").strip()
        if not value:
            return cls(())
        if value.startswith("@"):
            return cls(tuple(_read_hashes(Path(value[1:]).expanduser())))
        tokens = [part.strip() for part in value.split(",") if part.strip()]
        return cls(tuple(dict.fromkeys(token_hash(token) for token in tokens)))

    def verify(self, authorization: str | None) -> str:
        """The matching hash for an ``Authorization`` header; :class:`Unauthorized` otherwise."""
        scheme, _, token = (authorization or "").strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise Unauthorized("a bearer token is required")
        presented = token_hash(token).encode()
        found = ""
        for known in self.hashes:  # every hash is compared: timing says nothing about which
            if hmac.compare_digest(presented, known.encode()):
                found = known
        if not found:
            raise Unauthorized("the bearer token is not valid")
        return found


def _read_hashes(path: Path) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"cannot read the token file {path}: {getattr(exc, 'strerror', None) or exc}",
            hint="SLEUTH_API_TOKENS=@PATH names a file of sha256 token hashes, one a line",
        ) from None
    hashes: list[str] = []
    for number, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip().lower()
        if not line:
            continue
        if not _HEX.fullmatch(line):
            raise ConfigError(
                f"line {number} of the token file {path} is not a sha256 hash",
                hint="write 64 hex digits a line, e.g. from `printf %s TOKEN | sha256sum`",
            )
        hashes.append(line)
    if not hashes:
        raise ConfigError(
            f"the token file {path} lists no token hashes",
            hint="add sha256 hashes of the tokens, one a line, or unset SLEUTH_API_TOKENS",
        )
    return list(dict.fromkeys(hashes))
