"""hoist_install.py - the runtime shim as users install it.

`make install DESTDIR=...` puts crisp_runtime.h under include/crisp/ and
crisp_runtime.py where the system's python3 finds it (scripts/python_dir.py);
a hoist then works without the copies crisp writes beside it: the C hoist
compiles against the installed header, the Python hoist imports the
installed module.  `pip install` of the repository (pyproject.toml) gives
the same module, here into a virtual environment (no network: the system's
setuptools builds it).
"""
import fcntl
import os
import shutil
import subprocess
import sys

from crisptest import *

PY = os.environ.get("PY", "/usr/bin/python3")
PLATFORM = os.environ.get("CRISPTEST_PLATFORM", "Portable Computing Language")


def run(cmd, **kw):
    env = dict(os.environ, CRISP_PLATFORM=PLATFORM)
    env.update(kw.pop("env", {}))
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, **kw)
    return r.returncode, r.stdout, r.stderr


def fresh(name):
    d = out_dir(name)
    shutil.rmtree(d)
    os.makedirs(d)
    return d


@case
def make_install_puts_the_shim_where_it_is_found():
    root = fresh("install-root")
    status, out, err = run(["make", "-s", "-C", REPO, "install", "DESTDIR=" + root, "PREFIX=/usr/local", "PY=" + PY])
    check("make install", status == 0, out + err)
    header = os.path.join(root, "usr/local/include/crisp/crisp_runtime.h")
    check("the header under include/crisp/", os.path.exists(header))
    status, pydir, err = run([PY, os.path.join(REPO, "scripts", "python_dir.py"), "/usr/local"])
    pydir = pydir.strip()
    check("a directory python3 searches", pydir in run([PY, "-c", "import sys; print(sys.path)"])[1], pydir)
    module = os.path.join(root + pydir, "crisp_runtime.py")
    check("the module there", os.path.exists(module), module)
    # hoists without the copies beside them
    d = fresh("install-hoist")
    status, out, err = crisp("--hoist=OpenCL", "--hoist=PyOpenCL", "--output-dir=" + d, "examples/vector_add.crisp")
    check("hoisted", status == 0, err)
    os.remove(os.path.join(d, "crisp_runtime.h"))
    os.remove(os.path.join(d, "crisp_runtime.py"))
    exe = os.path.join(d, "demo")
    status, out, err = run(["gcc", "-std=c99", "-Wall", "-Werror", "-I", d, "-I", os.path.dirname(header),
                            os.path.join(d, "vector_add_hoist_OpenCL.c"), os.path.join(d, "vector_add_hoist_OpenCL_demo.c"),
                            "-lOpenCL", "-o", exe])
    check("the C hoist builds with -I PREFIX/include/crisp", status == 0, err)
    status, out, err = run([exe, os.path.join(d, "vector_add.cl")])
    check("and runs", status == 0 and "3 of 3 kernels ran" in out, out + err)
    status, out, err = run([PY, os.path.join(d, "vector_add_hoist_PyOpenCL.py")], env={"PYTHONPATH": root + pydir}, cwd="/")
    check("the Python hoist imports the installed module", status == 0 and "3 kernels ran" in out, out + err)


@case
def make_install_puts_the_cuda_shims_there_too():
    # the CUDA hoists' crisp_runtime_cuda.h and .py, beside the OpenCL ones
    root = fresh("install-root-cuda")
    status, out, err = run(["make", "-s", "-C", REPO, "install", "DESTDIR=" + root, "PREFIX=/usr/local", "PY=" + PY])
    check("make install", status == 0, out + err)
    incdir = os.path.join(root, "usr/local/include/crisp")
    status, pydir, err = run([PY, os.path.join(REPO, "scripts", "python_dir.py"), "/usr/local"])
    pydir = root + pydir.strip()
    for f, src in ((os.path.join(incdir, "crisp_runtime_cuda.h"), "crisp_runtime_cuda.h"),
                   (os.path.join(pydir, "crisp_runtime_cuda.py"), "crisp_runtime_cuda.py")):
        check("installed: " + f, os.path.exists(f))
        with open(f) as a, open(os.path.join(REPO, "runtime-shim", src)) as b:
            check("the same file: " + src, a.read() == b.read())
    d = fresh("install-hoist-cuda")
    status, out, err = crisp("--hoist=CUDA", "--hoist=PyCUDA", "--output-dir=" + d, "examples/vector_add.crisp")
    if status == 2 and "E1501" in err:      # no clang-14/libclc-14 for the PTX here
        print("note: no PTX chain here, the CUDA hoists are not built: %s" % err.strip().splitlines()[0])
        return
    check("hoisted", status == 0, err)
    os.remove(os.path.join(d, "crisp_runtime_cuda.h"))
    os.remove(os.path.join(d, "crisp_runtime_cuda.py"))
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    if os.path.exists(os.path.join(cuda, "include", "cuda.h")):
        exe = os.path.join(d, "demo")
        status, out, err = run(["g++", "-Wall", "-Wextra", "-Werror", "-I", d, "-I", incdir, "-I", os.path.join(cuda, "include"),
                                os.path.join(d, "vector_add_hoist_CUDA.cpp"), os.path.join(d, "vector_add_hoist_CUDA_demo.cpp"),
                                "-L", os.path.join(cuda, "lib64", "stubs"), "-lcuda", "-o", exe])
        check("the C++ hoist builds with -I PREFIX/include/crisp", status == 0, err)
    else:
        print("note: no CUDA toolkit (cuda.h) here: the C++ hoist is not compiled")
    # the Python hoist imports the installed module (the driver binding is looked for when used)
    status, out, err = run([PY, "-c", "import sys; sys.path.insert(0, %r); import vector_add_hoist_PyCUDA as h; "
                            "print(h.crisp_runtime.__file__)" % d], env={"PYTHONPATH": pydir}, cwd="/")
    check("the Python hoist imports the installed module",
          status == 0 and out.strip() == os.path.join(pydir, "crisp_runtime_cuda.py"), out + err[-1500:])


@case
def pip_install_gives_the_same_module():
    d = fresh("pip")
    src = REPO  # the repository itself: pyproject.toml ships the API package and the shim
    venv = os.path.join(d, "venv")
    status, out, err = run([PY, "-m", "venv", "--system-site-packages", venv])
    check("a virtual environment", status == 0, err)
    vpy = os.path.join(venv, "bin", "python")
    # pip builds in the repository's own build/ folder: the PoCL and the Intel
    # run of this file must not build there at the same time (a lock file)
    os.makedirs(os.path.join(REPO, "build"), exist_ok=True)
    with open(os.path.join(REPO, "build", "pip-install.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        status, out, err = run([vpy, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index", src])
    check("pip install", status == 0, (out + err)[-2000:])
    status, out, err = run([vpy, "-c", "import crisp_runtime; print(crisp_runtime.__file__, crisp_runtime.ABI_VERSION)"],
                           cwd="/")
    check("imports from the environment", status == 0 and venv in out and out.split()[1] == "2", out + err)
    with open(os.path.join(REPO, "runtime-shim", "crisp_runtime.py")) as a, open(out.split()[0]) as b:
        check("the same module", a.read() == b.read())


