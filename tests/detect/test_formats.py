"""The tolerant readers: each copes with the forms real manifests take and never raises on junk."""

from __future__ import annotations

import pytest

from sleuth.stack.ecosystems.common import parse_port
from sleuth.stack.ecosystems.dotnet import solution_projects
from sleuth.stack.ecosystems.golang import directives, short_name
from sleuth.stack.ecosystems.gradle import included
from sleuth.stack.ecosystems.python import requirement_names
from sleuth.stack.formats.dockerfile import exposed_ports
from sleuth.stack.formats.jsonc import loads
from sleuth.stack.formats.properties import parse_properties
from sleuth.stack.formats.xmlfile import XMLRefused, parse_xml
from sleuth.stack.formats.yaml_lite import load, lookup


def test_yaml_lists_and_nested_mappings() -> None:
    text = (
        "# comment\npackages:\n  - 'apps/*'\n  - \"libs/**\"  # libs\n"
        "server:\n  port: 8081\n  ssl: {enabled: false}\nitems:\n- a\n- b: 1\n  c: 2\n"
        "script: |\n  echo hi\n  echo there\ntags: [x, y]\n"
    )
    data = load(text)
    assert data == {
        "packages": ["apps/*", "libs/**"],
        "server": {"port": "8081", "ssl": {"enabled": "false"}},
        "items": ["a", {"b": "1", "c": "2"}],
        "script": "echo hi\necho there",
        "tags": ["x", "y"],
    }


def test_yaml_reads_only_the_first_document_and_dotted_keys() -> None:
    data = load("server:\n  port: 1\n---\nserver:\n  port: 2\n")
    assert lookup(data, "server.port") == "1"
    assert lookup({"server.port": "3"}, "server.port") == "3"
    assert lookup({"a": {"b.c": "4"}}, "a.b.c") == "4"
    assert lookup(data, "server.missing") is None


@pytest.mark.parametrize("junk", ["", "   \n", ":::", "- - -", "a: [unclosed", "\t- x"])
def test_yaml_junk_does_not_raise(junk: str) -> None:
    load(junk)


def test_jsonc_comments_and_trailing_commas() -> None:
    text = '{\n  // a "quoted" comment\n  "url": "http://x//y", /* block */\n  "list": [1, 2,],\n}'
    assert loads(text) == {"url": "http://x//y", "list": [1, 2]}
    with pytest.raises(ValueError):
        loads("{oops")


def test_properties_separators_and_continuations() -> None:
    text = "# c\n! c\nserver.port=8081\na : b\nc d\nlong = one \\\n  two\nempty\n"
    assert parse_properties(text) == {
        "server.port": "8081",
        "a": "b",
        "c": "d",
        "long": "one two",
        "empty": "",
    }


def test_dockerfile_final_stage_and_substitution() -> None:
    text = (
        "FROM a AS build\nEXPOSE 1111\nFROM b\nARG PORT=8080\nENV ADMIN 9090\n"
        "EXPOSE $PORT ${ADMIN}/tcp \\\n  53/udp ${MISSING:-7070}\n# EXPOSE 1\nexpose 8080\n"
    )
    assert exposed_ports(text) == [8080, 9090, 53, 7070]
    assert exposed_ports("EXPOSE notaport 99999\n") == []


def test_xml_rejects_dtds_and_malformed_input() -> None:
    assert parse_xml("<a><b>1</b></a>").tag == "a"
    with pytest.raises(XMLRefused):
        parse_xml('<!DOCTYPE a SYSTEM "http://example.com/x.dtd"><a/>')
    with pytest.raises(XMLRefused):
        parse_xml("<a>")


@pytest.mark.parametrize(
    ("value", "port"),
    [
        (8080, 8080),
        ("8081", 8081),
        ("${PORT:8082}", 8082),
        ("${PORT:-8083}", 8083),
        ("x", None),
        (0, None),
        (True, None),
        ("70000", None),
    ],
)
def test_parse_port(value: object, port: int | None) -> None:
    assert parse_port(value) == port


def test_go_directives_and_names() -> None:
    text = 'module x\nrequire (\n\ta v1 // c\n\t"b" v2\n)\nrequire c v3\nuse ./w\n'
    assert directives(text, "require") == ["a", "b", "c"]
    assert directives(text, "use") == ["./w"]
    assert short_name("example.com/acme/api/v3") == "api"


def test_gradle_includes() -> None:
    text = "include ':app', 'lib:core' // comment 'x'\ninclude(\"web\")\nincludeFlat 'sibling'\n"
    assert included(text) == ["app", "lib/core", "web", "../sibling"]


def test_solution_lists_only_project_files() -> None:
    text = (
        'Project("{A}") = "Api", "src\\Api\\Api.csproj", "{1}"\n'
        'Project("{B}") = "Folder", "Folder", "{2}"\n'
        'Project("{A}") = "Fs", "lib/Fs.fsproj", "{3}"\n'
    )
    assert solution_projects(text) == ["src/Api/Api.csproj", "lib/Fs.fsproj"]


def test_requirement_names() -> None:
    lines = [
        "Django>=5 ; python_version>'3'",
        "-r other.txt",
        "# c",
        "zope.interface",
        "Foo_Bar[x]",
    ]
    assert requirement_names(lines) == {"django", "zope-interface", "foo-bar"}
