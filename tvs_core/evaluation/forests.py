"""The random forests of TSTR and of the membership attackers: sklearn's, without its per-tree Python overhead.

Why: for each tree, sklearn clones a template tree (signature introspection), checks again the
targets and weights the forest has already checked (``type_of_target`` alone is ~0.4 ms a tree) and, at
predict, sends every tree through joblib with its own input check. On our sizes (100 trees on 40-700 rows) that
was ~35 % of a fit and ~90 % of a predict; the membership evaluation alone makes 112 predicts per iteration.
These subclasses draw the same seeds in the same order, build each tree with sklearn's own splitter and builder
on the same arrays, and add the same per-tree probabilities in the same order, so the forests and their answers
are sklearn's bit for bit (``tests/evaluation/test_forests.py`` compares them with
sklearn's own classes, so a scikit-learn upgrade that changes its internals fails there, not in the numbers).
"""

from __future__ import annotations

import numbers
import threading

import numpy as np
from sklearn import ensemble
from sklearn import tree as sklearn_tree
from sklearn.tree._classes import CRITERIA_CLF, CRITERIA_REG, DENSE_SPLITTERS
from sklearn.tree._tree import DepthFirstTreeBuilder, Tree
from sklearn.utils.validation import check_random_state

# sklearn.ensemble._base._set_random_states draws one integer below this per tree (a tree has one random_state)
_TREE_SEED_BOUND = np.iinfo(np.int32).max


class _ForestTree:
    """A tree grown by one of our forests. The forest has checked X (float32), encoded y to the class indices
    0..k-1 (float64, one column) and drawn the bootstrap counts as weights; sklearn's ``_fit`` with
    ``check_input=False`` still checks the targets, re-encodes them and checks the weights, per tree. This is
    that ``_fit`` (scikit-learn 1.9.1) for the settings our forests use; anything else is sklearn's own."""

    def _fit(self, X, y, sample_weight=None, check_input=True, missing_values_in_feature_mask=None):
        plain = (not check_input and isinstance(X, np.ndarray) and y.ndim == 2 and y.shape[1] == 1
                 and y.dtype == np.float64 and y.flags.c_contiguous and sample_weight is not None
                 and getattr(self, "class_weight", None) is None and self.monotonic_cst is None
                 and self.max_leaf_nodes is None and self.ccp_alpha == 0.0 and self.splitter in DENSE_SPLITTERS
                 and isinstance(self.criterion, str) and isinstance(self.min_samples_leaf, numbers.Integral)
                 and isinstance(self.min_samples_split, numbers.Integral))
        if not plain:
            return super()._fit(X, y, sample_weight, check_input, missing_values_in_feature_mask)
        random_state = _reseeded(self.random_state)
        n_samples, self.n_features_in_ = X.shape
        self.n_outputs_ = 1
        if isinstance(self, sklearn_tree.DecisionTreeClassifier):
            classes = np.unique(y[:, 0])  # the forest's indices 0..k-1, as sklearn's re-encoding finds them
            widths = np.array([classes.shape[0]], dtype=np.intp)
            self.classes_, self.n_classes_ = classes, widths[0]
            criterion = CRITERIA_CLF[self.criterion](1, widths)
        else:
            criterion = CRITERIA_REG[self.criterion](1, n_samples)
            widths = np.array([1], dtype=np.intp)
        self.max_features_ = _max_features(self.max_features, self.n_features_in_)
        min_samples_leaf = self.min_samples_leaf
        min_samples_split = max(self.min_samples_split, 2 * min_samples_leaf)
        sample_weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
        min_weight_leaf = self.min_weight_fraction_leaf * np.sum(sample_weight)
        splitter = DENSE_SPLITTERS[self.splitter](criterion, self.max_features_, min_samples_leaf,
                                                  min_weight_leaf, random_state, None)
        self.tree_ = Tree(self.n_features_in_, widths, 1)
        max_depth = np.iinfo(np.int32).max if self.max_depth is None else self.max_depth
        builder = DepthFirstTreeBuilder(splitter, min_samples_split, min_samples_leaf, min_weight_leaf,
                                        max_depth, self.min_impurity_decrease)
        builder.build(self.tree_, X, y, sample_weight, missing_values_in_feature_mask)
        return self


_SPLITTER_STATE = threading.local()


def _reseeded(seed) -> np.random.RandomState:
    """``check_random_state(seed)``: for an integer seed, a RandomState reseeded in place instead of a new one
    (a new RandomState first seeds itself from the OS, ~0.1 ms, then is reseeded: the same state either way).
    The splitter draws from it only while its tree is built, so one per thread serves every tree."""
    if not isinstance(seed, numbers.Integral) or isinstance(seed, bool):
        return check_random_state(seed)
    if not hasattr(_SPLITTER_STATE, "generator"):
        _SPLITTER_STATE.generator = np.random.RandomState()
    _SPLITTER_STATE.generator.seed(seed)
    return _SPLITTER_STATE.generator


def _max_features(setting, n_features: int) -> int:
    """sklearn's ``max_features_`` of a tree."""
    if setting == "sqrt":
        return max(1, int(np.sqrt(n_features)))
    if setting == "log2":
        return max(1, int(np.log2(n_features)))
    if setting is None:
        return n_features
    if isinstance(setting, numbers.Integral):
        return int(setting)
    return max(1, int(setting * n_features)) if setting > 0.0 else 0


class _DecisionTreeClassifier(_ForestTree, sklearn_tree.DecisionTreeClassifier):
    pass


class _DecisionTreeRegressor(_ForestTree, sklearn_tree.DecisionTreeRegressor):
    pass


class _TreesWithoutClone:
    _tree_class: type

    def _make_estimator(self, append: bool = True, random_state=None):
        """sklearn's ``_make_estimator``: a fresh tree with the forest's tree settings, seeded from the forest's
        stream, built directly instead of through ``clone`` + ``set_params``."""
        tree = self._tree_class(**{name: getattr(self, name) for name in self.estimator_params})
        if random_state is not None:
            tree.random_state = random_state.randint(_TREE_SEED_BOUND)
        if append:
            self.estimators_.append(tree)
        return tree

    @property
    def _sums_itself(self) -> bool:
        """Whether the trees are summed here: one output and no parallel trees (otherwise sklearn's own path)."""
        return self.n_outputs_ == 1 and self.n_jobs in (None, 1)

    def _summed_trees(self, x: np.ndarray, width: int) -> np.ndarray:
        """The trees' outputs summed in the forest's order, then averaged (sklearn's accumulation with
        ``n_jobs=1``), with the input checked once for the forest instead of once per tree."""
        total = np.zeros((x.shape[0], width), dtype=np.float64)
        for tree in self.estimators_:
            total += tree.tree_.predict(x)[:, :width]
        total /= len(self.estimators_)
        return total


class RandomForestClassifier(_TreesWithoutClone, ensemble.RandomForestClassifier):
    _tree_class = _DecisionTreeClassifier

    def predict_proba(self, X) -> np.ndarray:
        x = self._validate_X_predict(X)
        return self._summed_trees(x, self.n_classes_) if self._sums_itself else super().predict_proba(x)


class RandomForestRegressor(_TreesWithoutClone, ensemble.RandomForestRegressor):
    _tree_class = _DecisionTreeRegressor

    def predict(self, X) -> np.ndarray:
        x = self._validate_X_predict(X)
        return self._summed_trees(x, 1)[:, 0] if self._sums_itself else super().predict(x)
