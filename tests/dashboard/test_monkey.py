"""A seeded browser monkey (issue 23): random but plausible use of the dashboard in headless Chromium — page
changes, bursts of arrow keys on sliders, odd numbers in number fields, radios, select boxes, multiselects,
check boxes, buttons (Start, Cancel and Resume included, sweeps on the tiny protocol), downloads, an upload and
reloads — ``STEPS`` of them. It fails on the first exception box, or on the first unexpected error the pages'
safety net wrote to the workspace's errors.log, and prints the trail of actions that led there.

One seed a run, another every day (``tests.helpers.monkey_seed``: the date, unless ``TVS_MONKEY_SEED`` names one):
over the days the monkey tries many paths, and each run costs one. The seed is in the test's id, in the failure's
message and in the run's summary, so ``TVS_MONKEY_SEED=N`` replays the actions of a failed run."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.browser import ARTIFACTS, browser_page, playwright, running_server, settled
from tests.helpers import MONKEY_SEED_ENV, monkey_seed
from tvs_core import load_demo

STEPS = 120  # actions of one run: about a minute and a half of use on an idle machine
PAGES = ["1 · Data", "2 · Sensitive features", "3 · Sweep", "4 · Choose", "5 · Export", "Projects",
         "What the words mean"]
ODD_NUMBERS = ["-1", "0", "1", "2", "2.5", "1e9", "99999999999", "abc", "", " 7 "]
KEYS = ["ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown", "PageUp", "Home", "End"]


class Monkey:
    def __init__(self, page, seed: int, upload_file, errors_log):
        self.page, self.seed, self.rng = page, seed, np.random.default_rng(seed)
        self.upload_file, self.errors_log = upload_file, errors_log
        self.trail: list[str] = []
        self.acted = 0  # actions that did not miss

    def nothing(self, what: str) -> bool:
        """An action that found nothing to act on here (not counted as acting)."""
        self.trail.append(what)
        return False

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
            return self.nothing("slider burst: no slider here")
        key, presses = str(self.rng.choice(KEYS)), int(self.rng.integers(3, 15))
        self.trail.append(f"slider burst: {presses} x {key} on '{slider.get_attribute('aria-label') or '?'}'")
        slider.focus(timeout=3000)
        for _ in range(presses):
            slider.press(key)
            self.page.wait_for_timeout(int(self.rng.integers(20, 120)))

    def odd_number(self):
        field = self.pick(self.page.locator('[data-testid="stNumberInput"] input, [data-testid="stTextInput"] input'))
        if field is None:
            return self.nothing("odd number: no number field here")
        text = str(self.rng.choice(ODD_NUMBERS))
        self.trail.append(f"type {text!r} into '{field.get_attribute('aria-label') or '?'}'")
        field.fill(text, timeout=3000)
        field.press("Enter")

    def radio(self):
        option = self.pick(self.page.get_by_test_id("stRadio").locator("label"))
        if option is None:
            return self.nothing("radio: none here")
        self.trail.append(f"radio: {option.inner_text(timeout=2000)[:40]!r}")
        option.click(timeout=3000)

    def select_box(self):
        box = self.pick(self.page.get_by_test_id("stSelectbox"))
        if box is None:
            return self.nothing("select box: none here")
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
            return self.nothing("multiselect: none here")
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
            return self.nothing("check box: none here")
        self.trail.append(f"check box: {box.inner_text(timeout=2000)[:50]!r}")
        box.click(timeout=3000)

    def button(self):
        button = self.pick(self.page.locator('[data-testid="stButton"] button:not([disabled]), '
                                             '[data-testid="stDownloadButton"] button:not([disabled])'))
        if button is None:
            return self.nothing("button: none enabled here")
        self.trail.append(f"button: {button.inner_text(timeout=2000)[:40]!r}")
        button.click(timeout=3000)

    def reload(self):
        self.trail.append("reload")
        self.page.reload()  # the page's default ceiling (tests.browser.CEILING)

    def upload(self):
        field = self.page.locator('[data-testid="stFileUploaderDropzoneInput"]')
        if not field.count():
            return self.nothing("upload: no file field here")
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

    def run(self, actions: int) -> None:
        for _ in range(actions):
            name = str(self.rng.choice(self.ACTIONS))
            try:
                if getattr(self, name)() is not False:
                    self.acted += 1
            except playwright.Error as exc:  # an element that went away in a rerun: people meet that too
                self.trail.append(f"  ({name} missed: {str(exc).splitlines()[0][:100]})")
            self.page.wait_for_timeout(int(self.rng.integers(150, 900)))  # a person's pace between two actions
            found = self.problem()
            if found:
                self.fail(found)
        settled(self.page)  # what the last actions set off has run
        found = self.problem()
        if found:
            self.fail(found)

    def fail(self, found: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / "monkey-failure.png"), full_page=True)
        trail = "\n".join(f"{i + 1:4d}. {step}" for i, step in enumerate(self.trail[-60:]))
        pytest.fail(f"{found}\n\nthe last actions:\n{trail}\n\nreplay this run's actions with "
                    f"{MONKEY_SEED_ENV}={self.seed} pytest {__file__}", pytrace=False)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [monkey_seed()], ids=lambda s: f"seed={s}")
def test_random_plausible_use_never_meets_an_exception_box(seed, tmp_path):
    upload_file = tmp_path / "cohort.csv"
    load_demo("clinical").sample(300, random_state=seed % 2**32).to_csv(upload_file, index=False)
    workspace = tmp_path / "workspace"
    with running_server(workspace) as server, browser_page() as page:
        page.goto(server.url)
        page.get_by_test_id("stDataFrame").first.wait_for()
        monkey = Monkey(page, seed, upload_file, workspace / "logs" / "errors.log")
        monkey.run(STEPS)
        # it did act: a good share of the actions found what they looked for (others found nothing of their kind on
        # the page, or met an element a rerun took away)
        assert monkey.acted >= STEPS // 4, "\n".join(monkey.trail[-60:])
