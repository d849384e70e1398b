"""Reproducible comparison studies, run as ``python -m pystagedtrees.study <name>``."""
