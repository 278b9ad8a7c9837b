"""tvs_core/jobs/payloads.py: what one task of a sweep hands to the next is kept in the workspace as arrays. Read
back it is the same; a pickle planted in its place (or an earlier version's) is refused without being run, and a
damaged one is refused in a sentence that says what to do."""

import io
import pickle
import zipfile

import numpy as np
import pytest

from tests.helpers import PlantedPickle
from tvs_core.errors import TVSError
from tvs_core.evaluation.forests import RandomForestClassifier
from tvs_core.jobs.payloads import (
    attackers_from_payload,
    attackers_payload,
    current,
    shadows_from_payload,
    shadows_payload,
)


def _shadows():
    rng = np.random.default_rng(3)
    labels = np.r_[np.zeros(4, int), np.ones(4, int)]
    return {(row, level): (rng.random((8, 5)), labels) for row in (11, 3) for level in (1, 5, None)}


def test_shadows_read_back_are_the_same_arrays_under_the_same_keys_in_the_same_order():
    shadows = _shadows()
    back = shadows_from_payload(shadows_payload(shadows))
    assert list(back) == list(shadows)  # the order of training rows decides the forests
    for key, (features, labels) in shadows.items():
        np.testing.assert_array_equal(back[key][0], features)
        np.testing.assert_array_equal(back[key][1], labels)
        assert back[key][0].dtype == features.dtype and back[key][1].dtype == labels.dtype


def test_attackers_read_back_give_the_same_answers():
    rng = np.random.default_rng(5)
    y = np.r_[np.zeros(10, int), np.ones(10, int)]
    attackers = {(row, None): RandomForestClassifier(n_estimators=8, n_jobs=1, random_state=row).fit(
        rng.normal(size=(20, 6)), y) for row in (7, 2)}
    back = attackers_from_payload(attackers_payload(attackers))
    assert list(back) == [(7, None), (2, None)]
    x_new = rng.normal(size=(30, 6))
    for key, forest in attackers.items():
        np.testing.assert_array_equal(back[key].predict_proba(x_new), forest.predict_proba(x_new))


def test_no_shadow_and_no_attacker_make_valid_payloads():
    assert shadows_from_payload(shadows_payload({})) == {}
    assert attackers_from_payload(attackers_payload({})) == {}


@pytest.mark.parametrize("read", [shadows_from_payload, attackers_from_payload])
def test_a_pickle_in_the_store_is_refused_and_never_run(tmp_path, read):
    marker = tmp_path / "ran"
    planted = pickle.dumps(PlantedPickle(marker))
    assert not current(planted)
    with pytest.raises(TVSError, match="earlier version.*Start the sweep again"):
        read(planted)
    assert not marker.exists()


def test_a_pickle_inside_the_archive_is_refused_and_never_run(tmp_path):
    """An .npz whose member is an object array: loading it would unpickle, which ``allow_pickle=False`` refuses."""
    marker = tmp_path / "ran"
    buffer = io.BytesIO()
    np.savez(buffer, format=np.array([1]), kind=np.array(["shadows"]), keys=np.zeros((1, 2), np.int64),
             features=np.array([PlantedPickle(marker)], dtype=object), labels=np.zeros(1), lengths=np.ones(1, np.int64))
    with pytest.raises(TVSError, match="damaged"):
        shadows_from_payload(buffer.getvalue())
    assert not marker.exists()


def test_a_damaged_or_foreign_payload_is_refused_naming_what_it_was():
    good = shadows_payload(_shadows())
    with pytest.raises(TVSError, match="shadows could not be read: it is damaged"):
        shadows_from_payload(good[:200])
    with pytest.raises(TVSError, match="attackers could not be read: it is not in this version's format"):
        attackers_from_payload(good)  # shadows where attackers were expected
    buffer = io.BytesIO()
    np.savez(buffer, format=np.array([1]), kind=np.array(["shadows"]))
    with zipfile.ZipFile(buffer, "a") as archive:
        archive.writestr("keys.npy", b"not an array")
    with pytest.raises(TVSError, match="damaged"):
        shadows_from_payload(buffer.getvalue())


def test_shadows_without_their_labels_are_refused():
    buffer = io.BytesIO()
    np.savez(buffer, format=np.array([1]), kind=np.array(["shadows"]), keys=np.array([[3, 1]]),
             features=np.zeros((4, 2)), lengths=np.array([4]))
    with pytest.raises(TVSError, match="not in this version's format"):
        shadows_from_payload(buffer.getvalue())


def test_shadows_whose_counts_disagree_are_refused():
    buffer = io.BytesIO()
    np.savez(buffer, format=np.array([1]), kind=np.array(["shadows"]), keys=np.array([[3, 1]]),
             features=np.zeros((4, 2)), labels=np.zeros(4, int), lengths=np.array([9]))
    with pytest.raises(TVSError, match="counts disagree"):
        shadows_from_payload(buffer.getvalue())


def test_a_tampered_forest_is_refused_in_a_sentence():
    rng = np.random.default_rng(1)
    forest = RandomForestClassifier(n_estimators=3, n_jobs=1, random_state=0).fit(
        rng.normal(size=(20, 4)), np.r_[np.zeros(10, int), np.ones(10, int)])
    with np.load(io.BytesIO(attackers_payload({(1, 2): forest})), allow_pickle=False) as stored:
        arrays = {name: stored[name] for name in stored.files}
    arrays["nodes"]["feature"][arrays["nodes"]["left_child"] != -1] = 99
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    with pytest.raises(TVSError, match="attackers could not be read: .*feature the forest lacks.*Nothing of it"):
        attackers_from_payload(buffer.getvalue())


def test_a_negative_level_cannot_be_kept():
    with pytest.raises(ValueError, match="levels of 0 or more"):
        shadows_payload({(1, -1): (np.zeros((2, 2)), np.zeros(2, int))})
