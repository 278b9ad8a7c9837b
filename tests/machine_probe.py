"""What must be the same bytes on every machine, printed as JSON: the demo tables, and a release of a user's
file with its manifest. ``tests/test_machines.py`` runs this under two OpenBLAS kernels and compares.

``python -m tests.machine_probe FOLDER`` (the folder receives the user's file)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from tests.conftest import make_mixed_table
from tvs_core import TVineSynth, load_demo
from tvs_core.data.demo import DEMOS
from tvs_core.data.io import read_table
from tvs_core.release.export import to_csv_bytes
from tvs_core.release.manifest import manifest, manifest_bytes

LEVELS = (1, 4, None)  # a low level, a middle one, the full vine


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def probe(folder: Path) -> dict:
    out = {f"demo:{name}": sha256(load_demo(name).to_csv(index=False).encode()) for name in DEMOS}
    user_file = folder / "mine.csv"  # a user's file of every column type, read as the dashboard reads it
    make_mixed_table(300, seed=7).to_csv(user_file, index=False)
    table = read_table(user_file)
    model = TVineSynth(response="outcome", sensitive=["weight"], seed=3).fit(table)
    for level in LEVELS:
        csv = to_csv_bytes(model.sample(250, truncation_level=level, seed=11))
        described = manifest(model, csv, level, 250, 11, "user-file")
        described.pop("created")  # the one field that is the time of day
        out[f"release:{level}"] = sha256(csv)
        out[f"manifest:{level}"] = sha256(manifest_bytes(described))
    return out


if __name__ == "__main__":
    print(json.dumps(probe(Path(sys.argv[1]))))
