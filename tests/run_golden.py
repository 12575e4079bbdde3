#!/usr/bin/python3
"""run_golden.py - golden tests: tests/golden/**/NAME.crisp and its expectations.

  NAME.cl         expected OpenCL C   (crisp --transpile-to=oclc --metadata)
  NAME.metacrisp  expected metadata   (compared as JSON; crisp_version ignored)
  NAME.err        expected stderr     (exact text)
  NAME.read / NAME.expand / NAME.check / NAME.analysis   expected `--dump=KIND` stdout

Before comparing, the absolute repository path (REPO/) is removed from the
output, so paths read `tests/golden/NAME.crisp`, and the version printed by
`crisp --version` is replaced by @VERSION@.  Leading `;` comment lines of
NAME.crisp may hold `; args: -DN=4 ...` (extra command-line arguments) and
`; exit: N` (expected status; default 1 when NAME.err has an `error`, else 0).
Without NAME.err, stderr must be empty.  Every expected NAME.cl is also
validated with clang.

UPDATE_GOLDEN=1 rewrites the expectation files that exist (a case with none
gets .cl+.metacrisp, or .err when it fails); touch an empty NAME.read etc. to
start a dump expectation.  CRISP selects the compiler (default ./crisp).
Usage: /usr/bin/python3 tests/run_golden.py [SUBSTRING...]
Ends with `golden: N passed, N failed`.
"""
import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from suite_cases import CRISP, HERE, REPO, select_cases
CLANG = os.environ.get("CLANG", "clang")
CLANG_FLAGS = ["-x", "cl", "-cl-std=CL1.2", "-Xclang", "-finclude-default-header",
               "-Wall", "-Werror", "-fsyntax-only"]
UPDATE = os.environ.get("UPDATE_GOLDEN", "") not in ("", "0")
TIMEOUT = float(os.environ.get("CRISP_TIMEOUT", "30"))
DUMPS = ("read", "expand", "check", "analysis")
SANITIZER = re.compile(r"ERROR: (Address|Leak|Memory|Thread)Sanitizer|runtime error:")


def header(path):
    """`; args:` and `; exit:` from the leading comment lines."""
    args, exit_status = [], None
    with open(path, errors="replace") as f:
        for line in f:
            s = line.strip()
            if not s.startswith(";"):
                if s:
                    break
                continue
            m = re.match(r";+\s*args:\s*(.*)$", s)
            if m:
                args += shlex.split(m.group(1))
            m = re.match(r";+\s*exit:\s*(\d+)\s*$", s)
            if m:
                exit_status = int(m.group(1))
    return args, exit_status


class Normalizer:
    def __init__(self, version):
        self.version = version

    def __call__(self, text, out_dir=None):
        if out_dir:
            text = text.replace(out_dir + "/", "<out>/").replace(out_dir, "<out>")
        text = text.replace(REPO + "/", "")
        if self.version:
            text = text.replace(self.version, "@VERSION@")
        return text


def crisp_version():
    try:
        r = subprocess.run([CRISP, "--version"], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=TIMEOUT)
    except OSError:
        return None
    m = re.search(r"\d+\.\d+\.\d+\S*", r.stdout + r.stderr)
    return m.group(0) if m else None


def run_crisp(args):
    try:
        r = subprocess.run([CRISP] + args, capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=TIMEOUT, errors="replace")
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", "(timed out after %g s)" % TIMEOUT


def diff(expected, actual, label):
    lines = list(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                      "expected " + label, "actual " + label))
    if len(lines) > 60:
        lines = lines[:60] + ["... (%d more diff lines)\n" % (len(lines) - 60)]
    return "".join(line if line.endswith("\n") else line + "\n\\ no newline\n"
                   for line in lines)


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    print("   updated %s" % os.path.relpath(path, REPO))


def meta_canon(text):
    obj = json.loads(text)
    if isinstance(obj, dict) and "crisp_version" in obj:
        obj["crisp_version"] = "@VERSION@"
    return json.dumps(obj, indent=2, sort_keys=True) + "\n"


def clang_check(path):
    r = subprocess.run([CLANG] + CLANG_FLAGS + [path], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=120)
    return None if r.returncode == 0 else r.stderr.strip()


def check_status(status, stderr, want):
    if status == "timeout":
        return "crisp timed out"
    if isinstance(status, int) and status < 0:
        return "crisp killed by signal %d" % -status
    if SANITIZER.search(stderr):
        lines = stderr.strip().splitlines()
        return "sanitizer report:\n" + "\n".join(lines[:40] + (
            ["... (%d more lines)" % (len(lines) - 40)] if len(lines) > 40 else []))
    if status not in (0, 1, 2):
        return "crisp crashed (status %d)" % status
    if status != want:
        return "exit status %d, expected %d" % (status, want)
    return None


def run_case(src, norm):
    """Returns a list of problems (empty = pass)."""
    base = src[:-len(".crisp")]
    rel = os.path.relpath(src, REPO)
    extra, want_status = header(src)
    have = {ext: os.path.exists(base + "." + ext)
            for ext in ("cl", "metacrisp", "err") + DUMPS}
    problems = []
    if not any(have.values()):
        if not UPDATE:
            return ["no expected outputs (create them with UPDATE_GOLDEN=1)"]
        have["cl"] = have["metacrisp"] = True   # decided below
        new_case = True
    else:
        new_case = False
    exp_err = read(base + ".err") if have["err"] else ""
    if want_status is None:
        want_status = 1 if re.search(r"\berror\b", exp_err) else 0

    def compare_err(stderr, what):
        nonlocal exp_err
        if UPDATE:
            if stderr != exp_err:
                if stderr:
                    write(base + ".err", stderr)
                elif os.path.exists(base + ".err"):
                    os.remove(base + ".err")
                    print("   removed %s.err" % rel[:-6])
                exp_err = stderr
            return
        if stderr != exp_err:
            if have["err"]:
                problems.append("stderr of %s differs:\n%s" % (what, diff(exp_err, stderr, rel[:-6] + ".err")))
            else:
                problems.append("unexpected stderr from %s (add %s.err):\n%s"
                                % (what, rel[:-6], stderr.rstrip()))

    # 1. transpile + metadata (also when only .err is expected)
    if have["cl"] or have["metacrisp"] or (have["err"] and not any(have[d] for d in DUMPS)):
        out = tempfile.mkdtemp(prefix="golden-")
        try:
            status, stdout, stderr = run_crisp(
                ["--transpile-to=oclc", "--metadata", "--output-dir=" + out] + extra + [src])
            stderr = norm(stderr, out)
            stem = os.path.basename(base)
            if new_case:
                if status == 0:
                    have["err"] = bool(stderr)
                else:
                    have["cl"] = have["metacrisp"] = False
                    have["err"] = True
                if have["err"]:
                    write(base + ".err", stderr)
                    exp_err = stderr
                    if want_status is not None and status in (0, 1):
                        want_status = status
            bad = check_status(status, stderr, want_status)
            if bad and not UPDATE:
                problems.append(bad)
            compare_err(stderr, "--transpile-to=oclc --metadata")
            for ext in ("cl", "metacrisp"):
                if not have[ext]:
                    continue
                got_path = os.path.join(out, stem + "." + ext)
                if not os.path.exists(got_path):
                    problems.append("crisp did not write %s.%s" % (stem, ext))
                    continue
                got = norm(read(got_path), out)
                exp_path = base + "." + ext
                exp = read(exp_path) if os.path.exists(exp_path) else None
                if ext == "metacrisp":
                    try:
                        got_c = meta_canon(got)
                    except ValueError as e:
                        problems.append("metadata is not valid JSON: %s" % e)
                        continue
                    same = exp is not None and exp.strip() and _meta_eq(exp, got_c)
                else:
                    same = exp == got
                if same:
                    continue
                if UPDATE:
                    write(exp_path, got)
                else:
                    if ext == "metacrisp":
                        try:
                            exp_c = meta_canon(exp)
                        except ValueError as e:
                            problems.append("%s is not valid JSON: %s" % (exp_path, e))
                            continue
                        problems.append("metadata differs:\n" + diff(exp_c, got_c, rel[:-6] + ".metacrisp"))
                    else:
                        problems.append(".cl differs:\n" + diff(exp, got, rel[:-6] + ".cl"))
        finally:
            shutil.rmtree(out, ignore_errors=True)

    # 2. dumps
    for kind in DUMPS:
        if not have[kind]:
            continue
        status, stdout, stderr = run_crisp(["--dump=" + kind] + extra + [src])
        stdout, stderr = norm(stdout), norm(stderr)
        bad = check_status(status, stderr, want_status)
        if bad and not UPDATE:
            problems.append("--dump=%s: %s" % (kind, bad))
        compare_err(stderr, "--dump=" + kind)
        exp = read(base + "." + kind)
        if stdout != exp:
            if UPDATE:
                write(base + "." + kind, stdout)
            else:
                problems.append("--dump=%s differs:\n%s" % (kind, diff(exp, stdout, rel[:-6] + "." + kind)))

    # 3. the expected OpenCL C must itself be valid
    if os.path.exists(base + ".cl") and read(base + ".cl").strip():
        err = clang_check(base + ".cl")
        if err:
            problems.append("clang rejects %s.cl:\n%s" % (rel[:-6], err))
    return problems


def _meta_eq(exp_text, got_canon):
    try:
        return meta_canon(exp_text) == got_canon
    except ValueError:
        return False


def main(argv):
    cases = select_cases("golden", argv)
    if cases is None:
        return 1
    norm = Normalizer(crisp_version())
    passed = failed = 0
    for src in cases:
        name = os.path.relpath(src, "tests/golden")[:-len(".crisp")]
        try:
            problems = run_case(os.path.join(REPO, src), norm)
        except Exception as e:  # noqa: BLE001 - a runner bug is a failure, not a crash
            problems = ["%s: %s" % (type(e).__name__, e)]
        if problems:
            failed += 1
            print("FAIL %s: %s" % (name, problems[0].split("\n")[0]))
            rest = "\n".join([problems[0].partition("\n")[2]] + problems[1:]).strip("\n")
            if rest:
                print("\n".join("    " + line for line in rest.splitlines()))
        else:
            passed += 1
            print("ok %s" % name)
        sys.stdout.flush()
    print("golden: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
