"""What is kept on disk, at the bottom of the library: the workspace's layout (``workspace``) and its SQLite store
(``store``: jobs, results, fitted models, projects, events and the release ledger's rows). It imports nothing of
the library but ``errors``, so every package may keep and read things through it."""

from .store import ACTIVE, Finished, JobRow, JobStatus, Store, StoredResult
from .workspace import Workspace, default_workspace

__all__ = ["ACTIVE", "Finished", "JobRow", "JobStatus", "Store", "StoredResult", "Workspace", "default_workspace"]
