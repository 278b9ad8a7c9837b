"""Each page's flows through Streamlit's AppTest (no browser): data, sensitive features, sweep,
choose, export. The sweep's worker runs inline (AppTest does not run timers)."""

import hashlib
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tvs_core import load_demo

APP = Path(__file__).resolve().parent.parent / "app.py"
TINY = dict(utility_sets=2, release_sets=3, aia_iterations=1, aia_sets=3, aia_size_raw=150, aia_size_syn=150,
            mia_iterations=1, mia_shadows=2, mia_shadow_sets=3, mia_sets=4, mia_size_attacker=150, mia_size_raw=100,
            mia_size_syn=100)


@pytest.fixture(autouse=True)
def workspace(tmp_path, monkeypatch):
    monkeypatch.setenv("TVS_WORKSPACE", str(tmp_path / "workspace"))
    from pages import common

    common.store.clear()
    common.resume_orphaned_jobs.clear()
    yield tmp_path / "workspace"
    common.store.clear()


def app() -> AppTest:
    return AppTest.from_file(str(APP), default_timeout=180)


def no_errors(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def test_data_page_opens_the_clinical_demo_and_explains_columns():
    at = app().run()
    no_errors(at)
    assert at.title[0].value == "Data"
    assert any("1250 rows" in sub.value for sub in at.subheader)
    assert any("can be modelled" in s.value for s in at.success)


def test_upload_through_file_uploader_and_schema_edits(tmp_path):
    table = load_demo("clinical")[["total_cost_eur", "lactate_mmol_l", "heart_rate_bpm", "in_hospital_death"]]
    table = table.head(120).assign(patient_id=range(1, 121))
    at = app().run()
    at.file_uploader[0].set_value(("cohort.csv", table.to_csv(index=False).encode(), "text/csv")).run()
    no_errors(at)
    assert at.session_state["dataset_name"] == "cohort.csv"
    schema = at.session_state["schema"]
    assert schema["patient_id"].role.value == "dropped"
    # a schema edit: bring the identifier back as a nominal covariate
    at.session_state["schema"] = schema.override("patient_id", type="integer")
    at.run()
    assert at.session_state["schema"]["patient_id"].role.value == "covariate"



def edit_schema_table(at: AppTest, column: str, **changes) -> AppTest:
    """Drive the schema table the way the browser does: the data editor's edit state, by row."""
    row = [c.name for c in at.session_state["schema"].columns].index(column)
    at.session_state["schema_editor"] = {"edited_rows": {row: changes}, "added_rows": [], "deleted_rows": []}
    return at.run()


def test_schema_table_edits_change_type_and_role():
    at = app().run()
    assert at.session_state["schema"]["age_years"].type.value == "continuous"
    edit_schema_table(at, "age_years", type="ordinal")
    no_errors(at)
    assert at.session_state["schema"]["age_years"].type.value == "ordinal"
    edit_schema_table(at, "heart_rate_bpm", role="sensitive")
    no_errors(at)
    assert "heart_rate_bpm" in at.session_state["sensitive"]
    edit_schema_table(at, "heart_rate_bpm", role="dropped")
    no_errors(at)
    assert "heart_rate_bpm" not in at.session_state["sensitive"]
    assert at.session_state["schema"]["heart_rate_bpm"].role.value == "dropped"


def test_text_ordinal_labels_are_put_in_order():
    table = load_demo("clinical")[["total_cost_eur", "lactate_mmol_l", "in_hospital_death"]].head(200)
    table["severity"] = pd.cut(table["lactate_mmol_l"], [-1, 2, 4, 100], labels=["low", "medium", "high"]).astype(str)
    at = app().run()
    at.file_uploader[0].set_value(("cohort.csv", table.to_csv(index=False).encode(), "text/csv")).run()
    edit_schema_table(at, "severity", type="ordinal")
    no_errors(at)
    order = at.multiselect(key="levels_severity")
    assert order.value == ["high", "low", "medium"]  # alphabetical until the user says otherwise
    assert at.session_state["schema"]["severity"].levels is None
    order.set_value(["low", "medium"]).run()
    assert any("1 label(s) of severity still to place" in c.value for c in at.caption)
    at.multiselect(key="levels_severity").set_value(["low", "medium", "high"]).run()
    no_errors(at)
    assert at.session_state["schema"]["severity"].levels == ("low", "medium", "high")

def test_rho_changes_update_order_and_heatmap():
    at = app()
    at.switch_page("pages/sensitive.py").run()
    no_errors(at)
    order = at.session_state["order_result"]
    assert order.order[:3] == ["total_cost_eur", "creatinine_mg_dl", "lactate_mmol_l"]
    assert len(order.K) == 8 and order.tau_block == 10
    assert len(at.get("plotly_chart")) == 3  # two heatmaps and the preview curve
    at.slider(key="rho_star").set_value(0.9).run()
    no_errors(at)
    assert at.session_state["order_result"].K == [] and at.session_state["order_result"].tau_block == 18


def run_sweep(at: AppTest) -> AppTest:
    at.switch_page("pages/sensitive.py").run()
    at.session_state["inline_worker"] = True
    at.session_state["protocol_overrides"] = TINY
    at.switch_page("pages/sweep.py").run()
    no_errors(at)
    levels = at.multiselect[0]
    levels.set_value([1, 10, 20])
    baselines = at.multiselect[1]
    baselines.set_value(["independent"])
    at.button(key="FormSubmitter:sweep_settings-Start sweep").click().run()
    no_errors(at)
    return at


def test_sweep_choose_and_export_flow():
    at = run_sweep(app())
    job_id = at.session_state["job_id"]
    from pages import common

    assert common.store().job(job_id)["status"] == "done"
    assert len(at.get("plotly_chart")) >= 1  # the privacy-utility scatter
    # a click on the scatter: inject the selection the way the on_select callback receives it
    at.session_state["selected_level"] = 10
    at.switch_page("pages/choose.py").run()
    no_errors(at)
    assert at.session_state["selected_level"] == 10
    at.slider(key="alpha").set_value(0.9).run()
    no_errors(at)
    assert any("Best level" in m.value for m in at.markdown)
    at.switch_page("pages/export.py").run()
    no_errors(at)
    at.button[0].click().run()
    no_errors(at)
    release = at.session_state["release"]
    assert release["level"] == 10 and len(release["table"]) == 1000
    buttons = at.get("download_button")
    assert len(buttons) == 2
    manifest = at.session_state["manifest"]
    from tvs_core.release.export import to_csv_bytes

    assert manifest["truncation_level"] == 10 and manifest["job_id"] == job_id
    assert manifest["file"]["sha256"] == hashlib.sha256(to_csv_bytes(release["table"])).hexdigest()
    assert manifest["order"]["order"][-1] == "in_hospital_death"
    assert any(m["metric"] == "auc_tstr" for m in manifest["metrics"])
    assert manifest["packages"]["pyvinecopulib"] == "1.0.1"
