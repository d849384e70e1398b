"""What every other part stands on: argument checks, reading pandas data into
integer codes, and the shared result type :class:`LogLik`."""
from pystagedtrees.base._loglik import LogLik

__all__ = ["LogLik"]
