"""A package's heavy names, imported when first read rather than with the package: a CLI
run that names one command pays only for what that command uses."""

from __future__ import annotations

import importlib
from collections.abc import Callable


def later(package: str, names: dict[str, str]) -> Callable[[str], object]:
    """The package's ``__getattr__``: each name in ``names`` comes from its module there."""

    def __getattr__(name: str) -> object:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{names[name]}"), name)

    return __getattr__
