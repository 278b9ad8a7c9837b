"""The same evidence on every machine (issue 22).

OpenBLAS picks its kernels by CPU, and kernels sum in different orders. What must be exact — the demo tables,
a release of a user's file and its manifest — is compared byte for byte under two kernels; the tests whose
numbers pass through BLAS (marked ``kernels``: the golden cases, compared within a stated tolerance, and the
known-answer tests) run again under the kernel this process does not use, so that every run covers both."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.machine_probe import probe

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = ("Haswell", "Sandybridge")
# SHA-256 of the demos as CSV and of three releases of one user file (tests/machine_probe.py). A change here is
# a change of every number computed on a demo, or of what a user's release contains: re-pin only on purpose.
PINNED = {
    "demo:clinical": "682b3c77cfcff3bd896b75f1a463277dc5d6c06cb48cf18050557eb370396a49",
    "demo:breast_cancer": "7e115a871fc47b0002ff74842ddb6b61b08baf51b137f171c34af4d053c0b081",
    "demo:registry": "190c30ad761da1498978c8adfccde3a6c9b331452257667ac8e4b210c02d2dc8",
    "release:1": "9d38390f26ad830c31c4c61d1c69f5c70406839554b86bfd0ff27e45e9dcd304",
    "release:4": "969abb9155d46584ac52d5499a4a4db5c14aba2f2c4d8268a3ffea4bfce17c9e",
    "release:None": "13ad5ad25423b95e83967111f5310533b23deb70f560f801680c0ce8843b0c73",
}


def current_kernel() -> str | None:
    import numpy  # noqa: F401  (threadpoolctl lists the libraries loaded)
    from threadpoolctl import threadpool_info

    return next((i.get("architecture") for i in threadpool_info() if i["internal_api"] == "openblas"), None)


def under(kernel: str, *command: str, timeout: float = 900) -> subprocess.CompletedProcess:
    env = {**os.environ, "OPENBLAS_CORETYPE": kernel, "PYTHONPATH": ROOT}
    return subprocess.run([sys.executable, *command], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.shipped_demos
@pytest.mark.parametrize("kernel", KERNELS)
def test_demos_and_a_release_are_the_same_bytes_under_every_blas_kernel(kernel, tmp_path):
    done = under(kernel, "-c", "import numpy; from threadpoolctl import threadpool_info as t; "
                 "print([i['architecture'] for i in t() if i['internal_api'] == 'openblas'][0])")
    assert done.stdout.strip() == kernel  # the variable took effect: the test is not vacuous
    done = under(kernel, "-m", "tests.machine_probe", str(tmp_path))
    assert done.returncode == 0, done.stderr
    there = json.loads(done.stdout)
    here = probe(tmp_path)
    assert {key: there[key] for key in PINNED} == PINNED
    assert there == here  # the manifests too (their package versions are this machine's, so not pinned)


@pytest.mark.shipped_demos
def test_the_kernel_sensitive_tests_pass_under_the_other_blas_kernels():
    """This process runs the ``kernels`` tests under its own kernel; here they run under each other one."""
    others = [kernel for kernel in KERNELS if kernel != current_kernel()]
    for kernel in others:
        done = under(kernel, "-m", "pytest", "-q", "-m", "kernels", "-n", "0",
                     "--no-header", "tests", timeout=1800)
        assert done.returncode == 0, f"under OPENBLAS_CORETYPE={kernel}:\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}"
        assert " passed" in done.stdout and " failed" not in done.stdout
