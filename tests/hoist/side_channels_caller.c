/* side_channels_caller.c - the side-channel API of a generated hoist.
 *
 * Run by tests/e2e/hoist_c.py through tcc_driver with
 * side_channels_hoist_OpenCL.c and side_channels.cl (argv[1]).  Checks that
 * KERNEL_side_sizes evaluates the size expressions (result vectors sized
 * from parameters, a scratch pool sized from a length and the launch, an
 * implicit vector) and that the kernels fill the side channels the caller
 * allocated with those sizes; std140 data goes through the shim's
 * pack/unpack helpers.  Then the same through KERNEL_run: result vectors
 * come back malloc'ed, std140 removed. */
#include "side_channels_hoist_OpenCL.c"

static int failures;

static void expect(int cond, const char *what) {
    printf("%s %s\n", cond ? "ok" : "FAIL", what);
    failures += !cond;
}

static cl_mem buffer(CrispContext *cx, size_t bytes, const void *init) {
    cl_int err;
    cl_mem m = clCreateBuffer(cx->context, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)init, &err);
    if (err != CL_SUCCESS) crisp_fail(cx, err, "clCreateBuffer");
    return m;
}

static void final_result(CrispContext *cx, side_channels_program *prog) {
    enum { N = 64 };
    float a[N], packed[N * 4], r0[N];
    float r0_std140[N * 4], r1_std140[15 * 4];
    cl_ulong hav_std140[25 * 2];
    final_result_args args;
    CrispLaunch launch;
    int i, good;

    for (i = 0; i < N; i++) a[i] = (float)i * 0.25f;
    crisp_std140_pack(packed, 16, a, sizeof(float), N);
    memset(&args, 0, sizeof args);
    args.A = buffer(cx, sizeof packed, packed);
    args.A_len = N;
    args.x = 5;
    args.y = 3;
    final_result_launch_size(&args, &launch);
    final_result_side_sizes(&args, &launch);
    expect(args.result0_len == N, "result0 sized (length~ A)");
    expect(args.result1_len == 15, "result1 sized (* x y)");
    expect(args.haversine_len == 25, "haversine sized (* x x)");
    args.result0 = buffer(cx, (size_t)args.result0_len * 16, NULL);
    args.result1 = buffer(cx, (size_t)args.result1_len * 16, NULL);
    args.haversine = buffer(cx, (size_t)args.haversine_len * 16, NULL);
    if (final_result_enqueue(prog, NULL, &args, &launch, 0, NULL, NULL) != CL_SUCCESS) {
        expect(0, crisp_error_message(cx));
        return;
    }
    clEnqueueReadBuffer(cx->queue, args.result0, CL_TRUE, 0, sizeof r0_std140, r0_std140, 0, NULL, NULL);
    clEnqueueReadBuffer(cx->queue, args.result1, CL_TRUE, 0, sizeof r1_std140, r1_std140, 0, NULL, NULL);
    clEnqueueReadBuffer(cx->queue, args.haversine, CL_TRUE, 0, sizeof hav_std140, hav_std140, 0, NULL, NULL);
    crisp_std140_unpack(r0, sizeof(float), r0_std140, 16, N);
    for (good = 1, i = 0; i < N; i++) good &= r0[i] == 2 * a[i];
    expect(good, "result0 = 2 * A (std140 unpacked)");
    for (good = 1, i = 0; i < 15; i++) good &= r1_std140[4 * i] == (float)i;
    expect(good, "result1 = 0 .. 14");
    for (good = 1, i = 0; i < 25; i++) good &= hav_std140[2 * i] == (cl_ulong)(i * i);
    expect(good, "haversine = i * i");
    clReleaseMemObject(args.A);
    clReleaseMemObject(args.result0);
    clReleaseMemObject(args.result1);
    clReleaseMemObject(args.haversine);
}

static void calc_something(CrispContext *cx, side_channels_program *prog) {
    enum { N = 40 };
    float a[N], packed[N * 4], res[N], expected[N];
    calc_something_args args;
    CrispLaunch launch;
    int i, good;

    for (i = 0; i < N; i++) a[i] = (float)(i % 7);
    crisp_std140_pack(packed, 16, a, sizeof(float), N);
    memset(&args, 0, sizeof args);
    args.A = buffer(cx, sizeof packed, packed);
    args.A_len = N;
    args.Res = buffer(cx, sizeof res, NULL);
    args.Res_len = N;
    calc_something_launch_size(&args, &launch);
    launch.local[0] = 8; /* the caller's choice: the pool follows the launch */
    crisp_launch_round_up(&launch);
    calc_something_side_sizes(&args, &launch);
    /* 20 std140 floats (320 bytes), then ceil(40 * 1.5) = 60 std140 ulongs (960 bytes) */
    expect(args.scratch_pool_len == 320 + 960, "scratch pool of 1280 bytes");
    args.scratch_pool = buffer(cx, (size_t)args.scratch_pool_len, NULL);
    if (calc_something_enqueue(prog, NULL, &args, &launch, 0, NULL, NULL) != CL_SUCCESS) {
        expect(0, crisp_error_message(cx));
        return;
    }
    clEnqueueReadBuffer(cx->queue, args.Res, CL_TRUE, 0, sizeof res, res, 0, NULL, NULL);
    for (i = 0; i < N; i++) expected[i] = (float)(3 * i) + (i < N / 2 ? a[2 * i] + a[2 * i + 1] : 0.0f);
    for (good = 1, i = 0; i < N; i++) good &= res[i] == expected[i];
    expect(good, "calc_something through the scratch pool");
    clReleaseMemObject(args.A);
    clReleaseMemObject(args.Res);
    clReleaseMemObject(args.scratch_pool);
}

static void use_table(CrispContext *cx, side_channels_program *prog) {
    enum { N = 12 };
    cl_int table[4] = {1, 2, 3, 4}, out[N];
    use_table_args args;
    CrispLaunch launch;
    int i, good;

    memset(&args, 0, sizeof args);
    args.Out = buffer(cx, sizeof out, NULL);
    args.Out_len = N;
    use_table_launch_size(&args, &launch);
    use_table_side_sizes(&args, &launch);
    expect(args.table2_len == 4, "implicit table2 of 4 elements");
    args.table2 = buffer(cx, sizeof table, table);
    if (use_table_enqueue(prog, NULL, &args, NULL, 0, NULL, NULL) != CL_SUCCESS) {
        expect(0, crisp_error_message(cx));
        return;
    }
    clEnqueueReadBuffer(cx->queue, args.Out, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    for (good = 1, i = 0; i < N; i++) good &= out[i] == 10 * table[i % 4];
    expect(good, "use_table reads the implicit vector");
    clReleaseMemObject(args.Out);
    clReleaseMemObject(args.table2);
}

/* The same kernels from host arrays: KERNEL_run. */
static void runs(CrispContext *cx, side_channels_program *prog) {
    enum { N = 64 };
    float a[N], *r0 = NULL, *r1 = NULL;
    cl_ulong *hav = NULL;
    size_t n0 = 0, n1 = 0, nh = 0;
    cl_int table[4] = {5, 6, 7, 8}, out[12], small[2] = {0, 0};
    int i, good;
    cl_int err;
    for (i = 0; i < N; i++) a[i] = (float)i;
    err = final_result_run(prog, a, N, 5, 3, &r0, &n0, &r1, &n1, &hav, &nh, NULL);
    expect(err == CL_SUCCESS && n0 == N && n1 == 15 && nh == 25, "final_result_run: result lengths from the sizes");
    for (good = r0 && r1 && hav, i = 0; good && i < N; i++) good &= r0[i] == 2 * a[i];
    for (i = 0; good && i < 15; i++) good &= r1[i] == (float)i;
    for (i = 0; good && i < 25; i++) good &= hav[i] == (cl_ulong)(i * i);
    expect(good, "result vectors malloc'ed for the caller, std140 removed");
    free(r0);
    free(r1);
    free(hav);
    err = use_table_run(prog, out, 12, table, 4, NULL);
    for (good = err == CL_SUCCESS, i = 0; good && i < 12; i++) good &= out[i] == 10 * table[i % 4];
    expect(good, "use_table_run with the implicit vector given");
    err = use_table_run(prog, out, 12, NULL, 0, NULL);
    for (good = err == CL_SUCCESS, i = 0; good && i < 12; i++) good &= out[i] == 0;
    expect(good, "use_table_run: an implicit vector not given is zeros");
    err = use_table_run(prog, out, 12, small, 2, NULL);
    expect(err == CRISP_INVALID_LENGTH && strstr(crisp_error_message(cx), "table2 has 2 elements"),
           "an implicit vector shorter than its size is an error");
}

int main(int argc, char **argv) {
    CrispContext cx;
    side_channels_program prog;
    if (argc < 2 || crisp_open(&cx, 0) != CL_SUCCESS) return 2;
    if (side_channels_load(&prog, &cx, argv[1]) != CL_SUCCESS) {
        printf("FAIL %s\n", crisp_error_message(&cx));
        return 1;
    }
    final_result(&cx, &prog);
    calc_something(&cx, &prog);
    use_table(&cx, &prog);
    runs(&cx, &prog);
    side_channels_release(&prog);
    crisp_close(&cx);
    return failures ? 1 : 0;
}
