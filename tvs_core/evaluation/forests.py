"""The random forests of TSTR and of the membership attackers: sklearn's, without its per-tree Python overhead.

Why (issue 27): for each tree, sklearn clones a template tree (signature introspection) and, at predict, sends
every tree through joblib with its own input check. On our sizes (100 trees on 40-700 rows) that was ~20 % of a
fit and ~90 % of a predict; the membership evaluation alone makes 112 predicts per iteration. These subclasses
draw the same seeds in the same order and add the same per-tree probabilities in the same order, so the
forests and their answers are sklearn's bit for bit (``tests/evaluation/test_forests.py`` compares them with
sklearn's own classes, so a scikit-learn upgrade that changes its internals fails there, not in the numbers).
"""

from __future__ import annotations

import numpy as np
from sklearn import ensemble

# sklearn.ensemble._base._set_random_states draws one integer below this per tree (a tree has one random_state)
_TREE_SEED_BOUND = np.iinfo(np.int32).max


class _TreesWithoutClone:
    def _make_estimator(self, append: bool = True, random_state=None):
        """sklearn's ``_make_estimator``: a fresh tree with the forest's tree settings, seeded from the forest's
        stream, built directly instead of through ``clone`` + ``set_params``."""
        tree = type(self.estimator_)(**{name: getattr(self, name) for name in self.estimator_params})
        if random_state is not None:
            tree.random_state = random_state.randint(_TREE_SEED_BOUND)
        if append:
            self.estimators_.append(tree)
        return tree

    def _summed_trees(self, x: np.ndarray, width: int) -> np.ndarray:
        """The trees' outputs summed in the forest's order, then averaged (sklearn's accumulation with
        ``n_jobs=1``), with the input checked once for the forest instead of once per tree."""
        total = np.zeros((x.shape[0], width), dtype=np.float64)
        for tree in self.estimators_:
            total += tree.tree_.predict(x)[:, :width]
        total /= len(self.estimators_)
        return total


class RandomForestClassifier(_TreesWithoutClone, ensemble.RandomForestClassifier):
    def predict_proba(self, X) -> np.ndarray:
        x = self._validate_X_predict(X)
        if self.n_outputs_ != 1 or self.n_jobs not in (None, 1):
            return super().predict_proba(x)
        return self._summed_trees(x, self.n_classes_)


class RandomForestRegressor(_TreesWithoutClone, ensemble.RandomForestRegressor):
    def predict(self, X) -> np.ndarray:
        x = self._validate_X_predict(X)
        if self.n_outputs_ != 1 or self.n_jobs not in (None, 1):
            return super().predict(x)
        return self._summed_trees(x, 1)[:, 0]
