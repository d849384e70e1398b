"""Without rpy2: the package imports, and the converters say what to install.

Each check runs in a fresh interpreter where rpy2 cannot be imported
(``sys.modules["rpy2"] = None``), whether or not it is installed here.
"""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pystagedtrees import compat

ROOT = Path(__file__).resolve().parents[2]


def run(code):
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_importing_the_package_does_not_load_rpy2():
    out = run("import sys, pystagedtrees, pystagedtrees.compat; print('rpy2' in sys.modules)")
    assert out == "False"


def test_converters_raise_import_error_saying_what_to_install():
    out = run(
        "import sys\n"
        "sys.modules['rpy2'] = None\n"
        "import pystagedtrees as st\n"
        "from pystagedtrees import compat\n"
        "print(compat.r_available(), compat.has_r_package('stagedtrees'))\n"
        "for call in (lambda: compat.to_r(st.indep(st.datasets.titanic_table())),\n"
        "             lambda: compat.from_r(None), lambda: compat.r_call('sum', 1)):\n"
        "    try:\n"
        "        call()\n"
        "    except ImportError as exc:\n"
        "        print(exc)\n"
    )
    lines = out.splitlines()
    assert lines[0] == "False False"
    assert len(lines) == 4
    for message in lines[1:]:
        assert "rpy2" in message and "pip install 'rpy2>=3.5,<3.6'" in message
        assert "r-base-core" in message and 'install.packages(c("stagedtrees", "bnclassify"))' in message


def test_crosscheck_reports_r_missing_and_exits_2_having_compared_nothing(tmp_path):
    data = tmp_path / "tiny.csv"
    data.write_text("answer,x\nyes,a\nno,b\nyes,b\n")
    out = run(
        "import sys\n"
        "sys.modules['rpy2'] = None\n"
        "from compat import crosscheck\n"
        f"print('exit', crosscheck.main(['--data', {str(data)!r}, '--functions', 'full,bnc_nb,prob']))\n"
    )
    lines = out.splitlines()
    assert lines[-1] == "exit 2"  # a CI job reading the status must not pass
    rows = [line.split() for line in lines[2:-1]]
    assert [row[0] for row in rows] == ["full", "bnc_nb", "prob"]
    assert all(row[1:3] == ["R", "missing"] for row in rows)


def test_package_names_are_checked_before_asking_r():
    for name in (None, ["stats", "nope"], float("nan"), True, ""):
        with pytest.raises(TypeError, match="`name` must be the name of an R package"):
            compat.has_r_package(name)


def test_crosscheck_relative_differences_see_an_infinite_r_value():
    from compat.crosscheck import Differences

    diff = Differences()
    diff.values([-5000.0, 1.0, 2.0], [-np.inf, 1.0, 2.5], "x ", relative=True)
    assert diff.largest == np.inf and diff.where == "x [1]"
    same = Differences()
    same.values([-np.inf, 1.0], [-np.inf, 1.0], "x ", relative=True)
    assert same.largest == 0
