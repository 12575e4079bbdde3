/* saxpy_host.c - run the tutorial's saxpy kernel from C (docs/tutorial.md),
 * with the C hoist used as a library:
 *
 *     crisp --hoist=OpenCL --emit-runtime=out --output-dir=out docs/tutorial/saxpy.crisp
 *     cc -std=c99 -Iout docs/tutorial/saxpy_host.c -lOpenCL -lm -o saxpy && ./saxpy out/saxpy.cl
 */
#define CRISP_NO_DEMO                      /* the hoist without its main() */
#include "saxpy_hoist_OpenCL.c"

#include <math.h>

enum { N = 1000 };

int main(int argc, char **argv)
{
    static float x[N], y[N], z[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    CrispContext cx;                       /* CRISP_PLATFORM picks the device */
    if (crisp_open(&cx, 0) != CL_SUCCESS) return 1;
    cl_int err;
    cl_program program = crisp_build_program_file(cx.context, cx.device, argc > 1 ? argv[1] : "saxpy.cl", NULL, &err);
    if (!program) return 1;
    cl_kernel kernel = clCreateKernel(program, "saxpy", &err);
    cl_mem X = clCreateBuffer(cx.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
    cl_mem Y = clCreateBuffer(cx.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof y, y, &err);
    cl_mem Z = clCreateBuffer(cx.context, CL_MEM_WRITE_ONLY, sizeof z, NULL, &err);

    saxpy_args a = {0};                    /* every kernel argument, in order */
    a.a = 2.0f;
    a.X = X; a.X_len = N;
    a.Y = Y; a.Y_len = N;
    a.Z = Z; a.Z_len = N;
    err = saxpy_enqueue(cx.queue, kernel, &a, NULL, 0, NULL, NULL);  /* sizes as declared */
    if (err == CL_SUCCESS) err = clEnqueueReadBuffer(cx.queue, Z, CL_TRUE, 0, sizeof z, z, 0, NULL, NULL);

    int bad = err != CL_SUCCESS;
    for (int i = 0; i < N && !bad; i++) bad = fabsf(z[i] - (2.0f * x[i] + y[i])) > 1e-5f;
    printf("saxpy on %d elements: %s (z[999] = %g)\n", N, bad ? "WRONG" : "ok", z[N - 1]);
    clReleaseMemObject(X);
    clReleaseMemObject(Y);
    clReleaseMemObject(Z);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    crisp_close(&cx);
    return bad;
}
