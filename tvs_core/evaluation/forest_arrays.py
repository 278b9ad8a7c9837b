"""Random forests as plain arrays and back: how a sweep keeps its membership attackers between stages without a
pickle, which can run code when read.

A tree read back is checked before scikit-learn may use it. Its predict follows the stored child and feature
indices without a bounds check (the reason skops does not trust ``sklearn.tree._tree.Tree`` by default), so a
tampered array could otherwise make it read outside its memory or never stop. The checks: every split node's
children come after it and inside its tree (so every path ends), its feature is one the forest was fitted on, a
leaf has no children, and every number is finite.
"""

from __future__ import annotations

import numpy as np
from sklearn.tree._tree import NODE_DTYPE, TREE_LEAF, Tree

from .forests import RandomForestClassifier, _DecisionTreeClassifier

FOREST_ARRAYS = ("n_features", "classes", "trees", "node_counts", "max_depths", "nodes", "values")


def forests_to_arrays(forests: list[RandomForestClassifier]) -> dict[str, np.ndarray]:
    """Fitted single-output classifiers with the same number of classes, their trees' nodes end to end."""
    states = [tree.tree_.__getstate__() for forest in forests for tree in forest.estimators_]
    widths = {len(forest.classes_) for forest in forests}
    if len(widths) > 1 or any(forest.n_outputs_ != 1 for forest in forests):
        raise ValueError("forests_to_arrays keeps single-output forests with the same number of classes")
    width = widths.pop() if widths else 0
    return {
        "n_features": np.array([forest.n_features_in_ for forest in forests], dtype=np.int64),
        "classes": (np.array([forest.classes_ for forest in forests]) if forests
                    else np.zeros((0, 0), dtype=np.int64)),
        "trees": np.array([len(forest.estimators_) for forest in forests], dtype=np.int64),
        "node_counts": np.array([state["node_count"] for state in states], dtype=np.int64),
        "max_depths": np.array([state["max_depth"] for state in states], dtype=np.int64),
        "nodes": np.concatenate([state["nodes"] for state in states] or [np.zeros(0, NODE_DTYPE)]),
        "values": (np.concatenate([state["values"] for state in states]) if states
                   else np.zeros((0, 1, width))),
    }


def forests_from_arrays(arrays: dict[str, np.ndarray]) -> list[RandomForestClassifier]:
    """The forests ``forests_to_arrays`` wrote, answering as they did; ValueError naming the first check that
    fails when the arrays are not such forests."""
    missing = [name for name in FOREST_ARRAYS if name not in arrays]
    if missing:
        raise ValueError(f"the forests lack {', '.join(missing)}")
    n_features, classes, trees, node_counts, max_depths, nodes, values = (arrays[name] for name in FOREST_ARRAYS)
    _check_forests(n_features, classes, trees, node_counts, max_depths, nodes, values)
    nodes = nodes.astype(NODE_DTYPE)  # sklearn's layout (concatenating and saving drop its trailing padding)
    width = classes.shape[1]
    node_ends = np.cumsum(node_counts)
    tree_ends = np.cumsum(trees)
    forests = []
    for forest_index, n_trees in enumerate(trees):
        estimators = []
        for tree_index in range(tree_ends[forest_index] - n_trees, tree_ends[forest_index]):
            stop = node_ends[tree_index]
            start = stop - node_counts[tree_index]
            tree = Tree(int(n_features[forest_index]), np.array([width], dtype=np.intp), 1)
            tree.__setstate__({"max_depth": int(max_depths[tree_index]), "node_count": int(node_counts[tree_index]),
                               "nodes": np.ascontiguousarray(nodes[start:stop]),
                               "values": np.ascontiguousarray(values[start:stop])})
            estimators.append(_fitted_tree(tree, int(n_features[forest_index]), width))
        forests.append(_fitted_forest(estimators, int(n_features[forest_index]), classes[forest_index]))
    return forests


def _check_forests(n_features, classes, trees, node_counts, max_depths, nodes, values) -> None:
    counts = (n_features, trees, node_counts, max_depths)
    if any(a.ndim != 1 or a.dtype.kind not in "iu" for a in counts) or classes.ndim != 2:
        raise ValueError("the forests' counts are not lists of whole numbers")
    if not len(n_features) == len(classes) == len(trees):
        raise ValueError("the forests' counts disagree")
    if np.any(n_features < 1) or np.any(trees < 1) or np.any(node_counts < 1):
        raise ValueError("a forest has no feature, no tree or a tree without nodes")
    if (len(classes) and classes.shape[1] < 1 or classes.dtype.kind not in "iubf"
            or not np.all(np.isfinite(classes))):
        raise ValueError("the forests' classes are not labels")
    if trees.sum() != len(node_counts) or len(max_depths) != len(node_counts):
        raise ValueError("the forests' trees disagree with their counts")
    if _fields(nodes.dtype) != _fields(NODE_DTYPE):
        raise ValueError("the trees' nodes were written by another version of scikit-learn")
    if not (nodes.ndim == 1 and values.ndim == 3 and len(nodes) == len(values) == node_counts.sum()
            and values.shape[1:] == (1, classes.shape[1]) and values.dtype == np.float64):
        raise ValueError("the trees' nodes and values disagree with their counts")
    if np.any(max_depths < 0) or np.any(max_depths >= node_counts):
        raise ValueError("a tree's depth is impossible for its nodes")
    size = np.repeat(node_counts, node_counts)
    index = np.arange(len(nodes)) - np.repeat(np.cumsum(node_counts) - node_counts, node_counts)
    features = np.repeat(np.repeat(n_features, trees), node_counts)
    left, right, feature = nodes["left_child"], nodes["right_child"], nodes["feature"]
    leaf = left == TREE_LEAF
    inside = ((left > index) & (left < size) & (right > index) & (right < size)
              & (feature >= 0) & (feature < features))
    if not np.all(np.where(leaf, right == TREE_LEAF, inside)):
        raise ValueError("a tree's node points outside its tree, backwards, or at a feature the forest lacks")
    if not (np.all(np.isfinite(nodes["threshold"][~leaf])) and np.all(np.isfinite(values))):
        raise ValueError("a tree holds a number that is not finite")


def _fields(dtype: np.dtype) -> list | None:
    return None if dtype.names is None else [(name, dtype.fields[name][0]) for name in dtype.names]


def _fitted_tree(tree: Tree, n_features: int, width: int) -> _DecisionTreeClassifier:
    """A tree as its forest's fit leaves it: classes are the indices 0..width-1 of the forest's labels."""
    estimator = _DecisionTreeClassifier()
    estimator.tree_, estimator.n_features_in_, estimator.n_outputs_ = tree, n_features, 1
    estimator.classes_, estimator.n_classes_ = np.arange(width, dtype=np.float64), np.intp(width)
    return estimator


def _fitted_forest(estimators: list, n_features: int, classes: np.ndarray) -> RandomForestClassifier:
    forest = RandomForestClassifier(n_estimators=len(estimators), n_jobs=1)
    forest.estimator_ = _DecisionTreeClassifier()
    forest.estimators_ = estimators
    forest.n_features_in_, forest.n_outputs_ = n_features, 1
    forest.classes_, forest.n_classes_ = classes.copy(), len(classes)
    return forest
