"""How many rows each part of an evaluation sees: the caps that keep a sweep's cost from growing with the table
above them (every demo is below them all)."""

# a metric of one published set (a catalogue entry's ``compute``) sees at most this many synthetic, training and
# hold-out rows: a seeded subsample, redrawn for every set, so its noise is part of the interval over sets. Below
# the cap (every demo) nothing changes; above it the cost no longer grows with the table.
SET_ROWS = 5_000
# a release task draws each synthetic set with at most this many rows (the published set has |train| rows):
# a generator's rows are independent draws, so a smaller set is distributed as a random part of a full one;
# the release attack and TSTR are fitted on it (a forest grows its trees on at most as many rows anyway).
# Below the cap (every demo) nothing changes; above it sampling and fitting stop growing with the table.
RELEASE_ROWS = 20_000
# a baseline (a reference point of the scatter, not the model the holder publishes) is fitted on at most this
# many training rows, a seeded subsample: its sets are drawn RELEASE_ROWS long anyway, and an R-vine's structure
# selection on 80 000 rows was the largest single cost of a 100 000-row sweep. Every demo is below it; a DP
# baseline keeps its guarantee (a subsample of the rows only strengthens it). The holder is fitted on every row.
BASELINE_ROWS = 20_000
# the propensity model of pMSE (hundreds of interaction terms, one Newton step costs rows x terms^2) sees at most
# this many real and as many synthetic rows of a set (seeded, per set); every demo is below it
PMSE_ROWS = 1_000
