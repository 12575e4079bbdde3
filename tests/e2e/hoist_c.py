"""hoist_c.py - the C hoist (--hoist=OpenCL) of every program.

For every example (examples/*.crisp) and end-to-end program
(tests/e2e/*.crisp): crisp writes BASE_hoist_OpenCL.h, BASE_hoist_OpenCL.c,
BASE_hoist_OpenCL_demo.c and crisp_runtime.h into an empty folder, and
those files alone compile warning-free with gcc -std=c99 -Werror
-Wmissing-prototypes, g++ -Werror and tcc -Werror; the demos built by gcc
and tcc run on PoCL (exit 0, every kernel ran through its KERNEL_run).  The
examples' demos also run under oclgrind --data-races --uninitialized, which
must report nothing (oclgrind exits 0 even when it reports: its log is
read).  Then the generated files themselves: comments, determinism,
C++-keyword names, two hoists linked into one program.  The options, the
demo's errors, how outputs are written and the library API are
tests/e2e/hoist_c_api.py.

    PYTHONPATH=tests /usr/bin/python3 tests/e2e/hoist_c.py [CASE...]

CRISPTEST_PLATFORM (default "Portable Computing Language") is passed to the
demos as CRISP_PLATFORM.  Work happens 2 programs at a time
(HOIST_C_JOBS); files go to tests/out/e2e/hoist_c/.
"""
import concurrent.futures
import os

from crisptest import *
from _hoist_c_common import *

# ----------------------------------------------------------------------
# Every program: hoist, three compilers, the demo on PoCL (in parallel)

pool = concurrent.futures.ThreadPoolExecutor(max(1, JOBS))
builds = {src: pool.submit(build_and_run, src) for src in PROGRAMS}

for src in PROGRAMS:
    name = os.path.splitext(os.path.basename(src))[0]
    where = "examples" if src in EXAMPLES else "e2e"

    @case("demo_%s_%s" % (where, name))
    def _(src=src):
        d, exe, out = builds[src].result()
        check("PoCL", PLATFORM.lower() in out.splitlines()[0].lower(), out.splitlines()[0])
        base = os.path.splitext(os.path.basename(src))[0]
        demos = open(os.path.join(d, base + "_hoist_OpenCL_demo.c")).read().count("\nstatic int demo_")
        check("every kernel", kernels_ran(out) == demos, "%s ran, %d in the hoist" % (kernels_ran(out), demos))
        written = sorted(f for f in os.listdir(d) if not f.startswith("demo-"))
        check("a folder of what crisp wrote", written == sorted([base + ".cl", "crisp_runtime.h", base + "_hoist_OpenCL.h",
                                                                  base + "_hoist_OpenCL.c", base + "_hoist_OpenCL_demo.c"]),
              str(written))

for src in EXAMPLES:
    @case("oclgrind_%s" % os.path.splitext(os.path.basename(src))[0])
    def _(src=src):
        d, exe, _ = builds[src].result()
        oclgrind(exe, d)


# ----------------------------------------------------------------------
# The generated file

@case
def first_lines_name_the_shim():
    d, _, _ = builds[program("vector_add")].result()
    head = "".join(open(os.path.join(d, "vector_add_hoist_OpenCL.h")).readlines()[:8])
    check("names crisp_runtime.h", "crisp_runtime.h" in head, head)
    check("says what it is", head.startswith("/* vector_add_hoist_OpenCL.h - the C API of the kernels of vector_add.cl"), head)
    check("how to build", "vector_add_hoist_OpenCL_demo.c -lOpenCL" in head, head)


@case
def each_kernel_section_names_its_source_line():
    d, _, _ = builds[program("atomics")].result()
    text = open(os.path.join(d, "atomics_hoist_OpenCL.h")).read()
    for kname, line in (("histogram", 17), ("exchange", 79)):
        check(kname, " * Kernel %s: def-kernel at atomics.crisp:%d\n" % (kname, line) in text)


@case
def the_shim_is_written_beside_every_hoist():
    d, _, _ = builds[program("vector_add")].result()
    with open(SHIM) as a, open(os.path.join(d, "crisp_runtime.h")) as b:
        check("identical to runtime-shim/crisp_runtime.h", a.read() == b.read())
    other = out_dir("emit-runtime-elsewhere")
    status, out, err = crisp("--hoist=OpenCL", "--output-dir=" + d, "--emit-runtime=" + other, program("vector_add"))
    check("--emit-runtime=DIR still writes every shim there (OpenCL and CUDA)", status == 0 and
          sorted(os.listdir(other)) == ["crisp_runtime.h", "crisp_runtime.py", "crisp_runtime_cuda.h",
                                        "crisp_runtime_cuda.py"], err + str(os.listdir(other)))


@case
def hoist_is_deterministic():
    _, a = hoist(program("side_channels"), "determinism-a")
    _, b = hoist(program("side_channels"), "determinism-b")
    check("same text twice", open(a).read() == open(b).read())


@case
def hoist_implies_the_cl_file():
    d, _ = hoist(program("loops"), "implies-cl")
    check("loops.cl written", os.path.exists(os.path.join(d, "loops.cl")))


@case
def unknown_hoist_id_is_refused():
    d = out_dir("refused")
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    status, out, err = crisp("--hoist=L0", "--output-dir=" + d, program("vector_add"))
    check("exit 2", status == 2, "exit %d" % status)
    check("clear message", "hoist target `L0` is not available: Level Zero" in err, err)
    check("nothing written", os.listdir(d) == [], str(os.listdir(d)))


@case
def cpp_keyword_names():
    # parameters named like C++ keywords and like the generated functions' own parameters
    d, c_file = hoist(os.path.join(HOIST_TESTS, "cpp_names.crisp"), "cpp_names")
    text = open(c_file).read()
    text = open(c_file[:-2] + ".h").read()
    check("renamed fields", "cl_mem class_;" in text and "cl_mem args_;" in text and "cl_ulong launch_;" in text)
    for compiler in COMPILERS:
        compile_c(compiler, c_file, os.path.join(d, "demo-" + compiler.replace("+", "p")))
    run_demo(os.path.join(d, "demo-gcc"), d)


@case
def edge_cases():
    d, c_file = hoist(os.path.join(HOIST_TESTS, "edge_cases.crisp"), "edge_cases")
    for compiler in COMPILERS:
        compile_c(compiler, c_file, os.path.join(d, "demo-" + compiler.replace("+", "p")))
    out, _ = run_demo(os.path.join(d, "demo-tcc"), d)
    check("3D launch", "global 4 x 2 x 2, local 2 x 2 x 1" in out, out)
    check("local size from a scalar", "global 64, local 32" in out, out)


@case
def two_hoists_in_one_program():
    # each hoist is a library: two link into one program with a main of its own
    d1, c1 = hoist(program("vector_add"), "two-a")
    d2, c2 = hoist(program("lighten_image"), "two-b")
    main_c = os.path.join(d1, "two_main.c")
    with open(main_c, "w") as f:
        f.write('#include "vector_add_hoist_OpenCL.h"\n#include "lighten_image_hoist_OpenCL.h"\n'
                "int main(void)\n{\n    vector_add_program a;\n    lighten_image_program b;\n"
                '    (void)a;\n    (void)b;\n    puts("linked");\n    return 0;\n}\n')
    objs = []
    for c in (c1, c2, main_c):
        o = c + ".o"
        status, out, err = sh(COMPILERS["gcc"] + ["-I", d1, "-I", d2, "-c", c, "-o", o])
        check("compiles on its own: " + os.path.basename(c), status == 0 and not err.strip(), err)
        objs.append(o)
    exe = os.path.join(d1, "two")
    status, out, err = sh(["gcc"] + objs + ["-lOpenCL", "-o", exe])
    check("links", status == 0, err)
    status, out, err = sh([exe])
    check("runs", status == 0 and out.strip() == "linked", out + err)
    status, out, err = sh(["nm", objs[0]])
    check("no main in the library", " T main" not in out)
    check("the API is exported", " T vector_add_run" in out and " T vector_add_enqueue" in out, out)


@case
def local_memory_checked_before_launch():
    # KERNEL_check adds up the __local bytes of the call (the metadata's
    # "local_mem") and refuses a launch the device has too little local
    # memory for, naming both figures (CL_OUT_OF_RESOURCES, as the launch
    # would, with a message); a kernel with fixed :local vectors only is
    # checked once, by BASE_load (tests/hoist/local_mem_caller.c, which caps
    # the device at NVIDIA's 48 KiB)
    d, c1 = hoist(os.path.join(REPO, "tests", "e2e", "lib", "filter.crisp"), "local-mem")
    status, out, err = crisp("--hoist=OpenCL", "--output-dir=" + d, "tests/hoist_py/local_fixed.crisp")
    check("hoists local_fixed", status == 0, err)
    exe = os.path.join(d, "local-mem-caller")
    status, out, err = sh(COMPILERS["gcc"] + ["-I", d, c1, os.path.join(d, "local_fixed_hoist_OpenCL.c"),
                                               os.path.join(HOIST_TESTS, "local_mem_caller.c"), "-lOpenCL", "-o", exe])
    check("compiles", status == 0 and not err.strip(), err)
    status, out, err = sh([exe], cwd=d)
    check("every check holds", status == 0 and out.strip().endswith("all ok") and "FAIL" not in out, out + err)


def demo_program_line(d, c_file):
    # builds and runs the C demo; returns its output and its "program: " lines
    # (what the load built: the SPIR-V, the PTX or the .cl, and why)
    exe = os.path.join(d, "demo-gcc")
    compile_c("gcc", c_file, exe)
    out, err = run_demo(exe, d)
    line = [l for l in out.splitlines() if l.startswith("program: ")]
    check("says what it built", len(line) == 1, out[:400])
    return out, line


@case
def spirv_loaded_where_the_device_takes_it():
    # --ir-target=spv: vector_add_load builds vector_add.spv with clCreateProgramWithIL
    # where the device takes SPIR-V (Intel's CPU runtime), else the .cl, saying why (PoCL)
    d, c_file = hoist(program("vector_add"), "spirv", "--ir-target=spv")
    check("the SPIR-V is there", os.path.exists(os.path.join(d, "vector_add.spv")))
    out, line = demo_program_line(d, c_file)
    if "Intel" in PLATFORM:
        check("the SPIR-V", line[0] == "program: vector_add.spv (SPIR-V, clCreateProgramWithIL)", line[0])
    else:
        check("the .cl, and why", line[0].startswith("program: vector_add.cl (OpenCL C; not the SPIR-V: ")
              and "takes no SPIR-V" in line[0], line[0])
    check("ran", "C: 1024 x float: 2 4 6 8 10 12 14 16 ... (sum 17408)" in out, out[-600:])


@case
def ptx_loaded_on_nvidia_opencl():
    # --ir-target=ptx: crisp writes vector_add_nvcl.ptx beside vector_add.ptx
    # and vector_add_load builds it with clCreateProgramWithBinary on
    # NVIDIA's OpenCL (a program binary there is PTX text: the GPU run,
    # tests/gpu/cuda_hoists.py run-opencl), else the .cl, saying why (PoCL,
    # Intel); with --ir-target=spv too, the SPIR-V comes next
    for flags, name in ((["--ir-target=ptx"], "ptx"), (["--ir-target=ptx", "--ir-target=spv"], "ptx_spv")):
        try:
            d, c_file = hoist(program("vector_add"), name, *flags)
        except Exception as e:  # noqa: BLE001 - no clang-14/libclc-14 here
            if "E1501" in str(e):
                print("note: no PTX chain here: %s" % str(e).strip().splitlines()[0])
                return
            raise
        check("the PTX is there", os.path.exists(os.path.join(d, "vector_add.ptx")))
        check("the nvcl PTX is there", os.path.exists(os.path.join(d, "vector_add_nvcl.ptx")))
        with open(os.path.join(d, "vector_add.ptx")) as f:
            cuda_ptx = f.read()
        with open(os.path.join(d, "vector_add_nvcl.ptx")) as f:
            nvcl_ptx = f.read()
        # NVIDIA's OpenCL needs the annotated parameters; the CUDA driver
        # refuses them for __local ones, so BASE.ptx has none
        check("the nvcl PTX annotates pointers", ".param .u64 .ptr .global" in nvcl_ptx, nvcl_ptx[:800])
        check("BASE.ptx does not", ".ptr .global" not in cuda_ptx, cuda_ptx[:800])
        with open(c_file) as f:
            text = f.read()
        check("the load calls crisp_build_program_built",
              "crisp_build_program_built(cx, cl_path ? cl_path : \"vector_add.cl\", %d, 1," % ("--ir-target=spv" in flags)
              in text, text[text.find("_load("):][:600])
        out, line = demo_program_line(d, c_file)
        if "NVIDIA" in PLATFORM:
            check("the PTX", line[0] == "program: vector_add_nvcl.ptx (PTX, clCreateProgramWithBinary)", line[0])
        else:
            check("the fallback, and why not the PTX", line[0].endswith(" is not NVIDIA's OpenCL, whose program binaries are PTX)")
                  and "; not the PTX: " in line[0],
                  line[0])
            if "--ir-target=spv" in flags and "Intel" in PLATFORM:
                check("the SPIR-V next", line[0].startswith("program: vector_add.spv (SPIR-V, clCreateProgramWithIL; not the PTX"),
                      line[0])
            else:
                check("the .cl", line[0].startswith("program: vector_add.cl (OpenCL C"), line[0])
        check("ran", "C: 1024 x float: 2 4 6 8 10 12 14 16 ... (sum 17408)" in out, out[-600:])
    # a PTX that does not build: moved away, the .cl is built, saying why
    os.rename(os.path.join(d, "vector_add_nvcl.ptx"), os.path.join(d, "vector_add_nvcl.ptx.away"))
    out, err = run_demo(os.path.join(d, "demo-gcc"), d)
    line = [l for l in out.splitlines() if l.startswith("program: ")]
    check("still runs without the PTX", len(line) == 1 and "C: 1024 x float: 2 4 6 8" in out, out[-600:])
