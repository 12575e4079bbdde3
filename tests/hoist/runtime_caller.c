/* runtime_caller.c - unit checks of runtime-shim/crisp_runtime.h itself.
 *
 * Run by tests/e2e/hoist_c.py through tcc_driver (and compiled with gcc):
 * the debug-record decoder against hand-made buffers in the format of
 * docs/abi.md, error names, half and std140 conversions, launch-size
 * helpers, the helpers size expressions call, and errors recorded in a
 * CrispContext instead of printed.  Needs no OpenCL device. */
#include "crisp_runtime.h"

static int failures;

static void expect(int cond, const char *what) {
    printf("%s %s\n", cond ? "ok" : "FAIL", what);
    failures += !cond;
}

/* Decode WORDS into a string (through a temporary file: C99 has no memory streams). */
static size_t decode(const cl_uint *words, size_t n, const CrispDebugSite *sites, size_t nsites, char *out,
                     size_t size) {
    FILE *f = tmpfile();
    size_t records, len;
    if (!f) return (size_t)-1;
    records = crisp_debug_decode(f, words, n, sites, nsites);
    rewind(f);
    len = fread(out, 1, size - 1, f);
    out[len] = '\0';
    fclose(f);
    return records;
}

static const CrispDebugPart output_parts[] = {
    {"reached midpoint", NULL, NULL},
    {NULL, "int", "someVal"},
    {"and a float", NULL, NULL},
    {NULL, "float", "x"},
};
static const CrispDebugPart assert_parts[] = {
    {"assertion failed: (< 0 lives)", NULL, NULL},
    {"no lives left", NULL, NULL},
};
static const CrispDebugPart mixed_parts[] = {
    {"warp total: ", NULL, NULL},
    {NULL, "ulong", "n"},
    {NULL, "long", "d"},
    {NULL, "double", "y"},
    {NULL, "bool", "flag"},
};
static const CrispDebugSite sites[] = {
    {"kernels.crisp", 12, "output", output_parts, 4},
    {"kernels.crisp", 20, "assert", assert_parts, 2},
    {"k.crisp", 3, "output", mixed_parts, 5},
};

static void debug_channel(void) {
    cl_uint w[64];
    char text[2048];
    float f = 0.5f;
    double d = -2.25;
    cl_uint fbits, dbits[2];
    size_t r;
    memcpy(&fbits, &f, 4);
    memcpy(dbits, &d, 8);

    crisp_debug_init(w, 64);
    expect(w[0] == 2 && w[1] == 0 && w[63] == 0, "debug_init: cursor 2, nothing dropped");

    /* record 1: site 0, thread 5, values 42 and 0.5 */
    w[2] = 7; w[3] = 0; w[4] = 5; w[5] = 42; w[6] = 0; w[7] = fbits; w[8] = 0;
    /* record 2: site 1 (assert), thread 0, no values */
    w[9] = 3; w[10] = 1; w[11] = 0;
    /* record 3: site 2, thread 7: 640, -3 (sign-extended), -2.25, true */
    w[12] = 11; w[13] = 2; w[14] = 7;
    w[15] = 640; w[16] = 0; w[17] = 0xfffffffdu; w[18] = 0xffffffffu; w[19] = dbits[0]; w[20] = dbits[1];
    w[21] = 1; w[22] = 0;
    w[0] = 23;
    r = decode(w, 64, sites, 3, text, sizeof text);
    expect(r == 3, "three records decoded");
    expect(!strcmp(text, "kernels.crisp:12: [thread 5] reached midpoint 42 and a float 0.5\n"
                         "kernels.crisp:20: [thread 0] assertion failed: (< 0 lives): no lives left\n"
                         "k.crisp:3: [thread 7] warp total: 640 -3 -2.25 t\n"),
           "records read as in docs/abi.md");
    if (failures) printf("decoded:\n%s", text);

    /* a full buffer: the cursor passed the end and two records were dropped */
    w[0] = 1000;
    w[1] = 2;
    decode(w, 23, sites, 3, text, sizeof text);
    expect(strstr(text, "2 debug record(s) dropped") != NULL, "dropped records reported");

    /* an unknown site is skipped, a damaged record stops the decoding */
    w[0] = 23;
    w[1] = 0;
    w[3] = 9;
    w[12] = 2;
    r = decode(w, 64, sites, 3, text, sizeof text);
    expect(r == 1 && strstr(text, "unknown site 9") && strstr(text, "malformed record at word 12"),
           "unknown site and damaged record reported");
}

static void helpers(void) {
    float dense[3] = {1.5f, -2.0f, 3.25f}, back[3] = {0, 0, 0};
    unsigned char packed[48];
    CrispLaunch l;
    int i, good = 1;
    memset(packed, 0xee, sizeof packed);
    crisp_std140_pack(packed, 16, dense, sizeof(float), 3);
    crisp_std140_unpack(back, sizeof(float), packed, 16, 3);
    for (i = 0; i < 3; i++) good &= back[i] == dense[i] && packed[16 * i + 4] == 0 && packed[16 * i + 15] == 0;
    expect(good, "std140 pack/unpack round trip, padding zeroed");

    good = 1;
    for (i = -2048; i <= 2048; i++) good &= crisp_half_to_float(crisp_half_from_float((float)i)) == (float)i;
    expect(good && crisp_half_to_float(0x3c00) == 1.0f && crisp_half_to_float(0xc000) == -2.0f,
           "half conversions exact on integers");

    expect(!strcmp(crisp_error_name(-54), "CL_INVALID_WORK_GROUP_SIZE") &&
               !strcmp(crisp_error_name(-11), "CL_BUILD_PROGRAM_FAILURE") &&
               !strcmp(crisp_error_name(12345), "unknown OpenCL error"),
           "error names");

    expect(crisp_ceil_ull(60.0) == 60 && crisp_ceil_ull(60.5) == 61 && crisp_ceil_ull(-1.0) == 0 &&
               crisp_ceil_ull(1e-9) == 1,
           "floating sizes round up");

    crisp_launch_init(&l, 2);
    l.global[0] = 37;
    l.global[1] = 23;
    l.local[0] = 8;
    l.local[1] = 4;
    crisp_launch_round_up(&l);
    expect(l.global[0] == 40 && l.global[1] == 24 && crisp_global_size(&l, 2) == 1 &&
               crisp_num_groups(&l, 0) == 5 && crisp_global_linear_size(&l) == 960 &&
               crisp_local_linear_size(&l) == 32,
           "launch rounding and size-expression inputs");

    expect(crisp_contains("Portable Computing Language", "computing") && crisp_contains("x", "") &&
               !crisp_contains("pthread", "gpu"),
           "case-insensitive device matching");

    {
        unsigned char v[4 * 8];
        CrispElem e = crisp_elem("ushort4");
        crisp_fill_demo(v, 4, 8, "ushort4");
        expect(e.kind == 'u' && e.size == 2 && e.lanes == 4 && crisp_elem_get(e, v + 8, 3) == 5.0 &&
                   crisp_elem(crisp_elem("float3").lanes == 3 ? "float3" : "x").mem_lanes == 4,
               "element types and demo data");
    }
}

/* What size expressions and the length checks call. */
static void sizes_and_errors(void) {
    CrispContext cx;
    CrispLaunch l;
    CrispText t = {NULL, 0, 0, 0};
    cl_uint w[8];
    memset(&cx, 0, sizeof cx);
    expect(crisp_min_ull(3, 9) == 3 && crisp_max_ull(3, 9) == 9 && crisp_min_dbl(1.5, -2) == -2 &&
               crisp_div_ull(7, 0) == 0 && crisp_div_ull(7, 2) == 3 && crisp_ceil_div_ull(7, 2) == 4 &&
               crisp_ceil_div_ull(7, 0) == 0 && crisp_round_up_ull(17, 16) == 32 && crisp_monus_ull(2, 5) == 0 &&
               crisp_monus_ull(5, 2) == 3 && crisp_floor_dbl(-1.5) == -2 && crisp_ceil_dbl(1.25) == 2,
           "size-expression helpers (never a division by zero)");
    crisp_launch_init(&l, 1);
    l.global[0] = 100;
    expect(crisp_max_local_size(&l, 0) == 100 && crisp_max_num_groups(&l, 0) == 100,
           "bounds with OpenCL's choice of local size: the global size");
    l.local[0] = 10;
    expect(crisp_max_local_size(&l, 0) == 10 && crisp_max_num_groups(&l, 0) == 10, "bounds with a local size");
    expect(!strcmp(crisp_error_message(&cx), ""), "no message before a failure");
    expect(crisp_check_length(&cx, "k", "B", 10, 10, "A_len") == CL_SUCCESS, "a long enough vector");
    expect(crisp_check_length(&cx, "k", "B", 9, 10, "A_len") == CRISP_INVALID_LENGTH &&
               !strcmp(crisp_error_message(&cx),
                       "kernel k: argument B has 9 elements; it needs at least 10, what the kernel may touch (A_len)") &&
               cx.status == CRISP_INVALID_LENGTH && !strcmp(crisp_error_name(cx.status), "CRISP_INVALID_LENGTH"),
           "a short vector: its status and message on the context");
    crisp_fail(&cx, -54, "clEnqueueNDRangeKernel(k)");
    expect(strstr(crisp_error_message(&cx), "clEnqueueNDRangeKernel(k) failed: CL_INVALID_WORK_GROUP_SIZE (-54)") != NULL,
           "a failed call named with its status");
    crisp_error_clear(&cx);
    expect(cx.status == CL_SUCCESS && !cx.message[0], "crisp_error_clear");
    crisp_debug_init(w, 8);
    w[2] = 3;
    w[3] = 1;
    w[4] = 4;
    w[0] = 5;
    expect(crisp_debug_decode_text(&t, w, 8, sites, 3) == 1 &&
               !strcmp(crisp_text(&t), "kernels.crisp:20: [thread 4] assertion failed: (< 0 lives): no lives left\n"),
           "debug records decoded into text, nothing printed");
    crisp_text_free(&t);
}

int main(void) {
    debug_channel();
    helpers();
    sizes_and_errors();
    return failures ? 1 : 0;
}
