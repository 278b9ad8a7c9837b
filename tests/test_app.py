"""The dashboard starts and shows the demo table with its inferred schema."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parent.parent / "app.py"


def test_app_opens_demo_without_errors():
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    assert not at.exception
    assert at.title[0].value == "Data"
    assert any("1250 rows" in sub.value for sub in at.subheader)
    assert len(at.dataframe) == 2  # preview and schema
