/* vector_add_caller.c - uses the generated vector_add hoist as a library.
 *
 * Run by tests/e2e/hoist_c.py through tcc_driver: it #includes
 * vector_add_hoist_OpenCL.c (compiled with CRISP_NO_DEMO), builds
 * vector_add.cl (argv[1]) and calls the per-kernel API the way existing
 * code would: its own cl_mem buffers, vector_add_enqueue with the declared
 * sizes, and vector_add_stride_enqueue with a launch of its own choosing.
 * Prints "ok ..." per check and exits 0 when every result is right. */
#include "vector_add_hoist_OpenCL.c"

#define N 1000 /* not a multiple of any workgroup size */

static int check_sum(const char *what, const float *a, const float *b, const float *c, int n) {
    int i;
    for (i = 0; i < n; i++) {
        if (c[i] != a[i] + b[i]) {
            printf("FAIL %s: C[%d] = %g, expected %g\n", what, i, c[i], a[i] + b[i]);
            return 0;
        }
    }
    printf("ok %s\n", what);
    return 1;
}

int main(int argc, char **argv) {
    CrispContext cx;
    cl_program program;
    cl_kernel k1 = NULL, k2 = NULL;
    cl_mem A = NULL, B = NULL, C = NULL;
    float a[N], b[N], c[N];
    vector_add_args args;
    vector_add_stride_args sargs;
    CrispLaunch launch;
    cl_int err;
    int i, ok = 1;

    if (argc < 2 || crisp_open(&cx, 0) != CL_SUCCESS) return 2;
    program = crisp_build_program_file(cx.context, cx.device, argv[1], NULL, &err);
    if (!program) return 2;
    for (i = 0; i < N; i++) {
        a[i] = (float)i * 0.5f;
        b[i] = (float)(N - i);
        c[i] = -1.0f;
    }
    A = clCreateBuffer(cx.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
    B = clCreateBuffer(cx.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof b, b, &err);
    C = clCreateBuffer(cx.context, CL_MEM_WRITE_ONLY | CL_MEM_COPY_HOST_PTR, sizeof c, c, &err);
    k1 = clCreateKernel(program, "vector_add", &err);
    k2 = clCreateKernel(program, "vector_add_stride", &err);
    if (!A || !B || !C || !k1 || !k2) return 2;

    /* one thread per element: the declared global size is the length of A */
    memset(&args, 0, sizeof args);
    args.A = A;
    args.A_len = N;
    args.B = B;
    args.B_len = N;
    args.C = C;
    args.C_len = N;
    vector_add_launch_size(&args, &launch);
    if (launch.dims != 1 || launch.global[0] != N || crisp_launch_has_local(&launch)) {
        printf("FAIL launch size: dims %u global %lu\n", launch.dims, (unsigned long)launch.global[0]);
        ok = 0;
    } else {
        printf("ok launch size\n");
    }
    err = vector_add_enqueue(cx.queue, k1, &args, NULL, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clEnqueueReadBuffer(cx.queue, C, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL);
    ok &= err == CL_SUCCESS && check_sum("vector_add_enqueue", a, b, c, N);

    /* grid stride: fewer threads than elements, a launch the caller chose */
    for (i = 0; i < N; i++) c[i] = -1.0f;
    clEnqueueWriteBuffer(cx.queue, C, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL);
    memset(&sargs, 0, sizeof sargs);
    sargs.A = A;
    sargs.A_len = N;
    sargs.B = B;
    sargs.B_len = N;
    sargs.C = C;
    sargs.C_len = N;
    crisp_launch_init(&launch, 1);
    launch.global[0] = 64;
    launch.local[0] = 16;
    err = vector_add_stride_enqueue(cx.queue, k2, &sargs, &launch, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clEnqueueReadBuffer(cx.queue, C, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL);
    ok &= err == CL_SUCCESS && check_sum("vector_add_stride_enqueue with 64 threads", a, b, c, N);

    /* a bad launch is reported, not crashed on */
    launch.global[0] = 60; /* not a multiple of 16 */
    err = vector_add_stride_enqueue(cx.queue, k2, &sargs, &launch, 0, NULL, NULL);
    if (err == CL_SUCCESS) {
        printf("FAIL a global size of 60 with local 16 was accepted\n");
        ok = 0;
    } else {
        printf("ok bad launch reported as %s\n", crisp_error_name(err));
    }

    clReleaseMemObject(A);
    clReleaseMemObject(B);
    clReleaseMemObject(C);
    clReleaseKernel(k1);
    clReleaseKernel(k2);
    clReleaseProgram(program);
    crisp_close(&cx);
    return ok ? 0 : 1;
}
