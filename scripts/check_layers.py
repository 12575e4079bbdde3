#!/usr/bin/env python3
"""check_layers.py - the include graph between crisp's folders points one way.

    driver (src) -> emitters (emit-oclc, emit-hoist) -> analyses (analysis)
      -> checker (types) -> expander (macros) -> reader -> core -> include

Every `#include "../DIR/file.h"` in a library source is an edge from its
folder to DIR.  This script prints the graph and fails (exit 1) when an edge
points up the layers or the folders form a cycle, or when a folder includes
another's internal header (NAME_int.h: shared by one stage's files only;
the stages meet through their public headers), or when the checker (types/)
spells an identifier of a target: a string literal naming crisp's support
code (crisp_*) or composing a C name (a "%s_..." or "..._%s" format), which
belong to the target's TargetNames (emit-oclc/names.c, issue 16), or spells
C text (issue 16): a string literal made only of operator characters
+-*/%<>=!&|^~ that is no Crisp name (Crisp has + - * / < > <= >= = == /=
!= ~ => ->; C's % && || ! & | ^ << >> += ... are emit-oclc/ctext.c's), or a
string literal that is exactly a C or host type spelling Crisp has not
(__global __local __constant __private __kernel, size_t ptrdiff_t intptr_t
uintptr_t, unsigned/signed X, cl_X, np.X, numpy.X, "struct %s", "%s *",
"(%s)"), which the emitters spell (emit-oclc/ctext.h oclc_type_name), or
names the C spellers the checker once had (ty_cname, check_op_text), or
calls a TargetNames hook (`->names->`) or holds a TargetNames outside
types/cnames.c, the one file that lists what the checker still asks the
target (docs/architecture.md, "Names"); check.c, check.h and check_int.h
only hand the table in (check_program, Checker.names).
The public surface: every name an internal header listed in PREFIXED
declares carries its module prefix (types/expr_int.h: cx_; types/check_int.h:
ck_, or one of the checker's module prefixes listed there), and once built,
`nm` of build/libcrisp.so and build/libcrisp.a shows only the API of
include/crisp.h, and `readelf` shows each declared or prefixed name HIDDEN in its object
(-fvisibility=hidden: libcrisp_all.a, which crisp and the unit tests link,
keeps them global but never exported).
`make test` runs it; see docs/architecture.md for what goes where."""
import os
import re
import sys

# Lower rank = lower layer.  Folders of one rank may include each other only
# without forming a cycle (emit-hoist uses emit-oclc's ABI tables).
LAYERS = [
    ("include",),
    ("core",),
    ("reader",),
    ("macros",),
    ("types",),
    ("analysis",),
    ("emit-oclc", "emit-hoist"),
    ("src",),
]
RANK = {d: i for i, layer in enumerate(LAYERS) for d in layer}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def edges(root, internal=None):
    out = {}
    for d in RANK:
        path = os.path.join(root, d)
        if not os.path.isdir(path):
            continue
        for f in sorted(os.listdir(path)):
            if not f.endswith((".c", ".h")):
                continue
            text = open(os.path.join(path, f), encoding="utf-8").read()
            for inc in INCLUDE.findall(text):
                target = os.path.normpath(os.path.join(d, inc)).split(os.sep)[0]
                if target != d and target in RANK:
                    out.setdefault((d, target), []).append(f"{d}/{f}")
                    if internal is not None and inc.endswith("_int.h"):
                        internal.append(f"{d}/{f} includes {os.path.normpath(os.path.join(d, inc))}")
    return out


# In the checker's sources: a string literal that spells a target's name.
TARGET_SPELLING = re.compile(r'"(crisp_[A-Za-z0-9_]*|%s_[^"]*|[^"]*_%s)"')
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
# C text in the checker's sources: an operator token Crisp does not have, or
# a C/host type spelling (the emitters' ctext.h); see the docstring.
OPERATOR = re.compile(r'"([-+*/%<>=!&|^~]+)"')
HOOK_CALL = re.compile(r"->names->\w+")
HOOK_TABLE = re.compile(r"\bTargetNames\b")
HOOK_FILES = {"cnames.c", "check.c", "check.h", "check_int.h"}
C_SPELLER = re.compile(r"\b(?:ty_cname|check_op_text)\b")
CRISP_OPERATORS = {"+", "-", "*", "/", "<", ">", "<=", ">=", "=", "==", "/=", "!=", "~", "=>", "->"}
C_TYPE = re.compile(r'"(__(?:global|local|constant|private|kernel)(?: %s)?|size_t|ptrdiff_t|u?intptr_t'
                    r'|(?:un)?signed [a-z%]+|cl_[A-Za-z0-9_%]+|np\.[A-Za-z0-9_%]+|numpy\.[A-Za-z0-9_%]+'
                    r'|struct %s|%s ?\*+|\(%s\))"')


def target_spellings(root):
    out = []
    path = os.path.join(root, "types")
    for f in sorted(os.listdir(path)) if os.path.isdir(path) else []:
        if not f.endswith((".c", ".h")):
            continue
        raw = open(os.path.join(path, f), encoding="utf-8").read()
        # a line marked `/* a Crisp name: ... */` composes a name the spec
        # defines (NAME_T of a template instance), not a target's
        spec_lines = {i + 1 for i, line in enumerate(raw.split("\n")) if "/* a Crisp name:" in line}
        text = COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), raw)
        for m in TARGET_SPELLING.finditer(text):
            if text.count(chr(10), 0, m.start()) + 1 in spec_lines:
                continue
            out.append(f"types/{f}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)} (a target's name: TargetNames, emit-oclc/names.c)")
        for m in OPERATOR.finditer(text):
            if m.group(1) not in CRISP_OPERATORS:
                out.append(f"types/{f}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)} (C operator text: emit-oclc/ctext.c)")
        hooks = [] if f == "cnames.c" else list(HOOK_CALL.finditer(text))
        hooks += [] if f in HOOK_FILES else list(HOOK_TABLE.finditer(text))
        for m in hooks:
            out.append(f"types/{f}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)} (a TargetNames hook: ask through cnames.c)")
        for m in C_SPELLER.finditer(text):
            out.append(f"types/{f}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)} (spells C: emit-oclc/ctext.h)")
        for m in C_TYPE.finditer(text):
            if TARGET_SPELLING.fullmatch(m.group(0)):
                continue  # reported above
            out.append(f"types/{f}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)} (C type text: emit-oclc/ctext.c)")
    return out


# Internal headers whose every declared function and object carries a
# prefix: their names are global across several files (issue 16).
# check_int.h: ck_ (issue 16), or a prefix the checker's own modules already
# carry (cx_ the expression files, checker_/check_ check.c, orch_ orch.c,
# constvec_ constvec.c, ctq_/ctquery_ ctquery.c).
PREFIXED = {"types/expr_int.h": ("cx_",),
            "types/check_int.h": ("ck_", "cx_", "checker_", "check_", "orch_", "constvec_", "ctq_", "ctquery_")}
DECL = re.compile(r"^(?!typedef|#|struct|union|enum|\s|})[^;{}()]*?\b([A-Za-z_]\w*)\s*(?:\(|\[)", re.M)


def declared(root, header):
    """(name, line) of every function and object HEADER declares."""
    raw = open(os.path.join(root, header), encoding="utf-8").read()
    text = COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), raw)
    text = re.sub(r"^(typedef\s+)?struct\s+\w+\s*\{.*?^\}[^;]*;", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S | re.M)
    return [(m.group(1), text.count("\n", 0, m.start()) + 1) for m in DECL.finditer(text)]


def unprefixed(root):
    out = []
    for header, prefix in PREFIXED.items():
        names = declared(root, header)
        if not names:
            out.append(f"{header}: declares nothing (the check reads no declaration)")
        for name, line in names:
            if not name.startswith(prefix):
                out.append(f"{header}:{line}: `{name}` lacks the prefix {' or '.join(prefix)}")
    return out


def surface(root):
    """What the built libraries export (None when they are not built)."""
    import subprocess
    so, a = os.path.join(root, "build", "libcrisp.so"), os.path.join(root, "build", "libcrisp.a")
    if not (os.path.exists(so) and os.path.exists(a)):
        return None
    api = set(re.findall(r"CRISP_API\b[^;(]*?\b(crisp_\w+)\s*\(", open(os.path.join(root, "include", "crisp.h")).read()))
    out = []

    def names(cmd):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            out.append(f"{' '.join(cmd)}: {r.stderr.strip()}")
        return {f[2] for f in (l.split() for l in r.stdout.splitlines()) if len(f) == 3}

    for lib, cmd in ((so, ["nm", "-D", "--defined-only", so]), (a, ["nm", "-g", "--defined-only", a])):
        got = names(cmd)
        for extra in sorted(got - api):
            out.append(f"{os.path.relpath(lib, root)} exports `{extra}`, not in include/crisp.h")
        for miss in sorted(api - got):
            out.append(f"{os.path.relpath(lib, root)} lacks the API's `{miss}`")
    for header, prefix in PREFIXED.items():
        folder = os.path.dirname(header)
        objs = sorted(os.path.join(root, "build", folder, f[:-2] + ".o") for f in os.listdir(os.path.join(root, folder))
                      if f.endswith(".c"))
        decl = {name for name, _ in declared(root, header)}
        seen = 0
        for obj in objs:
            if not os.path.exists(obj):
                continue
            r = subprocess.run(["readelf", "-sW", obj], capture_output=True, text=True)
            for f in (l.split() for l in r.stdout.splitlines()):
                if len(f) >= 8 and (f[7] in decl or f[7].startswith(prefix)) and f[4] == "GLOBAL" and f[6] != "UND":
                    seen += 1
                    if f[5] != "HIDDEN":
                        out.append(f"{os.path.relpath(obj, root)}: `{f[7]}` is {f[5]}, not HIDDEN")
        if not seen:
            out.append(f"no symbol {header} declares defined in build/{folder}/*.o (objects not built?)")
    return out


def find_cycle(graph):
    state = {}

    def visit(n, stack):
        state[n] = 1
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m] if m in stack else [n, m]
            if not state.get(m) and (c := visit(m, stack + [m])):
                return c
        state[n] = 2
        return None

    for n in sorted(graph):
        if not state.get(n) and (c := visit(n, [n])):
            return c
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    internal = []
    es = edges(root, internal)
    graph = {}
    bad = 0
    for what in internal:
        print(f"INTERNAL {what}")
        bad += 1
    spellings = target_spellings(root)
    for what in spellings:
        print(f"SPELLS  {what}")
        bad += 1
    for what in unprefixed(root):
        print(f"PREFIX  {what}")
        bad += 1
    exported = surface(root)
    if exported is None:
        print("surface: build/libcrisp.so and build/libcrisp.a are not built (make all): nm check not run")
    for what in exported or []:
        print(f"SURFACE {what}")
        bad += 1
    for (a, b), files in sorted(es.items()):
        graph.setdefault(a, set()).add(b)
        up = RANK[b] > RANK[a]
        print(f"{'UP  ' if up else '    '}{a} -> {b}  ({', '.join(sorted(set(files)))})")
        if up:
            bad += 1
    cycle = find_cycle(graph)
    if cycle:
        print("cycle: " + " -> ".join(cycle))
        bad += 1
    if bad:
        print(f"layers: 0 passed, {bad} failed")
        return 1
    # the edges, no internal header used across, no target spelled in the
    # checker, internal names prefixed, and (when built) the exported surface
    print(f"layers: {len(es) + 3 + (exported is not None)} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
