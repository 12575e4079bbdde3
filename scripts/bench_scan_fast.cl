/* bench_scan_fast.cl - the hand-written baseline of "the best known
 * algorithm" for `make bench`'s grid scans and filter (scripts/bench_scan.py;
 * issue 8 section 4): a single-pass scan of ints with decoupled look-back
 * laid out as CUB's (BLOCK_LOAD_WARP_TRANSPOSE, BLOCK_SCAN_WARP_SCANS,
 * the look-back by warp 0), written directly in OpenCL C so that we know
 * what such a scan reaches through a vendor's OpenCL.  The design is
 * /work/briefs/scandesign.md; docs/performance.md has the figures.
 *
 * Per tile of WG x IPT ints (256 x 32 by default):
 *   1. the tile's number is an atomic ticket (never get_group_id: OpenCL
 *      promises no forward progress between work-groups; a work-group only
 *      waits on tiles whose tickets were taken before its own);
 *   2. loads: each warp reads its 32 x IPT ints as int4s, 512 contiguous
 *      bytes per warp instruction, writes them to its own padded stretch of
 *      local memory (one pad int per 32: conflict-free for IPT 8, 16, 32),
 *      and each lane reads back its IPT consecutive ints;
 *   3. a serial scan of the IPT registers, a warp scan of the thread totals
 *      (shuffles), the warp totals through local memory (one barrier);
 *   4. the tile's aggregate published at once in a 64-bit status word;
 *      warp 0 looks back 32 predecessors at a time (ballot, shuffle sum)
 *      and publishes the inclusive prefix;
 *   5. one barrier broadcasts the tile's prefix; the results go back
 *      through the warp's stretch and out as int4s.
 *
 * Variants (-D; every combination is correct, the bench checks each):
 *   WG        work-group size, a multiple of 32 (256); the launch must use it
 *   IPT       ints per thread, a multiple of 4 (32; a divisor of 32 keeps the
 *             transpose conflict-free and its addresses constant offsets)
 *   LOAD      0 warp-striped int4 loads through a padded warp transpose,
 *             1 blocked int4 loads (a thread's IPT consecutive ints),
 *             2 a work-group transpose (striped over the whole tile)
 *   LOOKBACK  0 warp 0 looks back 32 tiles at a time, 1 thread 0 walks
 *             back one status at a time
 *   PERSIST   1 persistent work-groups take tickets until none are left,
 *             0 one tile per work-group (launch at least as many
 *             work-groups as tiles; each takes one ticket)
 *   TICKET    0 the next ticket taken after the stores (one barrier of its
 *             own), 1 taken by the look-back thread right after it
 *             publishes (shares the prefix's barrier); PERSIST 1 only
 *   STATUS    0 statuses read by an atomic add of 0, 1 by a volatile load,
 *             2 (NVIDIA) PTX ld.relaxed.gpu
 *   WSYNC     0 the warp's stretch guarded by a warp barrier (NVIDIA:
 *             bar.warp.sync), 1 by a work-group barrier
 *   SCAN_NV   1 on NVIDIA's OpenCL (the bench passes it): shuffles, ballots
 *             and warp barriers in inline PTX.
 *   PREFETCH  1 (PERSIST 1, LOAD 0 or 2): the next tile's ticket is taken
 *             before the warp totals' barrier and its int4 loads issued
 *             before the look-back (two barriers per tile; the loads of the
 *             next tile in flight while warp 0 waits; slower on the H200:
 *             registers, and the next tile's aggregate comes later)
 *   PADDING   1: one pad int per 32 ints of the transpose (the default
 *             where IPT divides 32), 0: none
 *   REREAD    1 (LOAD 0 or 2, the scans): a thread's ints are read again
 *             from its stretch after the look-back instead of being kept in
 *             registers across it (fewer registers, more occupancy)
 *   VSTORE    1: the int4 stores through vstore4 (for oclgrind, which
 *             reports every store of a vector built lane by lane as
 *             uninitialized; docs/library.md); 0: stores of uint4
 *   DIAG      timing diagnostics, WRONG results: 1 no look-back (each
 *             tile's prefix is 0, no status), 2 no work-group scan either
 *             (loads, transposes, stores and tickets)
 *   SCAN_SG   1 (built as OpenCL C 3.0, Intel): the same warp steps on
 *             32-wide sub-groups (cl_khr_subgroup_shuffle_relative,
 *             cl_khr_subgroup_ballot, intel_reqd_sub_group_size).
 *             Neither (any OpenCL 1.2 device: PoCL, Intel): the warp steps
 *             through local memory and work-group barriers, the look-back
 *             window read by 32 work-items and walked by all.
 *
 * Statuses: one ulong per tile, (tag << 32) | value, tag = epoch << 2 |
 * state (1 aggregate, 2 inclusive prefix), all zero before the first
 * launch.  ticket[0] counts tickets across launches and is never reset:
 * a launch takes exactly PERIOD tickets (tiles + work-groups when
 * persistent: each work-group ends on one failed ticket; the work-groups
 * when one tile each), so ticket / PERIOD + 1 is the launch's epoch and a
 * status of an older launch reads as not ready.  So a status array and its
 * counter serve launches of one n and one work-group count.
 *
 * H200 (NVIDIA OpenCL, 2^28 ints, docs/performance.md): the defaults run
 * the exclusive scan in 0.59 ms and the filter in 0.49 ms, against 0.64 ms
 * for a plain int4 copy kernel; the local transpose must be addressed as
 * one pointer per thread plus constants (XS_STRIPE, XS_BLOCK below), or
 * NVIDIA's compiler holds every address in a 64-bit register of its own.
 */
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable

#ifndef WG
#define WG 256
#endif
#ifndef IPT
#define IPT 32   /* H200: 0.592 ms against 0.638 at 16 (2^28 ints); 33.8 KB of local memory at WG 256 */
#endif
#ifndef LOAD
#define LOAD 0
#endif
#ifndef LOOKBACK
#define LOOKBACK 0
#endif
#ifndef PERSIST
#define PERSIST 1
#endif
#ifndef TICKET
#define TICKET 0
#endif
#ifndef STATUS
#define STATUS 0
#endif
#ifndef WSYNC
#define WSYNC 0
#endif
#ifndef SCAN_NV
#define SCAN_NV 0
#endif
#ifndef SCAN_SG
#define SCAN_SG 0
#endif
#ifndef DIAG
#define DIAG 0
#endif
#ifndef REREAD
#define REREAD 0
#endif
#ifndef VSTORE
#define VSTORE 0
#endif
#ifndef PREFETCH
#define PREFETCH 0
#endif
#define EARLY_TICKET (PERSIST && TICKET == 1 && !PREFETCH)
#if PREFETCH && (!PERSIST || LOAD == 1)
#error "PREFETCH needs PERSIST=1 and LOAD 0 or 2"
#endif
#if VSTORE
#define STORE4(q, i) vstore4((q), (i), out)
#else
#define STORE4(q, i) (((__global uint4 *)out)[i] = (q))
#endif
#define WARP_PATH (SCAN_NV || SCAN_SG)   /* native shuffles and ballots */

#if WG % 32 != 0 || IPT % 4 != 0
#error "WG must be a multiple of 32 and IPT of 4"
#endif

#define WARPS (WG / 32)
#define TILE (WG * IPT)
/* PADDING: one pad int per 32 in the transpose (default where IPT divides
   32: conflict-free; elsewhere a thread's blocked ints would straddle pads,
   each with its own address, so none by default) */
#ifndef PADDING
#define PADDING (32 % IPT == 0)
#endif
#if PADDING
#define PAD(i) ((i) + (i) / 32)
#else
#define PAD(i) (i)
#endif
#define XS_LEN (WARPS * 33 * IPT)   /* >= PAD(TILE): the transpose, the filter's stage */
/* In a stretch (base XB) of SW lanes, the striped int 4 * (r * SW + SL) + c
   lies at PAD(that) = XS_STRIPE(XB, SL) + r * (33 * SW / 8) + c, and a
   thread's blocked int k at XS_BLOCK(XB, SL, K): one base per thread plus
   constants, so that the compiler keeps one address register, not 2 x IPT
   (the pad never falls inside a thread's 4 striped ints, nor inside its IPT
   blocked ones when IPT divides 32). */
#define XS_SW (LOAD == 0 ? 32 : WG)
/* where a thread's stretch of the transpose is: its lane (sl) of sw
   work-items, the stretch's first local index (xb) and the first global
   index of the segment it covers (gseg); used by the loads and the stores */
#if LOAD == 0
#define STRETCH_GEOMETRY const uint sl = lane, sw = 32, xb = warp * 33 * IPT; \
                         const ulong gseg = tbase + (ulong)warp * 32 * IPT
#else
#define STRETCH_GEOMETRY const uint sl = lid, sw = WG, xb = 0; const ulong gseg = tbase
#endif
#if PADDING
#define XS_STRIPE(xb, sl) ((xb) + 4 * (sl) + (sl) / 8)
#define XS_ROW (33 * XS_SW / 8)
#else
#define XS_STRIPE(xb, sl) ((xb) + 4 * (sl))
#define XS_ROW (4 * XS_SW)
#endif
#if 32 % IPT == 0 || !PADDING
#define XS_BLOCK(xb, sl, k) ((xb) + PAD((sl) * IPT) + (k))
#else
#define XS_BLOCK(xb, sl, k) ((xb) + PAD((sl) * IPT + (k)))
#endif
/* (used through pointers: xs + base, then constant offsets, which the
   compiler folds into the instructions; 32-bit index sums are not folded
   (they might wrap) and each became a 64-bit address register) */
#define ST_AGG 1u
#define ST_INC 2u

/* ---- warp primitives ---- */
#if SCAN_NV
static inline uint shfl_up(uint x, uint d)
{
    uint r;
    __asm__ __volatile__("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r) : "r"(x), "r"(d));
    return r;
}
static inline uint shfl_xor(uint x, uint m)
{
    uint r;
    __asm__ __volatile__("shfl.sync.bfly.b32 %0, %1, %2, 31, 0xffffffff;" : "=r"(r) : "r"(x), "r"(m));
    return r;
}
static inline uint ballot(int p)
{
    uint r;
    __asm__ __volatile__("{\n\t.reg .pred bp;\n\tsetp.ne.s32 bp, %1, 0;\n\tvote.sync.ballot.b32 %0, bp, 0xffffffff;\n\t}"
                         : "=r"(r) : "r"(p));
    return r;
}
static inline void warp_barrier(void)
{
    __asm__ __volatile__("bar.warp.sync 0xffffffff;" : : : "memory");
}
#elif SCAN_SG
static inline uint shfl_up(uint x, uint d) { return sub_group_shuffle_up(x, d); }
static inline uint shfl_xor(uint x, uint m) { return sub_group_shuffle_xor(x, m); }
static inline uint ballot(int p) { return sub_group_ballot(p).x; }
static inline void warp_barrier(void) { sub_group_barrier(CLK_LOCAL_MEM_FENCE); }
#endif

/* the warp's stretch of local memory: its lanes meet */
#if WARP_PATH && WSYNC == 0
#define WARP_SYNC() warp_barrier()
#else
#define WARP_SYNC() barrier(CLK_LOCAL_MEM_FENCE)
#endif
/* the work-group transpose needs the whole work-group */
#if LOAD == 2
#define SEG_SYNC() barrier(CLK_LOCAL_MEM_FENCE)
#else
#define SEG_SYNC() WARP_SYNC()
#endif

/* ---- status words ---- */
static inline ulong status_read(__global ulong *flags, ulong i)
{
#if STATUS == 1
    return *(volatile __global ulong *)&flags[i];
#elif STATUS == 2 && SCAN_NV
    ulong v;
    __asm__ __volatile__("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"((ulong)&flags[i]) : "memory");
    return v;
#else
    return atom_add(&flags[i], 0UL);
#endif
}

static inline void status_write(__global ulong *flags, ulong i, uint etag, uint st, uint value)
{
    atom_xchg(&flags[i], ((ulong)((etag << 2) | st) << 32) | value);
}

/* 0 not ready (or an older launch's), ST_AGG, ST_INC */
static inline uint status_state(ulong w, uint etag)
{
    uint tag = (uint)(w >> 32);
    return (tag >> 2) == etag ? (tag & 3u) : 0u;
}

/* ---- the look-back: the sum of the tiles before TILE_NO; the calling
   work-item(s) then publish the inclusive prefix ---- */
#if LOOKBACK == 1
/* thread 0: one status at a time, nearest first */
static inline uint look_back_thread(__global ulong *flags, ulong tile_no, uint etag)
{
    uint prefix = 0;
    ulong j = tile_no;
    while (j > 0) {
        ulong w = status_read(flags, j - 1);
        uint st = status_state(w, etag);
        if (st == 0) continue;           /* not ready: read it again */
        prefix += (uint)w;
        if (st == ST_INC) break;
        j--;
    }
    return prefix;
}
#elif WARP_PATH
/* warp 0: lane l reads the status of tile base-1-l; the warp spins until
   the lanes up to the nearest inclusive prefix are ready, then adds those
   aggregates with shuffles; a new window only if none was inclusive */
static inline uint look_back_warp(__global ulong *flags, ulong tile_no, uint etag, uint lane)
{
    uint prefix = 0;
    int base = (int)tile_no;             /* tiles: fewer than 2^31 */
    for (;;) {
        int idx = base - 1 - (int)lane;
        ulong w = 0;
        uint st = idx >= 0 ? 0u : ST_INC;   /* before tile 0: an inclusive 0 */
        uint need, incl;
        for (;;) {
            if (st == 0) {                   /* read again what was not ready */
                w = status_read(flags, (uint)idx);
                st = status_state(w, etag);
            }
            incl = ballot(st == ST_INC);
            uint notready = ballot(st == 0);
            need = incl ? (incl ^ (incl - 1)) : 0xffffffffu;   /* lanes up to the nearest inclusive */
            if ((notready & need) == 0) break;
        }
        uint v = ((need >> lane) & 1u) ? (uint)w : 0u;
        v += shfl_xor(v, 16);
        v += shfl_xor(v, 8);
        v += shfl_xor(v, 4);
        v += shfl_xor(v, 2);
        v += shfl_xor(v, 1);
        prefix += v;
        if (incl) break;
        base -= 32;
    }
    return prefix;
}
#else
/* every work-item: the first 32 read a window of statuses into local
   memory, all walk it (the same decision everywhere), then the window
   moves to the first status not ready or past the window */
static inline uint look_back_window(__global ulong *flags, ulong tile_no, uint etag, uint lid,
                                    __local ulong *win)
{
    uint prefix = 0;
    long base = (long)tile_no;
    while (base > 0) {
        if (lid < 32) {
            long idx = base - 1 - (long)lid;
            win[lid] = idx >= 0 ? status_read(flags, (ulong)idx) : ((ulong)((etag << 2) | ST_INC) << 32);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        uint folded = 0, done = 0, acc = 0;
        for (uint q = 0; q < 32; q++) {
            ulong w = win[q];
            uint st = status_state(w, etag);
            if (st == 0) break;
            acc += (uint)w;
            folded++;
            if (st == ST_INC) { done = 1; break; }
        }
        barrier(CLK_LOCAL_MEM_FENCE);   /* the window is read before it is written again */
        prefix += acc;
        base -= folded;
        if (done) break;
    }
    return prefix;
}
#endif

/* ---- the striped int4 loads of one tile (LOAD 0: the warp's segment,
   LOAD 2: the whole tile); past N, the neutral value (0; 1, odd, for the
   filter) ---- */
static inline void stripe_load(__global const uint *in, ulong n, ulong tbase, uint warp, uint lane,
                               uint lid, const int mode, uint4 *q)
{
#if LOAD == 0
    const ulong gseg = tbase + (ulong)warp * 32 * IPT;
    const uint sl = lane, sw = 32;
#else
    const ulong gseg = tbase;
    const uint sl = lid, sw = WG;
#endif
    (void)warp; (void)lane; (void)lid;
    if (tbase + TILE <= n) {
#pragma unroll
        for (int r = 0; r < IPT / 4; r++) q[r] = ((__global const uint4 *)in)[gseg / 4 + r * sw + sl];
    } else {
#pragma unroll
        for (int r = 0; r < IPT / 4; r++) {
            ulong g = gseg + 4 * (ulong)(r * sw + sl);
            uint d = mode == 2 ? 1u : 0u;
            q[r].x = g < n ? in[g] : d;
            q[r].y = g + 1 < n ? in[g + 1] : d;
            q[r].z = g + 2 < n ? in[g + 2] : d;
            q[r].w = g + 3 < n ? in[g + 3] : d;
        }
    }
}

/* ---- the tile loop, shared by the scans and the filter ----
   MODE 0 exclusive scan, 1 inclusive scan, 2 filter (the even ints, in
   order; the count is the last tile's inclusive prefix) */
static inline __attribute__((always_inline)) void scan_tiles(__global const uint *in, __global uint *out, ulong n,
                              __global ulong *ticket, __global ulong *flags, const int mode,
                              __local uint *xs, __local uint *wtot, __local ulong *ctl,
                              __local ulong *win)
{
    const uint lid = get_local_id(0), lane = lid & 31u, warp = lid >> 5;
    const ulong ntiles = (n + TILE - 1) / TILE;
#if PERSIST
    const ulong period = ntiles + get_num_groups(0);
#else
    const ulong period = get_num_groups(0);
#endif
    if (lid == 0) ctl[0] = atom_add(ticket, 1UL);
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong t = ctl[0];
    const ulong epoch = t / period;
    const uint etag = (uint)((epoch + 1) & 0x3fffffffu);
    ulong tile_no = t - epoch * period;   /* not t % period: LLVM's freeze of the pair stops oclgrind */
    (void)win;
#if PREFETCH
    uint4 q[IPT / 4];
    if (tile_no < ntiles) stripe_load(in, n, tile_no * TILE, warp, lane, lid, mode, q);
#endif
    while (tile_no < ntiles) {
        const ulong tbase = tile_no * TILE;
        const int full = tbase + TILE <= n;
        uint v[IPT];
        /* 1. loads */
#if LOAD == 1
        {
            ulong first = tbase + (ulong)lid * IPT;
            if (full) {
#pragma unroll
                for (int r = 0; r < IPT / 4; r++) {
                    uint4 q = ((__global const uint4 *)in)[first / 4 + r];
                    v[4 * r] = q.x; v[4 * r + 1] = q.y; v[4 * r + 2] = q.z; v[4 * r + 3] = q.w;
                }
            } else {
#pragma unroll
                for (int k = 0; k < IPT; k++) v[k] = first + k < n ? in[first + k] : (mode == 2 ? 1u : 0u);
            }
        }
#else
        {
            STRETCH_GEOMETRY;
#if !PREFETCH
            uint4 q[IPT / 4];
            stripe_load(in, n, tbase, warp, lane, lid, mode, q);
#endif
            (void)gseg;
            SEG_SYNC();   /* the last tile's stretch has been read */
            (void)sw;
            __local uint *ps = xs + XS_STRIPE(xb, sl);
#pragma unroll
            for (int r = 0; r < IPT / 4; r++) {
                ps[r * XS_ROW] = q[r].x;
                ps[r * XS_ROW + 1] = q[r].y;
                ps[r * XS_ROW + 2] = q[r].z;
                ps[r * XS_ROW + 3] = q[r].w;
            }
            SEG_SYNC();
            __local uint *pb = xs + XS_BLOCK(xb, sl, 0);
#pragma unroll
            for (int k = 0; k < IPT; k++) v[k] = pb[XS_BLOCK(xb, sl, k) - XS_BLOCK(xb, sl, 0)];
        }
#endif
        /* 2. the thread's total */
        uint tsum = 0;
#pragma unroll
        for (int k = 0; k < IPT; k++) tsum += mode == 2 ? ((v[k] & 1u) == 0u) : v[k];
        /* 3. the warp scan of the thread totals -> wexcl (exclusive in the
           warp), the warp totals scanned by every work-item */
        uint wexcl;
#if PREFETCH
        /* read after step 3's barrier; its own slot: with warp barriers only,
           a work-item may not have read the first ticket from ctl[0] yet */
        if (lid == 0) ctl[1] = atom_add(ticket, 1UL);
#endif
#if DIAG >= 2
        wexcl = 0;
#if PREFETCH
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
#elif WARP_PATH
        {
            uint x = tsum;
#pragma unroll
            for (uint d = 1; d < 32; d <<= 1) {
                uint y = shfl_up(x, d);
                if (lane >= d) x += y;
            }
            if (lane == 31) wtot[warp] = x;
            wexcl = x - tsum;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
#else
        {
            /* raking in local memory: WARPS work-items scan 32 totals each */
            __local uint *sc = xs + XS_LEN;
            sc[lid] = tsum;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid < WARPS) {
                uint acc = 0;
                for (uint k = 0; k < 32; k++) { uint x = sc[lid * 32 + k]; sc[lid * 32 + k] = acc; acc += x; }
                wtot[lid] = acc;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            wexcl = sc[lid];
        }
#endif
#if PREFETCH
        const ulong next = ctl[1] % period;
        if (next < ntiles) stripe_load(in, n, next * TILE, warp, lane, lid, mode, q);
#endif
        uint wpre = 0, agg = 0;
#if DIAG < 2
#pragma unroll
        for (uint w = 0; w < WARPS; w++) {
            uint x = wtot[w];
            wpre += w < warp ? x : 0u;
            agg += x;
        }
#endif
        /* 4. publish, look back, publish */
        uint prefix;
#if DIAG >= 1
        prefix = 0;
#if EARLY_TICKET
        if (lid == 0) ctl[0] = atom_add(ticket, 1UL);
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
#elif LOOKBACK == 1 || WARP_PATH
#if LOOKBACK == 1
        if (lid == 0) {
            if (tile_no == 0) status_write(flags, 0, etag, ST_INC, agg);
            else {
                status_write(flags, tile_no, etag, ST_AGG, agg);
                uint p = look_back_thread(flags, tile_no, etag);
                status_write(flags, tile_no, etag, ST_INC, p + agg);
                wtot[WARPS] = p;
            }
#else
        if (warp == 0) {
            if (tile_no == 0) {
                if (lane == 0) status_write(flags, 0, etag, ST_INC, agg);
            } else {
                if (lane == 0) status_write(flags, tile_no, etag, ST_AGG, agg);
                uint p = look_back_warp(flags, tile_no, etag, lane);
                if (lane == 0) {
                    status_write(flags, tile_no, etag, ST_INC, p + agg);
                    wtot[WARPS] = p;
                }
            }
#endif
#if EARLY_TICKET
            if (lid == 0) ctl[0] = atom_add(ticket, 1UL);
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        prefix = tile_no == 0 ? 0u : wtot[WARPS];
#else
        /* portable: every work-item in the window walk */
        if (lid == 0) status_write(flags, tile_no, etag, tile_no == 0 ? ST_INC : ST_AGG, agg);
        prefix = look_back_window(flags, tile_no, etag, lid, win);
        if (lid == 0 && tile_no != 0) status_write(flags, tile_no, etag, ST_INC, prefix + agg);
#if EARLY_TICKET
        if (lid == 0) ctl[0] = atom_add(ticket, 1UL);
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
#endif
        /* 5. the results */
        uint run = prefix + wpre + wexcl;
        if (mode == 2) {
            /* the kept ints to the tile's stage at their place, then out */
            uint pos = wpre + wexcl;   /* every warp read its stretch before step 3's barrier */
#pragma unroll
            for (int k = 0; k < IPT; k++) {
                if ((v[k] & 1u) == 0u) { xs[pos] = v[k]; pos++; }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint j = lid; j < agg; j += WG) out[prefix + j] = xs[j];
#if EARLY_TICKET || PREFETCH
            barrier(CLK_LOCAL_MEM_FENCE);   /* the stage is read before the next tile */
#endif
        } else {
#if REREAD && LOAD != 1
            {
#if LOAD == 0
                const uint xb = warp * 33 * IPT, sl = lane;
#else
                const uint xb = 0, sl = lid;
#endif
                __local uint *pb = xs + XS_BLOCK(xb, sl, 0);
#pragma unroll
                for (int k = 0; k < IPT; k++) v[k] = pb[XS_BLOCK(xb, sl, k) - XS_BLOCK(xb, sl, 0)];
            }
#endif
#pragma unroll
            for (int k = 0; k < IPT; k++) {
                uint x = v[k];
                v[k] = mode == 1 ? run + x : run;
                run += x;
            }
#if LOAD == 1
            ulong first = tbase + (ulong)lid * IPT;
            if (full) {
#pragma unroll
                for (int r = 0; r < IPT / 4; r++)
                    STORE4(((uint4)(v[4 * r], v[4 * r + 1], v[4 * r + 2], v[4 * r + 3])), first / 4 + r);
            } else {
#pragma unroll
                for (int k = 0; k < IPT; k++) if (first + k < n) out[first + k] = v[k];
            }
#else
            {
                STRETCH_GEOMETRY;
                /* the stretch was read (blocked) before the barriers above */
                __local uint *pb = xs + XS_BLOCK(xb, sl, 0);
#pragma unroll
                for (int k = 0; k < IPT; k++) pb[XS_BLOCK(xb, sl, k) - XS_BLOCK(xb, sl, 0)] = v[k];
                SEG_SYNC();
                __local uint *ps = xs + XS_STRIPE(xb, sl);
#pragma unroll
                for (int r = 0; r < IPT / 4; r++) {
                    uint i = 4 * (r * sw + sl);
                    uint4 q = (uint4)(ps[r * XS_ROW], ps[r * XS_ROW + 1], ps[r * XS_ROW + 2], ps[r * XS_ROW + 3]);
                    ulong g = gseg + i;
                    if (full) STORE4(q, g / 4);
                    else {
                        if (g < n) out[g] = q.x;
                        if (g + 1 < n) out[g + 1] = q.y;
                        if (g + 2 < n) out[g + 2] = q.z;
                        if (g + 3 < n) out[g + 3] = q.w;
                    }
                }
            }
#endif
        }
#if PREFETCH
        tile_no = next;
#elif PERSIST
#if TICKET == 0
        if (lid == 0) ctl[0] = atom_add(ticket, 1UL);
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
        tile_no = ctl[0] % period;
#else
        break;
#endif
    }
}

#if SCAN_SG
#define SCAN_KERNEL __kernel __attribute__((reqd_work_group_size(WG, 1, 1), intel_reqd_sub_group_size(32)))
#else
#define SCAN_KERNEL __kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
#endif

#define SCAN_LOCALS                                                              \
    __local uint xs[XS_LEN + (WARP_PATH ? 0 : WG)];                                \
    __local uint wtot[WARPS + 1];                                                \
    __local ulong ctl[2];                                                        \
    __local ulong win[32];

SCAN_KERNEL
void exclusive_scan_fast(__global const uint *in, __global uint *out, ulong n,
                         __global ulong *ticket, __global ulong *flags)
{
    SCAN_LOCALS
    scan_tiles(in, out, n, ticket, flags, 0, xs, wtot, ctl, win);
}

SCAN_KERNEL
void inclusive_scan_fast(__global const uint *in, __global uint *out, ulong n,
                         __global ulong *ticket, __global ulong *flags)
{
    SCAN_LOCALS
    scan_tiles(in, out, n, ticket, flags, 1, xs, wtot, ctl, win);
}

SCAN_KERNEL
void filter_even_fast(__global const uint *in, __global uint *out, ulong n,
                      __global ulong *ticket, __global ulong *flags)
{
    SCAN_LOCALS
    scan_tiles(in, out, n, ticket, flags, 2, xs, wtot, ctl, win);
}
