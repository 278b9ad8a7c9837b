"""Our forests are scikit-learn's, bit for bit: same trees, same probabilities, same predictions.

TSTR and the membership attackers use ``tvs_core.evaluation.forests`` (sklearn's forests without the per-tree
overhead, issue 27); a change of numbers would move every published AUC and privacy gain."""

import pickle

import numpy as np
import pytest
from sklearn import ensemble

from tvs_core.evaluation import forests


def _table(rows: int, classes: int, seed: int, missing: bool = False):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, 7))
    x[:, 3] = rng.integers(0, 3, rows)  # ties, as in coded columns
    if missing:
        x[rng.random(x.shape) < 0.05] = np.nan
    signal = x[:, 0] + 0.5 * np.nan_to_num(x[:, 1]) + rng.normal(size=rows)
    y = np.digitize(signal, np.quantile(signal, np.linspace(0, 1, classes + 1)[1:-1]))
    return x, y, rng.normal(size=(60, 7))


def _same_trees(ours, theirs):
    assert len(ours.estimators_) == len(theirs.estimators_)
    for a, b in zip(ours.estimators_, theirs.estimators_, strict=True):
        assert a.random_state == b.random_state
        for field in ("feature", "threshold", "children_left", "children_right", "value", "missing_go_to_left",
                      "n_node_samples", "weighted_n_node_samples", "impurity"):
            np.testing.assert_array_equal(getattr(a.tree_, field), getattr(b.tree_, field))
        for attribute in ("n_features_in_", "n_outputs_", "max_features_", "classes_", "n_classes_"):
            if hasattr(b, attribute):
                np.testing.assert_array_equal(getattr(a, attribute), getattr(b, attribute))
                assert type(getattr(a, attribute)) is type(getattr(b, attribute)), attribute


@pytest.mark.parametrize("rows, classes, labels, max_samples, missing", [
    (40, 2, None, None, False),  # an attacker's size
    (300, 2, None, 120, False),  # TSTR with bootstrap rows capped (FOREST_ROWS)
    (200, 3, np.array([2, 5, 9]), None, False),  # multiclass response, labels not 0..k-1
    (200, 2, None, None, True),  # missing values go down the trees as sklearn sends them
])
def test_classifier_is_sklearns_bit_for_bit(rows, classes, labels, max_samples, missing):
    x, y, x_new = _table(rows, classes, seed=rows + classes, missing=missing)
    if labels is not None:
        y = labels[y]
    settings = dict(n_estimators=25, random_state=11, n_jobs=1, max_samples=max_samples)
    ours = forests.RandomForestClassifier(**settings).fit(x, y)
    theirs = ensemble.RandomForestClassifier(**settings).fit(x, y)
    _same_trees(ours, theirs)
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    np.testing.assert_array_equal(ours.predict_proba(x_new), theirs.predict_proba(x_new))
    np.testing.assert_array_equal(ours.predict(x_new), theirs.predict(x_new))
    # and the same as sklearn's own predict on our fitted forest (the per-tree sum in the same order)
    np.testing.assert_array_equal(ours.predict_proba(x_new), ensemble.RandomForestClassifier.predict_proba(ours, x_new))


@pytest.mark.parametrize("settings", [
    dict(n_estimators=20, random_state=5, n_jobs=1),
    dict(n_estimators=8, random_state=2, n_jobs=1, max_features="sqrt", min_samples_leaf=3, max_depth=4),
])
def test_regressor_is_sklearns_bit_for_bit(settings):
    x, _, x_new = _table(150, 2, seed=3)
    y = x[:, 0] * 2 + np.sin(x[:, 1])
    ours = forests.RandomForestRegressor(**settings).fit(x, y)
    theirs = ensemble.RandomForestRegressor(**settings).fit(x, y)
    _same_trees(ours, theirs)
    np.testing.assert_array_equal(ours.predict(x_new), theirs.predict(x_new))


@pytest.mark.parametrize("max_features", [0.5, None, "log2", 3, 1.0])
def test_every_max_features_setting_grows_sklearns_trees(max_features):
    """With bootstrap on, each of these grows its trees on our path (``_max_features`` repeats sklearn's rule)."""
    x, y, x_new = _table(90, 2, seed=6)
    settings = dict(n_estimators=6, random_state=8, n_jobs=1, max_features=max_features)
    ours = forests.RandomForestClassifier(**settings).fit(x, y)
    theirs = ensemble.RandomForestClassifier(**settings).fit(x, y)
    _same_trees(ours, theirs)
    np.testing.assert_array_equal(ours.predict_proba(x_new), theirs.predict_proba(x_new))


@pytest.mark.parametrize("settings", [
    dict(class_weight="balanced"),  # settings our lean tree fit does not cover: sklearn's own tree fit
    dict(max_leaf_nodes=6, ccp_alpha=0.01),
    dict(bootstrap=False, max_features=0.5, min_samples_split=0.1),
])
def test_other_settings_are_sklearns_too(settings):
    x, y, x_new = _table(120, 3, seed=4)
    settings = dict(n_estimators=10, random_state=3, n_jobs=1, **settings)
    ours = forests.RandomForestClassifier(**settings).fit(x, y)
    theirs = ensemble.RandomForestClassifier(**settings).fit(x, y)
    _same_trees(ours, theirs)
    np.testing.assert_array_equal(ours.predict_proba(x_new), theirs.predict_proba(x_new))


def test_a_stored_forest_answers_the_same_and_checks_its_input():
    """The attackers are stored pickled and read by another process; a wrong width is still refused."""
    x, y, x_new = _table(80, 2, seed=9)
    forest = forests.RandomForestClassifier(n_estimators=10, random_state=1, n_jobs=1).fit(x, y)
    again = pickle.loads(pickle.dumps(forest))
    np.testing.assert_array_equal(again.predict_proba(x_new), forest.predict_proba(x_new))
    with pytest.raises(ValueError, match="features"):
        again.predict_proba(x_new[:, :5])
