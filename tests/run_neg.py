#!/usr/bin/python3
"""run_neg.py - the negative suite: one tests/neg/**/NAME.crisp per diagnostic.

The leading `;` comment lines of NAME.crisp say what must happen:

  ; expect: LINE:COL: error[E0301]: message substring
  ; expect: OTHER.crisp:LINE:COL: error[E0302]: ...   (diagnostic in another file)
  ; expect: LINE:COL: warning[W0101]: ...           (also note: lines)
  ; expect-stderr: text                              (substring anywhere in stderr)
  ; exit: 2                                          (expected status, default 1)
  ; args: -DN=0 --other-flag                         (extra arguments)
  ; fill: COUNT TEXT                                 (see below)

A `; fill: COUNT TEXT` line makes an input too large to check in: the
compiled file is NAME.crisp with each `@FILL@` replaced by TEXT (the rest
of the line, `\n` for a newline) repeated COUNT times (the resource-limit
diagnostics: 1 MiB tokens, --max-memory).  `crisp --explain` does the same.

The file is checked with `crisp [ARGS] NAME.crisp` (check only, run in an
empty directory); the exit status must match and every `expect` line must
match a diagnostic line `FILE:LINE:COL: KIND[CODE]: MESSAGE` on stderr (FILE
is tests/neg/NAME.crisp, relative to the repository; MESSAGE must contain the
substring; `[CODE]` may be omitted in the expectation to accept any code).
Then the same command with --transpile-to=oclc --metadata --output-dir=TMP
must exit the same way and write no file.  CRISP selects the compiler.
Usage: /usr/bin/python3 tests/run_neg.py [SUBSTRING...]
Ends with `neg: N passed, N failed`.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from suite_cases import CRISP, HERE, REPO, select_cases
TIMEOUT = float(os.environ.get("CRISP_TIMEOUT", "30"))
SANITIZER = re.compile(r"ERROR: (Address|Leak|Memory|Thread)Sanitizer|runtime error:")
EXPECT = re.compile(r"^(?:(?P<file>\S+?):)?(?P<line>\d+):(?P<col>\d+):\s*"
                    r"(?P<kind>error|warning|note)(?:\[(?P<code>[^\]]*)\])?:\s*(?P<msg>.*?)\s*$")
DIAG = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): "
                  r"(?P<kind>error|warning|note)(?:\[(?P<code>[^\]]*)\])?: (?P<msg>.*)$")


class BadTest(Exception):
    pass


def parse(path, rel):
    expects, stderr_subs, args, status, fill = [], [], [], 1, None
    with open(path, errors="replace") as f:
        for n, line in enumerate(f, 1):
            s = line.strip()
            if not s.startswith(";"):
                if s:
                    break
                continue
            m = re.match(r";+\s*([a-z-]+):\s?(.*)$", s)
            if not m:
                continue
            key, val = m.group(1), m.group(2).strip()
            if key == "expect":
                e = EXPECT.match(val)
                if not e:
                    raise BadTest("line %d: cannot parse `; expect: %s` (want "
                                  "LINE:COL: error[CODE]: message)" % (n, val))
                d = e.groupdict()
                d["file"] = d["file"] or rel
                if not d["file"].startswith("tests/"):  # relative to the test's directory
                    d["file"] = os.path.join(os.path.dirname(rel), d["file"])
                d["text"] = val
                expects.append(d)
            elif key == "expect-stderr":
                stderr_subs.append(val)
            elif key == "exit":
                status = int(val)
            elif key == "args":
                args += shlex.split(val)
            elif key == "fill":
                m = re.match(r"(\d+) (.+)$", val)
                if not m:
                    raise BadTest("line %d: want `; fill: COUNT TEXT`" % n)
                fill = (int(m.group(1)), m.group(2).replace("\\n", "\n"))
    if not expects and not stderr_subs:
        raise BadTest("no `; expect:` line at the top of the file")
    return expects, stderr_subs, args, status, fill


def run(args, cwd, root=REPO):
    try:
        r = subprocess.run([CRISP] + args, cwd=cwd, capture_output=True, text=True,
                           errors="replace", stdin=subprocess.DEVNULL, timeout=TIMEOUT)
        return r.returncode, r.stdout, r.stderr.replace(root + "/", "")
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def status_problem(status, stderr, want, what):
    if status == "timeout":
        return "%s: timed out after %g s" % (what, TIMEOUT)
    if isinstance(status, int) and status < 0:
        return "%s: killed by signal %d" % (what, -status)
    if SANITIZER.search(stderr):
        lines = stderr.strip().splitlines()
        return "%s: sanitizer report:\n%s" % (what, "\n".join(lines[:40] + (
            ["... (%d more lines)" % (len(lines) - 40)] if len(lines) > 40 else [])))
    if status != want:
        return "%s: exit status %s, expected %d" % (what, status, want)
    return None


def run_case(src):
    rel = os.path.relpath(src, REPO)
    expects, stderr_subs, args, want, fill = parse(src, rel)
    problems = []
    work = tempfile.mkdtemp(prefix="neg-")
    try:
        cwd = os.path.join(work, "cwd")
        out = os.path.join(work, "out")
        os.mkdir(cwd)
        os.mkdir(out)
        root = REPO
        if fill:  # compile the filled copy, under the same relative name
            root = os.path.join(work, "src")
            os.makedirs(os.path.join(root, os.path.dirname(rel)))
            with open(src, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read().replace("@FILL@", fill[1] * fill[0])
            src = os.path.join(root, rel)
            with open(src, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
        status, stdout, stderr = run(args + [src], cwd, root)
        p = status_problem(status, stderr, want, "check")
        if p:
            problems.append(p)
        diags = [m.groupdict() for m in map(DIAG.match, stderr.splitlines()) if m]
        for e in expects:
            hit = [d for d in diags
                   if d["file"] == e["file"] and d["line"] == e["line"]
                   and d["col"] == e["col"] and d["kind"] == e["kind"]
                   and (e["code"] is None or d["code"] == e["code"])
                   and e["msg"] in d["msg"]]
            if not hit:
                near = [d for d in diags if d["kind"] == e["kind"] and (
                    e["code"] is None or d["code"] == e["code"])]
                problems.append("missing diagnostic %s: %s" % (e["file"], e["text"]) + (
                    "\n  nearest: " + "\n  nearest: ".join(
                        "%s:%s:%s: %s[%s]: %s" % (d["file"], d["line"], d["col"], d["kind"],
                                                  d["code"], d["msg"]) for d in near[:3])
                    if near else ""))
        for s in stderr_subs:
            if s not in stderr:
                problems.append("stderr lacks %r" % s)
        if os.listdir(cwd):
            problems.append("check-only run wrote files: %s" % ", ".join(sorted(os.listdir(cwd))))
        if problems:
            problems.append("stderr was:\n" + (stderr.rstrip() or "(empty)"))
            return problems
        # Same program with output requested: same status, nothing written.
        status2, _, stderr2 = run(["--transpile-to=oclc", "--metadata",
                                   "--output-dir=" + out] + args + [src], cwd, root)
        p = status_problem(status2, stderr2, want, "--transpile-to=oclc --metadata")
        if p:
            problems.append(p)
        written = os.listdir(out) + os.listdir(cwd)
        if written and want != 0:
            problems.append("wrote output despite errors: %s" % ", ".join(sorted(written)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return problems


def main(argv):
    cases = select_cases("neg", argv)
    if cases is None:
        return 1
    passed = failed = 0
    for src in cases:
        name = os.path.relpath(src, "tests/neg")[:-len(".crisp")]
        try:
            problems = run_case(os.path.join(REPO, src))
        except BadTest as e:
            problems = ["bad test file: %s" % e]
        except Exception as e:  # noqa: BLE001
            problems = ["%s: %s" % (type(e).__name__, e)]
        if problems:
            failed += 1
            first, _, rest = problems[0].partition("\n")
            print("FAIL %s: %s" % (name, first))
            rest = "\n".join([rest] + problems[1:]).strip("\n")
            if rest:
                print("\n".join("    " + line for line in rest.splitlines()))
        else:
            passed += 1
            print("ok %s" % name)
        sys.stdout.flush()
    print("neg: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
