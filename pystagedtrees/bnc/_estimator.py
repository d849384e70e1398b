"""scikit-learn estimator over the bnclassify learners."""
from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from pystagedtrees.base._dask import is_dask
from pystagedtrees.base._data import HANDLE_UNKNOWN, check_sample_weight
from pystagedtrees.base._estimator import CategoricalClassifier
from pystagedtrees.base._validation import (
    check_choice,
    check_int,
    check_number,
    check_smoothing,
)
from pystagedtrees.bnc._cv import LEARNERS, RANDOMISED, learn_structure
from pystagedtrees.bnc._dask import count_families
from pystagedtrees.bnc._dataset import encode_dataset, encode_for_model
from pystagedtrees.bnc._params import fit_structure, lp, lp_arguments
from pystagedtrees.bnc._predict import class_posteriors
from pystagedtrees.bnc._structure import SCORES, aode, nb, tan_cl_encoded
from pystagedtrees.rng import Seed, check_seed, resolve_source

if TYPE_CHECKING:
    import dask.dataframe as dd

__all__ = ["BNClassifier"]

# the learners whose structure and parameters come from counts alone, so
# that a row weight is a row count; the cross-validated searches are not
WEIGHTED_STRUCTURES = ("nb", "tan_cl", "aode")

class BNClassifier(CategoricalClassifier):
    """Bayesian network classifier (bnclassify learners) as a scikit-learn estimator.

    Parameters
    ----------
    structure : str
        The structure learner: "nb", "tan_cl", "tan_hc", "tan_hcsp", "kdb",
        "fssj", "bsej" or "aode".
    smooth : float
        Dirichlet pseudo-count of the CPTs (``lp(smooth=)``).
    edge_score : {"loglik", "bic", "aic"}
        Edge score of "tan_cl" (its ``score`` argument).
    k : int
        Cross-validation folds of the greedy learners.
    epsilon : float
        Minimum accuracy gain of a greedy step.
    kdbk : int
        Maximum number of feature parents for "kdb"; at most the number of
        features is used (bnclassify's ``kdb`` refuses more, which would
        break a search over feature subsets).
    search_smooth : float, optional
        Pseudo-count of the CPTs fitted during a greedy search (default
        ``smooth``).
    random_state : None, int or numpy.random.Generator
        Seed of the folds and tie breaking of the greedy learners (numpy;
        see :mod:`pystagedtrees.rng`).
    handle_unknown : {"error", "missing"}, default "error"
        A feature value at prediction that is not a level seen in training:
        an error, or treated as a missing value (summed out).

    Attributes
    ----------
    classes_ : numpy.ndarray
        The class labels.
    model_ : BNCModel
        The fitted network; its class variable is ``class_name_``, whose
        levels ``"0", "1", ...`` are the positions in ``classes_``.
    class_name_ : str
        ``"__class__"``, with more leading underscores if a feature has that name.
    n_features_in_ : int
    feature_names_in_ : numpy.ndarray
        When ``X`` was a DataFrame with string column names.

    Notes
    -----
    Features must be categorical: categorical, string, boolean or
    integer-coded columns.  A continuous float column is refused (discretize
    it first).  In training, each family's table counts the rows that
    observe all of its variables.  Missing values are summed out at
    prediction; a level unseen in training is an error unless
    ``handle_unknown="missing"`` (a cross-validation fold can miss a rare
    level: pass categoricals that list every level, or that option).  A
    DataFrame's columns are matched by name.

    ``predict`` gives the first class in ``classes_`` on ties, as
    scikit-learn's classifiers and :class:`~pystagedtrees.StagedTreeClassifier`,
    so a row's label never depends on the other rows or on the call;
    :func:`pystagedtrees.bnc.predict` breaks near-ties at random as
    bnclassify does.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import BNClassifier
    >>> X = pd.DataFrame({"x": list("uuvvuv"), "y": list("aabbab")})
    >>> clf = BNClassifier(structure="tan_cl").fit(X, ["p", "p", "q", "q", "p", "q"])
    >>> clf.predict(X).tolist()
    ['p', 'p', 'q', 'q', 'p', 'q']
    """

    def __init__(self, structure: str = "nb", smooth: float = 1.0,
                 edge_score: Literal["loglik", "bic", "aic"] = "loglik", k: int = 5,
                 epsilon: float = 0.01, kdbk: int = 2, search_smooth: float | None = None,
                 random_state: Seed = None,
                 handle_unknown: Literal["error", "missing"] = "error") -> None:
        self.structure = structure
        self.smooth = smooth
        self.edge_score = edge_score
        self.k = k
        self.epsilon = epsilon
        self.kdbk = kdbk
        self.search_smooth = search_smooth
        self.random_state = random_state
        self.handle_unknown = handle_unknown

    def _randomised(self):
        return self.structure in RANDOMISED

    def _feature_levels(self):
        return {f: self.model_.levels[f] for f in self.model_.features}

    def _draws(self):
        return resolve_source(self.random_state, seed_name="random_state")

    def _structure_args(self, n_features):
        smooth = self.smooth if self.search_smooth is None else self.search_smooth
        if self.structure == "tan_cl":
            return dict(score=self.edge_score)
        if self.structure in RANDOMISED:
            args = dict(k=self.k, epsilon=self.epsilon,
                        smooth=check_smoothing(smooth, "search_smooth"))
            if self.structure == "kdb":
                args["kdbk"] = min(self.kdbk, n_features)
            return args
        return {}

    def _check_params(self):
        """Every parameter, whether or not ``structure`` uses it (scikit-learn checks all at fit)."""
        check_choice(self.structure, "structure", sorted(LEARNERS))
        check_smoothing(self.smooth, "smooth")
        check_choice(self.edge_score, "edge_score", SCORES)
        check_int(self.k, "k", minimum=2)
        check_number(self.epsilon, "epsilon")
        check_int(self.kdbk, "kdbk", minimum=1)
        check_number(self.search_smooth, "search_smooth", allow_none=True)
        check_seed(self.random_state, name="random_state")
        check_choice(self.handle_unknown, "handle_unknown", HANDLE_UNKNOWN)

    def fit(self, X: ArrayLike | pd.DataFrame | dd.DataFrame,
            y: ArrayLike | pd.Series | dd.Series,
            sample_weight: ArrayLike | dd.Series | None = None) -> BNClassifier:
        """Learn the structure and the parameters from ``X`` and labels ``y``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Row weights, for the structures "nb", "tan_cl" and "aode": a row
            of weight ``w`` counts as ``w`` rows in every table, so an
            integer weight is the row repeated and 0 leaves it out (its
            values still count as levels, and a class whose rows all weigh 0
            gets the smoothed probability of a class never seen).  The
            cross-validated searches take no weights (a ValueError).

        Notes
        -----
        "nb", "tan_cl" and "aode" also fit from Dask collections: ``X`` a
        Dask DataFrame of categoricals with known categories
        (``X.categorize()``), ``y`` and ``sample_weight`` Dask Series split
        into the same partitions.  Each partition's tables are counted, in one pass, where
        it lies and summed; only they, and the distinct labels of ``y``,
        are gathered.  The model is the one fitted from the same rows in
        memory.
        """
        self._check_params()
        if is_dask(X) or is_dask(y) or is_dask(sample_weight):
            return self._fit_dask(X, y, sample_weight)
        frame = self._training_frame(X, y)
        weights = check_sample_weight(sample_weight, frame.shape[0])
        if weights is not None and self.structure not in WEIGHTED_STRUCTURES:
            raise ValueError(
                f"`sample_weight` is taken by the structures {list(WEIGHTED_STRUCTURES)}; "
                f"structure={self.structure!r} learns by cross-validated accuracy, which "
                "takes no weights."
            )
        if weights is None:
            structure = learn_structure(self.structure, self.class_name_, frame,
                                        self._structure_args(len(self._names)), self._draws())
            self.model_ = lp(structure, frame, smooth=self.smooth)
        else:
            self.model_ = self._fit_weighted(frame, weights)
        return self

    def _fit_dask(self, X, y, sample_weight):
        """The fit of Dask collections: the tables counted partition by partition."""
        if self.structure not in WEIGHTED_STRUCTURES:
            raise TypeError(
                f"`X` is a Dask collection, which structure={self.structure!r} does not take "
                "(it learns by cross-validated accuracy, over rows); these take Dask input: "
                f"{list(WEIGHTED_STRUCTURES)}.")
        self.classes_, enc = count_families(self._dask_training(X, y, sample_weight))
        return self._fit_encoded(enc)

    def _fit_encoded(self, enc):
        """The model of a weighted structure from an encoded dataset (rows or tables)."""
        if self.structure == "tan_cl":
            structure = tan_cl_encoded(enc, self.edge_score)
        else:
            structure = (nb if self.structure == "nb" else aode)(self.class_name_,
                                                                 features=enc.features)
        self.model_ = fit_structure(structure, enc,
                                    lp_arguments(check_smoothing(self.smooth, "smooth")))
        return self

    def _fit_weighted(self, frame, weights):
        """The model of a weighted structure, each row counted ``weights`` times."""
        enc = encode_dataset(self.class_name_, frame, name="X")
        enc.weights = weights
        return self._fit_encoded(enc).model_

    def predict_proba(self, X: ArrayLike | pd.DataFrame | dd.DataFrame
                      ) -> np.ndarray | dd.DataFrame:
        """Class posteriors, columns in ``classes_`` order.

        A Dask DataFrame gets a lazy Dask DataFrame, a column per class.
        """
        if is_dask(X):
            return self._lazy_predictions(X, proba=True)
        frame = self._prediction_frame(X)
        codes = encode_for_model(self.model_, frame, name="X", order="F")
        return class_posteriors(self.model_, codes)
