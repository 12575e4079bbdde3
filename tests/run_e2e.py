#!/usr/bin/python3
"""run_e2e.py - the end-to-end suite.

1. Every examples/*.crisp is transpiled, validated with clang and built on
   PoCL (`crisptest.py --smoke`), and must be used by some tests/e2e/*.py
   (which runs it and compares with a host reference).
2. Every tests/e2e/*.py (files starting with `_` are helpers) runs in its own
   subprocess (timeout E2E_TIMEOUT, default 300 s), E2E_JOBS at a time
   (default: number of CPUs).  Its `ok NAME` / `FAIL NAME` lines are counted;
   a file that dies or times out without reporting a failure counts as one.
3. Every tests/e2e/*.py runs again on the second device, Intel's CPU OpenCL
   runtime (OpenCL C 3.0 with sub-groups), which scripts/deps.sh installs
   into build/intel-ocl/; where it could not, the run says why and skips
   that device.  E2E_DEVICES="pocl" (or "intel") runs on one device only.
   Its files get twice E2E_TIMEOUT: it builds programs about three times
   slower than PoCL.

Usage: /usr/bin/python3 tests/run_e2e.py [SUBSTRING...]   (filters files)
Ends with `e2e: N passed, N failed`; exit status 1 when anything failed.
"""
import concurrent.futures
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
# PY, else the active virtual environment's Python, else Debian's
PY = os.environ.get("PY") or (os.path.join(os.environ["VIRTUAL_ENV"], "bin", "python3")
                                if os.environ.get("VIRTUAL_ENV") else "/usr/bin/python3")
TIMEOUT = float(os.environ.get("E2E_TIMEOUT", "300"))
JOBS = int(os.environ.get("E2E_JOBS", str(os.cpu_count() or 1)))


INTEL_DIR = os.path.join(REPO, "build", "intel-ocl")
INTEL_PLATFORM = "Intel(R) OpenCL"


def intel_device():
    """(environment for the Intel CPU runtime, None) or (None, why not)."""
    if os.path.exists(os.path.join(INTEL_DIR, "ok")):
        env = {}
        with open(os.path.join(INTEL_DIR, "env")) as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                if k:
                    env[k] = v
        if os.environ.get("LD_LIBRARY_PATH"):
            env["LD_LIBRARY_PATH"] += os.pathsep + os.environ["LD_LIBRARY_PATH"]
        env["CRISPTEST_PLATFORM"] = INTEL_PLATFORM
        env["CRISPTEST_OUT"] = os.path.join(REPO, "tests", "out", "intel")
        return env, None
    why = "not installed (run scripts/deps.sh)"
    if os.path.exists(os.path.join(INTEL_DIR, "failed")):
        with open(os.path.join(INTEL_DIR, "failed")) as f:
            why = "scripts/deps.sh could not install it: " + f.read().strip()
    return None, why


def run(cmd, label, extra_env=None, timeout=TIMEOUT):
    env = dict(os.environ)
    env.update(extra_env or {})
    env["PYTHONPATH"] = HERE + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    try:
        r = subprocess.run(cmd, cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
        out, status = r.stdout.decode(errors="replace"), r.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace")
        out += "\nFAIL %s: timed out after %g s\n" % (label, timeout)
        status = "timeout"
    passed = len(re.findall(r"^ok ", out, re.M))
    failed = len(re.findall(r"^FAIL ", out, re.M))
    if status != 0 and failed == 0:
        out += "FAIL %s: exited with status %s without reporting a failure\n" % (label, status)
        failed = 1
    if status == 0 and failed:
        out += "(%s reported failures but exited 0)\n" % label
    return label, out, passed, failed


def main(argv):
    os.chdir(REPO)
    filters = argv[1:]
    tests = sorted(t for t in glob.glob("tests/e2e/*.py")
                   if not os.path.basename(t).startswith("_"))
    if filters:
        tests = [t for t in tests if any(f in t for f in filters)]
    examples = sorted(glob.glob("examples/*.crisp"))
    passed = failed = 0

    devices = os.environ.get("E2E_DEVICES", "pocl intel").split()
    jobs = []
    if "pocl" in devices:
        if examples and not filters:
            jobs.append(([PY, os.path.join(HERE, "crisptest.py"), "--smoke"] + examples,
                         "examples (build)", None))
        jobs += [([PY, t], t, None) for t in tests]
    if "intel" in devices:
        intel_env, why = intel_device()
        if intel_env:
            jobs += [([PY, t], "%s [Intel CPU]" % t, intel_env) for t in tests]
        else:
            print("== skipped: the second device, Intel's CPU OpenCL runtime, is %s" % why)

    with concurrent.futures.ThreadPoolExecutor(max(1, JOBS)) as pool:
        # Intel's runtime builds programs about three times slower than PoCL
        futures = [pool.submit(run, cmd, label, env, TIMEOUT * (2 if env else 1)) for cmd, label, env in jobs]
        for f in futures:                    # report in a stable order
            label, out, p, fl = f.result()
            print("== %s" % label)
            sys.stdout.write(out if out.endswith("\n") or not out else out + "\n")
            sys.stdout.flush()
            passed += p
            failed += fl

    if examples and not filters:
        texts = {}
        for t in tests:
            with open(t) as fh:
                texts[t] = fh.read()
        for ex in examples:
            users = [t for t, text in texts.items() if ex in text]
            if users:
                passed += 1
            else:
                failed += 1
                print("FAIL covered %s: no tests/e2e/*.py runs it (mention %s)" % (ex, ex))

    print("e2e: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
