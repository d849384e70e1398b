"""Multi-label scores in one call, with the usual multi-label conventions.

scikit-learn already has every score used here, so nothing is
reimplemented: example-based F1 is ``f1_score(average="samples")`` and
example-based accuracy (Godbole & Sarawagi's Jaccard accuracy) is
``jaccard_score(average="samples")``.  What this module fixes is the
convention for a row with no true and no predicted label: the multi-label
literature (and Mulan/MEKA) counts it as a perfect prediction, which
scikit-learn does with ``zero_division=1.0``; its default would score such
rows 0 with a warning.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from sklearn.metrics import accuracy_score, f1_score, hamming_loss, jaccard_score

__all__ = ["MULTILABEL_SCORES", "multilabel_scores"]

#: Score names of :func:`multilabel_scores`, in report order; only the first
#: is a loss (lower is better).
MULTILABEL_SCORES = (
    "hamming_loss",
    "subset_accuracy",
    "micro_f1",
    "macro_f1",
    "example_f1",
    "example_accuracy",
)


def multilabel_scores(Y_true: ArrayLike, Y_pred: ArrayLike) -> dict[str, float]:
    """Hamming loss, subset accuracy, micro/macro F1 and example-based F1/accuracy.

    Parameters
    ----------
    Y_true, Y_pred : array-like of shape (n_samples, n_labels)
        Binary indicator matrices (0/1).

    Returns
    -------
    dict of str to float
        Keyed by :data:`MULTILABEL_SCORES`:

        * ``hamming_loss``: share of wrong label cells;
        * ``subset_accuracy``: share of rows predicted exactly;
        * ``micro_f1`` / ``macro_f1``: label-based F1, pooled over all cells /
          averaged over labels (a label never true nor predicted scores 0);
        * ``example_f1``: mean over rows of ``2 |T & P| / (|T| + |P|)``;
        * ``example_accuracy``: mean over rows of ``|T & P| / |T | P|``;

        where ``T`` and ``P`` are a row's true and predicted label sets, and
        a row with both empty scores 1 in the example-based measures.

    Examples
    --------
    >>> from pystagedtrees.multilabel.metrics import multilabel_scores
    >>> Y_true = [[1, 1, 0], [0, 0, 0]]
    >>> Y_pred = [[1, 0, 1], [0, 0, 0]]
    >>> scores = multilabel_scores(Y_true, Y_pred)
    >>> scores["hamming_loss"], scores["example_f1"], scores["example_accuracy"]
    (0.3333333333333333, 0.75, 0.6666666666666666)
    """
    Y_true = check_indicator_matrix(Y_true, "Y_true")
    Y_pred = check_indicator_matrix(Y_pred, "Y_pred")
    if Y_true.shape != Y_pred.shape:
        raise ValueError(
            f"`Y_true` and `Y_pred` must have the same shape; got {Y_true.shape} and {Y_pred.shape}."
        )
    subset_accuracy = float(accuracy_score(Y_true, Y_pred))
    if Y_true.shape[1] == 1:
        # scikit-learn reads one column as a binary target: its micro/macro
        # averages would then run over the two values, not over the label
        label_f1 = float(f1_score(Y_true.ravel(), Y_pred.ravel(), zero_division=0.0))
        micro_f1 = macro_f1 = label_f1
        # a row scores 1 exactly when its one label is right
        example_f1 = example_accuracy = subset_accuracy
    else:
        micro_f1 = float(f1_score(Y_true, Y_pred, average="micro", zero_division=0.0))
        macro_f1 = float(f1_score(Y_true, Y_pred, average="macro", zero_division=0.0))
        example_f1 = float(f1_score(Y_true, Y_pred, average="samples", zero_division=1.0))
        example_accuracy = float(
            jaccard_score(Y_true, Y_pred, average="samples", zero_division=1.0)
        )
    return {
        "hamming_loss": float(hamming_loss(Y_true, Y_pred)),
        "subset_accuracy": subset_accuracy,
        "micro_f1": micro_f1,
        "macro_f1": macro_f1,
        "example_f1": example_f1,
        "example_accuracy": example_accuracy,
    }


def check_indicator_matrix(Y, name):
    """``Y`` as a 2-D 0/1 integer matrix (booleans allowed), or a clear error."""
    try:
        values = np.asarray(Y, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be a 0/1 matrix; got {type(Y).__name__}.") from None
    if values.ndim != 2 or values.size == 0:
        raise ValueError(
            f"`{name}` must be a non-empty (n_samples, n_labels) matrix; got shape {values.shape}."
        )
    if not np.isin(values, (0.0, 1.0)).all():
        raise ValueError(f"`{name}` must hold only 0 and 1 (label indicators).")
    return values.astype(np.int64)
