"""The benchmarks: each script runs from the repository root as ``python -m bench.<name>`` and writes its results
table beside it (``bench/<name>.md``), with the command and the machine."""
