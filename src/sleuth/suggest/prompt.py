"""The suggestion prompt: a template shipped with the package, or the operator's own.

The template holds instructions only. The page's URL, title and description
never enter it: they reach the model inside an untrusted-data envelope in the
user turn, so an operator's template cannot put page text where instructions
go. That is why only the limits below may be named in it, and why an unknown
``$name`` is a configuration error found at start-up rather than a surprise
on the first request.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from string import Template

from sleuth.errors import ConfigError

MAX_SLUG_LENGTH = 30
MAX_TITLE_LENGTH = 200
MAX_DESCRIPTION_LENGTH = 2000
MIN_TAGS = 2
MAX_TAGS = 5
PLACEHOLDERS = (
    "max_slug_length",
    "max_title_length",
    "max_description_length",
    "min_tags",
    "max_tags",
    "reserved_slugs",
)
_PAGE_FIELDS = ("url", "title", "description")


def default_template() -> str:
    return files("sleuth.suggest").joinpath("prompt.txt").read_text(encoding="utf-8")


def load_template(value: str | None) -> str:
    """``SLEUTH_SUGGEST_PROMPT`` read as a file path when it names one, else as the text."""
    if not value or not value.strip():
        return default_template()
    candidate = Path(value).expanduser()
    one_line = "\n" not in value and len(value) < 4096
    if one_line and candidate.is_file():
        try:
            return candidate.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(
                f"cannot read the suggestion prompt {candidate}: {exc}",
                hint="fix SLEUTH_SUGGEST_PROMPT (a readable UTF-8 file, or the prompt text itself)",
            ) from None
    if (
        one_line
        and " " not in value.strip()
        and (value.startswith(("/", "./", "~")) or candidate.suffix in (".txt", ".tmpl", ".md"))
    ):
        raise ConfigError(
            f"the suggestion prompt file {candidate} does not exist",
            hint="fix SLEUTH_SUGGEST_PROMPT (a file path, or the prompt text itself)",
        )
    return value


def render(template: str, reserved: list[str]) -> str:
    """The system prompt; the template is checked first (see :func:`check`)."""
    check(template)
    return Template(template).substitute(
        max_slug_length=MAX_SLUG_LENGTH,
        max_title_length=MAX_TITLE_LENGTH,
        max_description_length=MAX_DESCRIPTION_LENGTH,
        min_tags=MIN_TAGS,
        max_tags=MAX_TAGS,
        reserved_slugs=", ".join(reserved) or "(none)",
    )


def check(template: str) -> None:
    """Every ``$name`` must be a known placeholder; ``$$`` writes a dollar sign."""
    parsed = Template(template)
    if not parsed.is_valid():
        raise ConfigError(
            "the suggestion prompt has a stray $ (write $$ for a dollar sign)",
            hint="fix SLEUTH_SUGGEST_PROMPT",
        )
    unknown = [name for name in parsed.get_identifiers() if name not in PLACEHOLDERS]
    if unknown:
        page = [name for name in unknown if name in _PAGE_FIELDS]
        why = (
            f"; the page's {', '.join(page)} reach the model as data beside the prompt, "
            "never inside it"
            if page
            else ""
        )
        raise ConfigError(
            f"the suggestion prompt names unknown placeholder(s) "
            f"{', '.join('$' + n for n in unknown)}{why}",
            hint=f"use only {', '.join('$' + n for n in PLACEHOLDERS)} in SLEUTH_SUGGEST_PROMPT",
        )
