/* unified_caller.c - the API of a --hoist-unified-memory hoist.
 *
 * Run by tests/e2e/hoist_c.py through tcc_driver with the vector_add hoist
 * generated with --hoist-unified-memory and vector_add.cl (argv[1]).  Its
 * vectors are CrispMem handles: the same call must work with shared
 * virtual memory (when the device has it) and with plain buffers (the
 * fallback), so both are run; vector_add_run picks SVM itself. */
#include "vector_add_hoist_OpenCL.c"

#define N 333

static int run(CrispContext *cx, vector_add_program *prog, int use_svm) {
    float a[N], b[N], c[N];
    CrispMem A, B, C;
    vector_add_args args;
    int i, ok = 1;
    for (i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i);
        c[i] = 0;
    }
    if (crisp_mem_create(cx, &A, CL_MEM_READ_ONLY, sizeof a, a, 0, use_svm, "A") != CL_SUCCESS ||
        crisp_mem_create(cx, &B, CL_MEM_READ_ONLY, sizeof b, b, 0, use_svm, "B") != CL_SUCCESS ||
        crisp_mem_create(cx, &C, CL_MEM_WRITE_ONLY, sizeof c, c, 0, use_svm, "C") != CL_SUCCESS)
        return 0;
    if (use_svm && !(A.svm && !A.mem)) return printf("FAIL SVM requested but not used\n"), 0;
    if (!use_svm && !(A.mem && !A.svm)) return printf("FAIL buffer requested but not used\n"), 0;
    memset(&args, 0, sizeof args);
    args.A = A;
    args.A_len = N;
    args.B = B;
    args.B_len = N;
    args.C = C;
    args.C_len = N;
    if (vector_add_enqueue(prog, NULL, &args, NULL, 0, NULL, NULL) != CL_SUCCESS) return 0;
    if (clFinish(cx->queue) != CL_SUCCESS || crisp_mem_read(cx, cx->queue, &C, c, sizeof c, "C") != CL_SUCCESS) return 0;
    for (i = 0; i < N; i++) ok &= c[i] == 3.0f * (float)i;
    crisp_mem_release(&A);
    crisp_mem_release(&B);
    crisp_mem_release(&C);
    printf("%s vector_add with %s\n", ok ? "ok" : "FAIL", use_svm ? "shared virtual memory" : "buffers");
    return ok;
}

int main(int argc, char **argv) {
    CrispContext cx;
    vector_add_program prog;
    float a[N], c[N];
    int i, ok;
    if (argc < 2 || crisp_open(&cx, 0) != CL_SUCCESS || vector_add_load(&prog, &cx, argv[1]) != CL_SUCCESS) return 2;
    ok = run(&cx, &prog, 0);
    if (cx.has_svm) ok &= run(&cx, &prog, 1);
    else printf("ok (no SVM on %s: only the buffer path ran)\n", cx.device_name);
    for (i = 0; i < N; i++) a[i] = (float)i;
    if (vector_add_run(&prog, a, N, a, N, c, N, NULL) != CL_SUCCESS) ok = 0;
    for (i = 0; i < N; i++) ok &= c[i] == 2.0f * (float)i;
    printf("%s vector_add_run with %s\n", ok ? "ok" : "FAIL", cx.has_svm ? "shared virtual memory" : "buffers");
    vector_add_release(&prog);
    crisp_close(&cx);
    return ok ? 0 : 1;
}
