/* saxpy_host.c - run the tutorial's saxpy kernel from C (docs/tutorial.md),
 * with the C hoist used as a library:
 *
 *     crisp --hoist=OpenCL --output-dir=out docs/tutorial/saxpy.crisp
 *     cc -std=c99 -Iout docs/tutorial/saxpy_host.c out/saxpy_hoist_OpenCL.c -lOpenCL -lm -o saxpy
 *     ./saxpy out/saxpy.cl
 */
#include "saxpy_hoist_OpenCL.h"

#include <math.h>
#include <stdio.h>

enum { N = 1000 };

static int wrong(const float *x, const float *y, const float *z) {
    for (int i = 0; i < N; i++)
        if (fabsf(z[i] - (2.0f * x[i] + y[i])) > 1e-5f) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    static float x[N], y[N], z[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    CrispContext cx;                       /* CRISP_PLATFORM picks the device */
    saxpy_program prog;
    cl_int err = crisp_open(&cx, 0);
    if (err == CL_SUCCESS) err = saxpy_load(&prog, &cx, argc > 1 ? argv[1] : "saxpy.cl");
    if (err != CL_SUCCESS) {
        fprintf(stderr, "saxpy: %s\n", crisp_error_message(&cx));
        return 1;
    }

    /* host arrays: copied in, run with the declared sizes, Z copied back */
    err = saxpy_run(&prog, 2.0f, x, N, y, N, z, N, NULL);
    int bad = err != CL_SUCCESS || wrong(x, y, z);
    printf("saxpy_run on %d elements: %s (z[999] = %g)\n", N, bad ? "WRONG" : "ok", z[N - 1]);

    /* your own buffers: checked, enqueued, not waited for */
    cl_mem X = clCreateBuffer(cx.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
    cl_mem Y = clCreateBuffer(cx.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof y, y, &err);
    cl_mem Z = clCreateBuffer(cx.context, CL_MEM_WRITE_ONLY, sizeof z, NULL, &err);
    saxpy_args a = {2.0f, X, N, Y, N, Z, N};   /* every kernel argument, in order */
    cl_event done;
    err = saxpy_enqueue(&prog, NULL, &a, NULL, 0, NULL, &done);
    if (err == CL_SUCCESS) {
        err = clEnqueueReadBuffer(cx.queue, Z, CL_TRUE, 0, sizeof z, z, 1, &done, NULL);
        clReleaseEvent(done);
    } else {
        fprintf(stderr, "saxpy: %s\n", crisp_error_message(&cx));
    }
    int bad2 = err != CL_SUCCESS || wrong(x, y, z);
    printf("saxpy_enqueue on %d elements: %s\n", N, bad2 ? "WRONG" : "ok");

    /* a vector shorter than the kernel touches is refused, not run */
    a.Z_len = N - 1;
    err = saxpy_enqueue(&prog, NULL, &a, NULL, 0, NULL, NULL);
    printf("Z one short: %s\n", err == CRISP_INVALID_LENGTH ? crisp_error_message(&cx) : "NOT REFUSED");

    clReleaseMemObject(X);
    clReleaseMemObject(Y);
    clReleaseMemObject(Z);
    saxpy_release(&prog);
    crisp_close(&cx);
    return bad || bad2 || err != CRISP_INVALID_LENGTH;
}
