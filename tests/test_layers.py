"""The package layout keeps its promises: no import circles, the engine imports nothing of the
other packages, and ``p2p``'s layers import only downwards (``p2p/__init__.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "p2p", "bots", "ui")

# p2p's layers, lowest first; a module may import from its own rank or below.
P2P_RANK = {"errors": 0, "text": 0, "durable": 0, "wire": 0, "hexfields": 0, "identity": 1,
            "crypto": 2, "deck": 3, "session": 4, "net": 5, "storage": 5}


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


MODULES = _modules()


def _imports(path: Path, top_level_only: bool) -> set[str]:
    """Project modules imported by ``path`` (``from pkg import submodule`` names the submodule;
    names imported from a package's ``__init__`` name the package)."""
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    out: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in MODULES)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            subs = [f"{node.module}.{alias.name}" for alias in node.names]
            out.update(sub for sub in subs if sub in MODULES)
            if node.module in MODULES and any(sub not in MODULES for sub in subs):
                out.add(node.module)
    return out


def _graph(top_level_only: bool) -> dict[str, set[str]]:
    return {name: _imports(path, top_level_only) - {name} for name, path in MODULES.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph``, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_tree_has_modules_to_check() -> None:
    assert "p2p.session.machine" in MODULES and "engine.game" in MODULES


def test_no_module_imports_itself_back_at_import_time() -> None:
    assert _cycle(_graph(top_level_only=True)) is None


def test_no_import_circle_even_counting_imports_for_types_and_inside_functions() -> None:
    """Issue 26: modules that must know each other, even only for the type checker, are one
    module in all but name (the referee is given a small protocol, not the session)."""
    assert _cycle(_graph(top_level_only=False)) is None


def test_the_circle_check_finds_a_circle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


@pytest.mark.parametrize("package, forbidden", [
    ("engine", ("p2p", "bots", "ui")),
    ("p2p", ("bots", "ui")),
    ("bots", ("ui",)),
])
def test_lower_packages_never_import_higher_ones(package: str, forbidden: tuple[str, ...]) -> None:
    wrong = [(name, target) for name, targets in _graph(top_level_only=False).items()
             if name.split(".")[0] == package for target in targets
             if target.split(".")[0] in forbidden]
    assert wrong == []


def test_p2p_layers_import_only_downwards() -> None:
    wrong = []
    for name, targets in _graph(top_level_only=False).items():
        if not name.startswith("p2p."):
            continue
        rank = P2P_RANK[name.split(".")[1]]
        wrong += [(name, target) for target in targets if target.startswith("p2p.")
                  and P2P_RANK[target.split(".")[1]] > rank]
    assert wrong == []
