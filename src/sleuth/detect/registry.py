"""The built-in deterministic detectors, in the order that breaks ties between them.

When two detectors are equally sure about one folder, the one listed first names it: the
ecosystems whose manifests rarely appear as tooling in other projects come first, the generic
build tools (Bazel, Meson, CMake, Make) and the source guess last.
"""

from __future__ import annotations

from sleuth.detect.detector import Detector
from sleuth.detect.ecosystems.bazel import BazelDetector
from sleuth.detect.ecosystems.dart import PubDetector
from sleuth.detect.ecosystems.deno import DenoDetector
from sleuth.detect.ecosystems.dotnet import DotnetDetector
from sleuth.detect.ecosystems.elixir import MixDetector
from sleuth.detect.ecosystems.golang import GoDetector
from sleuth.detect.ecosystems.gradle import GradleDetector
from sleuth.detect.ecosystems.maven import MavenDetector
from sleuth.detect.ecosystems.native import CMakeDetector, MakeDetector, MesonDetector
from sleuth.detect.ecosystems.node import NodeDetector
from sleuth.detect.ecosystems.php import ComposerDetector
from sleuth.detect.ecosystems.python import PythonDetector
from sleuth.detect.ecosystems.ruby import RubyDetector
from sleuth.detect.ecosystems.rust import CargoDetector
from sleuth.detect.ecosystems.sbt import SbtDetector
from sleuth.detect.ecosystems.sources import SourcesDetector
from sleuth.detect.ecosystems.swift import SwiftPMDetector
from sleuth.detect.ecosystems.zig import ZigDetector


def default_detectors() -> list[Detector]:
    """A fresh list of the built-in detectors; callers may append or reorder freely."""
    return [
        CargoDetector(),
        GoDetector(),
        DotnetDetector(),
        MixDetector(),
        RubyDetector(),
        ComposerDetector(),
        PythonDetector(),
        MavenDetector(),
        GradleDetector(),
        SbtDetector(),
        SwiftPMDetector(),
        PubDetector(),
        ZigDetector(),
        DenoDetector(),
        NodeDetector(),
        BazelDetector(),
        MesonDetector(),
        CMakeDetector(),
        MakeDetector(),
        SourcesDetector(),
    ]
