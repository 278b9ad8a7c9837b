"""A seeded browser monkey (issue 23): random but plausible use of the dashboard in headless Chromium — page
changes, bursts of arrow keys on sliders, odd numbers in number fields, radios, select boxes, multiselects,
check boxes, buttons (Start, Cancel and Resume included), downloads, an upload and reloads — for at least
``SECONDS`` per seed. It fails on the first exception box, or on the first unexpected error the pages' safety net
wrote to the workspace's errors.log, and prints the trail of actions that led there."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest

from tests.browser import ARTIFACTS, browser_page, playwright, running_server
from tvs_core import load_demo

SECONDS = 95.0
PAGES = ["1 · Data", "2 · Sensitive features", "3 · Sweep", "4 · Choose", "5 · Export", "Projects",
         "What the words mean"]
ODD_NUMBERS = ["-1", "0", "1", "2", "2.5", "1e9", "99999999999", "abc", "", " 7 "]
KEYS = ["ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown", "PageUp", "Home", "End"]


class Monkey:
    def __init__(self, page, seed: int, upload_file, errors_log):
        self.page, self.rng, self.upload_file, self.errors_log = page, np.random.default_rng(seed), upload_file, \
            errors_log
        self.trail: list[str] = []

    def pick(self, locator):
        count = locator.count()
        return None if count == 0 else locator.nth(int(self.rng.integers(count)))

    # -- the actions ------------------------------------------------------------------------------------------
    def change_page(self):
        title = str(self.rng.choice(PAGES))
        self.trail.append(f"go to {title}")
        self.page.get_by_role("link", name=title).first.click(timeout=5000)

    def slider_burst(self):
        slider = self.pick(self.page.get_by_test_id("stSlider").get_by_role("slider"))
        if slider is None:
            return self.trail.append("slider burst: no slider here")
        key, presses = str(self.rng.choice(KEYS)), int(self.rng.integers(3, 15))
        self.trail.append(f"slider burst: {presses} x {key} on '{slider.get_attribute('aria-label') or '?'}'")
        slider.focus(timeout=3000)
        for _ in range(presses):
            slider.press(key)
            self.page.wait_for_timeout(int(self.rng.integers(20, 120)))

    def odd_number(self):
        field = self.pick(self.page.locator('[data-testid="stNumberInput"] input, [data-testid="stTextInput"] input'))
        if field is None:
            return self.trail.append("odd number: no number field here")
        text = str(self.rng.choice(ODD_NUMBERS))
        self.trail.append(f"type {text!r} into '{field.get_attribute('aria-label') or '?'}'")
        field.fill(text, timeout=3000)
        field.press("Enter")

    def radio(self):
        option = self.pick(self.page.get_by_test_id("stRadio").locator("label"))
        if option is None:
            return self.trail.append("radio: none here")
        self.trail.append(f"radio: {option.inner_text(timeout=2000)[:40]!r}")
        option.click(timeout=3000)

    def select_box(self):
        box = self.pick(self.page.get_by_test_id("stSelectbox"))
        if box is None:
            return self.trail.append("select box: none here")
        self.trail.append(f"select box: {box.inner_text(timeout=2000)[:40]!r}")
        box.click(timeout=3000)
        # not the Ray backend: a Ray cluster takes tens of seconds to start on a loaded 2-core machine, and a job
        # killed while it starts leaves Ray's own workers to end in their own time (tests/jobs/test_sweep.py runs
        # Ray to its end)
        option = self.pick(self.page.get_by_role("option").filter(has_not_text=re.compile(r"^ray$")))
        if option is not None:
            self.trail.append(f"  option {option.inner_text(timeout=2000)[:40]!r}")
            option.click(timeout=3000)
        else:
            self.page.keyboard.press("Escape")

    def multiselect(self):
        box = self.pick(self.page.get_by_test_id("stMultiSelect"))
        if box is None:
            return self.trail.append("multiselect: none here")
        chips = box.get_by_role("button", name="Delete")  # a chip's x
        if chips.count() and self.rng.random() < 0.5:
            self.trail.append(f"multiselect: remove a choice of {box.inner_text(timeout=2000)[:40]!r}")
            self.pick(chips).click(timeout=3000)
            return
        self.trail.append(f"multiselect: add to {box.inner_text(timeout=2000)[:40]!r}")
        box.click(timeout=3000)
        option = self.pick(self.page.get_by_role("option"))
        if option is not None:
            option.click(timeout=3000)
        self.page.keyboard.press("Escape")

    def checkbox(self):
        box = self.pick(self.page.get_by_test_id("stCheckbox").locator("label"))
        if box is None:
            return self.trail.append("check box: none here")
        self.trail.append(f"check box: {box.inner_text(timeout=2000)[:50]!r}")
        box.click(timeout=3000)

    def button(self):
        button = self.pick(self.page.locator('[data-testid="stButton"] button:not([disabled]), '
                                             '[data-testid="stDownloadButton"] button:not([disabled])'))
        if button is None:
            return self.trail.append("button: none enabled here")
        self.trail.append(f"button: {button.inner_text(timeout=2000)[:40]!r}")
        button.click(timeout=3000)

    def reload(self):
        self.trail.append("reload")
        self.page.reload(timeout=30_000)

    def upload(self):
        field = self.page.locator('[data-testid="stFileUploaderDropzoneInput"]')
        if not field.count():
            return self.trail.append("upload: no file field here")
        self.trail.append(f"upload {self.upload_file.name}")
        field.first.set_input_files(str(self.upload_file), timeout=5000)

    ACTIONS = ["change_page"] * 5 + ["slider_burst"] * 4 + ["odd_number"] * 3 + ["radio"] * 2 + \
        ["select_box"] * 3 + ["multiselect"] * 2 + ["checkbox"] + ["button"] * 3 + ["reload"] + ["upload"]

    # -- the loop ---------------------------------------------------------------------------------------------
    def problem(self) -> str | None:
        boxes = self.page.get_by_test_id("stException")
        if boxes.count():
            return f"an exception box: {boxes.first.inner_text(timeout=5000)[:1500]}"
        if self.errors_log.exists() and self.errors_log.stat().st_size:
            return f"an unexpected error, caught by a page's safety net: {self.errors_log.read_text()[-3000:]}"
        return None

    def run(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            name = str(self.rng.choice(self.ACTIONS))
            try:
                getattr(self, name)()
            except playwright.Error as exc:  # an element that went away in a rerun: people meet that too
                self.trail.append(f"  ({name} missed: {str(exc).splitlines()[0][:100]})")
            self.page.wait_for_timeout(int(self.rng.integers(150, 900)))
            found = self.problem()
            if found:
                self.fail(found)
        self.page.wait_for_timeout(3000)  # what the last actions set off
        found = self.problem()
        if found:
            self.fail(found)

    def fail(self, found: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / "monkey-failure.png"), full_page=True)
        trail = "\n".join(f"{i + 1:4d}. {step}" for i, step in enumerate(self.trail[-60:]))
        pytest.fail(f"{found}\n\nthe last actions:\n{trail}", pytrace=False)


@pytest.mark.parametrize("seed", [1, 2])
def test_random_plausible_use_never_meets_an_exception_box(seed, tmp_path):
    upload_file = tmp_path / "cohort.csv"
    load_demo("clinical").sample(300, random_state=seed).to_csv(upload_file, index=False)
    workspace = tmp_path / "workspace"
    with running_server(workspace) as server, browser_page() as page:
        page.goto(server.url)
        page.get_by_test_id("stDataFrame").first.wait_for(timeout=90_000)
        monkey = Monkey(page, seed, upload_file, workspace / "logs" / "errors.log")
        monkey.run(SECONDS)
        assert len(monkey.trail) > 40  # it did act, for the whole time
