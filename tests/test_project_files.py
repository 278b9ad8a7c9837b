"""What a fresh clone relies on: CI runs the README's test command itself, and every dependency is pinned."""

import re
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]


def readme_test_command() -> str:
    blocks = re.findall(r"```bash\n(.*?)\n```", (REPOSITORY / "README.md").read_text(), re.S)
    return next(block for block in blocks if "pytest" in block)


def test_ci_runs_the_readme_test_command_word_for_word():
    """A drift (the README on two pytest workers, CI on one) meant the command a reader runs was not the one
    that gates a change."""
    steps = [line for line in (REPOSITORY / ".ci/run").read_text().splitlines() if line and not line.startswith("#")]
    assert readme_test_command() in steps


def test_every_requirement_is_pinned_to_one_version():
    for name in sorted(REPOSITORY.glob("requirements*.txt")):
        for line in name.read_text().splitlines():
            requirement = line.split("#", 1)[0].strip()
            if requirement and not requirement.startswith("-"):
                assert re.fullmatch(r"[A-Za-z0-9_.\-\[\],]+==[A-Za-z0-9_.+\-]+(\s*;.*)?", requirement), \
                    f"{name.name}: '{requirement}' is not pinned to one version"
