"""The README's screenshot (assets/walkthrough.png): the real dashboard in headless Chromium on the clinical demo, a
quick sweep of the default levels with the default baselines, then the Choose page's recommendation, scatter and
card for the recommended level. Run from the project folder (needs Debian's chromium and playwright, as the
browser tests do):

    .venv/bin/python assets/walkthrough.py [WORKSPACE]

WORKSPACE (default: a temporary folder) keeps the sweep, so a second run takes the picture again without sweeping.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.browser import browser_page, go_to, running_server, wait_for_text  # noqa: E402

OUT = ROOT / "assets" / "walkthrough.png"
WIDTH = 1400  # the browser's width in pixels; the picture is the page's main column


def main(workspace: Path) -> None:
    from PIL import Image

    with running_server(workspace) as server, browser_page() as page:
        page.set_viewport_size({"width": WIDTH, "height": 900})
        page.goto(server.url)
        page.get_by_text("1250 rows").first.wait_for(timeout=120_000)
        go_to(page, "3 · Sweep")
        start = page.get_by_role("button", name="Start sweep")
        if start.is_enabled():
            start.click()
        sidebar = lambda: page.get_by_test_id("stSidebar").inner_text()  # noqa: E731
        wait_for_text(page, sidebar, "Sweep: done", timeout=1_800_000)
        page.set_viewport_size({"width": WIDTH, "height": 4000})  # the whole page at once: Streamlit scrolls
        go_to(page, "4 · Choose")  # its own container, which a full-page screenshot would not unroll
        page.get_by_text("Recommended level:").first.wait_for(timeout=120_000)
        page.get_by_text("What it protects").first.wait_for(timeout=120_000)
        page.wait_for_timeout(4000)  # plotly finishes drawing
        top = page.get_by_text("Recommended level:").first.bounding_box()["y"] - 12
        card = page.get_by_text("What it costs").first.locator(
            "xpath=ancestor::div[@data-testid='stVerticalBlock'][1]")
        box = card.bounding_box()
        bottom = box["y"] + box["height"] + 12
        shot = workspace / "choose.png"
        page.screenshot(path=str(shot), clip={"x": box["x"] - 12, "y": top, "width": box["width"] + 24,
                                              "height": bottom - top})  # the page's main column
    image = Image.open(shot).convert("RGB").quantize(colors=256)  # a few flat colours: a small PNG
    image.save(OUT, optimize=True)
    print(f"wrote {OUT} ({OUT.stat().st_size // 1024} KB, {image.width} × {image.height})")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="tvs-walkthrough-")))
