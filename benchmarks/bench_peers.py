"""Speed beside the Python peers (cegpy, pgmpy, scikit-learn) recorded in peers.md.

Run: python benchmarks/bench_peers.py [--skip-synthetic]

The peers' seconds are read from ``../shared/reference/peers.md`` (measured
on this machine type, split 1 of each dataset); ours are the best of 3 runs
on the same split (best of 7: the calls take milliseconds).  Ratios are peer seconds / ours ("> " where the peer
gave up at its time limit).

* Table 1: cegpy's event tree + Bayesian AHC against ``full`` +
  ``stages_bhc`` (both learn the stages of a staged tree from the same data,
  with different scores: cegpy's log marginal likelihood, R's BIC here).
* Table 2: TAN and naive Bayes fit and predict against pgmpy, and naive
  Bayes against scikit-learn's CategoricalNB.  Ours start from pandas
  categoricals; scikit-learn's times exclude its OrdinalEncoder.
* Table 3: the synthetic scale test (40 binary features, 100,000 training
  rows), regenerated from its description in peers.md (the peers' own
  generator is not shared, so the data are alike, not identical).
"""
import argparse
import re
import sys

import numpy as np
import pandas as pd
from _common import SHARED, best_time, load_split, markdown_output, ratio

import pystagedtrees as st
import pystagedtrees.bnc as bnc

PEERS = SHARED / "reference" / "peers.md"
GAVE_UP = re.compile(r">\s*([\d.,]+)\s*s")
REPEAT = 7


def seconds(cell):
    """``(seconds, gave_up)`` from a peers.md cell: its first number, or a time limit."""
    limit = GAVE_UP.search(cell)
    if limit:
        return float(limit.group(1).replace(",", "")), True
    number = re.search(r"[\d.]+", cell.replace(",", ""))
    return (float(number.group()), False) if number else (np.nan, False)


def markdown_table(text, title_start):
    """Rows of the first markdown table after the heading starting with ``title_start``,
    as dicts keyed by the header cells (dataset names without bold)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"### {title_start}"))
    table = []
    for line in lines[start + 1:]:
        if line.startswith("|"):
            table.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif table:
            break
    header, rows = table[0], table[2:]  # table[1] is the |---| rule
    return {row[0].strip("*"): dict(zip(header, row)) for row in rows}


def bench_staged_trees(text):
    print("Table 1: cegpy event tree + AHC  vs  full + stages_bhc")
    print(f"{'dataset':24s} {'cegpy s':>10s} {'ours s':>8s} {'ratio':>8s}")
    for name, row in markdown_table(text, "Table 1").items():
        train, _, _ = load_split(name)
        ours, _ = best_time(lambda: st.stages_bhc(st.full(train, lambda_=1)), REPEAT)
        peer, gave_up = seconds(row["total s (median; runs)"])
        print(f"{name:24s} {('>' if gave_up else '') + f'{peer:g}':>10s} {ours:8.4f} "
              f"{ratio(peer, ours, gave_up):>8s}")


def bench_classifiers(text):
    print("\nTable 2: fit and predict, pgmpy (TAN, NB) and scikit-learn (CategoricalNB) / ours"
          "\n(ours encode pandas categoricals; CategoricalNB's times leave its encoding out)")
    columns = ["TAN fit", "TAN predict", "NB fit", "NB predict", "CNB fit", "CNB predict"]
    print(f"{'dataset':24s}" + "".join(f" {c:>12s}" for c in columns))
    keys = {
        "TAN fit": "pgmpy TAN fit s (struct + params)", "TAN predict": "pgmpy TAN predict s",
        "NB fit": "pgmpy NB fit s", "NB predict": "pgmpy NB predict s",
        "CNB fit": "sklearn CNB fit s", "CNB predict": "CNB predict s",
    }
    for name, row in markdown_table(text, "Table 2").items():
        train, test, _ = load_split(name)
        features = test.drop(columns="answer")
        t_tan, tan = best_time(lambda: bnc.lp(bnc.tan_cl("answer", train), train, smooth=1), REPEAT)
        t_nb, nb = best_time(lambda: bnc.lp(bnc.nb("answer", train), train, smooth=1), REPEAT)
        t_tan_predict, _ = best_time(lambda: bnc.predict(tan, features, seed=0), REPEAT)
        t_nb_predict, _ = best_time(lambda: bnc.predict(nb, features, seed=0), REPEAT)
        ours = {"TAN fit": t_tan, "TAN predict": t_tan_predict, "NB fit": t_nb,
                "NB predict": t_nb_predict, "CNB fit": t_nb, "CNB predict": t_nb_predict}
        cells = []
        for c in columns:
            peer, gave_up = seconds(row[keys[c]])
            cells.append(ratio(peer, ours[c], gave_up))
        print(f"{name:24s}" + "".join(f" {c:>12s}" for c in cells))


def synthetic_chain(n, rng):
    """peers.md's scale test: class ~ Bernoulli(0.5), X1 | class, X_j | (class, X_{j-1})."""
    p_first = rng.uniform(0.15, 0.85, size=2)
    p_next = rng.uniform(0.15, 0.85, size=(39, 2, 2))
    columns = {"answer": rng.random(n) < 0.5}
    previous = rng.random(n) < p_first[columns["answer"].astype(int)]
    columns["X1"] = previous
    for j in range(39):
        p = p_next[j][columns["answer"].astype(int), previous.astype(int)]
        previous = rng.random(n) < p
        columns[f"X{j + 2}"] = previous
    return pd.DataFrame({k: pd.Categorical(np.where(v, "1", "0"), categories=["0", "1"])
                         for k, v in columns.items()})


def bench_synthetic(text):
    rng = np.random.default_rng(1)
    data = synthetic_chain(110_000, rng)
    train, test = data.iloc[:100_000].reset_index(drop=True), data.iloc[100_000:]
    features = test.drop(columns="answer")

    def quoted(pattern):
        found = re.search(pattern, text)
        return f"{found.group(1)} s" if found else "-"

    t_tan, tan = best_time(lambda: bnc.lp(bnc.tan_cl("answer", train), train, smooth=1), 1)
    t_predict, _ = best_time(lambda: bnc.predict(tan, features, seed=0), 1)
    t_nb, nb = best_time(lambda: bnc.lp(bnc.nb("answer", train), train, smooth=1), 1)
    t_nb_predict, _ = best_time(lambda: bnc.predict(nb, features, seed=0), 1)
    t_full, _ = best_time(lambda: st.full(train, lambda_=1), 1)
    peer = {
        "tan structure": quoted(r"TreeSearch structure ([\d.]+) s"),
        "tan parameters": quoted(r"parameters ([\d.]+) s"),
        "tan predict": quoted(r"TAN, n_jobs=1 .*?10,000 rows ([\d.]+) s"),
        "nb fit": quoted(r"pgmpy NB .*?fit ([\d.]+) s"),
        "cnb fit": quoted(r"CategoricalNB.*?fit ([\d.]+) s"),
        "nb predict": quoted(r"pgmpy NB .*?10k rows ([\d.]+) s"),
    }
    print("\nTable 3: 40 binary features, 100,000 training rows, 10,000 test rows")
    print(f"  TAN structure + parameters  ours {t_tan:.2f} s   pgmpy "
          f"{peer['tan structure']} + {peer['tan parameters']}")
    print(f"  TAN predict 10,000 rows     ours {t_predict:.3f} s  pgmpy {peer['tan predict']}")
    print(f"  NB fit                      ours {t_nb:.3f} s  pgmpy {peer['nb fit']}, "
          f"CategoricalNB {peer['cnb fit']}")
    print(f"  NB predict 10,000 rows      ours {t_nb_predict:.3f} s  pgmpy {peer['nb predict']}")
    print(f"  full staged tree, 41 vars   ours {t_full:.2f} s   cegpy EventTree gave up "
          "after 300 s")


if __name__ == "__main__":
    with markdown_output(__doc__):
        parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        parser.add_argument("--skip-synthetic", action="store_true",
                            help="leave out the 100,000-row scale test")
        args = parser.parse_args()
        if not PEERS.exists():
            sys.exit(f"this benchmark needs {PEERS}")
        peers = PEERS.read_text()
        bench_staged_trees(peers)
        bench_classifiers(peers)
        if not args.skip_synthetic:
            bench_synthetic(peers)
