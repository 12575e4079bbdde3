"""IR and binaries through the vendor tools (docs/targets.md).

--ir-target=spv: every example (and the e2e programs with 64-bit atomics,
work dimensions, structs, tensors) becomes SPIR-V that spirv-val accepts;
where an OpenCL device takes SPIR-V (Intel's CPU runtime, not PoCL here)
it is also built with clCreateProgramWithIL and run against numpy.
--ir-target=ptx: PTX that ptxas assembles for sm_90.  --binary-gpu-target:
cubins (ELF for EM_CUDA), two GPUs at once, fat binaries holding the cubin
and its PTX, an sm_ the installed ptxas does not know.  Missing tools (a
PATH without them): an error naming the Debian package, exit status 2, no
output file at all.  A failing tool: its error shown at the Crisp line the
OpenCL C came from.  --tree-shaking: the cache, reused without any tool.
"""
import glob
import json
import os
import shutil
import struct
import subprocess

from crisptest import *

CRISP = os.path.join(REPO, "crisp")
PROGRAMS = sorted(glob.glob(os.path.join(REPO, "examples", "*.crisp"))) + [
    os.path.join(REPO, "tests", "e2e", n + ".crisp")
    for n in ("grid", "control", "structs", "tensors3", "soa", "debug", "const_vec")]
PROGRAMS = [p for p in PROGRAMS if os.path.exists(p)]


def find_ptxas():
    found = shutil.which("ptxas")
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")):
        if not found and home and os.access(os.path.join(home, "bin", "ptxas"), os.X_OK):
            found = os.path.join(home, "bin", "ptxas")
    return found


PTXAS = find_ptxas()
if not PTXAS:
    print("note: ptxas (NVIDIA's CUDA toolkit) is not installed: the PTX is not assembled and the "
          "cubin and fat-binary cases do not run")


def fresh(name):
    d = out_dir(name)
    for f in os.listdir(d):
        p = os.path.join(d, f)
        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    return d


def run(args, env=None, cwd=None):
    r = subprocess.run([CRISP] + [str(a) for a in args], cwd=cwd or REPO, env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def crisp_ok(*args, env=None):
    status, out, err = run(args, env=env)
    if status != 0:
        raise CompileError("crisp %s: status %d\n%s" % (" ".join(map(str, args)), status, err + out))
    return err


def tool(*args):
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout + r.stderr


def env_with_path(path):
    env = dict(os.environ)
    env["PATH"] = path
    for v in ("CUDA_HOME", "CUDA_PATH", "CRISP_CLANG", "CRISP_LLVM_SPIRV", "CRISP_LIBCLC", "CRISP_PTXAS",
              "CRISP_FATBINARY", "CRISP_OCLOC"):
        env.pop(v, None)
    return env


def tool_dir(name, *tools):
    """A directory holding links to just these programs (a PATH that lacks the others)."""
    d = fresh(name)
    for t in tools:
        real = shutil.which(t)
        if real:
            os.symlink(real, os.path.join(d, os.path.basename(t)))
    return d


@case
def spirv_validates():
    d = fresh("spv")
    for p in PROGRAMS:
        base = os.path.splitext(os.path.basename(p))[0]
        crisp_ok("--ir-target=spv", "--output-dir", d, p)
        spv = os.path.join(d, base + ".spv")
        with open(spv, "rb") as f:
            magic = struct.unpack("<I", f.read(4))[0]
        check("%s.spv magic" % base, magic == 0x07230203, hex(magic))
        status, out = tool("spirv-val", spv)
        check("spirv-val %s.spv" % base, status == 0, out)


def il_devices():
    found = []
    for plat in cl.get_platforms():
        for dev in plat.get_devices():
            try:
                il = dev.get_info(cl.device_info.IL_VERSION)
            except Exception:  # noqa: BLE001 - OpenCL 1.2 devices have no IL_VERSION
                il = ""
            if "SPIR-V" in il:
                found.append(dev)
    return found


_il = il_devices()
if _il:
    @case
    def spirv_runs():
        d = fresh("spv-run")
        src = os.path.join(REPO, "examples", "vector_add.crisp")
        crisp_ok("--ir-target=spv", "--metadata", "--output-dir", d, src)
        with open(os.path.join(d, "vector_add.spv"), "rb") as f:
            il = f.read()
        ctx = cl.Context(_il[:1])
        queue = cl.CommandQueue(ctx)
        prog = cl.Program(ctx, il).build()
        n = 1000
        a, b = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32)
        mf = cl.mem_flags
        da = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
        db = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
        dc = cl.Buffer(ctx, mf.WRITE_ONLY, a.nbytes)
        k = prog.vector_add
        ln = np.uint64(n)
        k(queue, (n,), None, da, ln, db, ln, dc, ln)
        c = np.empty_like(a)
        cl.enqueue_copy(queue, c, dc)
        assert_close(c, a + b)
else:
    print("note: no OpenCL device here takes SPIR-V (PoCL built without it): "
          "the SPIR-V is validated with spirv-val only")


@case
def ptx_is_made():
    d = fresh("ptx-only")
    crisp_ok("--ir-target=ptx", "--output-dir", d, os.path.join(REPO, "examples", "atomics.crisp"))
    text = open(os.path.join(d, "atomics.ptx")).read()
    check("PTX for sm_60", ".target sm_60" in text and ".entry" in text, text[:300])
    check("64-bit atomics defined, not left to libclc", "atom.global.add.u64" in text and ".extern" not in text)


@case
def nvcl_ptx_with_an_opencl_hoist():
    # --ir-target=ptx alone: one file, BASE.ptx (nvptx64--nvidiacl, for the
    # CUDA driver API); with an OpenCL hoist also BASE_nvcl.ptx
    # (nvptx64-nvidia-nvcl), the program binary NVIDIA's OpenCL takes
    # (docs/targets.md); --hoist=CUDA implies the PTX, so with --hoist=OpenCL
    # it writes both too
    src = os.path.join(REPO, "examples", "sum_vector_to_one.crisp")
    d = fresh("nvcl-none")
    crisp_ok("--ir-target=ptx", "--metadata", "--output-dir", d, src)
    assert_equal(sorted(os.listdir(d)), ["sum_vector_to_one.metacrisp", "sum_vector_to_one.ptx"])
    meta = json.load(open(os.path.join(d, "sum_vector_to_one.metacrisp")))
    assert_equal([(b["file"], b["target"]) for b in meta["binaries"]], [("sum_vector_to_one.ptx", "ptx")])
    for name, flags in (("nvcl-c", ["--ir-target=ptx", "--hoist=OpenCL"]), ("nvcl-py", ["--ir-target=ptx", "--hoist=PyOpenCL"]),
                        ("nvcl-cuda", ["--hoist=CUDA", "--hoist=OpenCL"])):
        d = fresh(name)
        err = crisp_ok(*(flags + ["--metadata", "--output-dir", d, src]))
        check("%s: nothing on stderr (clang's triple warning muted)" % name, err == "", err)
        names = os.listdir(d)
        check("%s: both PTX files" % name, "sum_vector_to_one.ptx" in names and "sum_vector_to_one_nvcl.ptx" in names, names)
        meta = json.load(open(os.path.join(d, "sum_vector_to_one.metacrisp")))
        assert_equal([(b["file"], b["target"]) for b in meta["binaries"]],
                     [("sum_vector_to_one.ptx", "ptx"), ("sum_vector_to_one_nvcl.ptx", "nvcl")])
        cuda = open(os.path.join(d, "sum_vector_to_one.ptx")).read()
        nvcl = open(os.path.join(d, "sum_vector_to_one_nvcl.ptx")).read()
        # the kernels' pointer parameters: annotated for NVIDIA's OpenCL
        # only; the CUDA driver refuses .ptr .shared ones (an H200, docs/targets.md)
        check("%s: nvcl annotates __global" % name, ".param .u64 .ptr .global .align 8 sum_vector_to_one_param_0" in nvcl,
              nvcl[nvcl.find(".entry"):][:600])
        check("%s: and __local" % name, ".ptr .shared" in nvcl, nvcl[nvcl.find(".entry"):][:600])
        check("%s: BASE.ptx plain" % name, ".ptr ." not in cuda and ".param .u64 sum_vector_to_one_param_0" in cuda,
              cuda[cuda.find(".entry"):][:600])
        check("%s: same kernels" % name, cuda.count(".entry") == nvcl.count(".entry") > 0)
        if PTXAS and name == "nvcl-c":
            for f in ("sum_vector_to_one.ptx", "sum_vector_to_one_nvcl.ptx"):
                status, out = tool(PTXAS, "-arch=sm_90", os.path.join(d, f), "-o", os.path.join(d, f + ".cubin"))
                check("ptxas %s" % f, status == 0, out)
    # no clang: nothing at all is written, the hoist included
    d = fresh("nvcl-missing")
    status, out, err = run(["--ir-target=ptx", "--hoist=OpenCL", "--output-dir", d, src], env=env_with_path(fresh("no-tools-nvcl")))
    check("no clang: E1501 naming the package", status == 2 and "error[E1501]: --ir-target=ptx needs `clang-14`" in err
          and "install the Debian package clang-14" in err, err)
    assert_equal(os.listdir(d), [])


@(case if PTXAS else (lambda f: f))
def ptx_assembles_for_sm_90():
    d = fresh("ptx")
    for p in PROGRAMS:
        base = os.path.splitext(os.path.basename(p))[0]
        crisp_ok("--ir-target", "ptx", "--output-dir", d, p)
        ptx = os.path.join(d, base + ".ptx")
        text = open(ptx).read()
        check("%s.ptx has its kernels" % base, ".entry" in text)
        check("%s.ptx needs no OpenCL global offset" % base, "get_global_offset" not in text)
        status, out = tool(PTXAS, "-arch=sm_90", ptx, "-o", os.path.join(d, base + ".cubin"))
        check("ptxas %s.ptx" % base, status == 0, out)


def elf_machine(path):
    with open(path, "rb") as f:
        head = f.read(20)
    assert head[:4] == b"\x7fELF", "%s is not an ELF file" % path
    return struct.unpack_from("<H", head, 18)[0]


@(case if PTXAS else (lambda f: f))
def cubins_for_two_gpus():
    d = fresh("cubin")
    src = os.path.join(REPO, "examples", "atomics.crisp")
    crisp_ok("--binary-gpu-target=sm_90", "--binary-GPU-target=sm_80", "--output-dir=" + d, src)
    for sm in ("sm_90", "sm_80"):
        path = os.path.join(d, "atomics_%s.cubin" % sm)
        check("%s is a CUDA ELF" % path, elf_machine(path) == 190)  # EM_CUDA
    assert_equal(sorted(os.listdir(d)), ["atomics_sm_80.cubin", "atomics_sm_90.cubin"])


def fatbin_entries(path):
    """(kind, sm) of each image: kind 1 PTX, 2 ELF."""
    with open(path, "rb") as f:
        data = f.read()
    magic, _ver, hsize, size = struct.unpack_from("<IHHQ", data, 0)
    assert magic == 0xBA55ED50, "not a fat binary: %x" % magic
    out, off = [], hsize
    while off < hsize + size:
        kind, _v, ehsize, psize = struct.unpack_from("<HHIQ", data, off)
        out.append((kind, struct.unpack_from("<I", data, off + 28)[0]))
        off += ehsize + psize
    return out


@(case if PTXAS else (lambda f: f))
def fat_binary_holds_cubin_and_ptx():
    d = fresh("fat")
    src = os.path.join(REPO, "examples", "vector_add.crisp")
    crisp_ok("--binary-gpu-target=sm_90", "--fat-binary", "-o", os.path.join(d, "va"), src)
    assert_equal(os.listdir(d), ["va_sm_90.fatbin"])
    assert_equal(sorted(fatbin_entries(os.path.join(d, "va_sm_90.fatbin"))), [(1, 60), (2, 90)])


@(case if PTXAS else (lambda f: f))
def unknown_gpu_asks_ptxas():
    d = fresh("unknown-sm")
    status, out, err = run(["--binary-gpu-target=sm_55", "--transpile-to=oclc", "--output-dir", d,
                            "examples/vector_add.crisp"])
    assert_equal(status, 2)
    check("message", "error[E1504]: --binary-gpu-target=sm_55: the installed ptxas" in err
          and "it knows:" in err and "sm_90" in err, err)
    assert_equal(os.listdir(d), [])  # all or nothing: not even the .cl
    status, out, err = run(["--binary-gpu-target=gfx90a", "examples/vector_add.crisp"])
    assert_equal(status, 2)
    check("unknown target", "unknown --binary-gpu-target `gfx90a`" in err, err)


@case
def missing_tools_name_their_packages():
    d = fresh("missing")
    src = os.path.join(REPO, "examples", "vector_add.crisp")
    empty = fresh("no-tools")
    only_clang = tool_dir("only-clang", "clang-14")
    only_llvm = tool_dir("only-llvm", "clang-14", "llvm-spirv-14")
    cases = [
        (empty, "--ir-target=spv", "needs `llvm-spirv-14`, which is not installed: install the Debian package llvm-spirv-14"),
        (only_clang, "--ir-target=spv", "needs `llvm-spirv-14`, which is not installed"),
        (empty, "--ir-target=ptx", "needs `clang-14`, which is not installed: install the Debian package clang-14"),
        (only_llvm, "--binary-gpu-target=sm_90", "needs `ptxas`, which is not installed: install NVIDIA's CUDA toolkit"),
        (empty, "--binary-gpu-target=pvc", "needs `ocloc`, which is not installed: install Intel's offline compiler ocloc"),
    ]
    for path, opt, msg in cases:
        status, out, err = run([opt, "--transpile-to=oclc", "--metadata", "--output-dir", d, src],
                               env=env_with_path(path))
        check("%s without its tool: status 2" % opt, status == 2, "status %d: %s" % (status, err))
        check("%s without its tool: message" % opt, "error[E1501]: " + opt in err and msg in err, err)
        assert_equal(os.listdir(d), [])  # no half-written outputs
    # a tool named by an environment variable must exist
    env = env_with_path(only_llvm)
    env["CRISP_LLVM_SPIRV"] = "/nonexistent/llvm-spirv"
    status, out, err = run(["--ir-target=spv", "--output-dir", d, src], env=env)
    check("CRISP_LLVM_SPIRV checked", status == 2 and "CRISP_LLVM_SPIRV=/nonexistent/llvm-spirv names no executable" in err, err)


@case
def tool_errors_point_at_the_crisp_line():
    fake = fresh("fake-clang")
    script = os.path.join(fake, "clang-14")
    with open(script, "w") as f:
        f.write("#!/bin/sh\n# a clang that rejects line 30 of the OpenCL C it is given\n"
                "for a; do case \"$a\" in *.cl) f=\"$a\";; esac; done\n"
                "echo \"$f:30:5: error: use of undeclared identifier 'foo'\"\n"
                "echo '1 error generated.'\nexit 1\n")
    os.chmod(script, 0o755)
    os.symlink(shutil.which("llvm-spirv-14"), os.path.join(fake, "llvm-spirv-14"))
    d = fresh("fake-out")
    src = os.path.join(REPO, "examples", "vector_add.crisp")
    crisp_ok("--transpile-to=oclc", "--output-dir", out_dir("fake-cl"), src)
    line30 = open(os.path.join(out_dir("fake-cl"), "vector_add.cl")).read().splitlines()[29]
    status, out, err = run(["--ir-target=spv", "--output-dir", d, src], env=env_with_path(fake))
    assert_equal(status, 2)
    # line 30 of the .cl belongs to the first kernel, from vector_add.crisp:8
    check("mapped", "examples/vector_add.crisp:8:1: error[E1503]: clang: use of undeclared identifier 'foo' "
          "(in the OpenCL C for --ir-target=spv, vector_add.cl:30)" in err, err + "\n.cl line 30: " + line30)
    check("tool failure", "crisp: error[E1502]: clang for --ir-target=spv failed (exit status 1)" in err, err)
    check("tool output as notes", "crisp: note: clang: vector_add.cl:30:5: error: use of undeclared identifier" in err, err)
    assert_equal(os.listdir(d), [])


@(case if PTXAS else (lambda f: f))
def tree_shaking_cache_is_reused_without_tools():
    d = fresh("shake")
    src = os.path.join(REPO, "tests", "e2e", "shake.crisp")
    crisp_ok("--tree-shaking", "--transpile-to=oclc", "--ir-target=spv", "--binary-gpu-target=sm_90",
             "--output-dir", d, "-DUNUSED=1", src)
    names = sorted(os.listdir(d))
    entries = [n for n in names if n.endswith(".crisp_lib")]
    check("two cache entries", len(entries) == 2, names)
    check("the record", "shake.crisp_libc" in names, names)
    rec = json.loads(open(os.path.join(d, "shake.crisp_libc")).read())
    assert_equal(rec["flags"], "-DUNUSED=1 --tree-shaking")
    assert_equal(rec["kept"], ["add-one", "shifted"])
    assert_equal(rec["shaken"], ["never-called", "+unused-table+"])
    assert_equal([k["name"] for k in rec["metadata"]["kernels"]], ["shift_all"])
    cl_text = open(os.path.join(d, "shake.cl")).read()
    check("shaken out", "never_called" not in cl_text and "unused_table" not in cl_text and "add_one" in cl_text)
    # a second compilation with no tool on PATH: from the cache, byte for byte
    crisp_ok("--tree-shaking", "--tree-shake-dir", d, "--ir-target=spv", "--binary-gpu-target=sm_90",
             "--output-dir", d, "--output-base", "again", src, env=env_with_path(fresh("no-tools-2")))
    for a, b in (("shake.spv", "again.spv"), ("shake_sm_90.cubin", "again_sm_90.cubin")):
        assert_equal(open(os.path.join(d, a), "rb").read() == open(os.path.join(d, b), "rb").read(), True)
    # another OpenCL C (no tree shaking) is a miss: the tools are needed
    status, out, err = run(["--tree-shake-dir", d, "--ir-target=spv", "--output-dir", d, "--output-base", "third", src],
                           env=env_with_path(fresh("no-tools-3")))
    check("miss needs the tools", status == 2 and "E1501" in err, err)
