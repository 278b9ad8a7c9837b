"""read_table: the formats users upload, and clear refusals of files that cannot be read."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from tvs_core.data.io import parse_table, sniff_format
from tvs_core.data.limits import Limits
from tvs_core.errors import DataError, TVSError


def _write(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


# -- formats -------------------------------------------------------------------------------------

def test_comma_csv_from_path(tmp_path):
    path = _write(tmp_path, "plain.csv", "id_no,height,city\n1,1.75,Bonn\n2,1.82,Köln\n3,1.60,Ulm\n".encode())
    df = parse_table(path)
    assert list(df.columns) == ["id_no", "height", "city"]
    assert str(df["id_no"].dtype) == "int64"
    assert str(df["height"].dtype) == "float64"
    assert df["height"].tolist() == [1.75, 1.82, 1.60]
    assert df["city"].tolist() == ["Bonn", "Köln", "Ulm"]


def test_comma_csv_from_str_path(tmp_path):
    path = _write(tmp_path, "plain.csv", b"a,b\n1,2\n3,4\n")
    df = parse_table(str(path))
    assert df.shape == (2, 2)
    assert df["b"].tolist() == [2, 4]


def test_semicolon_csv_with_decimal_comma(tmp_path):
    text = "Gewicht;Größe;Ort\n72,5;1,80;Bonn\n80;1,5;Köln\n65,25;1,62;Ulm\n"
    df = parse_table(_write(tmp_path, "de.csv", text.encode("utf-8")))
    assert list(df.columns) == ["Gewicht", "Größe", "Ort"]
    assert pd.api.types.is_float_dtype(df["Gewicht"]) and pd.api.types.is_float_dtype(df["Größe"])
    np.testing.assert_allclose(df["Gewicht"], [72.5, 80.0, 65.25])
    np.testing.assert_allclose(df["Größe"], [1.80, 1.5, 1.62])
    assert df["Ort"].tolist() == ["Bonn", "Köln", "Ulm"]


def test_sniff_format_detects_decimal_comma_only_for_non_comma_delimiters():
    assert sniff_format("a;b\n1,5;2\n3,5;4\n") == (";", ",")
    assert sniff_format("a;b\n1.5;2\n3.5;4\n") == (";", ".")
    assert sniff_format("a,b\n1.5,2\n3.5,4\n") == (",", ".")


def test_tab_separated(tmp_path):
    df = parse_table(_write(tmp_path, "t.tsv", b"x\ty\tlabel\n1.5\t2\tone two\n2.5\t3\tthree\n"))
    assert list(df.columns) == ["x", "y", "label"]
    assert df["x"].tolist() == [1.5, 2.5]
    assert df["y"].tolist() == [2, 3]
    assert df["label"].tolist() == ["one two", "three"]


def test_latin1_encoded_file_keeps_accents(tmp_path):
    text = "Größe,Stadt\n1.8,Café\n1.7,Zürich\n1.6,Orléans\n"
    df = parse_table(_write(tmp_path, "latin.csv", text.encode("latin-1")))
    assert list(df.columns) == ["Größe", "Stadt"]
    assert df["Stadt"].tolist() == ["Café", "Zürich", "Orléans"]
    assert df["Größe"].tolist() == [1.8, 1.7, 1.6]


def test_utf8_with_bom_has_clean_first_header(tmp_path):
    data = "\ufeffname,value\nélan,1\nb,2\n".encode("utf-8")
    assert data.startswith(b"\xef\xbb\xbf")
    df = parse_table(_write(tmp_path, "bom.csv", data))
    assert list(df.columns) == ["name", "value"]  # no '\ufeffname'
    assert df["name"].tolist() == ["élan", "b"]


def test_parquet_keeps_types(tmp_path):
    original = pd.DataFrame({
        "x": [1.5, 2.5, 3.5],
        "n": np.array([1, 2, 3], dtype="int64"),
        "grade": pd.Categorical(["lo", "hi", "lo"], categories=["lo", "hi"], ordered=True),
        "when": pd.to_datetime(["2020-01-01", "2020-02-01", "2020-03-01"]),
        "label": ["a", "b", "c"],
    })
    path = tmp_path / "table.parquet"
    original.to_parquet(path)
    df = parse_table(path)
    assert list(df.columns) == list(original.columns)
    assert str(df["n"].dtype) == "int64"
    assert isinstance(df["grade"].dtype, pd.CategoricalDtype) and df["grade"].dtype.ordered
    assert list(df["grade"].cat.categories) == ["lo", "hi"]
    assert pd.api.types.is_datetime64_any_dtype(df["when"])
    assert df["x"].tolist() == [1.5, 2.5, 3.5]


def test_parquet_recognised_from_bytes_without_a_name(tmp_path):
    buffer = io.BytesIO()
    pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]}).to_parquet(buffer)
    df = parse_table(buffer.getvalue())
    assert df["a"].tolist() == [1.0, 2.0]
    assert df["b"].tolist() == ["x", "y"]


def test_bytes_input():
    df = parse_table(b"a;b\n1,5;x\n2,5;y\n")
    assert df["a"].tolist() == [1.5, 2.5]
    assert df["b"].tolist() == ["x", "y"]


def test_file_like_input(tmp_path):
    df = parse_table(io.BytesIO(b"a,b\n1,2\n3,4\n"))
    assert df.to_dict("list") == {"a": [1, 3], "b": [2, 4]}
    path = _write(tmp_path, "opened.csv", b"p,q\n5,6\n")
    with open(path, "rb") as handle:
        df = parse_table(handle)
    assert df.to_dict("list") == {"p": [5], "q": [6]}


def test_corrupt_parquet_is_a_data_error(tmp_path):
    path = _write(tmp_path, "broken.parquet", b"PAR1 this is not a parquet file")
    with pytest.raises(DataError, match="broken.parquet") as info:
        parse_table(path)
    assert "Parquet" in str(info.value)


# -- refusals ------------------------------------------------------------------------------------

@pytest.mark.parametrize("header", ["age,weight,age", "age,weight, age"])
def test_duplicate_header_refused_naming_the_column(tmp_path, header):
    path = _write(tmp_path, "dup.csv", f"{header}\n1,2,3\n4,5,6\n".encode())
    with pytest.raises(DataError) as info:
        parse_table(path)
    err = info.value
    assert isinstance(err, TVSError)
    assert err.column == "age"
    assert "'age'" in str(err) and "2 times" in str(err)
    assert "Rename" in str(err)


def test_duplicate_header_refused_from_bytes():
    with pytest.raises(DataError, match="'x' appears 2 times"):
        parse_table(b"x;y;x\n1;2;3\n")


@pytest.mark.parametrize("header", ["a,,c", "a,b,", " ,b,c"])
def test_empty_header_name_refused(header):
    with pytest.raises(DataError) as info:
        parse_table(f"{header}\n1,2,3\n".encode())
    message = str(info.value)
    assert "no name" in message
    assert "header" in message  # the fix: give every column a header
    position = [h.strip() for h in header.split(",")].index("") + 1
    assert f"Column {position}" in message


def test_empty_file_refused(tmp_path):
    path = _write(tmp_path, "nothing.csv", b"")
    with pytest.raises(DataError, match="nothing.csv") as info:
        parse_table(path)
    assert "empty" in str(info.value)


def test_whitespace_only_bytes_refused():
    with pytest.raises(DataError, match="empty"):
        parse_table(b"  \n\n", name="blank.csv")


def test_header_without_rows_refused(tmp_path):
    with pytest.raises(DataError, match="no data rows"):
        parse_table(_write(tmp_path, "header_only.csv", b"a,b,c\n"))


def test_nonexistent_path_refused(tmp_path):
    missing = tmp_path / "does_not_exist.csv"
    with pytest.raises(DataError) as info:
        parse_table(missing)
    assert "does_not_exist.csv" in str(info.value)
    assert "does not exist" in str(info.value)
    assert "path" in str(info.value)  # the fix: check the path


def test_a_quoted_field_longer_than_a_line_may_be_is_refused_naming_the_line_limit():
    """The second review's 50 MB quoted field across short lines was refused after 16 s and 561 MB, by the csv
    module's own 128 KB: now as a line is, by TVS_MAX_LINE_MB, while the field is read."""
    data = b'note\n"' + (b"x" * 99 + b"\n") * 100 + b'"\n'
    with pytest.raises(DataError) as info:
        parse_table(data, "t.csv", Limits(line_mb=5000 / 2**20))
    assert str(info.value).startswith("A field of 't.csv' that runs to line ")
    assert "TVS_MAX_LINE_MB" in str(info.value) and "--limit line_mb" in str(info.value)
    assert parse_table(data, "t.csv", Limits(line_mb=20_000 / 2**20))["note"].str.len().tolist() == [10_000]


@pytest.mark.parametrize("categories", [["A"], ["B", "A"]])
def test_a_parquet_categorical_column_reads_as_kept(tmp_path, categories):
    """The second review's small Parquet file with a categorical column gave "unexpected TypeError" (a column of
    one category: the check for nested values asked a categorical for any()). It reads, categories and order kept."""
    path = tmp_path / "c.parquet"
    ward = pd.Categorical(["A", None, "A"] + categories, categories=categories, ordered=True)
    pd.DataFrame({"ward": ward, "age": range(len(ward))}).to_parquet(path)
    table = parse_table(path)
    assert table["ward"].dtype == ward.dtype and table["ward"].tolist()[:1] == ["A"]


def test_old_mac_line_ends_are_rows():
    table = parse_table(b"a,b\r1,2\r3,4\r", "mac.csv")
    assert table.to_dict("list") == {"a": [1, 3], "b": [2, 4]}
