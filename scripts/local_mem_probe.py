"""local_mem_probe.py - what a device says about a program's kernels'
memory, next to what crisp computed (the "local_mem" of the metadata,
analysis/localmem.c).  For a kernel refused at launch with
CL_OUT_OF_RESOURCES: is it local memory, registers or the work-group size?

    /usr/bin/python3 scripts/local_mem_probe.py FILE.crisp [KERNEL...] [--wg 64,128,256] [--n 100003] [--launch]

Prints the device's CL_DEVICE_LOCAL_MEM_SIZE and CL_DEVICE_MAX_WORK_GROUP_SIZE,
then per kernel CL_KERNEL_LOCAL_MEM_SIZE (no argument set: the fixed
__local memory and what the implementation adds), CL_KERNEL_PRIVATE_MEM_SIZE,
CL_KERNEL_WORK_GROUP_SIZE, and per local size crisp's figure, the device's
CL_KERNEL_LOCAL_MEM_SIZE with the __local arguments set to crisp's sizes,
and with --launch the outcome of a launch over N zeros that skips the
harness's own local-memory check (so a refusal shows the driver's error).
The platform is CRISPTEST_PLATFORM's (tests/README.md)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import crisptest  # noqa: E402
from crisptest import cl, np, compile, dtype_of  # noqa: E402


def main(argv):
    wgs, n, launch, names, src = [64, 128, 256], 100003, False, [], None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--wg":
            wgs = [int(x) for x in argv[i + 1].split(",")]
            i += 1
        elif a == "--n":
            n = int(argv[i + 1])
            i += 1
        elif a == "--launch":
            launch = True
        elif src is None:
            src = a
        else:
            names.append(a)
        i += 1
    if not src:
        sys.exit(__doc__)
    prog = compile(src)
    ctx, _ = crisptest._context()
    dev = ctx.devices[0]
    print("device: %s" % crisptest.device_name())
    print("CL_DEVICE_LOCAL_MEM_SIZE %d  CL_DEVICE_MAX_WORK_GROUP_SIZE %d  CL_DEVICE_MAX_COMPUTE_UNITS %d"
          % (dev.local_mem_size, dev.max_work_group_size, dev.max_compute_units))
    info = cl.kernel_work_group_info
    for name in names or sorted(prog.kernels):
        k = prog.kernels[name]
        kern = cl.Kernel(prog.cl, name)
        row = []
        for what in ("LOCAL_MEM_SIZE", "PRIVATE_MEM_SIZE", "WORK_GROUP_SIZE"):
            try:
                row.append("CL_KERNEL_%s %d" % (what, kern.get_work_group_info(getattr(info, what), dev)))
            except Exception as e:  # noqa: BLE001 - a driver may not answer
                row.append("CL_KERNEL_%s ? (%s)" % (what, type(e).__name__))
        lm = k.get("local_mem") or {}
        print("%s: %s; crisp: %s bytes at %s, fixed %s" % (
            name, "  ".join(row), lm.get("bytes"), lm.get("at_local_size"), lm.get("static_bytes", 0)))
        for wg in wgs:
            need = prog.local_mem_bytes(name, wg)
            env = {"local_linear_size": wg}
            for a in k["args"]:
                if a["role"] == "local" and not set(a["size"]["inputs"]) - {"local_linear_size"}:
                    kern.set_arg(a["index"], cl.LocalMemory(max(int(eval(a["size"]["python"], env)), 1) * a["stride"]))
            try:
                dev_local = kern.get_work_group_info(info.LOCAL_MEM_SIZE, dev)
            except Exception as e:  # noqa: BLE001
                dev_local = "? (%s)" % type(e).__name__
            line = "  wg %4d: crisp %s bytes, CL_KERNEL_LOCAL_MEM_SIZE with the __local args set %s" % (wg, need, dev_local)
            if launch:
                args = []
                for p in prog.params(name):
                    if p["role"] == "buffer":
                        args.append(np.zeros(n, dtype_of(p["element"])))
                    else:
                        args.append(0)
                saved = crisptest.Program._check_local_mem
                crisptest.Program._check_local_mem = lambda *a: None
                try:
                    prog.run(name, *args, global_size=wg * max(1, -(-n // wg)), local_size=wg)
                    line += ", launch: ok (%.3f ms)" % (prog.last_kernel_seconds * 1e3)
                except Exception as e:  # noqa: BLE001 - the point is to see it
                    line += ", launch: %s: %s" % (type(e).__name__, str(e).strip().splitlines()[0][:200])
                finally:
                    crisptest.Program._check_local_mem = saved
            print(line)
            sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
