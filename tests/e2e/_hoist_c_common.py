"""_hoist_c_common.py - what the C hoist tests share (tests/e2e/hoist_c.py,
tests/e2e/hoist_c_api.py): running crisp into a fresh folder, the three
compilers, running demos on PoCL and under oclgrind, and the programs."""
import concurrent.futures
import glob
import os
import shutil
import subprocess

from crisptest import *

PLATFORM = os.environ.get("CRISPTEST_PLATFORM", "Portable Computing Language")
JOBS = int(os.environ.get("HOIST_C_JOBS", "2"))
SHIM = os.path.join(REPO, "runtime-shim", "crisp_runtime.h")
HOIST_TESTS = os.path.join(REPO, "tests", "hoist")

COMPILERS = {
    "gcc": ["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-Wmissing-prototypes"],
    "g++": ["g++", "-x", "c++", "-Wall", "-Wextra", "-Werror"],
    "tcc": ["tcc", "-Wall", "-Werror"],
}

EXAMPLES = sorted(glob.glob(os.path.join(REPO, "examples", "*.crisp")))
PROGRAMS = EXAMPLES + sorted(glob.glob(os.path.join(REPO, "tests", "e2e", "*.crisp")))


def sh(cmd, cwd=None, env=None, timeout=120):
    """Run CMD; returns (status, stdout, stderr)."""
    full_env = dict(os.environ)
    full_env.setdefault("CRISP_PLATFORM", PLATFORM)
    full_env.update(env or {})
    r = subprocess.run([str(c) for c in cmd], cwd=cwd or REPO, env=full_env, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def hoist(src, sub, *flags):
    """crisp --hoist=OpenCL for SRC into a fresh directory: (directory, BASE_hoist_OpenCL.c)."""
    d = out_dir(sub)
    for f in os.listdir(d):
        p = os.path.join(d, f)
        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    status, out, err = crisp("--hoist=OpenCL", "--output-dir=" + d, *flags, os.path.relpath(src, REPO))
    if status != 0:
        raise AssertionError("crisp %s failed (%d):\n%s" % (" ".join(flags), status, (err + out).strip()))
    base = os.path.splitext(os.path.basename(src))[0]
    return d, os.path.join(d, base + "_hoist_OpenCL.c")


def demo_of(c_file):
    return c_file[:-2] + "_demo.c"


def compile_c(compiler, c_file, exe, *extra):
    """Compile a hoist and its demo; any diagnostic fails."""
    d = os.path.dirname(c_file)
    status, out, err = sh(COMPILERS[compiler] + ["-I", d] + list(extra) + [c_file, demo_of(c_file), "-lOpenCL", "-o", exe])
    if status != 0 or err.strip():
        raise AssertionError("%s rejected %s:\n%s" % (compiler, os.path.relpath(c_file, REPO),
                                                    "\n".join((err + out).strip().splitlines()[:20])))


def kernels_ran(out):
    """'N of N kernels ran' from the end of a demo's output, or None."""
    lines = out.strip().splitlines()
    if not lines:
        return None
    words = lines[-1].split()
    if len(words) == 5 and words[1] == "of" and words[3:] == ["kernels", "ran"] and words[0] == words[2]:
        return int(words[0])
    return None


def run_demo(exe, cwd, env=None, under=None):
    cmd = (under or []) + [exe]
    status, out, err = sh(cmd, cwd=cwd, env=env)
    if status != 0 or kernels_ran(out) is None:
        raise AssertionError("%s exited %d:\n%s" % (" ".join(cmd), status,
                                                    "\n".join((out + err).strip().splitlines()[-25:])))
    return out, err


# oclgrind 21.10's --uninitialized checker has two defects that only the
# structs example reaches: it crashes (SIGSEGV) on a scalar * float3
# product, and it reports the unused fourth lane of a float3 as an
# "uninitialized value written" when one component is stored (reduced
# reproducers in docs/hoisting-c.md).  That example runs with
# --data-races only; every other example runs with both checks.  So does
# library_forms: its grid-level exclusive-scan stores an int4 built lane by
# lane, which oclgrind reports as uninitialized (docs/library.md,
# "oclgrind"; tests/e2e/scan_oclgrind.py checks the scans themselves).
NO_UNINITIALIZED = {"structs", "library_forms"}


def oclgrind(exe, cwd):
    """Run a demo under oclgrind; any report in its log fails, and so does
    oclgrind crashing (named with the kernel it was running)."""
    log = os.path.join(cwd, "oclgrind.log")
    if os.path.exists(log):
        os.remove(log)
    # line-buffered, so the last kernel heading survives a crash
    checks = ["--data-races"] + ([] if os.path.basename(cwd) in NO_UNINITIALIZED else ["--uninitialized"])
    cmd = ["stdbuf", "-oL", "oclgrind"] + checks + ["--log", log, exe]
    status, out, err = sh(cmd, cwd=cwd, env={"CRISP_PLATFORM": "Oclgrind"})
    report = open(log).read() if os.path.exists(log) else ""
    if report.strip():
        kernels = sorted(set(l.split(":", 1)[1].strip() for l in report.splitlines() if "Kernel:" in l))
        raise AssertionError("oclgrind reported problems (kernels: %s); first lines of %s:\n%s"
                             % (", ".join(kernels) or "?", os.path.relpath(log, REPO),
                                "\n".join(report.strip().splitlines()[:14])))
    if status < 0 or status >= 128:
        running = [l for l in out.splitlines() if l.endswith("):")]
        raise AssertionError("oclgrind crashed (%s) while running %s; reproduce with\n    cd %s && %s"
                             % ("signal %d" % -status if status < 0 else "status %d" % status,
                                running[-1][:-1] if running else "the demo", os.path.relpath(cwd, REPO),
                                " ".join(cmd[2:-1] + ["./" + os.path.basename(exe)])))
    if status != 0 or kernels_ran(out) is None:
        raise AssertionError("%s exited %d:\n%s" % (" ".join(cmd), status,
                                                    "\n".join((out + err).strip().splitlines()[-25:])))
    check("ran on oclgrind", "Oclgrind" in out.splitlines()[0], out.splitlines()[0])
    return out



def program(name):
    for src in PROGRAMS:
        if os.path.splitext(os.path.basename(src))[0] == name:
            return src
    raise KeyError(name)


def build_and_run(src, sub=None, compilers=COMPILERS):
    """Hoist SRC into a fresh folder, build its demo with COMPILERS, run the
    gcc and tcc ones: (folder, gcc demo, its output)."""
    name = sub or os.path.splitext(os.path.basename(src))[0]
    d, c_file = hoist(src, name)
    exes = {}
    for compiler in compilers:
        exes[compiler] = os.path.join(d, "demo-" + compiler.replace("+", "p"))
        compile_c(compiler, c_file, exes[compiler])
    out, _ = run_demo(exes["gcc"], d)
    if "tcc" in exes:
        run_demo(exes["tcc"], d)
    return d, exes["gcc"], out


_built = {}


def built(name):
    """build_and_run of program NAME with gcc, once per test file."""
    if name not in _built:
        _built[name] = build_and_run(program(name), "api-" + name, {"gcc": COMPILERS["gcc"]})
    return _built[name]
