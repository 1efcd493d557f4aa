"""`migrate`: the command line and orchestration of the Estimator -> TF2 migration toolkit."""

__version__ = "0.1.0"
