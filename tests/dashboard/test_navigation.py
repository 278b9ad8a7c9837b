"""The pages run only through app.py's navigation, and so behind its sign-in gate. With a folder named ``pages/``
Streamlit's old multipage mode takes over a deep link after a restart and runs the page file directly; no setting
of Streamlit 1.67 turns that mode off (it is chosen from the folder's existence, ``PagesManager``), so each page's
first line hands the run to app.py (``common.under_navigation``), through Streamlit's private flag. These tests fail
when Streamlit renames that flag, or when a page forgets the line."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

PAGES = Path(__file__).resolve().parents[2] / "pages"


def test_streamlit_still_chooses_its_old_multipage_mode_by_the_private_flag_the_pages_reset():
    from streamlit.runtime import pages_manager
    from streamlit.runtime.scriptrunner import script_runner

    assert hasattr(pages_manager.PagesManager, "uses_pages_directory")
    source = inspect.getsource(script_runner)
    assert "if PagesManager.uses_pages_directory:" in source and "_mpa_v1(" in source


def _navigated() -> set[str]:
    """The page files app.py's navigation lists (``st.Page("pages/NAME.py", …)``)."""
    tree = ast.parse((PAGES.parent / "app.py").read_text())
    return {Path(node.args[0].value).name for node in ast.walk(tree)
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "st.Page" and node.args
            and isinstance(node.args[0], ast.Constant)}


def test_every_page_hands_its_run_to_app_py_first():
    pages = _navigated()
    assert {"data.py", "export.py"} <= pages
    for page in sorted(PAGES.glob("*.py")):
        body = [node for node in ast.parse(page.read_text()).body
                if not isinstance(node, (ast.Import, ast.ImportFrom))
                and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
        if page.name in pages:
            first = ast.unparse(body[0])
            assert first == "common.under_navigation()", f"{page.name} starts with {first!r}"
        else:  # what the pages share: run on its own (Streamlit's old multipage mode), it draws nothing
            drawn = [ast.unparse(node)[:80] for node in body
                     if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and any(isinstance(inner, ast.Call) and ast.unparse(inner.func).startswith("st.")
                             for inner in ast.walk(node))]
            assert drawn == [], f"{page.name} is no page but draws {drawn} when it is run on its own"
