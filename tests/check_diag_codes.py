#!/usr/bin/python3
"""check_diag_codes.py - the diagnostics registry (core/diag_codes.h) agrees
with the compiler's sources and its tests.

One case per code:
  * a code written in a library source ("E0312" in core/ reader/ macros/
    types/ analysis/ emit-oclc/ emit-hoist/ src/, comments excluded) is in
    the table;
  * a code in the table is written somewhere in the sources;
  * a DIAG entry has a negative test (a `; expect: ... [CODE]` line in
    tests/neg/); the shortest one is the example `crisp --explain CODE`
    shows (scripts/embed_examples.sh builds them into the binary), and
    --explain must show it reporting CODE;
  * a DIAG_INTERNAL entry gives its reason instead.
Plus one case for the table's own form (sorted, no duplicate, severities).
A failure says exactly what to add or remove, with the entry to paste.

Usage: /usr/bin/python3 tests/check_diag_codes.py [CODE...]
       /usr/bin/python3 tests/check_diag_codes.py --entry CODE   (print a
           suggested table entry, built from the sources and tests/neg/)
Ends with `codes: N passed, N failed`.
"""
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CRISP = os.path.join(REPO, os.environ.get("CRISP") or "crisp")
TABLE = "core/diag_codes.h"
SOURCE_DIRS = ["core", "reader", "macros", "types", "analysis", "emit-oclc", "emit-hoist", "src"]
CODE = re.compile(r'"([EW]\d{4})"')
STRING = r'"(?:[^"\\\n]|\\.)*"'
ENTRY = re.compile(r'^(DIAG|DIAG_INTERNAL)\(\s*([EW]\d{4})\s*,\s*(ERROR|WARNING)\s*,\s*((?:%s\s*)+)'
                   r'(?:,\s*((?:%s\s*)+))?\)' % (STRING, STRING), re.M)
NEG_EXPECT = re.compile(r"^;+\s*expect(?:-stderr)?:.*?\b(?:error|warning)\[([EW]\d{4})\]", re.M)


def c_string(text):
    """The value of one or more adjacent C string literals."""
    out = []
    for lit in re.findall(STRING, text):
        body = lit[1:-1]
        out.append(re.sub(r'\\(.)', lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body))
    return "".join(out)


def strip_c_comments(text):
    """Comments become blanks (newlines kept, so line numbers stay right)."""
    def blank(m):
        s = m.group(0)
        return s if s.startswith('"') or s.startswith("'") else re.sub(r"[^\n]", " ", s)
    return re.sub(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|/\*.*?\*/|//[^\n]*', blank, text, flags=re.S)


def read_table():
    """{code: (kind, severity, title, example_or_reason, line)} and problems."""
    path = os.path.join(REPO, TABLE)
    text = open(path, encoding="utf-8").read()
    table, problems, order = {}, [], []
    for m in ENTRY.finditer(text):
        kind, code, sev, title, extra = m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)
        line = text.count("\n", 0, m.start()) + 1
        if code in table:
            problems.append("%s:%d: %s is listed twice (also line %d)" % (TABLE, line, code, table[code][4]))
        table[code] = (kind, sev, c_string(title), c_string(extra or ""), line)
        if (kind == "DIAG") != (extra is None):
            problems.append("%s:%d: %s: write DIAG(CODE, SEVERITY, \"title\") or "
                            "DIAG_INTERNAL(CODE, SEVERITY, \"title\", \"reason\")" % (TABLE, line, code))
        order.append(code)
    # every DIAG line must have parsed
    starts = len(re.findall(r"^(DIAG|DIAG_INTERNAL)\(", text, re.M))
    if starts != len(order):
        problems.append("%s: %d entries start with DIAG( but %d parse as "
                        "DIAG(CODE, ERROR|WARNING, \"title\")" % (TABLE, starts, len(order)))
    if order != sorted(order):
        bad = next(b for a, b in zip(order, order[1:]) if b < a)
        problems.append("%s: entries are not in code order (%s is out of place)" % (TABLE, bad))
    for code, (kind, sev, title, extra, line) in table.items():
        want = "WARNING" if code.startswith("W") else "ERROR"
        if sev != want:
            problems.append("%s:%d: %s has severity %s; %s codes are %s" % (TABLE, line, code, sev, code[0], want))
        if not title.strip() or re.search(r"%[-#0-9.*]*(?:ll|l|z|h)?[sdicgufx]", title):
            problems.append("%s:%d: %s needs a short title (no printf formats)" % (TABLE, line, code))
        if kind == "DIAG_INTERNAL" and not extra.strip():
            problems.append("%s:%d: %s is internal but gives no reason" % (TABLE, line, code))
    return table, problems


def source_uses():
    """{code: [(file, line, message format or None)]} from the library sources."""
    uses = {}
    for d in SOURCE_DIRS:
        for path in sorted(glob.glob(os.path.join(REPO, d, "*.[ch]"))):
            rel = os.path.relpath(path, REPO)
            if rel == TABLE:
                continue
            raw = open(path, encoding="utf-8", errors="replace").read()
            text = strip_c_comments(raw)
            for m in CODE.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                after = re.match(r"\s*,\s*((?:%s\s*)+)" % STRING, text[m.end():m.end() + 800])
                what = c_string(after.group(1)) if after else None
                if not what:  # #define NAME "E0321"  /* what it is */
                    d = re.search(r'#\s*define\s+\w+\s+"%s"\s*/\*\s*(.*?)\s*\*/' % m.group(1),
                                  raw.split("\n")[line - 1])
                    what = d.group(1) if d else None
                uses.setdefault(m.group(1), []).append((rel, line, what))
    return uses


def neg_tests():
    """{code: [path]} of the negative tests expecting each code."""
    tests = {}
    for path in sorted(glob.glob(os.path.join(REPO, "tests/neg/**/*.crisp"), recursive=True)):
        head = []
        for line in open(path, encoding="utf-8", errors="replace"):
            if line.strip() and not line.lstrip().startswith(";"):
                break
            head.append(line)
        for code in NEG_EXPECT.findall("".join(head)):
            tests.setdefault(code, [])
            rel = os.path.relpath(path, REPO)
            if rel not in tests[code]:
                tests[code].append(rel)
    return tests


def suggest_title(fmt):
    if not fmt:
        return "TITLE"
    t = re.sub(r"%[-#0-9.*]*(?:ll|l|z|h)?[sdicgufx]", "...", fmt.replace("%%", "\0")).replace("\0", "%")
    t = re.split(r": |; ", t)[0]
    return t if len(t) <= 70 else t[:70].rsplit(" ", 1)[0]


def suggest_entry(code, uses):
    fmt = next((u[2] for u in uses.get(code, []) if u[2]), None)
    return '    DIAG(%s, %s, "%s")' % (code, "WARNING" if code.startswith("W") else "ERROR",
                                   suggest_title(fmt).replace('"', '\\"'))


def explain(code):
    try:
        r = subprocess.run([CRISP, "--explain", code], capture_output=True, text=True, timeout=30,
                           errors="replace", stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, "timed out"
    return r.returncode, r.stdout + r.stderr


def main(argv):
    os.chdir(REPO)
    if len(argv) == 3 and argv[1] == "--entry":
        print(suggest_entry(argv[2], source_uses()))
        return 0
    filters = argv[1:]
    table, table_problems = read_table()
    uses, tests = source_uses(), neg_tests()
    have_crisp = os.access(CRISP, os.X_OK)
    passed = failed = 0

    def report(name, problems):
        nonlocal passed, failed
        if problems:
            failed += 1
            print("FAIL %s: %s" % (name, problems[0]))
            for p in problems[1:]:
                print("    " + p.replace("\n", "\n    "))
        else:
            passed += 1
            print("ok %s" % name)

    if not filters:
        report("table", table_problems)
    for code in sorted(set(table) | set(uses)):
        if filters and not any(f in code for f in filters):
            continue
        problems = []
        where = ", ".join("%s:%d" % (f, l) for f, l, _ in uses.get(code, [])[:3])
        if code not in table:
            problems.append("%s is used (%s) but is not in %s; add this line, in code order:\n%s" % (
                code, where, TABLE, suggest_entry(code, uses)))
            if code not in tests:
                problems.append("and a negative test tests/neg/%s_WHAT.crisp with a line "
                                "`; expect: LINE:COL: %s[%s]: MESSAGE` (see tests/README.md)" % (
                                    code, "warning" if code[0] == "W" else "error", code))
        else:
            kind, sev, title, reason, line = table[code]
            if code not in uses:
                problems.append("%s is in %s (line %d) but no source reports it: remove its entry" % (
                    code, TABLE, line))
            elif kind == "DIAG" and code not in tests:
                problems.append("%s (%s) has no negative test: write tests/neg/%s_WHAT.crisp with a line "
                                "`; expect: LINE:COL: %s[%s]: MESSAGE` (or, if no source can trigger it, "
                                "make its entry DIAG_INTERNAL(%s, %s, \"...\", \"why\"))" % (
                                    code, where, code, sev.lower(), code, code, sev))
            elif kind == "DIAG" and not have_crisp:
                problems.append("no compiler at %s to run `crisp --explain %s` (run make)" % (CRISP, code))
            elif kind == "DIAG":
                status, out = explain(code)
                shown = out.split("\ncrisp reports", 1)
                if status != 0 or len(shown) < 2 or "[%s]" % code not in shown[1]:
                    problems.append("`crisp --explain %s` (exit %s) does not show its example reporting %s "
                                    "(the example is the shortest of %s; rebuild with make):\n%s" % (
                                        code, status, code, ", ".join(tests[code]), out.rstrip()))
        report(code, problems)
    print("codes: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
