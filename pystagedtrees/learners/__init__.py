"""Structure learning: the stage learners (backward hill-climbing family,
clustering, EM) and the search over variable orders."""
from pystagedtrees.learners._clustering import stages_hclust, stages_kmeans
from pystagedtrees.learners._em import sevt_fit_em, stages_em
from pystagedtrees.learners._learners import (
    stages_bhc,
    stages_bhcr,
    stages_bj,
    stages_csbhc,
    stages_fbhc,
    stages_hc,
    stages_simplebhc,
)
from pystagedtrees.learners._order_search import search_best, search_greedy

__all__ = [
    "search_best", "search_greedy", "sevt_fit_em", "stages_bhc", "stages_bhcr", "stages_bj",
    "stages_csbhc", "stages_em", "stages_fbhc", "stages_hc", "stages_hclust", "stages_kmeans",
    "stages_simplebhc",
]
