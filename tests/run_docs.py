#!/usr/bin/python3
"""run_docs.py - every code sample of README.md and docs/tutorial.md is tested.

Each fenced code block (```) must follow a line that says how it is tested
(an indented code block is refused: fence it and say so):

  <!-- test: file PATH -->        the block is an excerpt of PATH, a file of
                                  the repository that is itself tested
  <!-- test: sh -->               the block is run (sh -e) and must succeed
  <!-- test: output PATH -->      the block is an excerpt of PATH, a file an
                                  earlier command of the document wrote
  <!-- test: stdout-of N CMD -->  CMD is run, must exit with status N, and
  <!-- test: stderr-of N CMD -->  the block is an excerpt of its stdout/stderr
  <!-- test: commands -->        each `make TARGET` line names a target that
                                  exists (make -n), each other line a program
  <!-- test: help -->            every option in the block is in `crisp --help`

and a line `<!-- test-run: CMD -->` alone runs CMD (which must succeed)
where it stands, to make what the next blocks show.  An excerpt matches
consecutive lines of its file (trailing blanks ignored); a line `...` in it
stands for any number of lines.

Commands run with `sh` in a fresh directory per document, holding links
to the repository's examples/ and docs/, with the repository's ./crisp
first on PATH and `python3` the test Python (PY, the virtual
environment's, or /usr/bin/python3).  CRISP_PLATFORM is set to PoCL's
platform (CRISPTEST_PLATFORM overrides) so the hoists run where the tests
run.  Each block is a case.  Then the editor modes in editors/ (check_editors):
each names every form of editors/forms.txt, the VS Code files are JSON, the
TextMate grammar's regular expressions compile and highlight
docs/tutorial/saxpy.crisp as expected (a small matcher here), and, where
vim and emacs are installed, the Vim syntax and the Emacs mode load (the
Emacs mode byte-compiles without warnings) and give the same faces.
Ends with `docs: N passed, N failed`.
Usage: /usr/bin/python3 tests/run_docs.py [SUBSTRING...]   (filters documents)
"""
import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DOCS = ["README.md", "docs/tutorial.md"]
PY = os.environ.get("PY") or (os.path.join(os.environ["VIRTUAL_ENV"], "bin", "python3")
                              if os.environ.get("VIRTUAL_ENV") else "/usr/bin/python3")
TIMEOUT = 300
MARK = re.compile(r"^<!--\s*test:\s*(.*?)\s*-->\s*$")
RUN = re.compile(r"^<!--\s*test-run:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(```+|~~~+)")


class Doc:
    """The blocks and run lines of one markdown file, in order."""

    def __init__(self, path):
        self.path = path
        self.items = []   # ("block", line, marker, text) | ("run", line, cmd) | ("untested", line, text)
        lines = open(os.path.join(REPO, path), encoding="utf-8").read().split("\n")
        i = 0
        while i < len(lines):
            m = FENCE.match(lines[i])
            if m:
                start, fence = i, m.group(1)
                j = i + 1
                while j < len(lines) and not lines[j].startswith(fence):
                    j += 1
                text = "\n".join(lines[i + 1:j])
                mark = MARK.match(lines[i - 1]) if i > 0 else None
                if mark:
                    self.items.append(("block", start + 1, mark.group(1), text))
                else:
                    self.items.append(("untested", start + 1, text))
                i = j + 1
                continue
            r = RUN.match(lines[i])
            if r:
                self.items.append(("run", i + 1, r.group(1)))
            elif (lines[i].startswith("    ") and i > 0 and not lines[i - 1].strip()
                  and not self.in_list(lines, i)):
                self.items.append(("untested", i + 1, lines[i]))  # an indented code block
            i += 1

    @staticmethod
    def in_list(lines, i):
        """Is line I (indented, after a blank) the continuation of a list item?"""
        for k in range(i - 1, -1, -1):
            l = lines[k]
            if not l.strip():
                continue
            if re.match(r"^\s*([*+-]|\d+[.)])\s", l):
                return True
            if not l.startswith("  "):
                return False
        return False


def excerpt_problem(block, text, what):
    """None when BLOCK's lines are consecutive lines of TEXT (`...` = a gap)."""
    want = [l.rstrip() for l in block.split("\n")]
    while want and not want[-1]:
        want.pop()
    have = [l.rstrip() for l in text.split("\n")]
    parts, cur = [], []
    for l in want:
        if l.strip() == "...":
            parts.append(cur)
            cur = []
        else:
            cur.append(l)
    parts.append(cur)

    def find(part, start):
        for k in range(start, len(have) - len(part) + 1):
            if have[k:k + len(part)] == part:
                return k
        return -1

    pos = 0
    for part in parts:
        if not part:
            continue
        k = find(part, pos)
        if k < 0:
            # the first line of the part that is not there, and its nearest
            bad = next((l for l in part if l not in have[pos:]), part[0])
            near = difflib.get_close_matches(bad, have, n=1, cutoff=0.5)
            return "not an excerpt of %s: these lines are not there, in this order:\n  %s\n" \
                   "first line not found: %r%s" % (what, "\n  ".join(part[:8]), bad,
                                                   ("\nnearest line there:   %r" % near[0]) if near else "")
        pos = k + len(part)
    return None


class Runner:
    def __init__(self, doc):
        self.doc = doc
        self.work = tempfile.mkdtemp(prefix="docs-")
        for d in ("examples", "docs"):
            os.symlink(os.path.join(REPO, d), os.path.join(self.work, d))
        bindir = os.path.join(self.work, ".bin")
        os.mkdir(bindir)
        os.symlink(PY, os.path.join(bindir, "python3"))
        self.env = dict(os.environ)
        self.env["PATH"] = os.pathsep.join([REPO, bindir, self.env.get("PATH", "")])
        self.env["CRISP_PLATFORM"] = os.environ.get("CRISPTEST_PLATFORM", "Portable Computing Language")
        self.env.pop("NO_COLOR", None)
        self.env["PYTHONDONTWRITEBYTECODE"] = "1"

    def sh(self, script):
        try:
            r = subprocess.run(["sh", "-e", "-c", script], cwd=self.work, env=self.env, capture_output=True,
                               text=True, errors="replace", stdin=subprocess.DEVNULL, timeout=TIMEOUT)
            return r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired:
            return "timeout", "", "timed out after %d s" % TIMEOUT

    def block(self, marker, text):
        words = marker.split(None, 1)
        kind, arg = words[0], (words[1] if len(words) > 1 else "")
        if kind == "file":
            path = os.path.join(REPO, arg)
            if not os.path.isfile(path):
                return "no file %s" % arg
            return excerpt_problem(text, open(path, encoding="utf-8").read(), arg)
        if kind == "output":
            path = os.path.join(self.work, arg)
            if not os.path.isfile(path):
                return "no file %s (made by an earlier command?)" % arg
            return excerpt_problem(text, open(path, encoding="utf-8", errors="replace").read(), arg)
        if kind == "sh":
            status, out, err = self.sh(text)
            if status != 0:
                return "exit status %s:\n%s%s" % (status, out, err)
            return None
        if kind in ("stdout-of", "stderr-of"):
            want, _, cmd = arg.partition(" ")
            status, out, err = self.sh(cmd)
            if str(status) != want:
                return "`%s`: exit status %s, expected %s:\n%s%s" % (cmd, status, want, out, err)
            return excerpt_problem(text, out if kind == "stdout-of" else err, "the output of `%s`" % cmd)
        if kind == "commands":
            for line in text.split("\n"):
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                w = shlex.split(line)
                if w[0] == "make":
                    targets = [x for x in w[1:] if "=" not in x and not x.startswith("-")]
                    r = subprocess.run(["make", "-n", "--no-print-directory"] + targets, cwd=REPO,
                                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
                    if r.returncode != 0:
                        return "`%s`: no such make target:\n%s" % (line, r.stderr.strip())
                elif not shutil.which(w[0], path=self.env["PATH"]):
                    return "`%s`: no program %s" % (line, w[0])
            return None
        if kind == "help":
            helptext = subprocess.run([os.path.join(REPO, "crisp"), "--help"], capture_output=True,
                                      text=True).stdout
            documented = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", helptext))
            shown = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", text))
            missing = sorted(shown - documented)
            return ("options not in `crisp --help`: %s" % " ".join(missing)) if missing else None
        return "unknown test kind `%s`" % kind


SAMPLE = "docs/tutorial/saxpy.crisp"
# (line, column (1-based), what the token is) in SAMPLE: def-kernel, the
# kernel's name, the type of a:float, a keyword, a loop form, a comment
EXPECT = [(2, 2, "definition"), (2, 13, "name"), (2, 22, "type"), (3, 42, "keyword"),
          (7, 4, "control"), (1, 2, "comment")]
TM_SCOPES = {"definition": "keyword.control.definition", "name": "entity.name.function",
             "type": "entity.name.type", "keyword": "constant.language.keyword",
             "control": "keyword.control.crisp", "comment": "comment."}
VIM_GROUPS = {"definition": "crispDefine", "name": "", "type": "crispType", "keyword": "crispKeyword",
              "control": "crispRepeat", "comment": "crispComment"}
EMACS_FACES = {"definition": "font-lock-keyword-face", "name": "font-lock-function-name-face",
               "type": "font-lock-type-face", "keyword": "font-lock-builtin-face",
               "control": "font-lock-keyword-face", "comment": "font-lock-comment"}


def forms():
    groups = {}
    for line in open(os.path.join(REPO, "editors/forms.txt")):
        if line.strip() and not line.startswith("#"):
            g, names = line.split(":", 1)
            groups[g.strip()] = names.split()
    return groups


def tm_scopes(grammar, text):
    """{(line, col): scope} for TEXT by the grammar's top-level patterns: at
    each position the leftmost match wins (first pattern on ties), as in
    TextMate; begin/end rules are followed to their end."""
    import json as _json  # noqa: F401
    repo = grammar["repository"]

    def flat(pats):
        for p in pats:
            if "include" in p:
                yield from flat([repo[p["include"][1:]]])
            elif "patterns" in p and "match" not in p and "begin" not in p:
                yield from flat(p["patterns"])
            else:
                yield p
    rules = list(flat(grammar["patterns"]))
    out = {}
    for ln, line in enumerate(text.split("\n"), 1):
        pos = 0
        while pos < len(line):
            best = None
            for r in rules:
                m = re.compile(r.get("match") or r["begin"]).search(line, pos)
                if m and (best is None or m.start() < best[1].start()):
                    best = (r, m)
            if not best:
                break
            r, m = best
            if "begin" in r:
                e = re.compile(r["end"]).search(line, m.end())
                end = e.end() if e else len(line)
                for c in range(m.start(), end):
                    out[(ln, c + 1)] = r.get("name", "")
                pos = max(end, pos + 1)
                continue
            for c in range(m.start(), m.end()):
                out[(ln, c + 1)] = r.get("name", "")
            for k, cap in r.get("captures", {}).items():
                g = int(k)
                if m.group(g) is not None:
                    for c in range(m.start(g), m.end(g)):
                        out[(ln, c + 1)] = cap["name"]
            pos = max(m.end(), pos + 1)
    return out


def check_editors():
    """[(name, problem or None)] for the editor modes."""
    import json
    results = []
    groups = forms()
    names = [n for g in groups.values() for n in g]
    el = open(os.path.join(REPO, "editors/emacs/crisp-mode.el")).read()
    vim = open(os.path.join(REPO, "editors/vim/syntax/crisp.vim")).read()
    results.append(("editors: emacs mode names every form", ", ".join(
        n for n in names if '"%s"' % n not in el) or None))
    results.append(("editors: vim syntax names every form", ", ".join(
        n for n in names if not re.search(r"(?<![\w!?*+-])%s(?![\w!?*+-])" % re.escape(n), vim)) or None))
    problem = None
    try:
        for f in ("package.json", "language-configuration.json", "syntaxes/crisp.tmLanguage.json"):
            json.load(open(os.path.join(REPO, "editors/vscode", f)))
        grammar = json.load(open(os.path.join(REPO, "editors/vscode/syntaxes/crisp.tmLanguage.json")))
        rep = grammar["repository"]
        for group, rule in (("definitions", "definition"), ("control", "control"), ("types", "type")):
            rx = re.compile(rep[rule]["match"])
            bad = [n for n in groups[group] if not (rx.search("(" + n + " x)") if rule != "type" else rx.search(" " + n + ")"))]
            if bad:
                problem = "the TextMate %s rule misses %s" % (rule, ", ".join(bad))
        scopes = tm_scopes(grammar, open(os.path.join(REPO, SAMPLE)).read())
        for ln, col, what in EXPECT:
            if TM_SCOPES[what] not in scopes.get((ln, col), ""):
                problem = "%s:%d:%d (%s) is `%s` in the TextMate grammar" % (SAMPLE, ln, col, what, scopes.get((ln, col)))
    except (ValueError, KeyError, re.error) as e:
        problem = "%s: %s" % (type(e).__name__, e)
    results.append(("editors: VS Code grammar", problem))
    if shutil.which("vim"):
        results.append(("editors: vim highlights %s" % SAMPLE, vim_check()))
    if shutil.which("emacs"):
        results.append(("editors: emacs mode compiles and highlights %s" % SAMPLE, emacs_check()))
    return results


def vim_check():
    tmp = tempfile.mkdtemp(prefix="vim-")
    try:
        out = os.path.join(tmp, "out.txt")
        lines = ["set nocompatible", "set rtp^=" + os.path.join(REPO, "editors/vim"), "filetype plugin on",
                 "syntax on", "e " + os.path.join(REPO, SAMPLE), "redir! > " + out, "echo &filetype"]
        lines += ['echo synIDattr(synID(%d,%d,1),"name")' % (ln, col) for ln, col, _ in EXPECT]
        lines += ["redir END", "qa!"]
        script = os.path.join(tmp, "t.vim")
        open(script, "w").write("\n".join(lines) + "\n")
        subprocess.run(["vim", "-N", "-u", "NONE", "-i", "NONE", "-es", "-S", script], env=dict(os.environ, HOME=tmp),
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
        got = open(out).read().split() if os.path.exists(out) else []
        want = ["crisp"] + [VIM_GROUPS[w] for _, _, w in EXPECT if VIM_GROUPS[w]]
        return None if got == want else "got %s, want %s" % (got, want)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def emacs_check():
    tmp = tempfile.mkdtemp(prefix="emacs-")
    try:
        shutil.copy(os.path.join(REPO, "editors/emacs/crisp-mode.el"), tmp)
        r = subprocess.run(["emacs", "-Q", "--batch", "-L", tmp, "--eval", "(setq byte-compile-error-on-warn t)",
                            "-f", "batch-byte-compile", os.path.join(tmp, "crisp-mode.el")],
                           capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
        if r.returncode != 0 or not os.path.exists(os.path.join(tmp, "crisp-mode.elc")):
            return "byte-compile: %s" % r.stderr.strip()[-500:]
        probes = " ".join('(progn (goto-char (point-min)) (forward-line %d) (forward-char %d) '
                          '(princ (format "%%S\\n" (get-text-property (point) (quote face)))))' % (ln - 1, col - 1)
                          for ln, col, _ in EXPECT)
        r = subprocess.run(["emacs", "-Q", "--batch", "-L", tmp, "-l", "crisp-mode", "--eval",
                            '(progn (find-file "%s") (font-lock-ensure) (princ (format "%%S\\n" major-mode)) %s)'
                            % (os.path.join(REPO, SAMPLE), probes)],
                           capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
        got = r.stdout.split()
        want = ["crisp-mode"] + [EMACS_FACES[w] for _, _, w in EXPECT]
        if len(got) != len(want) or any(not g.startswith(w) for g, w in zip(got, want)):
            return "got %s, want %s %s" % (got, want, r.stderr.strip()[-300:])
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv):
    os.chdir(REPO)
    filters = argv[1:]
    passed = failed = 0
    for path in DOCS:
        if filters and not any(f in path for f in filters):
            continue
        if not os.path.exists(path):
            print("FAIL %s: missing" % path)
            failed += 1
            continue
        doc = Doc(path)
        run = Runner(doc)
        try:
            for item in doc.items:
                if item[0] == "run":
                    status, out, err = run.sh(item[2])
                    problem = None if status == 0 else "exit status %s:\n%s%s" % (status, out, err)
                    name = "%s:%d run `%s`" % (path, item[1], item[2])
                elif item[0] == "untested":
                    name = "%s:%d" % (path, item[1])
                    problem = ("untested code block: put a line <!-- test: KIND ... --> right before it "
                               "(see tests/run_docs.py)")
                else:
                    name = "%s:%d %s" % (path, item[1], item[2].split()[0])
                    problem = run.block(item[2], item[3])
                if problem:
                    failed += 1
                    first, _, rest = problem.partition("\n")
                    print("FAIL %s: %s" % (name, first))
                    if rest.strip():
                        print("\n".join("    " + l for l in rest.rstrip().split("\n")[-40:]))
                else:
                    passed += 1
                    print("ok %s" % name)
                sys.stdout.flush()
        finally:
            shutil.rmtree(run.work, ignore_errors=True)
    if not filters or any(f in "editors" for f in filters):
        for name, problem in check_editors():
            if problem:
                failed += 1
                print("FAIL %s: %s" % (name, problem))
            else:
                passed += 1
                print("ok %s" % name)
    print("docs: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
