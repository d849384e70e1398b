"""Open the built site in headless Chromium: the index page and the
``stages_bhc`` reference page render their title and navigation (screenshots
saved), and the site's search (JavaScript) finds ``stages_bhc``.

    python docs/tools/browser_check.py [SITE] [--screenshots DIR]

SITE defaults to docs/_build/html.  Pages are opened as files: no server and
no network.  Exits 1, saying what failed, when a check fails.
"""
import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from html import unescape
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
STAGES_BHC = "api/generated/pystagedtrees.stages_bhc.html"
# (page, what its <h1> says, a file name for its screenshot)
PAGES = [
    ("index.html", "pystagedtrees", "index.png"),
    (STAGES_BHC, "pystagedtrees.stages_bhc", "stages_bhc.png"),
]


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    sys.exit("browser check: no Chromium found (Debian: apt-get install -y chromium)")


def run_chromium(url, *options, profile):
    """Chromium's stdout after loading ``url`` and running its scripts."""
    command = [
        chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={profile}", "--window-size=1280,900",
        "--virtual-time-budget=15000", *options, url,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"chromium failed on {url}: {done.stderr[-2000:]}")
    return done.stdout


def text_of(html):
    """The visible text of an HTML fragment (tags dropped)."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def check_page(dom, heading):
    """What is wrong with a rendered page: its <h1>, title and navigation."""
    problems = []
    h1 = re.search(r"<h1[^>]*>(.*?)</h1>", dom, re.S)
    if not h1 or heading not in text_of(h1.group(1)):
        problems.append(f"no <h1> saying {heading!r}")
    title = re.search(r"<title>(.*?)</title>", dom, re.S)
    if not title or "pystagedtrees" not in text_of(title.group(1)):
        problems.append("no <title> naming pystagedtrees")
    # the theme's navigation bar and its links to the sections of the site
    if 'class="bd-header' not in dom or "API reference" not in text_of(dom):
        problems.append("no navigation bar with the API reference")
    if len(text_of(dom)) < 500:
        problems.append("almost no text: a blank or error page")
    return problems


def check_screenshot(path):
    """A blank page is one colour: the screenshot must have some of them."""
    try:
        from PIL import Image
    except ImportError:  # matplotlib brings Pillow; without it only the DOM is checked
        return []
    with Image.open(path) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
    if colours is not None and len(colours) < 8:
        return [f"{path.name} is nearly blank ({len(colours)} colours)"]
    return []


def check_search(site, profile):
    """The search page, run by its JavaScript, lists the stages_bhc page."""
    dom = run_chromium((site / "search.html").as_uri() + "?q=stages_bhc", "--dump-dom",
                       profile=profile)
    results = re.search(r'<ul[^>]*class="search"[^>]*>(.*?)</ul>', dom, re.S)
    if not results or STAGES_BHC not in results.group(1):
        found = re.findall(r'href="([^"]+)"', results.group(1)) if results else []
        return [f"search for stages_bhc does not list {STAGES_BHC} (found {found[:5]})"]
    return []


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", default=str(DOCS / "_build" / "html"))
    parser.add_argument("--screenshots", default=str(DOCS / "_build" / "screenshots"))
    args = parser.parse_args(argv)
    site = Path(args.site).resolve()
    shots = Path(args.screenshots).resolve()
    shots.mkdir(parents=True, exist_ok=True)
    problems = []
    with tempfile.TemporaryDirectory() as profile:
        for page, heading, shot in PAGES:
            path = site / page
            if not path.is_file():
                problems.append(f"{page}: not built")
                continue
            dom = run_chromium(path.as_uri(), "--dump-dom", profile=profile)
            problems += [f"{page}: {p}" for p in check_page(dom, heading)]
            run_chromium(path.as_uri(), f"--screenshot={shots / shot}", profile=profile)
            problems += check_screenshot(shots / shot)
        problems += check_search(site, profile)
    for problem in problems:
        print(f"browser check: {problem}", file=sys.stderr)
    if not problems:
        print(f"browser check: index and stages_bhc pages render, search finds stages_bhc; "
              f"screenshots in {shots}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
