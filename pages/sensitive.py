"""Sensitive features: response, sensitive columns and rho*; the Algorithm-1 order and the risk preview."""

import pandas as pd
import streamlit as st

from pages import common, plain
from pages.shared import library, notices, tables, widgets
from tvs_core import DataError, figures
from tvs_core.evaluation.preview import preview_levels
from tvs_core.figures.ordering import FOCUS_NEIGHBOURS, SQUARE_UP_TO
from tvs_core.model.ordering import MEASURES, Measure, OrderResult, default_rho_star
from tvs_core.release.export import to_csv_bytes
from tvs_core.text import read_choice

common.under_navigation()

FULL_VIEW_PX = 760  # a matrix of every column taller than this scrolls inside a box of this height
CUTS_SHOWN = 15  # the most important cut associations listed; the others behind an expander


@st.cache_data(show_spinner="Computing the risk preview…", max_entries=16)
def level_preview(normal_corr: pd.DataFrame, order: dict):
    """Theorem 2.4 at every level (seconds at 120 columns): once per order, not on every move of a widget."""
    return preview_levels(normal_corr, OrderResult.from_dict(order))


@common.callback
def set_measure() -> None:
    """A threshold means something else in another measure: back to the paper's value in the new one."""
    common.project().rho_star, common.project().rho_overrides = None, {}
    common.update_sweep(measure=read_choice(Measure, st.session_state[common.WIDGET + "sweep.measure"]))


def threshold_key(column: str | None, shown: float | None = None) -> str:
    """The slider's key; a column's field is keyed by the value it was drawn with. Written into a field whose
    browser copy still held the old value, the old value came back as the user's edit: after a burst on the
    slider on a loaded machine, a column was left overriding at 0.42 while the slider said 0.52. Keyed by its
    value, a field is a new widget when the slider moves, and a field that still reports the value it was drawn
    with (Streamlit calls back the fields of earlier runs too) was not edited."""
    return f"{common.WIDGET}rho.{column}" + ("" if column is None else f"@{shown:.2f}")


@common.callback
def set_sensitive() -> None:
    common.update_sweep(sensitive=list(st.session_state[f"{common.WIDGET}sensitive"]))


@common.callback
def set_threshold(column: str | None, shown: float | None = None) -> None:
    value = float(st.session_state[threshold_key(column, shown)])
    if column is not None and abs(value - shown) < 1e-9:  # an echo of what the page drew, not an edit
        return
    project = common.project()
    if column is None:
        common.update(rho_star=value)
    else:
        overrides = {**project.rho_overrides, column: value}
        if abs(value - library.threshold()) < 1e-9:
            overrides.pop(column)
        common.update(rho_overrides=overrides)


st.title("2 · Sensitive features")
notices.show_notice()
table, schema, project = tables.table(), common.schema(), common.project()
candidates = [c.name for c in schema.columns if c.modelled or c.name == project.sweep.response]

left, right = st.columns(2)
with left:
    st.selectbox("Response Y (what the synthetic data must predict)", candidates,
                 index=candidates.index(project.sweep.response) if project.sweep.response in candidates else None,
                 placeholder="Choose the response…", key=f"{common.WIDGET}response.sensitive",
                 on_change=widgets.set_response, args=(f"{common.WIDGET}response.sensitive",),
                 help="Type part of a column's name to filter the list.")
with right:
    options = [c for c in candidates if c != project.sweep.response]
    st.multiselect("Sensitive columns (an attacker must not infer them)", options,
                   default=[s for s in project.sweep.sensitive if s in options], key=f"{common.WIDGET}sensitive",
                   on_change=set_sensitive, placeholder="Type to find a column…",
                   help="Type part of a column's name to filter the list; pick as many as you need.")
response, sensitive = project.sweep.response, [s for s in project.sweep.sensitive if s in options]

st.radio("Association measure", widgets.texts(MEASURES), horizontal=True, key=widgets.bound("sweep.measure"),
         on_change=set_measure,
         format_func=lambda m: {"kendall": "Kendall's τ", "spearman": "Spearman's ρ",
                                "pearson": "Pearson correlation"}[m])
default = default_rho_star(project.sweep.measure)
rho = library.threshold()
widgets.show(threshold_key(None), float(rho))
st.slider("Association threshold ρ*", 0.0, 1.0, step=0.01, key=threshold_key(None), on_change=set_threshold,
          args=(None,), help=f"Covariates whose |association| with a sensitive column exceeds ρ* join the sensitive "
                             f"block K. Default {default}: the paper's Pearson 0.6 expressed in this measure.")
with st.expander("Per-column thresholds", expanded=bool(project.rho_overrides)):
    for column in sensitive:
        shown = float(project.rho_overrides.get(column, rho))
        st.number_input(f"ρ* for {plain.md(column)}", 0.0, 1.0, value=shown, step=0.01,
                        key=threshold_key(column, shown), on_change=set_threshold, args=(column, shown))

if response is None or not sensitive:
    st.info("Choose the response and at least one sensitive column to see the order and the risk preview.")
    st.stop()
blocking = library.problems()
if blocking:
    more = f" (and {len(blocking) - 1} more problem(s))" if len(blocking) > 1 else ""
    st.error(f"The table cannot be modelled yet: {plain.md(blocking[0])}{more} — see the Data page, which lists them "
             "by column.")
    st.stop()

try:
    assoc, normal_corr = library.associations()
    order = library.order()
except DataError as exc:
    st.error(plain.md(exc))
    st.stop()

linked = len(order.K)
st.markdown(f"**The order in which the columns enter the model**, left to right: the sensitive columns "
            f"({', '.join(map(plain.md, order.sensitive))}), then the {linked} column{'s' if linked != 1 else ''} "
            f"most linked to them, then {len(order.rest)} other covariates, and last the response "
            f"{plain.md(order.response)}, to which every column is tied first.")
st.markdown(f"**At levels up to {order.tau_block}**, an attacker expects to learn nothing about the sensitive columns "
            "from the release — if they and the columns linked to them form a block apart from the rest (checked "
            f"below). **Recommended top level: {order.t_max}** ({plain.md(order.t_max_reason)}).")
with st.expander("In the paper's terms"):
    st.markdown(f"Order of Algorithm 1: S = {', '.join(map(plain.md, order.sensitive))} | K = "
                f"{', '.join(map(plain.md, order.K)) or '∅'} (|K| = {linked}) | {len(order.rest)} other covariates | "
                f"Y = {plain.md(order.response)}, the root of tree 1 of the C-vine. The level of Theorem 2.5 is "
                f"τ_block = {order.tau_block}; the top level of Appendix B is t_max = {order.t_max}.")
wide = len(order.order) > SQUARE_UP_TO
views = ["The model's order, with the blocks", "The table's order"]
tabs = st.tabs([f"The sensitive block up close (S, K and the {FOCUS_NEIGHBOURS} columns most linked to them)",
                *views] if wide else views)
st.caption("Blocks outlined in red: S = the sensitive columns, K = the covariates linked to them (an association "
           "stronger than the threshold ρ*), rest = the other covariates, Y = the response."
           + (f" With {len(order.order)} columns, the first tab shows the sensitive block and the columns that "
              "came closest to joining it; the other two show every column: scroll down the matrix, drag over a "
              "part to zoom in (every column's name then shows; double-click to zoom out), hover a cell for both "
              "names." if wide else ""))
if wide:
    with tabs[0]:
        st.plotly_chart(figures.association_heatmap(assoc, order, project.sweep.measure, focus=FOCUS_NEIGHBOURS),
                        width="stretch", key="heatmap_focus")
for tab, shown_order, key in zip(tabs[-2:], (order, None), ("heatmap_order", "heatmap_original"), strict=True):
    with tab, st.container(height=FULL_VIEW_PX if wide else "content", border=False):
        st.plotly_chart(figures.association_heatmap(assoc, shown_order, project.sweep.measure), width="stretch",
                        key=key)

preview = level_preview(normal_corr, order.to_dict())
st.subheader("Expected attribute-inference risk per truncation level")
st.caption("How strongly an attacker could expect to predict each sensitive column at each level, if the table "
           "were Gaussian: computed instantly from its correlations (the paper's Theorem 2.4, as the mean absolute "
           "attacker coefficient, MAB). The sweep measures the real thing.")
st.plotly_chart(figures.preview_curve(preview.risk, order.tau_block), width="stretch", key="preview_curve")
for sentence in preview.sentences():
    (st.warning if sentence.startswith("The block assumption fails") else st.markdown)(
        plain.md(sentence))

st.subheader("What a level cuts")
st.caption("Real associations (a correlation of at least 0.1 either way) that the truncated model keeps at less "
           "than half their strength — expected from the same Gaussian calculation, before any sweep. Cutting the "
           "sensitive block's links is the point of truncation; cutting links to Y or between other columns is the "
           "cost.")
levels = list(range(1, order.full_level + 1))
shown = project.preview_level if project.preview_level in levels else min(order.tau_block, order.full_level)
st.session_state[common.WIDGET + "preview_level"] = max(1, shown)
st.select_slider("Truncation level", levels, key=common.WIDGET + "preview_level",
                 on_change=widgets.keep, args=("preview_level",))
level = int(st.session_state[common.WIDGET + "preview_level"])
cut = preview.cut_at(level)
counts = preview.cuts.groupby("level")["cut"].sum()
st.markdown(f"At level **{level}**: **{len(cut)}** of {int((preview.cuts['level'] == levels[-1]).sum())} real "
            f"associations cut (level 1: {int(counts.get(1, 0))}, full vine: {int(counts.get(order.full_level, 0))}).")
if len(cut):
    st.markdown(plain.md(preview.cut_counts(level)))
    listed = cut.drop(columns=["level", "cut"]).rename(columns={
        "a": "column", "b": "with", "real": "real correlation", "kept": "kept at this level"}).round(3)
    st.caption(plain.md(preview.cut_list_words(level, CUTS_SHOWN)))
    st.dataframe(listed.head(CUTS_SHOWN), hide_index=True, width="stretch")
    if len(cut) > CUTS_SHOWN:
        with st.expander(f"All {len(cut)} associations level {level} cuts"):
            st.caption("In the same order. Search the list with the magnifier above it (or Ctrl+F), sort it by a "
                       "column's header, or download it.")
            st.dataframe(listed, hide_index=True, width="stretch")
            st.download_button("Download the list (CSV)", to_csv_bytes(listed),
                               file_name=f"cut_at_level_{level}.csv", mime="text/csv", on_click="ignore")
