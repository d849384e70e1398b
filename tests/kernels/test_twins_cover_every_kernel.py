"""Every public function of every kernel has a twin: a slow, obviously
correct NumPy (or literal R-replay) version checked against it on random data.

``TWINS`` says where each one is checked; this test fails when a kernel
gains a public function without an entry, or an entry names a test file
that does not use the function.
"""
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
KERNELS = TESTS.parent / "pystagedtrees" / "kernels"

HERE = "kernels/"
TWINS = {
    "_as_sevt": {name: HERE + "test_counting_kernels.py"
                 for name in ("stages_by_parent_config", "stages_by_parent_codes")},
    "_counts": {name: HERE + "test_counting_kernels.py" for name in (
        "count_in_path_order", "count_dense_variable", "count_dense_unit_rows",
        "split_by_level", "number_occupied_cells", "smooth_rows",
        "occupied_situations",
        "ids_by_first_appearance", "regroup_stages", "sum_rows_by_stage",
        "first_positions", "map_ids")},
    "_infer": {"dense_summed_out_logprob": HERE + "test_counting_kernels.py"},
    "_predict": {name: HERE + "test_predict.py"
                 for name in ("path_log_probabilities", "class_posteriors", "rows_of_columns")},
    "_random": {name: HERE + "test_counting_kernels.py" for name in ("draw_levels", "StageJoiner")},
    "_bnc_counts": {name: HERE + "test_bnc_kernels.py"
                    for name in ("family_counts", "class_family_counts", "entropy_ml",
                                 "col_means", "fold_cpts")},
    "_bnc_infer": {name: HERE + "test_bnc_kernels.py" for name in (
        "log_joint", "max_col", "max_col_ties", "exp_rows", "map_hits", "fold_cells",
        "fold_family_counts",
        "fold_log_joint", "fold_hits", "fold_added_hits", "posteriors")},
    "_stage_scores": {name: HERE + "test_stage_kernels.py" for name in (
        "max_levels", "variable_loglik", "rsum", "join_probabilities")},
    "_bhc": {name: HERE + "test_stage_kernels.py" for name in ("backward_join", "settle_joins")},
    "_bj": {"backward_join_distance": HERE + "test_stage_kernels.py"},
    "_hc": {"move_situations": HERE + "test_stage_kernels.py"},
    "_rdist": {"r_dist": HERE + "test_stage_kernels.py"},
    "_rows": {"group_equal_rows": HERE + "test_rows_kernel.py"},
    # replays of R's generator: checked draw for draw against R's own output
    # (recorded literals and live R), through RRandom
    "_rrandom": {name: "rng/test_rrandom.py" for name in (
        "fill_uniform", "unif_index", "fill_unif_index", "fill_without_replacement", "revsort",
        "fill_prob_replace", "fill_walker", "fill_prob_without_replacement", "fill_exp", "qnorm",
        "fill_norm")},
    # checked against R's recorded results through their learners
    "_hclust": {"Method": "learners/test_hclust.py", "agglomerate": "learners/test_hclust.py",
                "cut_groups": HERE + "test_hclust_cut.py", "cut_rows": HERE + "test_hclust_cut.py"},
    "_kmeans": {name: "learners/test_kmeans.py"
                for name in ("hartigan_wong", "lloyd", "macqueen")},
    "_awnb": {"best_split": "bnc/test_bnc_awnb.py"},
}

PUBLIC = re.compile(r"^(?:def|cpdef(?: \w+)*|cdef class|cpdef enum) (\w+)", re.M)


def public_names(path):
    return {name for name in PUBLIC.findall(path.read_text()) if not name.startswith("_")}


KERNEL_FILES = sorted(KERNELS.glob("*.pyx"))


@pytest.mark.parametrize("path", KERNEL_FILES, ids=[p.stem for p in KERNEL_FILES])
def test_every_public_kernel_function_has_a_twin(path):
    listed = TWINS.get(path.stem, {})
    assert public_names(path) == set(listed), f"{path.name}: list its functions' twins in TWINS"
    for name, where in listed.items():
        if where.startswith(HERE):
            assert re.search(rf"\b{name}\b", (TESTS / where).read_text()), \
                f"{where} does not check {path.stem}.{name}"
        else:
            assert (TESTS / where).exists(), where
