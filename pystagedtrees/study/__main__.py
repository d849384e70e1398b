"""Command-line entry point: ``python -m pystagedtrees.study <study> [options]``.

Each study lives in its own module of this package, which provides
``add_arguments(parser)`` and ``run(args)``; register it in ``STUDIES``.
Modules are imported only when their study is run.
"""
import argparse
import importlib
import sys

#: study name -> (module, one-line help)
STUDIES = {
    "multilabel": (
        "pystagedtrees.study.multilabel",
        "BN-ordered classifier chains against binary relevance and random chains",
    ),
    "benchmark": (
        "pystagedtrees.study.benchmark",
        "staged tree refinements against Bayesian network classifiers on real data",
    ),
    "simulate": (
        "pystagedtrees.study.simulate",
        "staged tree and Bayesian network classifiers on simulated data",
    ),
}


def main(argv=None):
    """Parse ``argv`` (default: the command line) and run the chosen study."""
    parser = argparse.ArgumentParser(
        prog="python -m pystagedtrees.study",
        description="Run one of the comparison studies of pystagedtrees.",
    )
    subparsers = parser.add_subparsers(dest="study", required=True, metavar="study")
    chosen = sys.argv[1:] if argv is None else list(argv)
    for name, (module, help_text) in STUDIES.items():
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        if name in chosen:  # only the requested study is imported
            study = importlib.import_module(module)
            study.add_arguments(sub)
            sub.set_defaults(run=study.run)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (OSError, ValueError) as exc:  # bad files, data or settings: no traceback
        parser.exit(2, f"{parser.prog} {args.study}: error: {exc}\n")


if __name__ == "__main__":
    sys.exit(main())
