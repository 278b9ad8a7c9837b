"""The metrics, one module per family: ``base`` declares what a metric is; each family module declares its own
metrics (a tuple) and names the code that computes them. ``evaluation/catalogue.py`` gathers the families in the
order every table lists them: read metrics from there."""
