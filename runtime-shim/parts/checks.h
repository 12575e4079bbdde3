/* A vector of HAVE elements where the kernel may touch NEED (WHAT: the
 * size expression): CRISP_INVALID_LENGTH with a message, else success. */
static inline cl_int crisp_check_length(CrispContext *cx, const char *kernel, const char *name, unsigned long long have,
                                        unsigned long long need, const char *what) {
    if (have >= need) return CL_SUCCESS;
    return crisp_errorf(cx, CRISP_INVALID_LENGTH,
                        "kernel %s: argument %s has %llu element%s; it needs at least %llu, what the kernel may touch (%s)",
                        kernel, name, have, have == 1 ? "" : "s", need, what);
}

/* ======================================================================
 * Host data: std140 packing, uploads and downloads for the *_run functions
 * ====================================================================== */

/* std140 arrays put every element at a 16-byte (or larger) stride.  Pack
 * COUNT elements of ELEM_BYTES from the dense array SRC into DST with
 * STRIDE bytes per element (padding zeroed); unpack does the reverse. */
static inline void crisp_std140_pack(void *dst, size_t stride, const void *src, size_t elem_bytes, size_t count) {
    size_t i;
    for (i = 0; i < count; i++) {
        unsigned char *d = (unsigned char *)dst + i * stride;
        memcpy(d, (const unsigned char *)src + i * elem_bytes, elem_bytes);
        if (stride > elem_bytes) memset(d + elem_bytes, 0, stride - elem_bytes);
    }
}

static inline void crisp_std140_unpack(void *dst, size_t elem_bytes, const void *src, size_t stride, size_t count) {
    size_t i;
    for (i = 0; i < count; i++)
        memcpy((unsigned char *)dst + i * elem_bytes, (const unsigned char *)src + i * stride, elem_bytes);
}

/* Device memory for COUNT host elements of ELEM_BYTES at HOST, laid out
 * STRIDE bytes apart on the device (std140 padding added).  UPLOAD: copy
 * the data (else the memory starts as it is: the kernel only writes it). */
static inline cl_int crisp_upload(CrispContext *cx, CrispMem *m, cl_mem_flags flags, const void *host, size_t count,
                                  size_t elem_bytes, size_t stride, int upload, int use_svm, const char *what) {
    void *staged = NULL;
    cl_int err;
    if (count && stride && count > (size_t)-1 / stride)
        return crisp_errorf(cx, CL_INVALID_BUFFER_SIZE, "%s: %lu elements do not fit in memory", what, (unsigned long)count);
    if (upload && host && stride != elem_bytes) {
        staged = crisp_host_alloc(cx, count, stride, what);
        if (!staged) return cx->status;
        crisp_std140_pack(staged, stride, host, elem_bytes, count);
    }
    err = crisp_mem_create(cx, m, flags, count * stride, upload ? (staged ? staged : host) : NULL, 0, use_svm, what);
    free(staged);
    return err;
}
