"""The same evidence on every machine (issue 22).

OpenBLAS picks its kernels by CPU, and kernels sum in different orders. What must be exact — the demo tables,
a release of a user's file and its manifest — is compared byte for byte under two kernels; the tests whose
numbers pass through BLAS are marked ``kernels`` (the golden cases, compared within a stated tolerance, and the
known-answer tests), and one of them per path the numbers take through BLAS (``REPRESENTATIVES``) runs again under
each kernel this process does not use, so that every run covers both. The other ``kernels`` tests take the same
paths: a second demo of the same computation, a second entry point to the same engine."""

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
    "demo:registry": "7b7d3d135c8e936b696baf13c3e0c27c58b8d552504c172f7c0147998c0db75c",
    "release:1": "9d38390f26ad830c31c4c61d1c69f5c70406839554b86bfd0ff27e45e9dcd304",
    "release:4": "969abb9155d46584ac52d5499a4a4db5c14aba2f2c4d8268a3ffea4bfce17c9e",
    "release:None": "13ad5ad25423b95e83967111f5310533b23deb70f560f801680c0ce8843b0c73",
}


# one ``kernels`` test per path through BLAS, by what the path computes
REPRESENTATIVES = {
    # the engine end to end: the vine's fit and its samples at two levels, the attribute game's least squares, the
    # membership game's correlation features and forests, TSTR's logistic regression, a DP vine, baselines' games,
    # the summary and the choice (the evaluate() cases and the other known-answer tests run this same engine)
    "sweep of the clinical demo": "tests/jobs/test_engine.py::test_golden_numbers_are_unchanged[sweep_clinical_small]",
    # the Gaussian copula's samples (a Cholesky factor), on the other demo's thirty continuous columns
    "Gaussian copula, the breast-cancer demo":
        "tests/jobs/test_engine.py::test_golden_numbers_are_unchanged[sweep_breast_cancer_small]",
    # distances from every training row to the synthetic rows (the exposed records' table)
    "record exposure": "tests/evaluation/metrics/test_membership.py::"
                       "test_record_exposure_finds_planted_outlier_and_copy[clinical]",
    # PrivBayes, and an external table scored as a release and attacked as the real rows are
    "competitors and external tables": "tests/model/test_competitors.py::"
                                       "test_an_external_copy_of_the_training_rows_is_flagged_and_plays_no_game",
    # the pooled-release check: attacks on the union of a table's releases
    "pooled releases": "tests/release/test_ledger.py::test_pooled_releases_of_a_copy_generator_are_flagged",
}


def current_kernel() -> str | None:
    import numpy  # noqa: F401  (threadpoolctl lists the libraries loaded)
    from threadpoolctl import threadpool_info

    return next((i.get("architecture") for i in threadpool_info() if i["internal_api"] == "openblas"), None)


def under(kernel: str, *command: str, timeout: float = 900) -> subprocess.CompletedProcess:
    env = {**os.environ, "OPENBLAS_CORETYPE": kernel, "PYTHONPATH": ROOT}
    return subprocess.run([sys.executable, *command], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.slow
@pytest.mark.shipped_demos
def test_demos_and_a_release_are_the_same_bytes_under_every_blas_kernel(tmp_path):
    (tmp_path / "here").mkdir()
    here = probe(tmp_path / "here")  # under this process's kernel
    assert {key: here[key] for key in PINNED} == PINNED
    for kernel in (kernel for kernel in KERNELS if kernel != current_kernel()):
        done = under(kernel, "-c", "import numpy; from threadpoolctl import threadpool_info as t; "
                     "print([i['architecture'] for i in t() if i['internal_api'] == 'openblas'][0])")
        assert done.stdout.strip() == kernel  # the variable took effect: the test is not vacuous
        (tmp_path / kernel).mkdir()
        done = under(kernel, "-m", "tests.machine_probe", str(tmp_path / kernel))
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == here  # the manifests too (their package versions are this machine's)


@pytest.mark.shipped_demos
@pytest.mark.slow
def test_one_test_per_blas_path_passes_under_the_other_blas_kernels():
    """This process runs the ``kernels`` tests under its own kernel; here each path's representative runs under each
    other one. A representative renamed (not found) or no longer marked ``kernels`` (deselected) fails here too."""
    others = [kernel for kernel in KERNELS if kernel != current_kernel()]
    for kernel in others:
        done = under(kernel, "-m", "pytest", "-q", "-m", "kernels", "-n", "0", "--no-header",
                     *REPRESENTATIVES.values(), timeout=3600)
        assert done.returncode == 0, f"under OPENBLAS_CORETYPE={kernel}:\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}"
        assert f"{len(REPRESENTATIVES)} passed" in done.stdout, done.stdout[-2000:]
