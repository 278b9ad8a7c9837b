"""What a fresh clone relies on: CI runs the README's test command itself, and every dependency is pinned."""

import hashlib
import re
import subprocess
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]


def readme_test_command() -> str:
    blocks = re.findall(r"```bash\n(.*?)\n```", (REPOSITORY / "README.md").read_text(), re.S)
    return next(block for block in blocks if "pytest" in block)


def test_ci_runs_the_readme_test_command_word_for_word():
    """A drift (the README on two pytest workers, CI on one) meant the command a reader runs was not the one
    that gates a change."""
    steps = [line for line in (REPOSITORY / ".ci/run").read_text().splitlines() if line and not line.startswith("#")]
    assert readme_test_command() in steps


def test_the_test_command_stops_in_one_line_when_chromium_cannot_be_had(tmp_path):
    """The browser tests are part of the gate: without Chromium, and without the right to install it, the command
    stops at its first step and says why in one line (it used to carry on, and the browser tests were skipped)."""
    chromium_step = readme_test_command().split(" && python3 -m venv", 1)[0]
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "id").write_text("#!/bin/sh\necho 1000\n")  # not root: no apt-get
    (tools / "id").chmod(0o755)
    without = subprocess.run(["/bin/bash", "-c", chromium_step], env={"PATH": str(tools)}, capture_output=True,
                             text=True)
    assert without.returncode != 0 and without.stdout == ""
    assert len(without.stderr.splitlines()) == 1 and "Chromium is not installed" in without.stderr
    (tools / "chromium").write_text("#!/bin/sh\n")
    (tools / "chromium").chmod(0o755)
    present = subprocess.run(["/bin/bash", "-c", chromium_step], env={"PATH": str(tools)}, capture_output=True,
                             text=True)
    assert (present.returncode, present.stdout, present.stderr) == (0, "", "")


def test_every_requirement_is_pinned_to_one_version():
    for name in sorted(REPOSITORY.glob("requirements*.txt")):
        for line in name.read_text().splitlines():
            requirement = line.split("#", 1)[0].strip()
            if requirement and not requirement.startswith("-"):
                assert re.fullmatch(r"[A-Za-z0-9_.\-\[\],]+==[A-Za-z0-9_.+\-]+(\s*;.*)?", requirement), \
                    f"{name.name}: '{requirement}' is not pinned to one version"


# The locks (`bash relock.sh` writes them from the inputs): which inputs each one is compiled from.
LOCKS = {
    "requirements.lock": ["requirements.txt"],
    "requirements-test.lock": ["requirements.txt", "requirements-extras.txt", "requirements-competitors.txt"],
    "requirements-dev.lock": ["requirements-dev.txt"],
    "requirements-judges.lock": ["requirements-judges.txt"],  # bench/judges.py's own venv, held to nothing else
}
HASHED_PIN = r"([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9.+!_-]+)((?:\s+--hash=sha256:[0-9a-f]{64})+)\s*"
TORCH_WHEEL = Path("/opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def input_pins(name: str) -> dict[str, str]:
    """The pins of one human-edited input, following its `-r` includes; extras dropped, names canonical."""
    pins = {}
    for line in (REPOSITORY / name).read_text().splitlines():
        requirement = line.split("#", 1)[0].strip()
        if requirement.startswith("-r "):
            pins.update(input_pins(requirement[3:].strip()))
        elif requirement:
            package, version = requirement.split(";", 1)[0].split("==")
            pins[canonical(package.split("[", 1)[0])] = version.strip()
    return pins


def lock_entries(name: str) -> dict[str, tuple[str, list[str], str]]:
    """package -> (version, hashes, its `# via` annotation) for every requirement of a lock, each one checked
    to be an exact pin with at least one sha256 hash and nothing else (no option line, no range, no URL)."""
    entries, last = {}, None
    logical = re.sub(r"\\\n", " ", (REPOSITORY / name).read_text())
    for line in logical.splitlines():
        if line.lstrip().startswith("#"):
            if last is not None:
                version, hashes, via = entries[last]
                entries[last] = (version, hashes, via + line + "\n")
            continue
        if not line.strip():
            continue
        match = re.fullmatch(HASHED_PIN, line)
        assert match, f"{name}: '{line.strip()[:120]}' is not one exact == pin with sha256 hashes"
        package = canonical(match[1])
        assert package not in entries, f"{name}: {package} is pinned twice"
        entries[package] = (match[2], re.findall(r"[0-9a-f]{64}", match[3]), "")
        last = package
    assert entries, f"{name} pins nothing"
    return entries


def test_every_lock_line_is_an_exact_pin_with_hashes():
    for name in LOCKS:
        lock_entries(name)


def test_locks_agree_with_their_inputs():
    """A pin changed in requirements*.txt without `bash relock.sh` (or the other way round) fails here."""
    for name, inputs in LOCKS.items():
        entries = lock_entries(name)
        wanted = {}
        for source in inputs:
            wanted.update(input_pins(source))
        for package, version in wanted.items():
            assert package in entries, f"{name} lacks {package}=={version}: run bash relock.sh"
            assert entries[package][0] == version, \
                f"{name} pins {package}=={entries[package][0]}, the inputs {version}: run bash relock.sh"
        # The other way: what the lock says came straight from an input file must still be pinned there.
        for package, (version, _, via) in entries.items():
            for source in re.findall(r"-r (requirements[\w.-]*\.txt)", via):
                assert input_pins(source).get(package) == version, \
                    f"{name}: {package}=={version} is 'via -r {source}', which does not pin it so: run bash relock.sh"


def test_the_dashboard_lock_is_the_tested_one():
    """The tests run the versions the dashboard installs: every package of the dashboard's (and the dev) lock
    is in the test lock at the same version, hashes included."""
    tested = lock_entries("requirements-test.lock")
    for name in ("requirements.lock", "requirements-dev.lock"):
        for package, (version, hashes, _) in lock_entries(name).items():
            if package == "ruff" and name == "requirements-dev.lock":
                continue
            assert package in tested, f"{name}: {package} is not in requirements-test.lock"
            assert tested[package][:2] == (version, hashes), f"{name}: {package}=={version} differs from the test lock"
    assert {"torch", "ray", "dask", "playwright", "ctgan"}.isdisjoint(lock_entries("requirements.lock")), \
        "the dashboard's lock must stay light"


def test_torch_is_the_cpu_wheel_on_disk():
    for name in LOCKS:
        assert not [p for p in lock_entries(name) if p.startswith("nvidia-")], f"{name} brings CUDA packages"
    version, hashes, _ = lock_entries("requirements-test.lock")["torch"]
    assert version == "2.13.0+cpu"
    if TORCH_WHEEL.exists():
        with TORCH_WHEEL.open("rb") as wheel:
            assert hashes == [hashlib.file_digest(wheel, "sha256").hexdigest()]


def test_the_readme_commands_install_from_the_locks():
    blocks = re.findall(r"```bash\n(.*?)\n```", (REPOSITORY / "README.md").read_text(), re.S)
    run = next(block for block in blocks if "-m tvs_core dashboard" in block)
    assert "pip install -q --require-hashes -r requirements.lock &&" in run
    assert "pip install -q --require-hashes -r requirements-test.lock &&" in readme_test_command()


# The README is one screen: what it is, the two commands, the walkthrough, links. The rest is in docs/.
README_LIMIT = 10_000  # bytes
SCREENSHOT_LIMIT = 300_000  # bytes
PENDING = {"docs/security.md"}  # the Security section's page, linked before it is written


def markdown_files() -> list[Path]:
    return [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs").rglob("*.md"))]


def test_the_readme_is_one_screen_with_the_guide_and_the_security_section():
    text = (REPOSITORY / "README.md").read_text()
    assert len(text.encode()) <= README_LIMIT, f"README.md is {len(text.encode())} bytes: move detail to docs/"
    assert re.search(r"^## Security$", text, re.M), "README.md lost its Security section"
    assert "(docs/guide.md)" in text
    shots = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert shots, "the walkthrough has no screenshot"
    for shot in shots:
        size = (REPOSITORY / shot).stat().st_size
        assert size <= SCREENSHOT_LIMIT, f"{shot} is {size} bytes"


LINK = r"\]\(([^)\s]+)\)"  # a markdown link's target


def _slugs(page: Path) -> set[str]:
    """The anchors of a page's headings, as GitHub writes them (lower case, punctuation dropped, spaces to hyphens)."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


def test_every_relative_link_of_the_documentation_leads_to_a_file_and_its_heading():
    for page in markdown_files():
        for target in re.findall(LINK, page.read_text()):
            if re.match(r"[a-z]+:", target):
                continue  # refused by the test below
            file, _, anchor = target.partition("#")
            path = (page.parent / file).resolve() if file else page
            if path.relative_to(REPOSITORY.resolve()).as_posix() in PENDING:
                continue
            assert path.exists(), f"{page.relative_to(REPOSITORY)} links to {target}, which does not exist"
            if anchor and path.suffix == ".md":
                assert anchor in _slugs(path), f"{page.relative_to(REPOSITORY)} links to {target}: no such heading"


def test_the_documentation_points_only_inside_the_repository():
    """A clone can follow every reference: no web address, no link or quoted path leaving the repository (the
    protocols' exact definitions were once in a file beside it, which a clone cannot open)."""
    root = REPOSITORY.resolve()
    for page in markdown_files():
        text = page.read_text()
        for target in re.findall(LINK, text):
            assert not re.match(r"[a-z]+:", target), f"{page.relative_to(REPOSITORY)} links outside: {target}"
            assert (page.parent / target.split("#", 1)[0]).resolve().is_relative_to(root), \
                f"{page.relative_to(REPOSITORY)} links outside the repository: {target}"
        for quoted in re.findall(r"`(\.\./[^`\s]*)`", text):
            path = (page.parent / quoted).resolve()
            assert path.is_relative_to(root) and path.exists(), \
                f"{page.relative_to(REPOSITORY)} names {quoted}, which is not a file of the repository"


@pytest.mark.parametrize("page", ["README.md", "docs/ARCHITECTURE.md", "docs/reference/evaluation.md"])
def test_the_protocols_page_is_linked_from_the_readme_the_architecture_and_the_evaluation_page(page):
    path = REPOSITORY / page
    targets = {(path.parent / target.split("#", 1)[0]).resolve() for target in re.findall(LINK, path.read_text())}
    assert (REPOSITORY / "docs" / "reference" / "protocols.md").resolve() in targets
