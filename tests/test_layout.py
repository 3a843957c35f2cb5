"""One stage, one folder, arrows one way (issue #10): every ``import`` under ``gate/``,
read with ``ast``, goes from a stage to the model or to a stage above it in the flow

    inputs, k8s -> snapshot -> live -> scheduler -> reports -> ci -> run -> cli

and no module reaches itself again through others. Imports inside functions count too."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "gate"

# A module may import modules of its own tier or of a lower one. The model (with the JSON
# report's contract, written by the reports, read by merge and the baseline), the errors, the
# progress display, the deadline and the untyped-tree readers are what every stage shares:
# tier 0. Every package and every module directly under ``gate/`` is named here: a new one
# must be placed (``test_every_package_and_top_level_module_is_placed``).
TIERS: dict[str, int] = {
    "gate": 0,
    "gate.model": 0,
    "gate.errors": 0,
    "gate.progress": 0,
    "gate.untyped": 0,
    "gate.deadline": 0,
    "gate.inputs": 1,
    "gate.k8s": 1,
    "gate.snapshot": 2,
    "gate.live": 3,
    "gate.scheduler": 4,
    "gate.reports": 5,
    "gate.ci": 6,
    "gate.run": 7,
    "gate.cli": 8,
    "gate.__main__": 9,
}

# Inside the scheduler the folders read in the order data flows: what every plugin is made
# of, the plugins, placement of copies, the autoscalers, and the engine that drives them.
SCHEDULER_TIERS: dict[str, int] = {
    "gate.scheduler": 0,
    "gate.scheduler.framework": 0,
    "gate.scheduler.plugins": 1,
    "gate.scheduler.plugins.defaultpreemption": 1,
    "gate.scheduler.plugins.interpodaffinity": 1,
    "gate.scheduler.plugins.nodevolumelimits": 1,
    "gate.scheduler.plugins.podtopologyspread": 1,
    "gate.scheduler.plugins.volumebinding": 1,
    "gate.scheduler.placement": 2,
    "gate.scheduler.autoscaling": 3,
    "gate.scheduler.autoscaling.clusterautoscaler": 3,
    "gate.scheduler.autoscaling.karpenter": 3,
    "gate.scheduler.engine": 4,
}

# Packages that hold values only (no stage of their own), named so they are placed too.
SUBPACKAGES_OF_A_STAGE = frozenset({"gate.model"})

# A scheduler folder with more loose modules than this wants splitting by what they do.
MOST_LOOSE_MODULES = 10
MOST_TOP_LEVEL_MODULES = 8

# Reports are written from the model alone: they may not read the stages that made it.
REPORTS_MAY_IMPORT = (
    "gate",
    "gate.model",
    "gate.errors",
    "gate.reports",
    "gate.deadline",
    "gate.model.contract",
)

# Known exceptions, each to be removed by the stage that owns the imported piece.
KNOWN_EXCEPTIONS: frozenset[tuple[str, str]] = frozenset()


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()


def _imported(path: Path) -> Iterator[str]:
    """Every module ``path`` imports, a ``from package import module`` as the module."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                yield child if child in MODULES else node.module


def _edges() -> dict[str, set[str]]:
    return {name: set(_imported(path)) for name, path in MODULES.items()}


EDGES = _edges()


def _tier(module: str) -> int | None:
    """The tier of the longest entry of :data:`TIERS` that ``module`` is, or is inside."""
    for prefix in sorted(TIERS, key=len, reverse=True):
        if module == prefix or module.startswith(prefix + "."):
            return TIERS[prefix]
    return None


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes if p != "gate") or (
        module == "gate" and "gate" in prefixes
    )


def test_every_module_belongs_to_a_stage() -> None:
    assert [m for m in MODULES if _tier(m) is None] == []


def test_stages_import_only_the_model_and_the_stages_above_them() -> None:
    upward = [
        (module, target)
        for module, targets in EDGES.items()
        for target in sorted(targets)
        if target.startswith("gate")
        and (_tier(target) or 0) > (_tier(module) or 0)
        and (module, target) not in KNOWN_EXCEPTIONS
    ]
    assert upward == []


def test_reports_read_the_model_never_the_stages_that_made_it() -> None:
    reaching = [
        (module, target)
        for module, targets in EDGES.items()
        if module.startswith("gate.reports")
        for target in sorted(targets)
        if target.startswith("gate")
        and not _within(target, REPORTS_MAY_IMPORT)
        and (module, target) not in KNOWN_EXCEPTIONS
    ]
    assert reaching == []


def test_the_known_exceptions_are_still_needed() -> None:
    assert [edge for edge in KNOWN_EXCEPTIONS if edge[1] not in EDGES.get(edge[0], set())] == []


def test_no_module_imports_itself_through_others() -> None:
    graph = {m: {t for t in targets if t in MODULES and t != m} for m, targets in EDGES.items()}
    cycles = []
    state: dict[str, int] = {}  # 1 while on the path, 2 once done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_the_package_never_imports_the_benchmark_or_the_tests() -> None:
    outside = [
        (module, target)
        for module, targets in EDGES.items()
        for target in sorted(targets)
        if _within(target, ("benchmarks", "tests"))
    ]
    assert outside == []


# The scheduler reads the model's Snapshot and admission objects, whoever made them: the
# snapshot readers and the manifest readers stand side by side under it, not in a chain.
SCHEDULER_MAY_NOT_IMPORT = ("gate.inputs", "gate.snapshot", "gate.live")


def test_the_scheduler_reads_neither_the_snapshot_readers_nor_the_inputs() -> None:
    reaching = [
        (module, target)
        for module, targets in EDGES.items()
        if module.startswith("gate.scheduler")
        for target in sorted(targets)
        if _within(target, SCHEDULER_MAY_NOT_IMPORT)
    ]
    assert reaching == []


def _packages() -> set[str]:
    return {_module_name(p) for p in PACKAGE.rglob("__init__.py")}


def test_every_package_and_top_level_module_is_placed() -> None:
    """A new package (or a new module right under ``gate/``) must be given its tier: the
    ``gate`` entry is the package's own ``__init__``, never a default for what is new."""
    top_level = {m for m in MODULES if m.count(".") == 1 and m not in _packages()}
    stages = {p for p in _packages() if p.count(".") == 1}
    scheduler = {p for p in _packages() if p.startswith("gate.scheduler")}
    unplaced = sorted((top_level | stages) - set(TIERS)) + sorted(scheduler - set(SCHEDULER_TIERS))
    assert unplaced == []


def test_at_most_eight_modules_stand_directly_under_gate() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(loose) <= MOST_TOP_LEVEL_MODULES, loose


def test_no_scheduler_folder_has_more_than_ten_loose_modules() -> None:
    crowded = {
        str(folder.relative_to(ROOT)): count
        for folder in (p.parent for p in (PACKAGE / "scheduler").rglob("__init__.py"))
        if (count := len([m for m in folder.glob("*.py") if m.name != "__init__.py"]))
        > MOST_LOOSE_MODULES
    }
    assert crowded == {}


def _scheduler_tier(module: str) -> int:
    for prefix in sorted(SCHEDULER_TIERS, key=len, reverse=True):
        if module == prefix or module.startswith(prefix + "."):
            return SCHEDULER_TIERS[prefix]
    raise AssertionError(f"{module} is not placed in the scheduler")


def test_the_scheduler_reads_in_the_order_data_flows() -> None:
    """framework -> plugins -> placement -> autoscaling -> engine: a folder imports only its
    own and those before it."""
    upward = [
        (module, target)
        for module, targets in EDGES.items()
        if module.startswith("gate.scheduler.")
        for target in sorted(targets)
        if target.startswith("gate.scheduler.")
        and _scheduler_tier(target) > _scheduler_tier(module)
    ]
    assert upward == []
