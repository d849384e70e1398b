"""Checks of the built artefacts, run by .ci/run.

    python .ci/check_dist.py sdist DIST.tar.gz        # holds every file of the repository
    python .ci/check_dist.py wheel DIST.whl DIST.tar.gz  # compiled modules, no C, the data
    python .ci/check_dist.py installed DIST.whl       # the installed wheel imports them
    python .ci/check_dist.py quickstart README.md OUT.py  # README's quick start, as a script

Each prints what it checked and exits 1 with the reasons when a check fails.
"""
import fnmatch
import importlib
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[1]
# tracked files a source distribution has no use for
NOT_IN_SDIST = {".gitignore"}
# what setuptools adds to every sdist
SDIST_METADATA = re.compile(r"^(PKG-INFO|setup\.cfg|[^/]+\.egg-info/.*)$")


def _ignored(path, patterns):
    """Whether .gitignore's ``patterns`` (plain ones, no negations) ignore ``path``."""
    parts = PurePosixPath(path).parts
    for pattern in patterns:
        anchored = pattern.strip("/")
        if "/" in anchored:
            if fnmatch.fnmatch(path, anchored) or fnmatch.fnmatch(path, anchored + "/*"):
                return True
        elif any(fnmatch.fnmatch(part, anchored) for part in parts):
            return True
    return False


def repository_files():
    """The repository's files: git's list, or (no git checkout) the tree less what .gitignore ignores."""
    try:
        listed = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True,
                                text=True, check=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        lines = (ROOT / ".gitignore").read_text().splitlines()
        patterns = [p for p in lines if p and not p.startswith(("#", "!"))] + [".git"]
        listed = [str(f.relative_to(ROOT).as_posix()) for f in ROOT.rglob("*") if f.is_file()]
        listed = [f for f in listed if not _ignored(f, patterns)]
    return {f for f in listed if f and f not in NOT_IN_SDIST}


def sdist_files(path):
    with tarfile.open(path) as tar:
        names = [m.name for m in tar.getmembers() if m.isfile()]
    # members are <name>-<version>/<path>
    return {str(PurePosixPath(*PurePosixPath(n).parts[1:])) for n in names}


def wheel_files(path):
    with zipfile.ZipFile(path) as whl:
        return set(whl.namelist())


def extension_modules(files):
    """Dotted names of the Cython modules among source files (every .pyx)."""
    return sorted(f.removesuffix(".pyx").replace("/", ".") for f in files if f.endswith(".pyx"))


def check_sdist(sdist):
    files = sdist_files(sdist)
    missing = sorted(repository_files() - files)
    extra = sorted(f for f in files - repository_files() if not SDIST_METADATA.match(f))
    generated_c = sorted(f for f in files if f.endswith(".c"))
    problems = ([f"missing from the sdist: {missing}"] if missing else []) + \
               ([f"in the sdist but not in the repository: {extra}"] if extra else []) + \
               ([f"generated C in the sdist: {generated_c}"] if generated_c else [])
    pyx = extension_modules(files)
    return problems, f"{len(files)} files, the repository's; {len(pyx)} Cython sources"


def check_wheel(wheel, sdist):
    files = wheel_files(wheel)
    problems = []
    if Path(wheel).name.endswith("-none-any.whl"):
        problems.append(f"{Path(wheel).name} is a pure-Python wheel: nothing was compiled")
    modules = extension_modules(sdist_files(sdist))
    for module in modules:
        stem = module.replace(".", "/")
        if not any(f.startswith(stem + ".") and f.endswith((".so", ".pyd")) for f in files):
            problems.append(f"no compiled module for {module}")
    sources = sorted(f for f in files if f.endswith(".c"))
    if sources:
        problems.append(f"generated C in the wheel: {sources}")
    data = [f for f in sdist_files(sdist) if f.startswith("pystagedtrees/data/")]
    absent = sorted(set(data) - files)
    if absent:
        problems.append(f"data missing from the wheel: {absent}")
    licences = [f for f in files if re.search(r"\.dist-info/licenses/(LICENSE|NOTICE)$", f)]
    if len(licences) != 2:
        problems.append(f"the wheel's licence files are {licences}, not LICENSE and NOTICE")
    return problems, f"{len(modules)} compiled modules, {len(data)} data files, no C"


def check_installed(wheel):
    problems = []
    compiled = sorted(re.sub(r"\..*$", "", f).replace("/", ".") for f in wheel_files(wheel)
                      if f.endswith((".so", ".pyd")))
    package = importlib.import_module("pystagedtrees")
    if ROOT in Path(package.__file__).resolve().parents:
        problems.append(f"pystagedtrees was imported from the repository ({package.__file__})")
    for module in compiled:
        try:
            loaded = importlib.import_module(module)
        except ImportError as exc:
            problems.append(f"{module} does not import: {exc}")
            continue
        if not loaded.__file__.endswith((".so", ".pyd")):
            problems.append(f"{module} was imported from {loaded.__file__}, not compiled")
    version = f"-{package.__version__}-"
    if version not in Path(wheel).name:
        problems.append(f"pystagedtrees.__version__ {package.__version__} is not the wheel's")
    return problems, (f"{len(compiled)} compiled modules import from "
                      f"{Path(package.__file__).parent}, version {package.__version__}")


def check_quickstart(readme, out):
    text = Path(readme).read_text()
    found = re.search(r"## Quick start\n.*?```python\n(.*?)```", text, re.S)
    if not found:
        return ["README.md has no ```python block under '## Quick start'"], ""
    Path(out).write_text(found.group(1))
    return [], f"README's quick start written to {out}"


def main(argv):
    checks = {"sdist": check_sdist, "wheel": check_wheel, "installed": check_installed,
              "quickstart": check_quickstart}
    if not argv or argv[0] not in checks:
        sys.exit(__doc__)
    problems, summary = checks[argv[0]](*argv[1:])
    for problem in problems:
        print(f"{argv[0]}: {problem}", file=sys.stderr)
    if not problems:
        print(f"{argv[0]}: ok ({summary})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
