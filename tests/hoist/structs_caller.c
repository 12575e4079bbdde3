/* structs_caller.c - host structs of a generated hoist against the device.
 *
 * Run by tests/e2e/hoist_c.py through tcc_driver with structs_hoist_OpenCL.c
 * and structs.cl (argv[1]).  The hoist declares each
 * def-struct for the host with the std140 layout of the .cl; if a single
 * field were at another offset, the values the kernels read and write
 * through these structs would come out wrong. */
#include "structs_hoist_OpenCL.c"

#define N 50

static int failures;

static void expect(int cond, const char *what) {
    printf("%s %s\n", cond ? "ok" : "FAIL", what);
    failures += !cond;
}

int main(int argc, char **argv) {
    CrispContext cx;
    structs_program prog;
    cl_int err;
    static particle ps[N];
    static cell cells[N];
    move_args margs;
    fill_cells_args fargs;
    int i, good = 1;

    if (argc < 2 || crisp_open(&cx, 0) != CL_SUCCESS || structs_load(&prog, &cx, argv[1]) != CL_SUCCESS) return 2;

    /* move: every field read and written by the kernel */
    memset(ps, 0, sizeof ps);
    for (i = 0; i < N; i++) {
        ps[i].mass = 2.0f;
        ps[i].pos[0] = (float)i;
        ps[i].pos[1] = 1.0f;
        ps[i].pos[2] = -1.0f;
        ps[i].charge = 0.25f;
        ps[i].vel.s[0] = 1.0f;
        ps[i].vel.s[1] = (float)i;
        ps[i].tag = (cl_char)i;
        ps[i].ids.s[0] = i;
        ps[i].flags = 4;
    }
    memset(&margs, 0, sizeof margs);
    margs.P = clCreateBuffer(cx.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof ps, ps, &err);
    margs.P_len = N;
    margs.dt = 0.5f;
    err = move_enqueue(&prog, NULL, &margs, NULL, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clEnqueueReadBuffer(cx.queue, margs.P, CL_TRUE, 0, sizeof ps, ps, 0, NULL, NULL);
    expect(err == CL_SUCCESS, "move ran");
    for (i = 0; i < N; i++) {
        double v2 = 1.0 + (double)i * i;
        good &= ps[i].pos[0] == (float)i + 0.5f && ps[i].pos[1] == 1.0f + 0.5f * (float)i && ps[i].pos[2] == -1.0f;
        good &= ps[i].charge == 0.25f && ps[i].mass == 2.0f;
        good &= ps[i].energy == 0.5 * 2.0 * v2;
        good &= ps[i].tag == (cl_char)(i + 1) && ps[i].flags == 5;
        good &= ps[i].ids.s[0] == i + 1 && ps[i].ids.s[1] == 2 && ps[i].ids.s[2] == 3 && ps[i].ids.s[3] == 4;
    }
    expect(good, "particle fields at their std140 offsets (float3 array, double, char, int4, short)");

    /* fill_cells: a struct nested in a struct */
    memset(cells, 0xff, sizeof cells);
    memset(&fargs, 0, sizeof fargs);
    fargs.Out = clCreateBuffer(cx.context, CL_MEM_WRITE_ONLY, sizeof cells, NULL, &err);
    fargs.Out_len = N;
    err = fill_cells_enqueue(&prog, NULL, &fargs, NULL, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clEnqueueReadBuffer(cx.queue, fargs.Out, CL_TRUE, 0, sizeof cells, cells, 0, NULL, NULL);
    expect(err == CL_SUCCESS, "fill_cells ran");
    for (good = 1, i = 0; i < N; i++) {
        good &= cells[i].p.mass == 1.5f && cells[i].p.charge == -1.0f && cells[i].p.tag == 7;
        good &= cells[i].p.ids.s[0] == i && cells[i].p.ids.s[3] == 1;
        good &= cells[i].count == (cl_uchar)i && cells[i].centre[0] == 1.0f && cells[i].centre[2] == (float)i;
    }
    expect(good, "cell fields, nested particle included");

    clReleaseMemObject(margs.P);
    clReleaseMemObject(fargs.Out);
    /* the same through move_run: host structs copied in and back */
    for (i = 0; i < N; i++) ps[i].tag = (cl_char)i;
    err = move_run(&prog, ps, N, 0.5f, NULL);
    for (good = err == CL_SUCCESS, i = 0; good && i < N; i++) good &= ps[i].tag == (cl_char)(i + 1) && ps[i].flags == 5;
    expect(good, "move_run on host structs");
    structs_release(&prog);
    crisp_close(&cx);
    return failures ? 1 : 0;
}
