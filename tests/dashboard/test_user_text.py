"""User text stays text: a file, column or label name that is markdown (an image whose address the browser would
fetch, a link, HTML) is shown as the characters it holds, on every page, never drawn."""

from __future__ import annotations

import re

import pytest
from google.protobuf.descriptor import FieldDescriptor

from tests.dashboard.test_app import finish_sweep
from tests.helpers import dashboard
from tvs_core import load_demo

MARK = "tvsmark"
IMAGE = f"![{MARK}](http://127.0.0.1:9/{MARK})"
FILE_NAME = f"cohort {IMAGE}.csv"
RESPONSE = f"death {IMAGE}"
SENSITIVE = f"cost <img src=http://127.0.0.1:9/{MARK}>"
MARKUP = re.compile(r"(?<!\\)\[[^\]]*(?<!\\)\]\(|(?<!\\)<[a-zA-Z/]")  # a link or image, or an HTML tag, unescaped


@pytest.fixture(autouse=True)
def workspace(page_workspace):
    return page_workspace


def _markdown_strings(message, kind: str):
    for field, value in message.ListFields():
        values = value if field.is_repeated else [value]
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            for item in values:
                yield from _markdown_strings(item, kind)
        elif field.name in ("body", "label", "help") or (field.name == "options" and kind == "radio"):
            yield from (item for item in values if isinstance(item, str))


def rendered_as_markdown(node):
    """Every string of the page that Streamlit renders as markdown: bodies, labels, help texts, radio options."""
    proto = getattr(node, "proto", None)
    if proto is not None and getattr(node, "type", "") not in ("text", "code", "json"):  # those show plain text
        yield from _markdown_strings(proto, getattr(node, "type", ""))
    for child in getattr(node, "children", {}).values():
        yield from rendered_as_markdown(child)


def drawn(at) -> list[str]:
    """The markdown strings that hold the user's text with its markup live."""
    return [text for text in rendered_as_markdown(at._tree) if MARK in text and MARKUP.search(text)]


def hostile_table():
    table = load_demo("clinical").head(400)
    table = table[["in_hospital_death", "total_cost_eur", "lactate_mmol_l", "heart_rate_bpm", "age_years"]]
    table = table.rename(columns={"in_hospital_death": RESPONSE, "total_cost_eur": SENSITIVE})
    return table.assign(ward=table["age_years"].map(lambda age: f"A {IMAGE}" if age > 60 else "B"))


@pytest.mark.slow
def test_markdown_in_file_column_and_label_names_is_shown_as_text_on_every_page():
    at = dashboard().run()
    at.file_uploader[0].set_value((FILE_NAME, hostile_table().to_csv(index=False).encode(), "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    project = at.session_state["project"]
    assert MARK in project.name
    project.sweep.response, project.sweep.sensitive = RESPONSE, [SENSITIVE]
    at.session_state["project"] = project
    seen = []

    def visit(page: str) -> None:
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        assert drawn(at) == [], page
        seen.extend(text for text in rendered_as_markdown(at._tree) if MARK in text)

    for page in ("pages/data.py", "pages/sensitive.py", "pages/choose.py", "pages/export.py", "pages/sweep.py"):
        visit(page)
    at.multiselect(key="w.sweep.levels").set_value([1, 2]).run()
    at.multiselect(key="w.sweep.baselines").set_value(["independent"]).run()
    next(b for b in at.button if b.label == "Start sweep").click().run()
    visit("pages/sweep.py")  # while it runs
    finish_sweep(at)
    visit("pages/sweep.py")
    project = at.session_state["project"]
    project.selected_level = 1
    at.session_state["project"] = project
    visit("pages/choose.py")
    visit("pages/export.py")
    next(b for b in at.button if b.label == "Generate release").click().run()
    at.text_input(key="w.release_note").set_value(f"for the registry {IMAGE}").run()
    visit("pages/export.py")
    visit("pages/projects.py")
    assert any(f"cohort !\\[{MARK}\\]" in text for text in seen)  # the name is shown, escaped, not dropped


@pytest.mark.slow
def test_an_image_in_a_file_name_is_never_fetched_by_the_browser(tmp_path):
    """In a real browser: the sidebar shows the name's characters, and the address in it receives no request."""
    import http.server
    import threading

    from tests.browser import browser_page, running_server, settled, sidebar

    requests: list[str] = []

    class Count(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 — the standard library's name
            requests.append(self.path)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    listener = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Count)
    threading.Thread(target=listener.serve_forever, daemon=True).start()
    name = f"cohort ![{MARK}](http://127.0.0.1:{listener.server_port}/{MARK}).csv"
    path = tmp_path / "upload" / name.replace("/", "∕")  # a file on disk cannot hold '/'; the browser sends this name
    path.parent.mkdir()
    path.write_bytes(hostile_table().to_csv(index=False).encode())
    try:
        with running_server(tmp_path / "workspace") as server, browser_page() as page:
            page.goto(server.url)
            page.get_by_text("1250 rows").first.wait_for()
            page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(
                files=[{"name": name, "mimeType": "text/csv", "buffer": path.read_bytes()}])
            page.get_by_text("400 rows").first.wait_for()
            settled(page)  # every run the upload set off has drawn what it draws
            assert f"cohort ![{MARK}](http://127.0.0.1:{listener.server_port}/{MARK}).csv" in sidebar(page)
            assert page.locator(f'img[src*="{MARK}"]').count() == 0
    finally:
        listener.shutdown()
    assert requests == []
