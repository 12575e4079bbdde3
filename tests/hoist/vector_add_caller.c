/* vector_add_caller.c - uses the generated vector_add hoist as a library.
 *
 * Run by tests/e2e/hoist_c.py through tcc_driver: it #includes
 * vector_add_hoist_OpenCL.c (the library; the demo is another file) and
 * calls its API the way existing code would: with a context and queue of
 * its own (crisp_use), its own cl_mem buffers (vector_add_enqueue, the
 * declared launch and one of its own choosing, two kernels chained on the
 * device through an event), host arrays (vector_add_run), and the errors a
 * caller must get instead of a crash: a vector shorter than what the kernel
 * touches, a buffer smaller than its length says, a buffer of another
 * context, a bad launch.  Prints "ok ..." per check and exits 0 when every
 * result is right.  docs/hoisting-c.md shows the same calls. */
#include "vector_add_hoist_OpenCL.c"

#define N 1000 /* not a multiple of any workgroup size */

static int failures;

static void expect(int cond, const char *what) {
    printf("%s %s\n", cond ? "ok" : "FAIL", what);
    failures += !cond;
}

static int sums_are(const float *a, const float *b, const float *c, int n, float scale) {
    int i;
    for (i = 0; i < n; i++)
        if (c[i] != scale * (a[i] + b[i])) return 0;
    return 1;
}

int main(int argc, char **argv) {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    CrispContext cx, other;
    vector_add_program prog;
    cl_mem A, B, C, T, tiny, foreign;
    float a[N], b[N], c[N], c2[N];
    vector_add_args args, targs;
    vector_add_stride_args sargs;
    CrispLaunch launch;
    cl_event first, second;
    cl_int err;
    int i;

    if (argc < 2) return 2;
    /* the caller's own context and queue, made without crisp */
    if (crisp_pick_device(&other, &platform, &device) != CL_SUCCESS) return 2;
    context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    queue = clCreateCommandQueue(context, device, 0, &err);
    if (err != CL_SUCCESS) return 2;
    expect(crisp_use(&cx, context, queue) == CL_SUCCESS, "crisp_use takes the caller's context and queue");
    err = vector_add_load(&prog, &cx, argv[1]);
    expect(err == CL_SUCCESS, "vector_add_load builds the program on that context");
    if (err != CL_SUCCESS) {
        printf("  %s\n", crisp_error_message(&cx));
        return 1;
    }

    for (i = 0; i < N; i++) {
        a[i] = (float)i * 0.5f;
        b[i] = (float)(N - i);
        c[i] = -1.0f;
    }
    A = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
    B = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof b, b, &err);
    C = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof c, NULL, &err);
    T = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof c, NULL, &err);
    tiny = clCreateBuffer(context, CL_MEM_READ_WRITE, 16, NULL, &err);

    /* one thread per element: the declared global size is the length of A */
    memset(&args, 0, sizeof args);
    args.A = A;
    args.A_len = N;
    args.B = B;
    args.B_len = N;
    args.C = C;
    args.C_len = N;
    vector_add_launch_size(&args, &launch);
    expect(launch.dims == 1 && launch.global[0] == N && !crisp_launch_has_local(&launch), "launch size from A");
    err = vector_add_enqueue(&prog, NULL, &args, NULL, 0, NULL, &first);
    if (err == CL_SUCCESS) err = clEnqueueReadBuffer(queue, C, CL_TRUE, 0, sizeof c, c, 1, &first, NULL);
    expect(err == CL_SUCCESS && sums_are(a, b, c, N, 1.0f), "vector_add_enqueue on the caller's buffers");
    clReleaseEvent(first);

    /* chained: T = A + B, then C = T + T, T never leaves the device */
    targs = args;
    targs.C = T;
    err = vector_add_enqueue(&prog, queue, &targs, NULL, 0, NULL, &first);
    args.A = T;
    args.B = T;
    if (err == CL_SUCCESS) err = vector_add_enqueue(&prog, queue, &args, NULL, 1, &first, &second);
    if (err == CL_SUCCESS) err = clEnqueueReadBuffer(queue, C, CL_TRUE, 0, sizeof c, c, 1, &second, NULL);
    expect(err == CL_SUCCESS && sums_are(a, b, c, N, 2.0f), "two kernels chained through an event, on the device");
    if (err == CL_SUCCESS) {
        clReleaseEvent(first);
        clReleaseEvent(second);
    }
    args.A = A;
    args.B = B;

    /* grid stride: fewer threads than elements, a launch the caller chose */
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
    err = vector_add_stride_enqueue(&prog, NULL, &sargs, &launch, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clEnqueueReadBuffer(queue, C, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL);
    expect(err == CL_SUCCESS && sums_are(a, b, c, N, 1.0f), "vector_add_stride_enqueue with 64 threads");

    /* host arrays: copied in and back, the call waits */
    for (i = 0; i < N; i++) c2[i] = -1.0f;
    err = vector_add_run(&prog, a, N, b, N, c2, N, NULL);
    expect(err == CL_SUCCESS && sums_are(a, b, c2, N, 1.0f), "vector_add_run on host arrays");

    /* the same on an out-of-order queue: the copies back wait for the kernel */
    {
        cl_command_queue ooo = clCreateCommandQueue(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
        if (err == CL_SUCCESS) {
            CrispContext ocx;
            vector_add_program oprog;
            for (i = 0; i < N; i++) c2[i] = -1.0f;
            err = crisp_use(&ocx, context, ooo);
            if (err == CL_SUCCESS) err = vector_add_load(&oprog, &ocx, argv[1]);
            if (err == CL_SUCCESS) {
                err = vector_add_run(&oprog, a, N, b, N, c2, N, NULL);
                vector_add_release(&oprog);
            }
            expect(err == CL_SUCCESS && sums_are(a, b, c2, N, 1.0f), "vector_add_run on an out-of-order queue");
            crisp_close(&ocx);
            clReleaseCommandQueue(ooo);
        }
    }

    /* errors the caller gets instead of an out-of-bounds kernel */
    err = vector_add_run(&prog, a, N, b, 10, c2, N, NULL);
    expect(err == CRISP_INVALID_LENGTH && strstr(crisp_error_message(&cx), "argument B has 10 elements") &&
               strstr(crisp_error_message(&cx), "at least 1000"),
           "a B shorter than A is an error, not a crash");
    args.C = tiny;
    err = vector_add_enqueue(&prog, NULL, &args, NULL, 0, NULL, NULL);
    expect(err == CRISP_INVALID_LENGTH && strstr(crisp_error_message(&cx), "buffer of 16 bytes"),
           "a buffer smaller than its length says is an error");
    args.C = C;
    args.A_len = 10;
    err = vector_add_enqueue(&prog, NULL, &args, NULL, 0, NULL, NULL);
    expect(err == CL_SUCCESS, "a shorter A: a smaller launch, and every vector long enough for it");
    args.A_len = N;
    crisp_launch_init(&launch, 1);
    launch.global[0] = 2 * N;
    err = vector_add_enqueue(&prog, NULL, &args, &launch, 0, NULL, NULL);
    expect(err == CRISP_INVALID_LENGTH && strstr(crisp_error_message(&cx), "global_size0"),
           "a launch larger than the vectors is an error");
    if (crisp_open(&other, 0) == CL_SUCCESS) {
        foreign = clCreateBuffer(other.context, CL_MEM_READ_ONLY, sizeof a, NULL, &err);
        args.B = foreign;
        err = vector_add_enqueue(&prog, NULL, &args, NULL, 0, NULL, NULL);
        expect(err == CL_INVALID_CONTEXT && strstr(crisp_error_message(&cx), "another context"),
               "a buffer of another context is an error");
        args.B = B;
        clReleaseMemObject(foreign);
        crisp_close(&other);
    }
    crisp_launch_init(&launch, 1);
    launch.global[0] = 60; /* not a multiple of 16 */
    launch.local[0] = 16;
    err = vector_add_stride_enqueue(&prog, NULL, &sargs, &launch, 0, NULL, NULL);
    expect(err != CL_SUCCESS && strstr(crisp_error_message(&cx), "clEnqueueNDRangeKernel(vector_add_stride"),
           "a bad launch is reported with its sizes");

    clReleaseMemObject(A);
    clReleaseMemObject(B);
    clReleaseMemObject(C);
    clReleaseMemObject(T);
    clReleaseMemObject(tiny);
    vector_add_release(&prog);
    crisp_close(&cx);
    /* the caller's objects are still the caller's */
    expect(clFinish(queue) == CL_SUCCESS, "the caller's queue survives crisp_close");
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return failures ? 1 : 0;
}
