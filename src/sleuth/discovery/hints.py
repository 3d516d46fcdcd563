"""The command a person would run to install from the chosen source."""

from __future__ import annotations

# The install command per builder; {source} is the package name or owner/repo.
_COMMANDS: dict[str, str] = {
    "crates.io": "cargo install {source}",
    "npm": "npm install -g {source}",
    "pypi": "pipx install {source}",
    "rubygems": "gem install {source}",
    "go": "go install {source}@latest",
    "homebrew": "brew install {source}",
    "cask": "brew install --cask {source}",
    "github": "download a release from https://github.com/{source}/releases/latest",
    "instructions": "follow the instructions at {source}",
}


def install_hint(builder: str, source: str) -> str:
    if builder == "cpan":  # a distribution name; cpanm takes the module name
        return f"cpanm {source.replace('-', '::')}"
    command = _COMMANDS.get(builder)
    return command.format(source=source) if command else ""
