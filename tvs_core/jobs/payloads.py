"""What a task hands to a later stage of its sweep, as the bytes the workspace keeps: NumPy's ``.npz`` read with
``allow_pickle=False``, never a pickle (reading one can run code). The membership game's shadows are labelled
feature arrays; its attackers are forests, kept as their trees' arrays and checked when read
(``evaluation/forest_arrays``). A game's model run as a task of its own hands on what its sets showed (features,
the attack's fits, the attackers' guesses) as numbered arrays; a baseline fitted in a task of its own, its model's
JSON (read by ``SyntheticGenerator.from_json``, which runs nothing)."""

from __future__ import annotations

import io
import zipfile

import numpy as np

from ..errors import TVSError
from ..evaluation.forest_arrays import forests_from_arrays, forests_to_arrays

FORMAT = 1
HEAD = b"PK\x03\x04"  # a zip file's first bytes, which every payload here starts with (np.savez writes a zip)
NO_LEVEL = -1  # a baseline's games have no truncation level (None); levels are 0 or more

Key = tuple[int, int | None]  # (target row, level)


def current(payload: bytes | None) -> bool:
    """Whether this version can read the payload (an earlier version's were pickles, which are never read)."""
    return payload is None or bytes(payload[:len(HEAD)]) == HEAD


def shadows_payload(shadows: dict[Key, tuple[np.ndarray, np.ndarray]]) -> bytes:
    """One shadow task's labelled features, {(row, level): (features, labels)}."""
    parts = list(shadows.values())
    return _write("shadows", shadows, features=_stacked([x for x, _ in parts], (0, 0), float),
                  labels=_stacked([y for _, y in parts], (0,), int),
                  lengths=np.array([len(y) for _, y in parts], np.int64))


def shadows_from_payload(payload: bytes) -> dict[Key, tuple[np.ndarray, np.ndarray]]:
    keys, arrays = _read("shadows", payload, needs=("features", "labels", "lengths"))
    lengths = arrays["lengths"]
    features, labels = arrays["features"], arrays["labels"]
    if (lengths.dtype.kind not in "iu" or lengths.ndim != 1 or len(lengths) != len(keys) or np.any(lengths < 0)
            or features.ndim != 2 or labels.ndim != 1 or not lengths.sum() == len(features) == len(labels)):
        raise _unreadable("shadows", "its counts disagree")
    if features.dtype.kind not in "fiu" or labels.dtype.kind not in "iub" or not np.all(np.isfinite(features)):
        raise _unreadable("shadows", "its features or labels are not numbers")
    ends = np.cumsum(lengths)
    return {key: (features[end - length:end], labels[end - length:end])
            for key, end, length in zip(keys, ends, lengths, strict=True)}


def attackers_payload(attackers: dict) -> bytes:
    """One attackers task's forests, {(row, level): forest}."""
    return _write("attackers", attackers, **forests_to_arrays(list(attackers.values())))


def attackers_from_payload(payload: bytes) -> dict:
    keys, arrays = _read("attackers", payload)
    try:
        forests = forests_from_arrays(arrays)
    except ValueError as error:
        raise _unreadable("attackers", str(error)) from None
    if len(forests) != len(keys):
        raise _unreadable("attackers", "its keys disagree with its forests")
    return dict(zip(keys, forests, strict=True))


# -- a game's model, run as a task of its own (jobs/plan.py splits a game into its models) -----------------------
OUT = -1  # in an array key: the game's OUT model (no target row)
_WHICH = {"out": 0, "in": 1}
_STATISTICS = ("fit", "hit")


def shadow_model_payload(shadow: int, row: int | None, features: dict) -> bytes:
    """One shadow model's features, {("out" | "in", level): features} (``membership.shadow_model_features``)."""
    return _write_arrays("shadow model", 4, {(shadow, _row(row), _WHICH[which], _level(level)): x
                                          for (which, level), x in features.items()})


def shadow_model_from_payload(payload: bytes) -> tuple[int, int | None, dict]:
    """(shadow, row or None for the OUT model, {("out" | "in", level): features})."""
    arrays, _ = _read_arrays("shadow model", payload, width=4)
    identities = {(shadow, row) for shadow, row, _, _ in arrays}
    if len(identities) != 1 or any(which not in _WHICH.values() for _, _, which, _ in arrays):
        raise _unreadable("shadow model", "its keys disagree")
    if not all(x.ndim == 2 and x.dtype.kind in "fiu" and np.all(np.isfinite(x)) for x in arrays.values()):
        raise _unreadable("shadow model", "its features are not numbers")
    (shadow, row), = identities
    names = {code: name for name, code in _WHICH.items()}
    return shadow, _unrow(row), {(names[which], _unlevel(level)): x for (_, _, which, level), x in arrays.items()}


def statistics_payload(model: int | None, statistics: dict, columns: list[str]) -> bytes:
    """What the attribute game's attack learnt from the sets of one model (None: the OUT model, else the target row
    of an IN model), {level: {(what, column, row): arrays}} (``attribute_game.aia_out_statistics`` /
    ``aia_in_statistics``); ``columns``: the sensitive columns, by position."""
    return _write_arrays("attack statistics", 5, {
        (_level(level), _STATISTICS.index(what), columns.index(column), _row(row), part): np.asarray(value)
        for level, learnt in statistics.items() for (what, column, row), values in learnt.items()
        for part, value in enumerate(values)}, model=_row(model))


def statistics_from_payload(payload: bytes, columns: list[str]) -> tuple[int | None, dict]:
    """(the model: None for the OUT model, else an IN model's target row; its statistics)."""
    arrays, meta = _read_arrays("attack statistics", payload, width=5, meta=("model",))
    if any(what >= len(_STATISTICS) or not 0 <= column < len(columns) or part < 0
           for _, what, column, _, part in arrays):
        raise _unreadable("attack statistics", "its keys disagree")
    out: dict = {}
    for (level, what, column, row, part), value in sorted(arrays.items()):
        key = (_STATISTICS[what], columns[column], _unrow(row))
        out.setdefault(_unlevel(level), {}).setdefault(key, []).append((part, value))
    for learnt in out.values():
        for key, parts in learnt.items():
            if [part for part, _ in parts] != list(range(len(parts))):
                raise _unreadable("attack statistics", "its keys disagree")
            learnt[key] = tuple(value for _, value in parts)
    return _unrow(meta["model"]), out


def rates_payload(model: int | None, rates: dict) -> bytes:
    """The membership attackers' guesses on the sets of one evaluation model (None: the OUT model, else the target
    row of an IN model): {(row, level): share of its sets that row's attacker called members}."""
    return _write_arrays("membership rates", 2, {(_row(row), _level(level)): np.array(float(value))
                                              for (row, level), value in rates.items()}, model=_row(model))


def rates_from_payload(payload: bytes) -> tuple[int | None, dict]:
    """(the model: None for the OUT model, else an IN model's target row; its rates)."""
    arrays, meta = _read_arrays("membership rates", payload, width=2, meta=("model",))
    if not all(value.ndim == 0 and value.dtype.kind == "f" for value in arrays.values()):
        raise _unreadable("membership rates", "its values are not shares")
    return _unrow(meta["model"]), {(_unrow(row), _unlevel(level)): float(value)
                                   for (row, level), value in arrays.items()}


def model_payload(model_json: str) -> bytes:
    """A fitted generator as its saved JSON (a baseline fitted in a task of its own, for the tasks that score it)."""
    return _write_arrays("model", 1, {(0,): np.frombuffer(model_json.encode(), dtype=np.uint8)})


def model_from_payload(payload: bytes) -> str:
    arrays, _ = _read_arrays("model", payload, width=1)
    if list(arrays) != [(0,)] or arrays[(0,)].dtype != np.uint8 or arrays[(0,)].ndim != 1:
        raise _unreadable("model", "it is not one saved model")
    try:
        return arrays[(0,)].tobytes().decode()
    except UnicodeDecodeError:
        raise _unreadable("model", "it is not text") from None


def _row(row: int | None) -> int:
    return OUT if row is None else int(row)


def _unrow(row: int) -> int | None:
    return None if row == OUT else int(row)


def _level(level: int | None) -> int:
    return NO_LEVEL if level is None else int(level)


def _unlevel(level: int) -> int | None:
    return None if level == NO_LEVEL else int(level)


def _write_arrays(what: str, width: int, arrays: dict[tuple[int, ...], np.ndarray], **meta: int) -> bytes:
    """Arrays by integer keys of one width (levels 0 or more, or ``NO_LEVEL``; rows 0 or more, or ``OUT``), and
    whole numbers that say whose they are (``meta``)."""
    keys = np.array(list(arrays), dtype=np.int64)
    buffer = io.BytesIO()
    np.savez(buffer, format=np.array([FORMAT]), kind=np.array([what]), keys=keys.reshape(len(arrays), width),
             **{f"meta_{name}": np.array(value, dtype=np.int64) for name, value in meta.items()},
             **{f"v{i}": np.asarray(value) for i, value in enumerate(arrays.values())})
    return buffer.getvalue()


def _read_arrays(what: str, payload: bytes, width: int, meta: tuple[str, ...] = ()
                 ) -> tuple[dict[tuple[int, ...], np.ndarray], dict[str, int]]:
    if payload is None or not current(payload):
        raise _unreadable(what, "it was written by an earlier version (as a pickle, which could run code)")
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in stored.files}
    except (ValueError, OSError, EOFError, KeyError, zipfile.BadZipFile) as error:
        raise _unreadable(what, f"it is damaged ({type(error).__name__})") from None
    if not all(isinstance(value, np.ndarray) for value in arrays.values()):
        raise _unreadable(what, "it is damaged (a member is not an array)")
    if [*arrays.get("format", [])] != [FORMAT] or [*arrays.get("kind", [])] != [what] or "keys" not in arrays:
        raise _unreadable(what, "it is not in this version's format")
    keys = arrays["keys"]
    values = [arrays.get(f"v{i}") for i in range(len(keys))]
    whose = [arrays.get(f"meta_{name}") for name in meta]
    if (keys.ndim != 2 or keys.shape[1] != width or keys.dtype.kind != "i" or len(arrays) != len(keys) + 3 + len(meta)
            or any(value is None or value.dtype.kind not in "fiub" for value in values)
            or any(value is None or value.ndim != 0 or value.dtype.kind != "i" for value in whose)):
        raise _unreadable(what, "its keys disagree with its arrays")
    found = {tuple(int(k) for k in key): value for key, value in zip(keys, values, strict=True)}
    if len(found) != len(keys):
        raise _unreadable(what, "a key is there twice")
    return found, {name: int(value) for name, value in zip(meta, whose, strict=True)}


def _stacked(arrays: list[np.ndarray], empty_shape: tuple, dtype: type) -> np.ndarray:
    return np.concatenate(arrays) if arrays else np.zeros(empty_shape, dtype=dtype)


def _write(what: str, by_key: dict, **arrays: np.ndarray) -> bytes:
    keys = np.array([(row, NO_LEVEL if level is None else level) for row, level in by_key], dtype=np.int64)
    if any(level is not None and level < 0 for _, level in by_key):
        raise ValueError("a payload keeps levels of 0 or more, or None")
    buffer = io.BytesIO()
    np.savez(buffer, format=np.array([FORMAT]), kind=np.array([what]), keys=keys.reshape(-1, 2), **arrays)
    return buffer.getvalue()


def _read(what: str, payload: bytes, needs: tuple[str, ...] = ()) -> tuple[list[Key], dict[str, np.ndarray]]:
    if payload is None or not current(payload):
        raise _unreadable(what, "it was written by an earlier version (as a pickle, which could run code)")
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in stored.files}
    except (ValueError, OSError, EOFError, KeyError, zipfile.BadZipFile) as error:
        raise _unreadable(what, f"it is damaged ({type(error).__name__})") from None
    if not all(isinstance(value, np.ndarray) for value in arrays.values()):  # NumPy hands a non-array member as bytes
        raise _unreadable(what, "it is damaged (a member is not an array)")
    if ([*arrays.get("format", [])] != [FORMAT] or [*arrays.get("kind", [])] != [what]
            or not {"keys", *needs} <= set(arrays)):
        raise _unreadable(what, "it is not in this version's format")
    keys = arrays["keys"]
    if keys.ndim != 2 or keys.shape[1] != 2 or keys.dtype.kind != "i":
        raise _unreadable(what, "its keys are not (row, level) pairs")
    return [(int(row), None if level == NO_LEVEL else int(level)) for row, level in keys], arrays


def _unreadable(what: str, why: str) -> TVSError:
    return TVSError(f"The sweep's stored {_NAMES.get(what, 'membership-game ' + what)} could not be read: {why}. "
                    "Nothing of it was used. "
                    "Start the sweep again (its other finished results are kept in the workspace).")


_NAMES = {"attack statistics": "attribute-game attack statistics", "model": "baseline model",
          "shadow model": "membership-game shadow model"}
