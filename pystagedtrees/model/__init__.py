"""The staged event tree, :class:`Sevt`, and how its stages are stored."""
from pystagedtrees.base import LogLik
from pystagedtrees.model._sevt import Sevt

__all__ = ["Sevt", "LogLik"]
