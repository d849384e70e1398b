"""Probabilities of events and class prediction (R's ``prob``, ``predict``,
``path_probability``)."""
from pystagedtrees.inference._inference import path_probability, predict, prob

__all__ = ["path_probability", "predict", "prob"]
