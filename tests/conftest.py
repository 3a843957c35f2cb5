"""Shared fixtures: golden files (``pytest --update-golden`` rewrites them) and builders."""

from __future__ import annotations

import importlib.util
import shutil
import sysconfig
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from hypothesis import settings
from setuptools import Distribution, Extension
from setuptools.command.build_ext import build_ext

from gate.inputs.manifests import LoaderFactory

# No property test has a deadline: speed is the benchmark's to measure, and a shared
# two-core runner may pause any example past hypothesis' default 200 ms.
settings.register_profile("fitgate", deadline=None)
settings.load_profile("fitgate")

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "golden"
CORPUS = ROOT.parent / "shared" / "corpus"
DATA = ROOT / "tests" / "data"
JUNIT_XSD = DATA / "junit-10.xsd"
"""The JUnit schema Jenkins' xUnit plugin validates against (jenkinsci/xunit-plugin, MIT, its
notice in the file): it has no ``file``/``line`` on ``<testcase>``, which GitLab and
action-junit-report read, so they are removed before validating and checked apart."""
SARIF_SCHEMA = DATA / "sarif-2.1.0.json"
"""The OASIS SARIF 2.1.0 JSON Schema (errata 01, draft-04)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden", action="store_true", help="rewrite tests/golden from current output"
    )


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The second processes the test's runs started (:func:`tests.forking.counting_forks`)."""
    from tests.forking import counting_forks  # here: that module imports this one's names

    return counting_forks(monkeypatch)


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Callable[[str, str], None]:
    """Compare ``text`` with ``tests/golden/<name>``, or rewrite it with --update-golden."""
    update = request.config.getoption("--update-golden")

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="\n")
            return
        assert path.exists(), f"missing golden file {name}: run pytest --update-golden"
        assert text == path.read_text(encoding="utf-8"), f"{name} differs from its golden file"

    return check


# Both YAML loaders a manifest may be read with: libyaml's, and PyYAML's pure-Python one.
LOADERS: list[Any] = [
    pytest.param(
        getattr(yaml, "CSafeLoader", None),
        id="libyaml",
        marks=pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML built without libyaml"),
    ),
    pytest.param(yaml.SafeLoader, id="pure-python"),
]


@pytest.fixture(params=LOADERS)
def loader(request: pytest.FixtureRequest) -> LoaderFactory:
    factory: LoaderFactory = request.param
    return factory


def compiled_part(name: str, where: Path) -> ModuleType:
    """The compiled part ``gate.snapshot.<name>`` built from this checkout's source into
    ``where``, as ``pip install`` builds it, and loaded: what an install runs, whatever an
    earlier install left beside the source. Skips the test where nothing can build it."""
    headers = Path(sysconfig.get_paths()["include"], "Python.h")
    if shutil.which("cc") is None or not headers.exists():
        pytest.skip("no C compiler or no Python headers here: the part is not built")
    source = ROOT / "gate" / "snapshot" / f"{name}.c"
    extension = Extension(f"gate.snapshot.{name}", [str(source)])
    command = build_ext(Distribution({"ext_modules": [extension]}))
    command.build_lib, command.build_temp = str(where / "lib"), str(where / "temp")
    command.ensure_finalized()
    command.run()
    [library] = (where / "lib").rglob(f"{name}*")
    spec = importlib.util.spec_from_file_location(f"gate.snapshot.{name}", library)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def indentation_part(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """``_indentation.c`` compiled from this checkout (:func:`compiled_part`)."""
    return compiled_part("_indentation", tmp_path_factory.mktemp("indentation"))


@pytest.fixture(scope="session")
def pods_part(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """``_pods.c`` compiled from this checkout (:func:`compiled_part`)."""
    return compiled_part("_pods", tmp_path_factory.mktemp("pods"))
