"""The built-in deterministic detectors, in the order that breaks ties between them.

When two detectors are equally sure about one folder, the one listed first names it: the
ecosystems whose manifests rarely appear as tooling in other projects come first, the generic
build tools (Bazel, Meson, CMake, Make) and the source guess last.
"""

from __future__ import annotations

from sleuth.stack.detector import Detector
from sleuth.stack.ecosystems.bazel import BazelDetector
from sleuth.stack.ecosystems.dart import PubDetector
from sleuth.stack.ecosystems.deno import DenoDetector
from sleuth.stack.ecosystems.docs import DocsSiteDetector
from sleuth.stack.ecosystems.dotnet import DotnetDetector
from sleuth.stack.ecosystems.elixir import MixDetector
from sleuth.stack.ecosystems.golang import GoDetector
from sleuth.stack.ecosystems.gradle import GradleDetector
from sleuth.stack.ecosystems.maven import MavenDetector
from sleuth.stack.ecosystems.native import CMakeDetector, MakeDetector, MesonDetector
from sleuth.stack.ecosystems.node import NodeDetector
from sleuth.stack.ecosystems.php import ComposerDetector
from sleuth.stack.ecosystems.python import PythonDetector
from sleuth.stack.ecosystems.ruby import RubyDetector
from sleuth.stack.ecosystems.rust import CargoDetector
from sleuth.stack.ecosystems.sbt import SbtDetector
from sleuth.stack.ecosystems.sources import SourcesDetector
from sleuth.stack.ecosystems.swift import SwiftPMDetector
from sleuth.stack.ecosystems.zig import ZigDetector


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
        DocsSiteDetector(),
        BazelDetector(),
        MesonDetector(),
        CMakeDetector(),
        MakeDetector(),
        SourcesDetector(),
    ]
