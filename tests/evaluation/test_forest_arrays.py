"""tvs_core/evaluation/forest_arrays.py: a membership attacker kept as arrays answers exactly as the forest it was,
and arrays that are not such a forest are refused before scikit-learn follows a node index out of its tree."""

import numpy as np
import pytest

from tvs_core.evaluation.forest_arrays import forests_from_arrays, forests_to_arrays
from tvs_core.evaluation.forests import RandomForestClassifier


def _forests(count=3, features=12, seed=0):
    rng = np.random.default_rng(seed)
    fitted = []
    for index in range(count):
        x = rng.normal(size=(40, features))
        y = np.r_[np.zeros(20, int), np.ones(20, int)]
        x[y == 1, index % features] += 1.0  # something to learn
        fitted.append(RandomForestClassifier(n_estimators=15, n_jobs=1, random_state=index).fit(x, y))
    return fitted, rng.normal(size=(50, features))


def test_forests_read_back_answer_exactly_as_before():
    fitted, x_new = _forests()
    back = forests_from_arrays(forests_to_arrays(fitted))
    assert len(back) == len(fitted)
    for before, after in zip(fitted, back, strict=True):
        assert isinstance(after, RandomForestClassifier) and len(after.estimators_) == 15
        np.testing.assert_array_equal(after.predict_proba(x_new), before.predict_proba(x_new))
        np.testing.assert_array_equal(after.predict(x_new), before.predict(x_new))
        np.testing.assert_array_equal(after.classes_, before.classes_)


def test_a_forest_read_back_still_refuses_features_of_another_width():
    fitted, x_new = _forests(count=1)
    (back,) = forests_from_arrays(forests_to_arrays(fitted))
    with pytest.raises(ValueError, match="features"):
        back.predict_proba(x_new[:, :5])


def test_no_forest_is_kept_as_empty_arrays():
    assert forests_from_arrays(forests_to_arrays([])) == []


def _tampered(change):
    fitted, _ = _forests(count=2)
    arrays = forests_to_arrays(fitted)
    arrays["nodes"] = arrays["nodes"].copy()
    change(arrays)
    return arrays


def _first_split(arrays):
    return int(np.flatnonzero(arrays["nodes"]["left_child"] != -1)[0])


@pytest.mark.parametrize(("change", "why"), [
    (lambda a: a["nodes"]["left_child"].__setitem__(_first_split(a), 10**9), "outside its tree"),
    (lambda a: a["nodes"]["right_child"].__setitem__(_first_split(a), 0), "backwards"),  # a loop to the root
    (lambda a: a["nodes"]["feature"].__setitem__(_first_split(a), 12), "feature the forest lacks"),
    (lambda a: a["nodes"]["feature"].__setitem__(_first_split(a), -5), "feature the forest lacks"),
    (lambda a: a["nodes"]["right_child"].__setitem__(int(np.flatnonzero(a["nodes"]["left_child"] == -1)[0]), 1),
     "outside its tree"),  # a leaf with one child
    (lambda a: a["node_counts"].__setitem__(0, a["node_counts"][0] + 1), "disagree"),
    (lambda a: a["trees"].__setitem__(1, 3), "disagree"),
    (lambda a: a["max_depths"].__setitem__(0, 10**6), "depth"),
    (lambda a: a.__setitem__("values", a["values"][:, :, :1]), "disagree"),
    (lambda a: a["values"].__setitem__((0, 0, 0), np.nan), "not finite"),
    (lambda a: a.__setitem__("nodes", a["nodes"][["left_child", "right_child"]]), "another version"),
    (lambda a: a.pop("classes"), "lack classes"),
])
def test_arrays_that_are_not_such_forests_are_refused_naming_why(change, why):
    with pytest.raises(ValueError, match=why):
        forests_from_arrays(_tampered(change))
