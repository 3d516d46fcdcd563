"""C and C++ builds: CMake, Meson and Make.

Make builds anything, so a Makefile only names a language when the sources show one; without
them the finding stays below the confidence bar and the LLM fallback is asked.
"""

from __future__ import annotations

import re

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import StaticDetector, ev, sources
from sleuth.stack.finding import Finding
from sleuth.stack.languages import c_family, dominant
from sleuth.stack.model import Build, Evidence, Run

_CMAKE_PROJECT = re.compile(r"\bproject\s*\(\s*([A-Za-z0-9_.+-]+)([^)]*)\)", re.IGNORECASE)
_CMAKE_EXECUTABLE = re.compile(r"\badd_executable\s*\(\s*([A-Za-z0-9_.+-]+)", re.IGNORECASE)
_MESON_PROJECT = re.compile(r"""\bproject\s*\(\s*'([^']+)'((?:\s*,\s*'[^']*')*)""")
_MESON_EXECUTABLE = re.compile(r"""\bexecutable\s*\(\s*'([^']+)'""")
_MAKE_TARGET = re.compile(r"^([A-Za-z0-9_.-]+)\s*:(?!=)", re.MULTILINE)
MESON_LANGUAGES = {
    "c": "C",
    "cpp": "C++",
    "rust": "Rust",
    "d": "D",
    "vala": "Vala",
    "fortran": "Fortran",
}
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")


def _language_from_cmake(args: str, candidate: Candidate) -> str:
    declared = args.upper().split()
    if "LANGUAGES" in declared:
        declared = declared[declared.index("LANGUAGES") + 1 :]
    if "CXX" in declared:
        return "C++"
    if "C" in declared:
        return "C"
    return c_family(candidate.languages()) or "C++"


class CMakeDetector(StaticDetector):
    name = "cmake"

    def detect(self, candidate: Candidate) -> Finding | None:
        if "CMakeLists.txt" not in candidate.files:
            return None
        text = candidate.read("CMakeLists.txt") or ""
        evidence: list[Evidence] = [ev("manifest", "CMakeLists.txt", "CMake project")]
        finding = Finding(build_system="CMake", runtime="native", manifests=["CMakeLists.txt"])
        project = _CMAKE_PROJECT.search(text)
        finding.project_name = project.group(1) if project else None
        finding.language = _language_from_cmake(project.group(2) if project else "", candidate)
        evidence += sources(candidate, "C", "C++")
        finding.build = Build(
            commands=[
                "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release",
                "cmake --build build --parallel",
            ],
            cache_dirs=["build"],
        )
        executable = _CMAKE_EXECUTABLE.search(text)
        if executable:
            finding.run = Run(command=f"./build/{executable.group(1)}")
        finding.evidence = evidence
        return finding


class MesonDetector(StaticDetector):
    name = "meson"

    def detect(self, candidate: Candidate) -> Finding | None:
        if "meson.build" not in candidate.files:
            return None
        text = candidate.read("meson.build") or ""
        evidence: list[Evidence] = [ev("manifest", "meson.build", "Meson project")]
        finding = Finding(build_system="Meson", runtime="native", manifests=["meson.build"])
        project = _MESON_PROJECT.search(text)
        languages: list[str] = []
        if project:
            finding.project_name = project.group(1)
            languages = [
                MESON_LANGUAGES.get(lang, lang)
                for lang in re.findall(r"'([^']*)'", project.group(2))
            ]
        if "C++" in languages or "C" in languages:
            finding.language = "C++" if "C++" in languages else "C"
        else:
            finding.language = languages[0] if languages else c_family(candidate.languages())
        evidence += sources(candidate, "C", "C++")
        finding.build = Build(
            commands=["meson setup builddir --buildtype=release", "meson compile -C builddir"],
            cache_dirs=["builddir"],
        )
        executable = _MESON_EXECUTABLE.search(text)
        if executable:
            finding.run = Run(command=f"./builddir/{executable.group(1)}")
        finding.evidence = evidence
        return finding


class MakeDetector(StaticDetector):
    name = "make"

    def detect(self, candidate: Candidate) -> Finding | None:
        makefile = next((n for n in MAKEFILES if n in candidate.files), None)
        if makefile is None:
            return None
        text = candidate.read(makefile) or ""
        targets = set(_MAKE_TARGET.findall(text))
        counts = candidate.languages()
        language = c_family(counts) or dominant(counts)
        finding = Finding(build_system="Make", language=language, manifests=[makefile])
        evidence: list[Evidence] = []
        if language is None:
            evidence.append(
                ev("weak_manifest", makefile, "Makefile, with no sources to say what it builds")
            )
        else:
            evidence.append(ev("manifest", makefile, "Makefile"))
            evidence += sources(candidate, language)
        if language in ("C", "C++"):
            finding.runtime = "native"
        finding.build = Build(commands=["make build" if "build" in targets else "make"])
        if "run" in targets:
            finding.run = Run(command="make run")
        finding.evidence = evidence
        return finding
