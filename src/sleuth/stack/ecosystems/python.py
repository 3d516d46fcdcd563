"""Python projects: pip requirements, Pipenv, Poetry, uv, PDM, Hatch, Flit and setuptools.

The tool that owns the environment wins over the build backend: a ``uv.lock`` next to a
Hatch backend means the project is worked on with uv. Dependencies are read from every place
they can be declared, so Django is found whether it is pinned in ``requirements.txt`` or
listed in ``pyproject.toml``, and ``-r`` includes are followed (``requirements/base.txt``).
A ``manage.py`` that imports Django is Django even when no file declares the dependency.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import (
    StaticDetector,
    cache_at_root,
    choose_ports,
    ev,
    lock_evidence,
    lockfile,
    read_toml,
    sources,
    strings,
    table,
)
from sleuth.stack.finding import Finding, Workspace
from sleuth.stack.model import Build, Evidence, Run

MANIFESTS = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile")
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
# A build script imports setuptools (or distutils) and calls setup(...).
_SETUP_CALL = re.compile(r"(?:setuptools|distutils)[\s\S]*\bsetup\s*\(")
_SETUP_NAME = re.compile(r"""\bname\s*=\s*["']([^"']+)["']""")
_CFG_NAME = re.compile(r"^\[metadata\][^\[]*?^name\s*[=:][ \t]*([\w.-]+)[ \t]*$", re.MULTILINE)
_INSTALL_REQUIRES = re.compile(r"install_requires\s*=\s*\[(.*?)\]", re.DOTALL)
_QUOTED = re.compile(r"""["']([^"']+)["']""")
_INCLUDE = re.compile(r"^\s*(?:-r\s*|--requirement(?:\s*=\s*|\s+))(\S+)")
_MAX_INCLUDE_DEPTH = 5
_DJANGO_MANAGE = re.compile(r"\bdjango\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class PackageManager:
    name: str
    install: str
    runner: str  # prefix that runs a command inside the tool's environment
    caches: tuple[str, ...]


TOOLS = {
    "uv": PackageManager("uv", "uv sync --frozen --no-dev", "uv run ", ("~/.cache/uv", ".venv")),
    "Poetry": PackageManager(
        "Poetry",
        "poetry install --only main --no-interaction",
        "poetry run ",
        ("~/.cache/pypoetry",),
    ),
    "PDM": PackageManager("PDM", "pdm install --prod", "pdm run ", ("~/.cache/pdm", ".venv")),
    "Pipenv": PackageManager(
        "Pipenv", "pipenv install --deploy", "pipenv run ", ("~/.cache/pipenv",)
    ),
    "Hatch": PackageManager("Hatch", "pip install .", "", ("~/.cache/pip",)),
    "Flit": PackageManager("Flit", "pip install .", "", ("~/.cache/pip",)),
    "setuptools": PackageManager("setuptools", "pip install .", "", ("~/.cache/pip",)),
    "pip": PackageManager("pip", "pip install -r requirements.txt", "", ("~/.cache/pip",)),
}
BACKENDS = (
    ("poetry", "Poetry"),
    ("pdm", "PDM"),
    ("hatchling", "Hatch"),
    ("flit_core", "Flit"),
    ("setuptools", "setuptools"),
)


@dataclass(frozen=True, slots=True)
class PyFramework:
    package: str
    name: str
    port: int


FRAMEWORKS = (
    PyFramework("django", "Django", 8000),
    PyFramework("fastapi", "FastAPI", 8000),
    PyFramework("flask", "Flask", 5000),
    PyFramework("gradio", "Gradio", 7860),
)


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_names(lines: list[str]) -> set[str]:
    """Distribution names from PEP 508 strings or requirements lines (options skipped)."""
    names: set[str] = set()
    for raw in lines:
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        match = _REQUIREMENT.match(line)
        if match:
            names.add(normalise(match.group(1)))
    return names


def requirement_includes(lines: list[str]) -> list[str]:
    """Files a requirements file pulls in with ``-r``/``--requirement``, as written."""
    out: list[str] = []
    for raw in lines:
        match = _INCLUDE.match(raw.split(" #", 1)[0])
        if match:
            out.append(match.group(1))
    return out


def read_requirements(candidate: Candidate, name: str) -> dict[str, str]:
    """Distribution name -> the file (relative to the folder) that asks for it, following
    ``-r`` includes relative to the including file, a few levels deep and never twice; reads
    go through the candidate, so nothing outside the scanned root is opened."""
    found: dict[str, str] = {}
    seen: set[str] = set()
    pending = [(name, 0)]
    while pending:
        path, depth = pending.pop(0)
        key = posixpath.normpath(path)
        if key in seen:
            continue
        seen.add(key)
        text = candidate.read(key)
        if text is None:
            continue
        lines = text.splitlines()
        for dep in sorted(requirement_names(lines)):
            found.setdefault(dep, key)
        if depth < _MAX_INCLUDE_DEPTH:
            base = posixpath.dirname(key)
            pending += [
                (posixpath.join(base, inc), depth + 1) for inc in requirement_includes(lines)
            ]
    return found


def _tool(candidate: Candidate, pyproject: dict[str, Any], present: list[str]) -> str | None:
    """The tool that installs the project; None when nothing declares what to install."""
    tools = table(pyproject, "tool")
    backend = str(table(pyproject, "build-system").get("build-backend", ""))
    if lockfile(candidate, "uv.lock") or "uv" in tools:
        return "uv"
    if lockfile(candidate, "poetry.lock") or "poetry" in tools:
        return "Poetry"
    if lockfile(candidate, "pdm.lock") or "pdm" in tools:
        return "PDM"
    if "Pipfile" in candidate.files:
        return "Pipenv"
    for prefix, name in BACKENDS:
        if backend.startswith(prefix):
            return name
    if "hatch" in tools:
        return "Hatch"
    if "setup.py" in present or "setup.cfg" in present:
        return "setuptools"
    if "requirements.txt" in candidate.files:
        return "pip"
    if table(pyproject, "project") or table(pyproject, "build-system"):
        return "setuptools"  # a [project] table without a backend builds with setuptools
    return None  # a pyproject.toml of tool settings only: nothing to install


def _declare(deps: dict[str, str], names: set[str], file: str) -> None:
    for name in sorted(names):
        deps.setdefault(name, file)


class PythonDetector(StaticDetector):
    name = "python"

    def detect(self, candidate: Candidate) -> Finding | None:
        present = [m for m in MANIFESTS if m in candidate.files]
        if "setup.py" in present and not _SETUP_CALL.search(candidate.read("setup.py") or ""):
            present.remove("setup.py")  # a module that happens to be named setup.py
        if not present:
            return None
        evidence: list[Evidence] = []
        finding = Finding(language="Python", runtime="CPython", manifests=present)
        deps: dict[str, str] = {}  # distribution -> the file that declares it
        pyproject: dict[str, Any] = {}
        if "pyproject.toml" in candidate.files:
            parsed = read_toml(candidate, "pyproject.toml", evidence)
            pyproject = parsed or {}
            project = table(pyproject, "project")
            poetry = table(pyproject, "tool", "poetry")
            name = project.get("name") or poetry.get("name")
            if isinstance(name, str):
                finding.project_name = name
            if parsed is None:
                evidence.append(
                    ev("manifest", "pyproject.toml", "Python project file (unreadable)")
                )
            elif project or poetry or table(pyproject, "build-system"):
                evidence.append(ev("manifest", "pyproject.toml", f"declares {name or 'a project'}"))
            else:
                evidence.append(ev("weak_manifest", "pyproject.toml", "tool settings only"))
            declared = requirement_names(strings(project.get("dependencies")))
            declared |= {normalise(k) for k in table(poetry, "dependencies")}
            _declare(deps, declared, "pyproject.toml")
            members = strings(table(pyproject, "tool", "uv", "workspace").get("members"))
            if members:
                finding.orchestrator = "uv workspaces"
                finding.workspace = Workspace(
                    orchestrator="uv workspaces",
                    members=members,
                    member_manifests=["pyproject.toml"],
                )
                evidence.append(
                    ev("workspace", "pyproject.toml", f"uv workspace: {', '.join(members)}")
                )
        if "requirements.txt" in candidate.files:
            for dep, file in read_requirements(candidate, "requirements.txt").items():
                deps.setdefault(dep, file)
            evidence.append(ev("manifest", "requirements.txt", "pip requirements"))
        if "Pipfile" in candidate.files:
            pipfile = read_toml(candidate, "Pipfile", evidence) or {}
            _declare(deps, {normalise(k) for k in table(pipfile, "packages")}, "Pipfile")
            evidence.append(ev("manifest", "Pipfile", "Pipenv dependencies"))
        if "setup.py" in present:
            text = candidate.read("setup.py") or ""
            evidence.append(ev("manifest", "setup.py", "setuptools script"))
            match = _SETUP_NAME.search(text)
            if match and finding.project_name is None:
                finding.project_name = match.group(1)
            block = _INSTALL_REQUIRES.search(text)
            if block:
                _declare(deps, requirement_names(_QUOTED.findall(block.group(1))), "setup.py")
        if "setup.cfg" in candidate.files:
            evidence.append(ev("manifest", "setup.cfg", "setuptools configuration"))
            match = _CFG_NAME.search(candidate.read("setup.cfg") or "")
            if match and finding.project_name is None:
                finding.project_name = match.group(1)
        evidence += sources(candidate, "Python")
        _, found = lock_evidence(candidate, "uv.lock", "poetry.lock", "pdm.lock", "Pipfile.lock")
        evidence += found

        chosen = _tool(candidate, pyproject, present)
        tool = TOOLS[chosen] if chosen is not None else None
        if tool is not None:
            finding.build_system = tool.name
            install = tool.install
            if tool.name == "uv" and not lockfile(candidate, "uv.lock"):
                install = "uv sync --no-dev"
            if tool.name == "Pipenv" and "Pipfile.lock" not in candidate.files:
                install = "pipenv install"
            caches = [cache_at_root(candidate, c) if c == ".venv" else c for c in tool.caches]
            finding.build = Build(commands=[install], cache_dirs=caches)

        django_manage = "manage.py" in candidate.files and (
            "django" in deps or bool(_DJANGO_MANAGE.search(candidate.read("manage.py") or ""))
        )
        framework = next((f for f in FRAMEWORKS if f.package in deps), None)
        if framework is None and django_manage:
            framework = FRAMEWORKS[0]
        if framework is not None:
            finding.framework = framework.name
            if framework.package in deps:
                why = f"depends on {framework.package}"
                evidence.append(ev("dependency", deps[framework.package], why))
            command = self._run(candidate, framework, tool.runner if tool else "")
            finding.run = Run(command=command)
            finding.run.ports = choose_ports(
                candidate,
                evidence,
                command=command,
                default=framework.port,
                default_reason=f"{framework.name}'s server listens on {framework.port} by default",
            )
        if django_manage:
            evidence.append(ev("marker", "manage.py", "Django management script"))
        finding.evidence = evidence
        return finding

    @staticmethod
    def _run(candidate: Candidate, framework: PyFramework, run: str) -> str | None:
        if framework.name == "Django":
            if "manage.py" in candidate.files:
                return f"{run}python manage.py runserver 0.0.0.0:8000"
            return None
        if framework.name == "FastAPI":
            for path, module in (
                ("main.py", "main"),
                ("app.py", "app"),
                ("app/main.py", "app.main"),
                ("src/main.py", "src.main"),
            ):
                if candidate.has(path):
                    return f"{run}uvicorn {module}:app --host 0.0.0.0 --port 8000"
            return None
        if framework.name == "Gradio":
            # a Gradio app is a script that launches its own server
            main = next((p for p in ("app.py", "main.py") if candidate.has(p)), None)
            return f"{run}python {main}" if main else None
        return f"{run}flask run --host 0.0.0.0 --port 5000"
