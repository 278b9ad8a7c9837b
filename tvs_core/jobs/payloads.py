"""What a task hands to a later stage of its sweep, as the bytes the workspace keeps: NumPy's ``.npz`` read with
``allow_pickle=False``, never a pickle (reading one can run code). The membership game's shadows are labelled
feature arrays; its attackers are forests, kept as their trees' arrays and checked when read
(``evaluation/forest_arrays``)."""

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
    return TVSError(f"The sweep's stored membership-game {what} could not be read: {why}. Nothing of it was used. "
                    "Start the sweep again (its other finished results are kept in the workspace).")
