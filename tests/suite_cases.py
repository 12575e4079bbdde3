"""suite_cases.py - what the golden and negative runners share: where the
compiler is, and which test files a run covers."""
import glob
import os

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CRISP = os.path.join(REPO, os.environ.get("CRISP") or "crisp")


def select_cases(suite, argv):
    """The tests/SUITE/**/*.crisp files matching any filter in argv[1:].
    Returns None (after printing the suite's failure lines) when there are
    cases but no compiler to run them."""
    os.chdir(REPO)
    filters = argv[1:]
    cases = sorted(glob.glob("tests/%s/**/*.crisp" % suite, recursive=True))
    if filters:
        cases = [c for c in cases if any(f in c for f in filters)]
    if cases and not os.access(CRISP, os.X_OK):
        print("FAIL %s: no compiler at %s (run make)" % (suite, CRISP))
        print("%s: 0 passed, 1 failed" % suite)
        return None
    return cases
