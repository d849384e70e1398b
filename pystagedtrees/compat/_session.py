"""The embedded R session: rpy2 loaded on first use, R helpers, R packages.

Importing this module starts R through rpy2; when rpy2 or R is missing it
raises :class:`RUnavailableError` (an ImportError) saying what to install.
Conversions run inside ``localconverter(default_converter)``: nothing is
activated globally, and a user's own rpy2 conversion rules do not leak in.
"""
import functools
import os

INSTALL_HINT = (
    "pystagedtrees.compat needs R and the Python package rpy2 (>= 3.5): install R "
    "(Debian/Ubuntu: `apt-get install r-base-core`), then `pip install "
    "'rpy2>=3.5,<3.6'` (or `pip install -e '.[r]'` from a clone); R's stagedtrees and bnclassify come from CRAN: run "
    "install.packages(c(\"stagedtrees\", \"bnclassify\")) in R."
)


class RUnavailableError(ImportError):
    """rpy2 or R cannot be loaded."""


_LD_LIBRARY_PATH = os.environ.get("LD_LIBRARY_PATH")
try:
    import rpy2.rinterface as ri
    import rpy2.robjects as ro
    from rpy2.rinterface_lib.embedded import RRuntimeError
    from rpy2.robjects.conversion import localconverter
except Exception as exc:  # rpy2 absent, or present without a loadable R
    raise RUnavailableError(f"{INSTALL_HINT} (loading rpy2 failed: {exc})") from exc
finally:
    # Starting R puts R's library folders first in LD_LIBRARY_PATH for the
    # whole process; Python subprocesses started later would then load the
    # system's libpython and lose their site-packages.  R's libraries are
    # loaded by now, so the variable goes back to what it was.
    if _LD_LIBRARY_PATH is None:
        os.environ.pop("LD_LIBRARY_PATH", None)
    else:
        os.environ["LD_LIBRARY_PATH"] = _LD_LIBRARY_PATH

__all__ = [
    "INSTALL_HINT",
    "RUnavailableError",
    "RRuntimeError",
    "ri",
    "ro",
    "r_context",
    "helpers",
    "has_package",
    "require_package",
]

# Our own small R functions: building R objects in one call per variable
# is much faster than attribute-by-attribute assignment through rpy2.
_HELPERS_R = r"""
list(
  prob_list = function(mat, n, labels, levels) {
    # one named vector per stage (a row of mat) carrying its sample size
    mat[is.nan(mat)] <- NA
    out <- lapply(seq_along(labels), function(s) {
      p <- mat[s, ]
      names(p) <- levels
      attr(p, "n") <- n[[s]]
      p
    })
    names(out) <- labels
    out
  },
  prob_parts = function(pl, levels) {
    # exact: a partial match would take `names` for a missing `n`
    n <- vapply(pl, function(p) {
      v <- attr(p, "n", exact = TRUE)
      if (is.null(v)) NA_real_ else as.numeric(v)
    }, 0)
    # R reads a stage's probabilities by level name, so order them by name
    # (with match: indexing by the name "" gives NA)
    named_ok <- vapply(pl, function(p) is.null(names(p)) || setequal(names(p), levels), TRUE)
    mat <- do.call(rbind, lapply(pl, function(p) {
      if (is.null(names(p)) || !setequal(names(p), levels)) as.numeric(p) else
        as.numeric(p[match(levels, names(p))])
    }))
    list(labels = names(pl), mat = mat, n = unname(n), named_ok = named_ok)
  },
  ctable_parts = function(ct) {
    axes <- if (inherits(ct, "ftable")) c(attr(ct, "row.vars"), attr(ct, "col.vars")) else
      if (!is.null(names(ct))) list(names(ct)) else NULL
    list(values = as.numeric(ct), axes = unname(axes))
  },
  ftable = function(counts, row_vars, col_vars) {
    structure(counts, class = "ftable", row.vars = row_vars, col.vars = col_vars)
  },
  named_vector = function(x, nms) { names(x) <- nms; x },
  factor = function(codes, levels, ordered) {
    structure(codes, levels = levels,
              class = if (ordered) c("ordered", "factor") else "factor")
  },
  data_frame = function(cols, nms, row_names) {
    names(cols) <- nms
    n <- if (length(cols)) length(cols[[1]]) else 0L
    attr(cols, "row.names") <- if (is.null(row_names)) .set_row_names(n) else row_names
    class(cols) <- "data.frame"
    cols
  },
  table = function(values, dims, dimnames) {
    structure(array(values, dim = dims, dimnames = dimnames), class = "table")
  },
  loglik = function(value, df, nobs) {
    structure(value, df = df, nobs = nobs, class = "logLik")
  },
  set_class = function(x, cls) { class(x) <- cls; x },
  has_package = function(pkg) {
    suppressPackageStartupMessages(requireNamespace(pkg, quietly = TRUE))
  },
  classes = function(x) class(x),
  is_automatic_row_names = function(x) {
    rn <- .row_names_info(x, type = 0L)
    is.integer(rn) && (length(rn) == 0L || (length(rn) == 2L && is.na(rn[[1]])))
  },
  row_names = function(x) attr(x, "row.names"),
  dimnames_of = function(x) dimnames(x),
  attribute = function(x, name) attr(x, name, exact = TRUE),
  get_function = function(name) {
    if (grepl(":::?", name)) return(eval(parse(text = name)))
    for (pkg in c("stagedtrees", "bnclassify")) {
      if (suppressPackageStartupMessages(requireNamespace(pkg, quietly = TRUE)) &&
          name %in% getNamespaceExports(pkg)) {
        return(getExportedValue(pkg, name))
      }
    }
    get(name, envir = globalenv(), mode = "function")
  },
  time_limited = function(f, args, seconds) {
    if (is.finite(seconds)) {
      setTimeLimit(elapsed = seconds, transient = TRUE)
      on.exit(setTimeLimit(elapsed = Inf, transient = FALSE))
    }
    do.call(f, args)
  }
)
"""


def r_context():
    """A context manager for R calls: rpy2's default conversion only."""
    return localconverter(ro.default_converter)


@functools.lru_cache(maxsize=1)
def _helper_list():
    with r_context():
        return ro.r(_HELPERS_R)


def helpers(name):
    """One of our R helper functions, by name."""
    return _helper_list().rx2(name)


def has_package(name):
    """Whether the R package ``name`` can be loaded."""
    with r_context():
        return bool(helpers("has_package")(name)[0])


def require_package(name):
    """Raise a RuntimeError saying how to install R package ``name`` when it is missing."""
    if not has_package(name):
        with r_context():
            paths = list(ro.r(".libPaths()"))
        raise RuntimeError(
            f"the R package {name!r} is not installed in R (library paths: {paths}); "
            f"in R run install.packages(\"{name}\"), or point R_LIBS_USER at a "
            "library that has it."
        )
