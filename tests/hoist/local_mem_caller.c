/* local_mem_caller.c - the C hoist's local-memory check, as a caller sees it.
 *
 * Built by tests/e2e/hoist_c.py (local_memory_checked_before_launch) with
 * the hoists of tests/e2e/lib/filter.crisp and tests/hoist_py/local_fixed.crisp,
 * and on a GPU by hand (docs/hoisting-c.md, "Local memory").  The device's
 * local memory is capped at NVIDIA's 48 KiB (the H200's own figure), so:
 * filter_small_double_tuned launched at 256 work-items needs 69,456 bytes
 * (34,880 at the 128 crisp chose for it) and is refused before the launch
 * with CL_OUT_OF_RESOURCES and a message naming both figures; at 64
 * work-items it runs and
 * finds the matches a loop finds here; with 4 KiB, loading local_fixed
 * (8 KiB of fixed :local vectors) is refused by local_fixed_load.  Prints
 * "ok ..." per check and exits 0 when every one holds. */
#include <string.h>

#include "filter_hoist_OpenCL.h"
#include "local_fixed_hoist_OpenCL.h"

#define N 5000

static int failures;

static void expect(int cond, const char *what, const char *detail) {
    printf("%s %s%s%s\n", cond ? "ok" : "FAIL", what, cond ? "" : ": ", cond ? "" : detail);
    if (!cond) failures++;
}

int main(void)
{
    static cl_double in[N], out[N];
    cl_ulong count[1] = {0}, want = 0;
    CrispContext cx;
    CrispLaunch l;
    filter_program p;
    local_fixed_program q;
    cl_int err;
    int i;
    for (i = 0; i < N; i++) {
        in[i] = (double)((i * 37) % 1000) / 500.0 - 1.0;
        want += in[i] > -0.25 && in[i] < 0.25;
    }
    if (crisp_open(&cx, 0) != CL_SUCCESS || filter_load(&p, &cx, NULL) != CL_SUCCESS) {
        printf("setup: %s\n", crisp_error_message(&cx));
        return 2;
    }
    printf("device: %s, %llu bytes of local memory\n", cx.device_name, cx.local_mem_size);
    expect(cx.local_mem_size > 0, "the context asked CL_DEVICE_LOCAL_MEM_SIZE", "0");
    if (cx.local_mem_size > 49152) cx.local_mem_size = 49152; /* NVIDIA's 48 KiB */
    crisp_launch_init(&l, 1);
    l.global[0] = N;
    l.local[0] = 256;
    crisp_launch_round_up(&l);
    err = filter_small_double_tuned_run(&p, in, N, out, N, count, 1, &l);
    expect(err == CL_OUT_OF_RESOURCES, "refused at 256 work-items with CL_OUT_OF_RESOURCES", crisp_error_message(&cx));
    expect(strstr(crisp_error_message(&cx), "kernel filter_small_double_tuned (global 5120, local 256) needs 69456 bytes of "
                                             "local memory per workgroup, but the device has 49152 (CL_DEVICE_LOCAL_MEM_SIZE)")
               != NULL,
           "the message names the kernel and both figures", crisp_error_message(&cx));
    crisp_error_clear(&cx);
    crisp_launch_init(&l, 1);
    l.global[0] = N;
    l.local[0] = 64;
    crisp_launch_round_up(&l);
    err = filter_small_double_tuned_run(&p, in, N, out, N, count, 1, &l);
    expect(err == CL_SUCCESS, "runs at 64 work-items", crisp_error_message(&cx));
    expect(count[0] == want, "finds the matches", "count differs");
    for (i = 0; i < (int)want && i < N; i++)
        if (!(out[i] > -0.25 && out[i] < 0.25)) break;
    expect(i == (int)want, "writes only matches", "a non-match in OUT");
    filter_release(&p);
    cx.local_mem_size = 4096;
    err = local_fixed_load(&q, &cx, NULL);
    expect(err == CL_OUT_OF_RESOURCES && strstr(crisp_error_message(&cx), "kernel reverse_fixed (any launch) needs 8192 bytes of "
                                                                          "local memory per workgroup, but the device has 4096"),
           "fixed :local vectors refused by the load", crisp_error_message(&cx));
    crisp_close(&cx);
    printf("%s\n", failures ? "FAILED" : "all ok");
    return failures ? 1 : 0;
}
