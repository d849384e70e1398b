"""Random staged trees and data drawn from models (R's ``random_sevt``,
``sample_from``, ``generate_*_dataset``)."""
from pystagedtrees.random._random import (
    generate_linear_dataset,
    generate_random_dataset,
    generate_xor_dataset,
    random_sevt,
    randomize_sevt,
    sample_from,
)

__all__ = [
    "generate_linear_dataset", "generate_random_dataset", "generate_xor_dataset", "random_sevt",
    "randomize_sevt", "sample_from",
]
