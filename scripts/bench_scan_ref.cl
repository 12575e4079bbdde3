/* bench_scan_ref.cl - hand-written OpenCL C baselines for `make bench`
 * (scripts/bench_scan.py): a single-pass exclusive scan of ints with
 * decoupled look-back (Merrill & Garland 2016, the algorithm of CUB) and
 * the stream compaction built on it, written directly in OpenCL C 1.2.
 *
 * Tiles of ITEMS ints per thread are taken by an atomic ticket; a thread
 * loads its ITEMS consecutive ints as int4s; the workgroup scans the
 * per-thread sums by raking in local memory (3 barriers); thread 0 publishes
 * the tile's aggregate, folds the statuses of the tiles before it (the 32
 * newest read by 32 threads while the workgroup scans, then 8 at a time)
 * and publishes the inclusive prefix.  A status word is (tag << 32) | value
 * with tag = epoch << 2 | state (1 aggregate, 2 inclusive); the last
 * workgroup resets the counters and advances the epoch.
 *
 * state[0] next ticket, state[1] finished workgroups, state[2] epoch;
 * flags: one ulong per tile; all zero before the first launch. */
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable

#define ITEMS 16
#define WINDOW 32

/* thread 0: publish, look back, publish; returns the carry */
static int lookback(__global ulong *flags, ulong tile, int total, uint etag,
                    __local const ulong *window, uint wlen)
{
    int carry = 0;
    if (tile == 0) {
        atom_xchg(&flags[0], ((ulong)((etag << 2) | 2u) << 32) | (uint)total);
        return 0;
    }
    atom_xchg(&flags[tile], ((ulong)((etag << 2) | 1u) << 32) | (uint)total);
    ulong end = tile - 1;
    int found = 0;
    /* the window the workgroup read, then 8 fresh statuses at a time */
    ulong folded = 0;
    for (uint q = 0; q < wlen && q <= end; q++) {
        ulong w = window[q];
        uint tag = (uint)(w >> 32);
        uint st = (tag >> 2) == etag ? (tag & 3u) : 0u;
        if (st == 0) break;
        carry = (int)(uint)w + carry;
        folded++;
        if (st == 2) { found = 1; break; }
    }
    end -= min(end, folded);
    while (!found) {
        ulong w[8];
        for (uint q = 0; q < 8 && q <= end; q++) w[q] = atom_add(&flags[end - q], 0UL);
        folded = 0;
        for (uint q = 0; q < 8 && q <= end; q++) {
            uint tag = (uint)(w[q] >> 32);
            uint st = (tag >> 2) == etag ? (tag & 3u) : 0u;
            if (st == 0) break;
            carry = (int)(uint)w[q] + carry;
            folded++;
            if (st == 2) { found = 1; break; }
        }
        end -= min(end, folded);
    }
    atom_xchg(&flags[tile], ((ulong)((etag << 2) | 2u) << 32) | (uint)(carry + total));
    return carry;
}

/* the tile loop shared by the scan (FILTER 0) and the filter (FILTER 1) */
#define TILE_LOOP(FILTER)                                                                        \
    uint lid = get_local_id(0), wg = get_local_size(0);                                          \
    uint groups = get_num_groups(0), wlen = min((uint)WINDOW, groups);                           \
    ulong tile_len = (ulong)wg * ITEMS;                                                          \
    ulong ntiles = (n + tile_len - 1) / tile_len;                                                \
    uint seg = (wg + 31) / 32, top = wg + wg / 32 + 1;                                           \
    int v[ITEMS];                                                                                \
    if (lid == 0) {                                                                              \
        ctl[1] = atomic_add(&state[2], 0);                                                       \
        mem_fence(CLK_GLOBAL_MEM_FENCE);                                                         \
        ctl[0] = atomic_inc(&state[0]);                                                          \
    }                                                                                            \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                \
    ulong tile = ctl[0];                                                                         \
    uint etag = ((uint)ctl[1] & 0x3fffffffu) + 1;                                                \
    while (tile < ntiles) {                                                                      \
        ulong first = tile * tile_len + (ulong)lid * ITEMS;                                      \
        int sum = 0;                                                                             \
        if (first + ITEMS <= n) {                                                                \
            for (int k = 0; k < ITEMS; k += 4) {                                                 \
                int4 q = vload4(0, in + first + k);                                              \
                v[k] = q.x; v[k + 1] = q.y; v[k + 2] = q.z; v[k + 3] = q.w;                      \
            }                                                                                    \
        } else {                                                                                 \
            for (int k = 0; k < ITEMS; k++) v[k] = first + k < n ? in[first + k] : (FILTER ? 1 : 0); \
        }                                                                                        \
        for (int k = 0; k < ITEMS; k++) sum += FILTER ? (v[k] & 1) == 0 : v[k];                  \
        slm[lid + lid / 32] = sum;                                                               \
        barrier(CLK_LOCAL_MEM_FENCE);                                                            \
        if (lid < min(wlen, (uint)min(tile, (ulong)WINDOW)))                                     \
            window[lid] = atom_add(&flags[tile - 1 - lid], 0UL);                                 \
        uint lo = lid * seg;                                                                     \
        if (lo < wg) {                                                                           \
            int acc = 0;                                                                         \
            uint hi = min(wg, lo + seg);                                                         \
            for (uint k = lo; k < hi; k++) { int x = slm[k + k / 32]; slm[k + k / 32] = acc; acc += x; } \
            slm[top + lid] = acc;                                                                \
        }                                                                                        \
        barrier(CLK_LOCAL_MEM_FENCE);                                                            \
        if (lid == 0) {                                                                          \
            int acc = 0;                                                                         \
            for (uint k = 0; k * seg < wg; k++) { int x = slm[top + k]; slm[top + k] = acc; acc += x; } \
            slm[top + 32] = acc;                                                                 \
            slm[top + 33] = lookback(flags, tile, acc, etag, window, min(wlen, (uint)min(tile, (ulong)WINDOW))); \
            ctl[0] = atomic_inc(&state[0]);                                                      \
        }                                                                                        \
        barrier(CLK_LOCAL_MEM_FENCE);                                                            \
        int run = slm[top + 33] + slm[top + lid / seg] + slm[lid + lid / 32];                    \
        ulong next = ctl[0];                                                                     \
        STORE                                                                                    \
        tile = next;                                                                             \
    }                                                                                            \
    if (lid == 0) {                                                                              \
        if (atomic_inc(&state[1]) == groups - 1) {                                               \
            atomic_xchg(&state[0], 0);                                                           \
            atomic_xchg(&state[1], 0);                                                           \
            atomic_inc(&state[2]);                                                               \
        }                                                                                        \
    }

__kernel void exclusive_scan_ref(__global const int *in, __global int *out, ulong n,
                                 __global uint *state, __global ulong *flags,
                                 __local int *slm, __local ulong *ctl, __local ulong *window)
{
#define STORE                                                                                    \
    if (first + ITEMS <= n) {                                                                    \
        for (int k = 0; k < ITEMS; k += 4) {                                                     \
            int4 q;                                                                              \
            q.x = run; run += v[k];                                                              \
            q.y = run; run += v[k + 1];                                                          \
            q.z = run; run += v[k + 2];                                                          \
            q.w = run; run += v[k + 3];                                                          \
            vstore4(q, 0, out + first + k);                                                      \
        }                                                                                        \
    } else {                                                                                     \
        for (int k = 0; k < ITEMS; k++) { if (first + k < n) out[first + k] = run; run += v[k]; } \
    }
    TILE_LOOP(0)
#undef STORE
}

/* the even ints of in, in order, to out: each tile gathers its matches in
 * local memory, then the workgroup copies them out (coalesced).  The count
 * is the last tile's inclusive prefix: the host reads it from the last
 * status word (crisp's filter also waits for it in every workgroup, its
 * value in the kernel; this one does not, which favours the baseline). */
__kernel void filter_even_ref(__global const int *in, __global int *out, ulong n,
                              __global uint *state, __global ulong *flags,
                              __local int *slm, __local ulong *ctl, __local ulong *window,
                              __local int *stage)
{
#define STORE                                                                                    \
    int base = run - slm[top + 33];                                                              \
    for (int k = 0; k < ITEMS; k++) {                                                            \
        if ((v[k] & 1) == 0 && first + k < n) { stage[base] = v[k]; base++; }                    \
    }                                                                                            \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                \
    int count = slm[top + 32], carry = slm[top + 33];                                            \
    for (int j = lid; j < count; j += wg) out[carry + j] = stage[j];
    TILE_LOOP(1)
#undef STORE
}
