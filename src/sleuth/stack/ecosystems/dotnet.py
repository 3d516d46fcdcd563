""".NET projects (C#, F#, Visual Basic) and the solutions that group them."""

from __future__ import annotations

import posixpath
import re
import xml.etree.ElementTree as ET

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import (
    StaticDetector,
    choose_ports,
    ev,
    lock_evidence,
    parse_port,
    read_json,
    sources,
)
from sleuth.stack.finding import Finding, Workspace
from sleuth.stack.formats.xmlfile import XMLRefused, local, parse_xml
from sleuth.stack.model import Build, Evidence, Run

LANGUAGES = {".csproj": "C#", ".fsproj": "F#", ".vbproj": "Visual Basic"}
PROJECT_FILES = ["*.csproj", "*.fsproj", "*.vbproj"]
_SLN_PROJECT = re.compile(r'^Project\("\{[^}]+\}"\)\s*=\s*"[^"]*",\s*"([^"]+)"', re.MULTILINE)
_HEALTH = re.compile(r'MapHealthChecks\(\s*"([^"]+)"')
_URL_PORT = re.compile(r":(\d{2,5})\b")


def _properties(project: ET.Element) -> dict[str, str]:
    out: dict[str, str] = {}
    for group in project.iter():
        if isinstance(group.tag, str) and local(group.tag) == "PropertyGroup":
            for prop in group:
                if isinstance(prop.tag, str) and prop.text and prop.text.strip():
                    out.setdefault(local(prop.tag), prop.text.strip())
    return out


def _packages(project: ET.Element) -> list[str]:
    return [
        node.get("Include", "")
        for node in project.iter()
        if isinstance(node.tag, str) and local(node.tag) == "PackageReference"
    ]


def solution_projects(text: str) -> list[str]:
    """Project files a ``.sln`` lists, as ``/``-separated paths relative to it."""
    paths = [m.replace("\\", "/") for m in _SLN_PROJECT.findall(text)]
    return [p for p in paths if p.endswith(tuple(LANGUAGES))]


def _configured_ports(candidate: Candidate) -> list[tuple[int, str, str]]:
    """Kestrel endpoints or ``urls`` in appsettings.json."""
    if "appsettings.json" not in candidate.files:
        return []
    scratch: list[Evidence] = []
    settings = read_json(candidate, "appsettings.json", scratch, comments=True) or {}
    urls: list[tuple[str, str]] = []
    if isinstance(settings.get("urls"), str):
        urls.append((settings["urls"], "urls"))
    kestrel = settings.get("Kestrel")
    endpoints = kestrel.get("Endpoints") if isinstance(kestrel, dict) else None
    if isinstance(endpoints, dict):
        for name, spec in endpoints.items():
            if isinstance(spec, dict) and isinstance(spec.get("Url"), str):
                urls.append((spec["Url"], f"Kestrel:Endpoints:{name}:Url"))
    found: list[tuple[int, str, str]] = []
    for url, setting in urls:
        for match in _URL_PORT.findall(url):
            port = parse_port(match)
            if port is not None:
                found.append((port, "appsettings.json", setting))
    return found


class DotnetDetector(StaticDetector):
    name = "dotnet"

    def detect(self, candidate: Candidate) -> Finding | None:
        project_files = sorted(n for n in candidate.files if n.endswith(tuple(LANGUAGES)))
        solutions = sorted(n for n in candidate.files if n.endswith(".sln"))
        if not project_files and not solutions:
            return None
        evidence: list[Evidence] = []
        finding = Finding(build_system=".NET", runtime=".NET", manifests=project_files + solutions)
        members: list[str] = []
        for sln in solutions:
            listed = solution_projects(candidate.read(sln) or "")
            evidence.append(ev("manifest", sln, f"solution of {len(listed)} projects"))
            members += sorted({posixpath.dirname(p) or "." for p in listed} - {"."})
            if not project_files and listed:
                finding.language = LANGUAGES[posixpath.splitext(listed[0])[1]]
        if members:
            finding.orchestrator = ".NET solution"
            finding.workspace = Workspace(
                orchestrator=".NET solution", members=members, member_manifests=PROJECT_FILES
            )
            evidence.append(ev("workspace", solutions[0], f"projects in {', '.join(members)}"))
        _, found = lock_evidence(candidate, "packages.lock.json")
        evidence += found
        if not project_files:
            finding.project_name = solutions[0].removesuffix(".sln")
            finding.language = finding.language or "C#"
            finding.build = Build(
                commands=[f"dotnet build {solutions[0]} -c Release"],
                cache_dirs=["~/.nuget/packages"],
            )
            finding.evidence = evidence
            return finding
        self._project(candidate, project_files[0], finding, evidence)
        finding.evidence = evidence
        return finding

    @staticmethod
    def _project(
        candidate: Candidate, file: str, finding: Finding, evidence: list[Evidence]
    ) -> None:
        stem, ext = posixpath.splitext(file)
        finding.language = LANGUAGES[ext]
        finding.project_name = stem
        evidence.append(ev("manifest", file, f"{finding.language} project"))
        evidence += sources(candidate, finding.language)
        root: ET.Element | None = None
        try:
            root = parse_xml(candidate.read(file) or "")
        except XMLRefused as exc:
            evidence.append(ev("problem", file, f"could not be parsed: {exc}"))
        props = _properties(root) if root is not None else {}
        sdk = root.get("Sdk", "") if root is not None else ""
        packages = _packages(root) if root is not None else []
        assembly = props.get("AssemblyName", stem)
        web = sdk == "Microsoft.NET.Sdk.Web" or any(
            p.startswith("Microsoft.AspNetCore") for p in packages
        )
        finding.build = Build(
            commands=[f"dotnet restore {file}", f"dotnet publish {file} -c Release -o out"],
            cache_dirs=["~/.nuget/packages", "bin", "obj"],
        )
        if web:
            finding.framework = "ASP.NET Core"
            what = (
                f"uses the {sdk} SDK" if sdk.endswith(".Web") else "references Microsoft.AspNetCore"
            )
            evidence.append(ev("dependency", file, what))
        if web or props.get("OutputType", "").lower() in ("exe", "winexe"):
            finding.run = Run(command=f"dotnet out/{assembly}.dll")
        if web:
            finding.run.ports = choose_ports(
                candidate,
                evidence,
                command=finding.run.command,
                configured=_configured_ports(candidate),
                default=5000,
                default_reason="Kestrel listens on 5000 unless configured",
            )
            match = _HEALTH.search(candidate.read("Program.cs") or "")
            if match:
                finding.run.health_endpoint = match.group(1)
                evidence.append(ev("config", "Program.cs", f'MapHealthChecks("{match.group(1)}")'))
