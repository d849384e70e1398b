"""Data sets on which the learners meet ties, exact or within rounding: R's
arithmetic decides them, and so must ours."""
import pandas as pd


def _frame_from_digits(**columns):
    """A frame of categoricals "l0", "l1", ... from one digit string per column."""
    return pd.DataFrame({c: [f"l{d}" for d in digits] for c, digits in columns.items()}).astype(
        "category")


NEAR_TIE = {"X0": "20011202211120102010120121112101000201100120202121111110001212110011102020212120",
            "X1": "10011212101000012201020202012220221212012000220220200020200020210020221111102021",
            "X2": "00000101000001011111110110101111011101000101011011000101100010001000111111101100",
            "X3": "22313102013030230031011132332033021131312033203222221103011302013133330110221030"}


# Stages (2/9, 3/9, 4/9), (1/4, 3/8, 3/8) and (2/9, 4/9, 3/9) of X2: two pairs
# at the same KL distance in exact arithmetic.  R (and the kernel) join the
# first pair; a pairwise float sum split the tie by an ulp.
EXACT_TIE = _frame_from_digits(
    X0="1021120022201122101001202211220120002220000101210021001",
    X1="1200101212201020212110202212022212221202000002011110020",
    X2="0012212212212020021201002112212121002011100202200011112",
)
