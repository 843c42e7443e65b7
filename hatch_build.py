"""The wheel's compiled engine: a hatchling build hook that runs ``tools/build_fast.py``.

A wheel build compiles the engine with mypyc into the wheel's ``engine/_compiled`` (a
platform wheel, tagged for this Python) when a C compiler is there; when not it prints one
notice line and builds a pure-Python wheel whose ``engine/_compiled/UNAVAILABLE`` says why
(``solstice --version`` shows it). A compiled build already in the tree, of the same sources
for this Python (``make``'s), is reused. ``SOLSTICE_PURE=1`` builds a pure-Python wheel.
Editable installs are left to ``make`` (which builds ``engine/_compiled`` in the tree).
"""

from __future__ import annotations

import importlib.util
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

ROOT = Path(__file__).resolve().parent


class CompiledEngineHook(BuildHookInterface):  # type: ignore[misc]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        script = ROOT / "tools" / "build_fast.py"
        spec = importlib.util.spec_from_file_location("build_fast", script)
        assert spec is not None and spec.loader is not None
        build_fast = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(build_fast)
        tree_build = ROOT / "engine" / "_compiled"
        self._work = Path(tempfile.mkdtemp(prefix="solstice-wheel-"))
        out = self._work / "_compiled"
        if build_fast.up_to_date(tree_build):
            shutil.copytree(tree_build, out)
            compiled = True
        else:
            compiled = build_fast.build(out)
            if not out.exists():  # SOLSTICE_PURE: nothing built, say so in the wheel
                build_fast.mark_unavailable(out, "built as a pure-Python wheel (SOLSTICE_PURE)")
        for path in sorted(out.iterdir()):
            build_data["force_include"][str(path)] = f"engine/_compiled/{path.name}"
        if compiled:
            build_data["pure_python"] = False
            build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        work = getattr(self, "_work", None)
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
