"""The command a person would run to install from the chosen source."""

from __future__ import annotations


def install_hint(builder: str, source: str) -> str:
    if builder == "crates.io":
        return f"cargo install {source}"
    if builder == "npm":
        return f"npm install -g {source}"
    if builder == "pypi":
        return f"pipx install {source}"
    if builder == "rubygems":
        return f"gem install {source}"
    if builder == "go":
        return f"go install {source}@latest"
    if builder == "homebrew":
        return f"brew install {source}"
    if builder == "cask":
        return f"brew install --cask {source}"
    if builder == "cpan":
        return f"cpanm {source.replace('-', '::')}"
    if builder == "github":
        return f"download a release from https://github.com/{source}/releases/latest"
    if builder == "instructions":
        return f"follow the instructions at {source}"
    return ""
