"""A stored job as the pages and the CLI see it: settings, progress, results, the holder, the data.

Pages never parse task keys or rebuild an evaluation context: what was fixed when the job was
planned (levels, caps, targets) is read back from the store."""

from __future__ import annotations

import json

import pandas as pd

from ..evaluation.context import EvaluationData
from ..evaluation.preview import LevelPreview, normal_scores_correlation, preview_levels
from ..evaluation.records import HOLDER, to_frame
from ..evaluation.summary import Summary, summarise
from ..model.generator import SyntheticGenerator
from ..model.ordering import default_levels
from ..storage.store import ACTIVE, JobRow, JobStatus, Store
from ..text import percent
from .config import SweepConfig
from .context import split_tables
from .first_look import without_first_look
from .plan import release_chunk
from .progress import progress
from .submission import HOLDOUT_ORIGIN, job_tables
from .tasks import TaskKind, plan_from_json, task_results


class JobView:
    def __init__(self, store: Store, job_id: str):
        self.store, self.id = store, job_id
        if store.job(job_id) is None:
            from ..errors import TVSError

            raise TVSError(f"No job '{job_id}' in {store.workspace}.")

    @property
    def job(self) -> JobRow:
        return self.store.job(self.id)

    @property
    def config(self) -> SweepConfig:
        return SweepConfig.from_dict(self.job.config)

    @property
    def fingerprint(self) -> str:
        return self.job.fingerprint

    @property
    def holdout_file(self) -> bool:
        """Whether the user gave a hold-out file (else the hold-out is a random split of the table)."""
        return self.store.space.has_table(self.fingerprint, "holdout")

    def holdout_origin(self) -> dict | None:
        """The user's hold-out file: its name and the SHA-256 of its bytes as given at Start (None for a sweep
        started before they were kept) and its rows; None for a random split."""
        if not self.holdout_file:
            return None
        saved = self.store.meta(HOLDOUT_ORIGIN + self.fingerprint)
        origin = json.loads(saved) if saved else {}
        rows = len(self.store.space.load_table(self.fingerprint, "holdout"))
        return {"file": origin.get("file"), "rows": rows, "sha256": origin.get("sha256")}

    def holdout_words(self) -> str:
        """The hold-out in words, as the manifest's settings and the report's first page say it."""
        origin = self.holdout_origin()
        if origin is None:
            return (f"a random, stratified {percent(self.config.holdout_fraction)} of the table "
                    f"({len(self.tables()[1])} rows), never seen by any model")
        name = f", named {origin['file']}" if origin["file"] else ""
        sha = f", SHA-256 {origin['sha256']}" if origin["sha256"] else ""
        return f"the user's own hold-out file ({origin['rows']} rows){name}{sha}; no random split"

    def settings_record(self) -> dict:
        """The sweep's settings as the manifest and the report record them: with a hold-out file, the split fraction
        the sweep never used is left out and the file is named instead (``holdout_file``: its name, rows and
        SHA-256); ``protocol`` holds the game sizes the sweep ran with (its preset's, overridden and capped), as its
        worker recorded them."""
        record = self.config.to_dict()
        if "protocol" in self.details:
            record["protocol"] = self.details["protocol"]
        record["holdout"] = self.holdout_words()
        if self.holdout_file:
            record.pop("holdout_fraction", None)
            record["holdout_file"] = self.holdout_origin()
        return record

    def claims(self) -> dict[str, float]:
        """The ε each differentially private reference of the sweep claims."""
        from .plan import claimed_epsilons

        return claimed_epsilons(self.config)

    @property
    def table_fingerprint(self) -> str:
        """The fingerprint of the table alone (``fingerprint`` also covers a hold-out file): the key of the
        release ledger, the same as a project's and as ``ledger DATA`` computes."""
        from ..data.fingerprint import fingerprint_table

        return fingerprint_table(job_tables(self.store, self.job)[0])

    def progress(self) -> dict:
        return progress(self.store, self.id)

    @property
    def active(self) -> bool:
        return self.job.status in ACTIVE

    @property
    def details(self) -> dict:
        return self.job.details

    @property
    def levels(self) -> list[int]:
        """Every level of the job (also those without results yet), so each keeps its colour."""
        levels = self.details.get("levels")
        if levels:
            return [int(v) for v in levels if v is not None]
        holder = self.holder()
        top = None if holder is None else holder.fitted_level_
        return sorted(self.config.levels or (default_levels(top) if top else []))

    @property
    def caps(self) -> list[dict]:
        return list(self.details.get("caps", []))

    def records(self, first_look: bool = False) -> pd.DataFrame:
        """Every stored record; ``first_look``: keep the first look's records of the levels whose own release
        task has not reported yet (the live scatter; never for a choice or an export)."""
        records = to_frame([r for result in task_results(self.store, self.id) for r in result.records])
        return without_first_look(records, keep_missing_levels=first_look)

    def complete_levels(self) -> set[int] | None:
        """The levels whose numbers are final, None when the sweep is done (all are). A level is complete when every
        task of the holder that writes its records is stored: its own release and details tasks, and the references
        and the attack games, which write every level's at once. The others are provisional — a running or cancelled
        sweep's — and are never recommended (``choice.select``'s ``candidates``); a baseline's tasks, the DP audit's
        and a table made elsewhere are no level's."""
        job = self.job
        if job.status == JobStatus.DONE:
            return None
        done, levels, missing = self.store.done_tasks(self.id), set(self.levels), set()
        for task in plan_from_json(job.plan or []):
            if task.player != HOLDER or task.kind in (TaskKind.HOLDER, TaskKind.FIRST_LOOK) or task.name in done:
                continue
            if task.kind in (TaskKind.RELEASE, TaskKind.RELEASE_DETAILS) and task.key.index:
                missing.add(int(task.key.index[0]))
            else:  # a game, a reference: every level waits for it
                return set()
        return levels - missing if job.plan else set()

    def sets_scored(self) -> dict[int, tuple[int, int]]:
        """Per level with release tasks in the plan: (published sets its stored release chunks scored, sets planned).
        A level with fewer scored than planned shows its first numbers (``plan.release_tasks``)."""
        done = self.store.done_tasks(self.id)
        planned: dict[int, list[tuple[int, bool]]] = {}
        for task in plan_from_json(self.job.plan or []):
            chunk = release_chunk(task.name)
            if chunk is not None:
                planned.setdefault(chunk[0], []).append((chunk[2] - chunk[1], task.name in done))
        return {level: (sum(n for n, stored in chunks if stored), sum(n for n, _ in chunks))
                for level, chunks in sorted(planned.items())}

    def notes(self) -> list[str]:
        """Lines the worker left for the user (e.g. a stage run on fewer workers to fit in memory)."""
        return [e["message"] for e in self.store.events(self.id) if e["kind"] == "memory"]

    def summary(self, first_look: bool = False) -> Summary:
        return summarise(self.records(first_look))

    def holder(self) -> SyntheticGenerator | None:
        text = self.store.model_json(self.id, HOLDER)
        return None if text is None else SyntheticGenerator.from_json(text)

    def tables(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(train, test) exactly as the job split them."""
        table, holdout = job_tables(self.store, self.job)
        return split_tables(self.config, table, holdout)

    def evaluation_data(self, holder: SyntheticGenerator | None = None) -> EvaluationData | None:
        """The encoded train/test rows as the evaluation saw them (the holder's encoder); None before the fit."""
        holder = holder or self.holder()
        if holder is None:
            return None
        train, test = self.tables()
        return EvaluationData.from_model(holder, train, test)

    def preview(self) -> LevelPreview | None:
        """The instant preview (risk, what each level cuts, the block check) of the holder's order."""

        holder = self.holder()
        data = self.evaluation_data(holder)
        if data is None or not hasattr(holder, "order_"):
            return None
        corr = normal_scores_correlation(pd.DataFrame(data.train, columns=data.names))
        return preview_levels(corr, holder.order_)

    def exposure(self, level: int, top: int = 10) -> pd.DataFrame | None:
        """The training rows most exposed in the first published set of ``level``, with why and the record
        itself (its values, decoded), so a data steward can recognise it."""
        from ..evaluation.metrics.membership.attacks import record_exposure
        from ..evaluation.release import release_sets
        from ..seeding import task_seed

        holder = self.holder()
        data = self.evaluation_data(holder)
        if data is None:
            return None
        synthetic = release_sets(holder, level, range(1), len(data.train), self.config.seed, HOLDER)[0]
        found = record_exposure(synthetic, data.train, data.test, data.categorical, data.names, top=top,
                                seed=task_seed(self.config.seed, "exposure", level))
        records = data.encoder.inverse_transform(data.train[found["row"].to_numpy()])
        records.columns = [f"{c} (record)" if c in found.columns else c for c in records.columns]
        found = found.assign(row=[data.train_labels[i] for i in found["row"]])
        return pd.concat([found.reset_index(drop=True), records.reset_index(drop=True)], axis=1)
