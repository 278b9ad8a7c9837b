"""How far a stored job is, and how long it will take: an ETA from the measured time of each kind of task."""

from __future__ import annotations

from .store import Store


def progress(store: Store, job_id: str) -> dict:
    """done / total tasks and an ETA from the measured time of each kind of task."""
    job = store.job(job_id)
    done = store.done_tasks(job_id)
    seconds = store.task_seconds(job_id)
    overall = [s for values in seconds.values() for s in values]
    eta = None
    if job["plan"] and overall:
        mean = {kind: sum(v) / len(v) for kind, v in seconds.items()}
        fallback = sum(overall) / len(overall)
        remaining = sum(mean.get(kind, fallback) for key, kind in job["plan"] if key not in done)
        eta = remaining / max(1, job["workers"] or 1)
    return {"status": job["status"], "done": len(done), "total": job["total"] or 0, "eta_seconds": eta,
            "error": job["error"]}
