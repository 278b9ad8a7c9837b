"""The layout docs/ARCHITECTURE.md describes: no import cycle, data flows one way, no Streamlit in the library."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "tvs_core"
# every package and top-level module of tvs_core -> the ones it may import (the pipeline: data -> model -> evaluation
# -> jobs/choice -> release/figures, then the dashboard's project, the report and the entry points on top);
# storage (the workspace and its store) is the bottom: it imports none of them, and any of them may keep things in it
ALLOWED = {
    "storage": set(),
    "data": {"storage"},
    "model": {"data", "storage"},
    "evaluation": {"data", "model", "storage"},
    "jobs": {"data", "model", "evaluation", "storage"},
    "choice": {"evaluation", "storage"},
    "release": {"model", "evaluation", "choice", "storage"},  # choice: the manifest records the choice
    "figures": {"model", "evaluation", "choice", "storage"},
    "projects": {"data", "jobs", "choice", "storage"},  # the dashboard's project: a sweep's settings and a choice
    "report": {"data", "model", "evaluation", "jobs", "choice", "release", "figures", "projects", "storage"},
    "glossary": {"evaluation"},  # a term's catalogue of metrics
    "gate": set(),
    "launch": {"data", "storage", "gate"},
    "cli": {"data", "model", "evaluation", "jobs", "choice", "release", "figures", "report", "launch", "storage"},
    "reference": {"evaluation", "glossary", "cli"},  # the generated docs read the flags off the command line
    "__main__": {"cli", "jobs"},
    "__init__": {"data", "model", "evaluation", "jobs", "choice", "storage"},  # the library's public names
}
# cross-cutting modules any package may use (and only each other)
SHARED = {"errors", "seeding", "settings", "text", "version"}


def part_of(name: str) -> str:
    """The package or top-level module of tvs_core a module belongs to (``__init__`` for the library's own)."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def modules() -> dict[str, Path]:
    out = {}
    for f in ROOT.rglob("*.py"):
        parts = f.relative_to(ROOT.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


def imports(name: str, path: Path, known: dict) -> set[str]:
    """Every tvs_core module ``name`` imports, at module level or inside a function."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            candidates = [f"{target}.{a.name}" for a in node.names] + [target]
        elif isinstance(node, ast.Import):
            candidates = [a.name for a in node.names]
        else:
            continue
        for candidate in candidates:
            while candidate and candidate not in known:
                candidate = candidate.rpartition(".")[0]
            if candidate.startswith("tvs_core") and candidate != name:
                found.add(candidate)
                break
    return found


def fence_breaches(known: dict[str, Path]) -> list[str]:
    """Every import of one module of tvs_core by another that ``ALLOWED`` does not allow."""
    found = []
    for name, path in sorted(known.items()):
        part = part_of(name)
        if part not in ALLOWED and part not in SHARED:
            found.append(f"{name} is in no layer of ALLOWED (add it, and to docs/ARCHITECTURE.md)")
            continue
        for target in sorted(imports(name, path, known)):
            other = part_of(target)
            if other in (part, *SHARED) or (path.name == "__init__.py" and target.startswith(name + ".")):
                continue
            if other not in ALLOWED.get(part, set()):
                found.append(f"{name} imports {target}")
    return found


def test_packages_import_only_what_comes_before_them_in_the_pipeline():
    """Every package and every top-level module of tvs_core has its layer, and imports only those below it."""
    known = modules()
    assert {part_of(name) for name in known} == set(ALLOWED) | SHARED  # no layer for a module that is gone
    assert fence_breaches(known) == []


def test_a_planted_import_breaches_the_fence(tmp_path):
    """The fence sees an import against the chain in a package, in a top-level module, in report/ and in a shared
    module, at module level or inside a function."""
    known = modules()
    planted = {"tvs_core.storage.planted": "from ..report import build_report\n",
               "tvs_core.jobs.planted": "def later():\n    from ..choice.axes import Axis\n",
               "tvs_core.report.planted": "from tvs_core import cli\n",
               "tvs_core.gate_planted": "from .projects import Projects\n",
               "tvs_core.text_planted": "import tvs_core.data.schema\n"}
    for name, source in planted.items():
        path = tmp_path / f"{name}.py"
        path.write_text(source)
        known[name] = path
    ALLOWED["gate_planted"] = ALLOWED["gate"]
    SHARED.add("text_planted")
    try:
        found = fence_breaches(known)
    finally:
        del ALLOWED["gate_planted"]
        SHARED.discard("text_planted")
    assert found == ["tvs_core.gate_planted imports tvs_core.projects",
                     "tvs_core.jobs.planted imports tvs_core.choice.axes",
                     "tvs_core.report.planted imports tvs_core.cli",
                     "tvs_core.storage.planted imports tvs_core.report",
                     "tvs_core.text_planted imports tvs_core.data.schema"]


def test_no_module_import_cycle():
    known = modules()
    graph = {n: {t for t in imports(n, p, known) if not (p.name == "__init__.py" and t.startswith(n + "."))}
             for n, p in known.items()}
    state: dict[str, int] = {}

    def visit(node, trail):
        state[node] = 1
        for nxt in graph[node]:
            assert state.get(nxt) != 1, "import cycle: " + " -> ".join([*trail, node, nxt])
            if nxt not in state:
                visit(nxt, [*trail, node])
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node, [])


def test_the_library_never_imports_streamlit():
    for path in ROOT.rglob("*.py"):
        tree = ast.parse(path.read_text())
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert not any(str(n).split(".")[0] == "streamlit" for n in names), path


def test_pages_are_views_over_the_library():
    """No page parses task keys or builds an evaluation context itself."""
    pages = Path(__file__).resolve().parents[1] / "pages"
    for path in pages.rglob("*.py"):
        text = path.read_text()
        for internal in ("context_for_job", "context_for_model", "plan(", "split_tables", ".split(\":\")"):
            assert internal not in text, f"{path.name} uses {internal}"


BENCH = ROOT.parent / "bench"
OUR_PACKAGES = ("tvs_core", "bench")


def bench_shortcuts(path: Path) -> list[str]:
    """What in one bench script reaches past the public surface: an edit (or any use) of ``sys.path``, a sibling
    imported as a top-level module (only a ``sys.path`` edit makes that work), or a private name of tvs_core or
    bench, imported or read off an imported module."""
    siblings = {f.stem for f in BENCH.glob("*.py")}
    ours: set[str] = set()  # names bound to tvs_core or bench modules in this file
    found = []
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Attribute) and node.attr == "path" and getattr(node.value, "id", None) == "sys":
            found.append(f"{where} uses sys.path")
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level or module.split(".")[0] in siblings:
                found.append(f"{where} imports the sibling {module or '.'} without the bench package")
            if node.level or module.split(".")[0] in (*siblings, *OUR_PACKAGES):
                found += [f"{where} imports the private {module}.{a.name}"
                          for a in node.names if a.name.startswith("_")]
                found += [f"{where} imports from the private module {module}"
                          for part in module.split(".") if part.startswith("_")]
                ours.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in siblings:
                    found.append(f"{where} imports the sibling {alias.name} without the bench package")
                elif alias.name.split(".")[0] in OUR_PACKAGES:
                    found += [f"{where} imports the private module {alias.name}"
                              for part in alias.name.split(".") if part.startswith("_")]
                    ours.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                and getattr(node.value, "id", None) in ours):
            found.append(f"{path.name}:{node.lineno} reads the private {node.value.id}.{node.attr}")
    return found


def test_bench_scripts_run_as_a_package_and_use_only_public_names():
    """bench/ is a package run as ``python -m bench.<name>`` from the repo root: a script that edits ``sys.path`` or
    leans on a private name breaks silently when the library's insides move."""
    assert (BENCH / "__init__.py").exists()
    found = [shortcut for path in sorted(BENCH.glob("*.py")) for shortcut in bench_shortcuts(path)]
    assert not found, "\n".join(found)


def _slow(decorators: list[ast.expr]) -> bool:
    return any("mark.slow" in ast.unparse(d) for d in decorators)


def fast_tests(path: Path) -> list[str]:
    """The tests of a file that ``pytest -m "not slow"`` runs (by their marks as written: a module's ``pytestmark``,
    a class's or a function's decorators)."""
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in node.targets) \
                and "mark.slow" in ast.unparse(node.value):
            return []
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test") and not _slow(node.decorator_list):
            found.append(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test") and not _slow(node.decorator_list):
            found += [f"{node.name}.{f.name}" for f in node.body if isinstance(f, ast.FunctionDef)
                      and f.name.startswith("test") and not _slow(f.decorator_list)]
    return found


def own_test_files() -> tuple[dict[str, Path], list[str]]:
    """Each module of tvs_core (not a package) that has its own test file (``tests/<package>/test_<module>.py``) ->
    that file; and every module."""
    tests = Path(__file__).resolve().parent
    own, every = {}, []
    for name in modules():
        parts = name.split(".")[1:]
        if parts and not ROOT.joinpath(*parts).is_dir():  # a module, not a package
            every.append(name)
            path = tests.joinpath(*parts[:-1], f"test_{parts[-1]}.py")
            if path.exists():
                own[name] = path
    return own, every


def test_the_fast_tier_runs_every_modules_own_tests():
    """``pytest -m "not slow"`` (docs/contributing.md) covers every module: each module's own test file
    (``tests/<package>/test_<module>.py``) keeps tests outside the ``slow`` mark."""
    own, every = own_test_files()
    assert len(own) > len(every) * 3 // 4  # the mapping found the test files (docs/ARCHITECTURE.md says how many)
    tests = Path(__file__).resolve().parent
    assert [f"{name}: {path.relative_to(tests)}" for name, path in sorted(own.items()) if not fast_tests(path)] == []


# -- docs/ARCHITECTURE.md says what the code is -----------------------------------------------------------------------
ARCHITECTURE = ROOT.parent / "docs" / "ARCHITECTURE.md"


def test_the_architecture_doc_states_how_many_modules_have_their_own_test_file():
    said = re.search(r"(\d+) of the (\d+) modules have one", " ".join(ARCHITECTURE.read_text().split()))
    own, every = own_test_files()
    assert said is not None, "docs/ARCHITECTURE.md no longer says how many modules have their own test file"
    assert (int(said[1]), int(said[2])) == (len(own), len(every)), f"say {len(own)} of the {len(every)} modules"


def test_the_architecture_doc_names_every_module_and_every_layer():
    """A module added (or moved) is placed in the doc, by its file's name in code quotes, and so is every layer the
    fence knows."""
    prose = re.sub(r"```.*?```", " ", ARCHITECTURE.read_text(), flags=re.S)  # the chain's drawing aside
    quoted = " ".join(re.findall(r"`([^`]+)`", prose))
    words = set(re.findall(r"[A-Za-z_]\w*", quoted))
    unnamed = sorted(name for name, path in modules().items() if path.name != "__init__.py"
                     and path.stem not in words and str(path.relative_to(ROOT.parent)) not in quoted)
    assert unnamed == [], f"docs/ARCHITECTURE.md does not name {unnamed}"
    assert sorted(layer for layer in {*ALLOWED, *SHARED} - {"__init__"} if layer not in words) == []


def defined_names(roots=(ROOT, ROOT.parent / "pages", ROOT.parent / "bench", ROOT.parent / "tests")) -> set[str]:
    """Every name a module of the project binds at any level (assigned, a class, a function), and every string
    constant (an environment variable's name)."""
    found = set()
    for root in roots:
        for path in root.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                    found.add(node.name)
                elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    found.add(node.id)
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    found.add(node.value)
    return found


def test_every_constant_the_architecture_doc_names_exists():
    """The doc once named a ``RECORDS`` that no module had: every upper-case name it quotes is one the code binds."""
    named = set(re.findall(r"`([A-Z][A-Z0-9_]{2,})`", ARCHITECTURE.read_text()))
    assert sorted(named - defined_names()) == []


def test_bench_and_assets_import_nothing_from_the_tests():
    """What a benchmark or the README's screenshot shares with the tests lives in bench/ (or the library): the test
    tree is no library."""
    found = []
    for root in (BENCH, ROOT.parent / "assets"):
        for path in sorted(root.glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
                found += [f"{path.name}:{node.lineno} imports {name}" for name in names
                          if name.split(".")[0] == "tests"]
    assert found == []


# -- settings travel typed: no enum's value compared as text (issue 58) ----------------------------------------------
def enum_values(roots=(ROOT, ROOT.parent / "pages")) -> dict[str, set[str]]:
    """The text of every member of an Enum the project declares -> the Enums that have it."""
    out: dict[str, set[str]] = {}
    for root in roots:
        for path in root.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ClassDef) and any(
                        getattr(base, "id", getattr(base, "attr", "")) in ("Enum", "StrEnum") for base in node.bases):
                    for item in node.body:
                        if isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant) \
                                and isinstance(item.value.value, str):
                            out.setdefault(item.value.value, set()).add(node.name)
    return out


def _texts(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [text for item in node.elts for text in _texts(item)]
    return []


def text_comparisons(source: str, values) -> list[tuple[int, str]]:
    """(line, text) of every string literal — alone or in a tuple, list or set — compared (``==``, ``!=``, ``in``,
    ``is``…) with anything, where the text is the value of one of ``values``' Enums: a setting read as text where
    its Enum exists."""
    return [(node.lineno, text) for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Compare)
            for side in (node.left, *node.comparators) for text in _texts(side) if text in values]


def test_no_enum_value_is_compared_as_text_in_the_library_or_the_pages():
    """A setting that has an Enum travels as its member: comparing it with the member's text (``method == "paper"``)
    works only while the text and the value agree, and hides the setting's type from whoever reads the code."""
    values = enum_values()
    found = [f"{path.relative_to(ROOT.parent)}:{line} compares {text!r} (a value of {', '.join(sorted(values[text]))})"
             for root in (ROOT, ROOT.parent / "pages") for path in sorted(root.rglob("*.py"))
             for line, text in text_comparisons(path.read_text(), values)]
    assert not found, "\n".join(found)


def test_a_planted_text_comparison_with_an_enum_value_is_found():
    values = enum_values()
    planted = ('def scale(method, games, policy, kind):\n'
               '    scaling = "anchored" if method == "paper" else method\n'
               '    if "aia" in games or policy not in ("drop_rows", "impute"):\n'
               '        return kind != "wilson"\n'
               '    return method == Normalisation.PAPER or kind == "not a choice"\n')
    assert sorted(text_comparisons(planted, values)) == [(2, "paper"), (3, "aia"), (3, "drop_rows"), (3, "impute"),
                                                 (4, "wilson")]
