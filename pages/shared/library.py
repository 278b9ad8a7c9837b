"""The library's answers a page asks for on every run, cached by what they depend on: the table's associations,
Algorithm 1's order, what stops a sweep from starting, the recommended level."""

from __future__ import annotations

import streamlit as st

from pages import common
from tvs_core import Schema
from tvs_core.choice import ChoiceSettings
from tvs_core.jobs import JobView


@st.cache_data(show_spinner="Computing associations…", max_entries=16)
def _associations(fingerprint: str, schema_dict: dict, missing: str, measure: str):
    from tvs_core.evaluation.preview import table_dependence

    return table_dependence(common.projects().table(fingerprint), Schema.from_dict(schema_dict), missing, measure)


def associations():
    """(|association| matrix in the chosen measure, normal-scores correlation) of the project's table."""
    current = common.project()
    return _associations(current.fingerprint, common.schema().to_dict(), current.sweep.missing, current.sweep.measure)


def threshold() -> float:
    """The project's ρ*, or the paper's Pearson 0.6 expressed in its measure."""
    from tvs_core.model.ordering import default_rho_star

    current = common.project()
    return float(current.rho_star) if current.rho_star is not None else default_rho_star(current.sweep.measure)


def order():
    """Algorithm 1 on the project's choices (raises DataError when they cannot be ordered); None until
    the response and a sensitive column are chosen."""
    from tvs_core.model.ordering import algorithm1

    current = common.project()
    sensitive = [s for s in current.sweep.sensitive if s != current.sweep.response]
    if current.sweep.response is None or not sensitive:
        return None
    thresholds = {s: current.rho_overrides.get(s, threshold()) for s in sensitive}
    return algorithm1(associations()[0], current.sweep.response, sensitive, thresholds, current.sweep.measure)


@st.cache_data(show_spinner=False, max_entries=16)
def _problems(fingerprint: str, schema_dict: dict, measure: str, holdout: str | None) -> list[str]:
    from tvs_core.jobs.submission import start_problems

    return start_problems(common.projects().table(fingerprint), Schema.from_dict(schema_dict), measure,
                          None if holdout is None else common.projects().table(holdout, "holdout"))


def problems() -> list[str]:
    """What stops the project's table from being modelled with its roles (validation.validate), as sentences:
    the later pages refuse to compute on such a table and say why, instead of failing inside the numbers."""
    current = common.project()
    return _problems(current.fingerprint, common.schema().to_dict(), current.sweep.measure, current.holdout)


@st.cache_data(show_spinner=False, max_entries=16)
def _recommended(job_id: str, done: int, alpha: float, normalisation: str, privacy: str, utility: str,
                 status: str = "") -> int | None:
    view = JobView(common.store(), job_id)
    settings = ChoiceSettings(alpha, normalisation, privacy, utility)  # each read by its declaration
    selection = settings.select(view.summary(), view.config.sensitive, view.complete_levels())
    return None if selection is None else selection.best_level


def recommended_level() -> int | None:
    """The level the Choose page recommends for the shown sweep at the project's α, normalisation, privacy axis and
    utility mix (None before any level has both a privacy and a utility value)."""
    view, current = common.job(), common.project().choice
    if view is None:
        return None
    return _recommended(view.id, int(view.job.done), float(current.alpha), current.normalisation,
                        current.privacy.text, current.utility.text, str(view.job.status))
