"""Reading and editing the stages of a staged tree (R's ``stages``,
``join_stages``, ``rename_stage``, ``stndnaming``, ``summary``, ...)."""
from pystagedtrees.stage_ops._stage_ops import (
    SevtSummary,
    get_path,
    get_stage,
    join_stages,
    rename_stage,
    set_stage_prob,
    set_stages,
    stages,
    stndnaming,
    summary,
)

__all__ = [
    "SevtSummary", "get_path", "get_stage", "join_stages", "rename_stage", "set_stage_prob",
    "set_stages", "stages", "stndnaming", "summary",
]
