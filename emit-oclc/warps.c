/* warps.c - the OpenCL C of the warp forms (docs/warps.md).
 *
 * One .cl runs on every device: the warp support code carries three
 * lowerings behind preprocessor tests, and the device's compiler keeps one
 * when it builds the file:
 *
 *   CRISP_WARP_SUBGROUPS  OpenCL C 2.0/3.0 sub-groups with
 *                         cl_khr_subgroup_shuffle (Intel, AMD, ...); only
 *                         in files written for --ocl-version=2.0 or 3.0
 *   CRISP_WARP_PTX        NVIDIA's OpenCL (it has no sub-group extensions):
 *                         inline PTX, shfl.sync and %laneid
 *   CRISP_WARP_LOCAL      any other device (OpenCL C 1.2): the lanes
 *                         exchange values through __local memory between
 *                         two workgroup barriers
 *
 * Crisp's warp is 32 lanes on all three.  On Intel the kernels ask for
 * 32-wide sub-groups (intel_reqd_sub_group_size); a device whose sub-groups
 * are a multiple of 32 wide (AMD's 64) holds several warps in one; any
 * other sub-group size falls back to local memory at run time.
 *
 * Every shuffle is a read of the value another lane holds (crisp_warp_word,
 * in 32-bit words); the forms differ only in which lane they read
 * (crisp_lane_idx/up/down/xor), and a lane that does not exist means the
 * caller's own value. */
#include "ctext.h"
#include "warps.h"

#include <string.h>

/* The OpenCL C name of a warp helper (TY: the shuffled type). */
const char *oclc_warp_name(Arena *a, int op, const Type *ty) {
    switch ((WarpOp)op) {
    case WARP_LANE_ID: return "crisp_lane_id";
    case WARP_ID: return "crisp_warp_id";
    case WARP_NUM: return "crisp_num_warps";
    case WARP_LANES: return "crisp_warp_lanes";
    case WARP_SYNC: return "crisp_sync_warp";
    case WARP_SHUFFLE: return "crisp_lane_idx";
    case WARP_SHUFFLE_UP: return "crisp_lane_up";
    case WARP_SHUFFLE_DOWN: return "crisp_lane_down";
    case WARP_SHUFFLE_XOR: return "crisp_lane_xor";
    case WARP_READ: return arena_printf(a, "crisp_shuffle_%s", oclc_type_name(ty));
    case WARP_NATIVE: return "crisp_warp_native";
    case WARP_READ_NATIVE: return arena_printf(a, "crisp_shuffle_native_%s", oclc_type_name(ty));
    case WARP_BALLOT: return "crisp_warp_ballot";
    case WARP_BALLOT_NATIVE: return "crisp_warp_ballot_native";
    case WARP_SYNC_WHOLE: return "crisp_sync_warp_whole";
    case WARP__COUNT: break;
    }
    return "crisp_warp_unknown";
}

static int has_op(const Program *p, WarpOp op) {
    for (int i = 0; i < p->nhelpers; i++)
        if (p->helpers[i]->kind == H_WARP && p->helpers[i]->op == (int)op) return 1;
    return 0;
}

int oclc_uses_warps(const Program *p) {
    return has_op(p, WARP_LANE_ID);
}

/* ---- the path selection, after the file's pragmas ---- */

void oclc_warp_header(Printer *pr, const Program *p) {
    if (!oclc_uses_warps(p)) return;
    int subgroups = p->ocl_version >= 200;
    pr_line(pr, "/* Warps: 32 lanes on every device (docs/warps.md).  The device's compiler");
    pr_line(pr, " * keeps one lowering; -DCRISP_WARP_%s forces one. */", subgroups ? "SUBGROUPS, _PTX or _LOCAL" : "PTX or _LOCAL");
    pr_line(pr, "#define CRISP_WARP_SIZE 32u");
    if (subgroups) pr_line(pr, "#if !defined(CRISP_WARP_SUBGROUPS) && !defined(CRISP_WARP_PTX) && !defined(CRISP_WARP_LOCAL)");
    else pr_line(pr, "#if !defined(CRISP_WARP_PTX) && !defined(CRISP_WARP_LOCAL)");
    if (subgroups) {
        pr_line(pr, "#if defined(cl_khr_subgroup_shuffle)");
        pr_line(pr, "#define CRISP_WARP_SUBGROUPS 1 /* OpenCL C sub-groups */");
        pr_line(pr, "#elif defined(cl_nv_pragma_unroll)");
    } else {
        pr_line(pr, "#if defined(cl_nv_pragma_unroll)");
    }
    pr_line(pr, "#define CRISP_WARP_PTX 1       /* NVIDIA's OpenCL: inline PTX */");
    pr_line(pr, "#else");
    pr_line(pr, "#define CRISP_WARP_LOCAL 1     /* local memory and barriers */");
    pr_line(pr, "#endif");
    pr_line(pr, "#endif");
    if (subgroups) {
        pr_line(pr, "/* kernels with warp forms: on Intel, 32-wide sub-groups */");
        pr_line(pr, "#ifndef CRISP_WARP_KERNEL");
        pr_line(pr, "#if defined(CRISP_WARP_SUBGROUPS) && defined(cl_intel_required_subgroup_size)");
        pr_line(pr, "#define CRISP_WARP_KERNEL __attribute__((intel_reqd_sub_group_size(32)))");
        pr_line(pr, "#else");
        pr_line(pr, "#define CRISP_WARP_KERNEL");
        pr_line(pr, "#endif");
        pr_line(pr, "#endif");
    } else {
        pr_line(pr, "#define CRISP_WARP_KERNEL /* kernels with warp forms (sub-groups: OpenCL C 2.0) */");
    }
    pr_blank(pr);
}

/* ---- support functions ---- */

static void base_out(Printer *pr, const Program *p) {
    (void)p;
    pr_line(pr, "#ifdef CRISP_WARP_SUBGROUPS");
    pr_line(pr, "/* Do the sub-groups hold whole warps?  On Intel CRISP_WARP_KERNEL makes them");
    pr_line(pr, "   32 wide; 64-wide ones hold two; any other width uses local memory. */");
    pr_line(pr, "bool crisp_warp_on_subgroups(void)");
    pr_line(pr, "{");
    pr_line(pr, "    return get_max_sub_group_size() %% CRISP_WARP_SIZE == 0u;");
    pr_line(pr, "}");
    pr_line(pr, "#endif");
    pr_blank(pr);
    pr_line(pr, "/* get-lane-id: this thread's lane in its warp, 0 to 31 */");
    pr_line(pr, "uint crisp_lane_id(void)");
    pr_line(pr, "{");
    pr_line(pr, "#if defined(CRISP_WARP_PTX)");
    pr_line(pr, "    uint lane;");
    /* (not volatile: a thread's lane never changes, so the compiler may reuse
       it; -DCRISP_LANEID_VOLATILE=1 reads it again each time, for measuring
       which one costs fewer registers in a loop) */
    pr_line(pr, "#ifdef CRISP_LANEID_VOLATILE");
    pr_line(pr, "    __asm__ __volatile__(\"mov.u32 %%0, %%%%laneid;\" : \"=r\"(lane));");
    pr_line(pr, "#else");
    pr_line(pr, "    __asm__(\"mov.u32 %%0, %%%%laneid;\" : \"=r\"(lane));");
    pr_line(pr, "#endif");
    pr_line(pr, "    return lane;");
    pr_line(pr, "#else");
    pr_line(pr, "#ifdef CRISP_WARP_SUBGROUPS");
    pr_line(pr, "    if (crisp_warp_on_subgroups()) return get_sub_group_local_id() %% CRISP_WARP_SIZE;");
    pr_line(pr, "#endif");
    pr_line(pr, "    return (uint)(crisp_local_linear_id() %% CRISP_WARP_SIZE);");
    pr_line(pr, "#endif");
    pr_line(pr, "}");
    pr_blank(pr);
    pr_line(pr, "/* Threads in this thread's warp: 32, fewer in a workgroup's last warp */");
    pr_line(pr, "uint crisp_warp_lanes(void)");
    pr_line(pr, "{");
    pr_line(pr, "#ifdef CRISP_WARP_SUBGROUPS");
    pr_line(pr, "    if (crisp_warp_on_subgroups())");
    pr_line(pr, "        return min(CRISP_WARP_SIZE, get_sub_group_size() - get_sub_group_local_id() / CRISP_WARP_SIZE * CRISP_WARP_SIZE);");
    pr_line(pr, "#endif");
    pr_line(pr, "    return (uint)min((ulong)CRISP_WARP_SIZE, crisp_local_linear_size() - crisp_local_linear_id() / CRISP_WARP_SIZE * CRISP_WARP_SIZE);");
    pr_line(pr, "}");
    pr_blank(pr);
    pr_line(pr, "#ifdef CRISP_WARP_PTX");
    pr_line(pr, "/* The lanes of this warp, for shfl.sync and bar.warp.sync: computed, not");
    pr_line(pr, "   activemask, which only reports the lanes that happen to run together */");
    pr_line(pr, "uint crisp_warp_mask(void)");
    pr_line(pr, "{");
    pr_line(pr, "    uint n = crisp_warp_lanes();");
    pr_line(pr, "    return n >= CRISP_WARP_SIZE ? 0xffffffffu : (1u << n) - 1u;");
    pr_line(pr, "}");
    pr_line(pr, "#endif");
    pr_blank(pr);
}

static void op_out(Printer *pr, WarpOp op) {
    switch (op) {
    case WARP_ID:
        pr_line(pr, "/* get-warp-id: the warp's index in its workgroup (on NVIDIA from the thread's");
        pr_line(pr, "   linear id: PTX's %%warpid may change while a thread runs) */");
        pr_line(pr, "uint crisp_warp_id(void)");
        pr_line(pr, "{");
        pr_line(pr, "#ifdef CRISP_WARP_SUBGROUPS");
        pr_line(pr, "    if (crisp_warp_on_subgroups())");
        pr_line(pr, "        return get_sub_group_id() * (get_max_sub_group_size() / CRISP_WARP_SIZE) + get_sub_group_local_id() / CRISP_WARP_SIZE;");
        pr_line(pr, "#endif");
        pr_line(pr, "    return (uint)(crisp_local_linear_id() / CRISP_WARP_SIZE);");
        pr_line(pr, "}");
        break;
    case WARP_NUM:
        pr_line(pr, "/* get-num-warps: warps in the workgroup (the last may be partial) */");
        pr_line(pr, "uint crisp_num_warps(void)");
        pr_line(pr, "{");
        pr_line(pr, "    return (uint)((crisp_local_linear_size() + CRISP_WARP_SIZE - 1u) / CRISP_WARP_SIZE);");
        pr_line(pr, "}");
        break;
    case WARP_SYNC:
        pr_line(pr, "/* sync-warp: the warp's threads meet; what they wrote to memory is visible to");
        pr_line(pr, "   each other (the local-memory lowering waits for the whole workgroup) */");
        pr_line(pr, "void crisp_sync_warp(void)");
        pr_line(pr, "{");
        pr_line(pr, "#if defined(CRISP_WARP_PTX)");
        pr_line(pr, "    __asm__ __volatile__(\"bar.warp.sync %%0;\" : : \"r\"(crisp_warp_mask()) : \"memory\");");
        pr_line(pr, "#else");
        pr_line(pr, "#ifdef CRISP_WARP_SUBGROUPS");
        pr_line(pr, "    if (crisp_warp_on_subgroups()) {");
        pr_line(pr, "        sub_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);");
        pr_line(pr, "        return;");
        pr_line(pr, "    }");
        pr_line(pr, "#endif");
        pr_line(pr, "    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);");
        pr_line(pr, "#endif");
        pr_line(pr, "}");
        break;
    case WARP_SHUFFLE:
        pr_line(pr, "/* shuffle: read lane LANE; when it is not a lane of this warp, our own */");
        pr_line(pr, "uint crisp_lane_idx(ulong lane)");
        pr_line(pr, "{");
        pr_line(pr, "    return lane < (ulong)crisp_warp_lanes() ? (uint)lane : crisp_lane_id();");
        pr_line(pr, "}");
        break;
    case WARP_SHUFFLE_UP:
        pr_line(pr, "/* shuffle-up: read lane - DELTA; below lane 0, our own */");
        pr_line(pr, "uint crisp_lane_up(ulong delta)");
        pr_line(pr, "{");
        pr_line(pr, "    uint me = crisp_lane_id();");
        pr_line(pr, "    return delta <= (ulong)me ? me - (uint)delta : me;");
        pr_line(pr, "}");
        break;
    case WARP_SHUFFLE_DOWN:
        pr_line(pr, "/* shuffle-down: read lane + DELTA; past the warp's last lane, our own */");
        pr_line(pr, "uint crisp_lane_down(ulong delta)");
        pr_line(pr, "{");
        pr_line(pr, "    uint me = crisp_lane_id();");
        pr_line(pr, "    return delta < (ulong)(crisp_warp_lanes() - me) ? me + (uint)delta : me;");
        pr_line(pr, "}");
        break;
    case WARP_SHUFFLE_XOR:
        pr_line(pr, "/* shuffle-xor: read lane ^ MASK; when that is not a lane of this warp, our own */");
        pr_line(pr, "uint crisp_lane_xor(ulong mask)");
        pr_line(pr, "{");
        pr_line(pr, "    uint me = crisp_lane_id();");
        pr_line(pr, "    ulong src = (ulong)me ^ mask;");
        pr_line(pr, "    return src < (ulong)crisp_warp_lanes() ? (uint)src : me;");
        pr_line(pr, "}");
        break;
    default: return;
    }
    pr_blank(pr);
}

/* crisp_warp_native: %native-warp-if's test (docs/warps.md, "Native
 * shuffles only"); only where a native lowering is compiled. */
static void native_out(Printer *pr) {
    pr_line(pr, "#if defined(CRISP_WARP_PTX) || defined(CRISP_WARP_SUBGROUPS)");
    pr_line(pr, "/* Are this device's shuffles native (not through local memory)? */");
    pr_line(pr, "bool crisp_warp_native(void)");
    pr_line(pr, "{");
    pr_line(pr, "#ifdef CRISP_WARP_SUBGROUPS");
    pr_line(pr, "    if (!crisp_warp_on_subgroups()) return false;");
    pr_line(pr, "#endif");
    pr_line(pr, "    return true;");
    pr_line(pr, "}");
    pr_line(pr, "#endif");
    pr_blank(pr);
}

/* crisp_warp_word: one 32-bit word as lane SRC holds it. */
static void read_out(Printer *pr) {
    pr_line(pr, "/* The word W as lane SRC of this warp holds it.  Every thread of the");
    pr_line(pr, "   workgroup calls this together (the checker makes sure of it). */");
    pr_line(pr, "uint crisp_warp_word(uint w, uint src, __local uint *mem, ulong mem_len)");
    pr_line(pr, "{");
    pr_line(pr, "#if defined(CRISP_WARP_PTX)");
    pr_line(pr, "    uint r;");
    pr_line(pr, "    __asm__ __volatile__(\"shfl.sync.idx.b32 %%0, %%1, %%2, 31, %%3;\" : \"=r\"(r) : \"r\"(w), \"r\"(src), \"r\"(crisp_warp_mask()));");
    pr_line(pr, "    (void)mem;");
    pr_line(pr, "    (void)mem_len;");
    pr_line(pr, "    return r;");
    pr_line(pr, "#else");
    pr_line(pr, "#ifdef CRISP_WARP_SUBGROUPS");
    pr_line(pr, "    if (crisp_warp_on_subgroups())");
    pr_line(pr, "        return sub_group_shuffle(w, get_sub_group_local_id() / CRISP_WARP_SIZE * CRISP_WARP_SIZE + src);");
    pr_line(pr, "#endif");
    /* no early return: barriers stay unconditional */
    pr_line(pr, "    /* one word of MEM per thread; a warp is 32 consecutive threads.  A host");
    pr_line(pr, "       that gave too little (it did not know the local size) gets no exchange */");
    pr_line(pr, "    bool fits = mem_len >= crisp_local_linear_size();");
    pr_line(pr, "    uint me = (uint)crisp_local_linear_id();");
    pr_line(pr, "    barrier(CLK_LOCAL_MEM_FENCE); /* the last exchange has been read */");
    pr_line(pr, "    if (fits) mem[me] = w;");
    pr_line(pr, "    barrier(CLK_LOCAL_MEM_FENCE);");
    pr_line(pr, "    return fits ? mem[me / CRISP_WARP_SIZE * CRISP_WARP_SIZE + src] : w;");
    pr_line(pr, "#endif");
    pr_line(pr, "}");
    pr_blank(pr);
}

/* crisp_warp_word_native: crisp_warp_word for %native-warp-if's native
 * branch, without the local-memory path and its barriers.  It takes the
 * shuffle's mode and operand rather than a computed source lane, so that
 * on NVIDIA each form is its own PTX shuffle (shfl.sync.up/down/bfly/idx)
 * with the operand as given: a literal delta or mask stays a constant the
 * compiler folds into the instruction, where a computed lane (lane - 1,
 * lane ^ 16, ...) is one more register per shuffle, held across loops
 * (docs/performance.md, "H200, round of 2026-11-29: scan5"). */
static void read_native_out(Printer *pr) {
    pr_line(pr, "#if defined(CRISP_WARP_PTX) || defined(CRISP_WARP_SUBGROUPS)");
    pr_line(pr, "/* which lane a native shuffle reads: ARG, lane - ARG, lane + ARG, lane ^ ARG */");
    pr_line(pr, "#define CRISP_SHFL_IDX 0u");
    pr_line(pr, "#define CRISP_SHFL_UP 1u");
    pr_line(pr, "#define CRISP_SHFL_DOWN 2u");
    pr_line(pr, "#define CRISP_SHFL_XOR 3u");
    pr_line(pr, "#define CRISP_SHFL_WHOLE 4u /* or-ed in: the workgroup is whole warps */");
    pr_blank(pr);
    pr_line(pr, "/* The word W as another lane of this warp holds it (MODE and ARG say which),");
    pr_line(pr, "   on native shuffles only; where that lane does not exist, our own */");
    pr_line(pr, "uint crisp_warp_word_native(uint w, uint mode, ulong arg)");
    pr_line(pr, "{");
    pr_line(pr, "#ifdef CRISP_WARP_PTX");
    pr_line(pr, "    /* PTX reads ARG's low 5 bits; lanes past the warp's last (LAST) give our own */");
    pr_line(pr, "    bool whole = (mode & CRISP_SHFL_WHOLE) != 0u;");
    pr_line(pr, "    uint r, b = (uint)arg & 31u;");
    pr_line(pr, "    uint last = whole ? CRISP_WARP_SIZE - 1u : crisp_warp_lanes() - 1u, mask = whole ? 0xffffffffu : crisp_warp_mask();");
    pr_line(pr, "    mode &= ~CRISP_SHFL_WHOLE;");
    pr_line(pr, "    if (mode == CRISP_SHFL_UP)");
    pr_line(pr, "        __asm__ __volatile__(\"shfl.sync.up.b32 %%0, %%1, %%2, 0, %%3;\" : \"=r\"(r) : \"r\"(w), \"r\"(b), \"r\"(mask));");
    pr_line(pr, "    else if (mode == CRISP_SHFL_DOWN)");
    pr_line(pr, "        __asm__ __volatile__(\"shfl.sync.down.b32 %%0, %%1, %%2, %%3, %%4;\" : \"=r\"(r) : \"r\"(w), \"r\"(b), \"r\"(last), \"r\"(mask));");
    pr_line(pr, "    else if (mode == CRISP_SHFL_XOR)");
    pr_line(pr, "        __asm__ __volatile__(\"shfl.sync.bfly.b32 %%0, %%1, %%2, %%3, %%4;\" : \"=r\"(r) : \"r\"(w), \"r\"(b), \"r\"(last), \"r\"(mask));");
    pr_line(pr, "    else");
    pr_line(pr, "        __asm__ __volatile__(\"shfl.sync.idx.b32 %%0, %%1, %%2, %%3, %%4;\" : \"=r\"(r) : \"r\"(w), \"r\"(b), \"r\"(last), \"r\"(mask));");
    pr_line(pr, "    return arg < (ulong)CRISP_WARP_SIZE ? r : w;");
    pr_line(pr, "#endif");
    pr_line(pr, "#ifdef CRISP_WARP_SUBGROUPS");
    pr_line(pr, "    mode &= ~CRISP_SHFL_WHOLE;");
    pr_line(pr, "    uint me = crisp_lane_id();");
    pr_line(pr, "    ulong n = (ulong)crisp_warp_lanes();");
    pr_line(pr, "    ulong src = mode == CRISP_SHFL_UP ? (arg <= (ulong)me ? (ulong)me - arg : (ulong)me)");
    pr_line(pr, "              : mode == CRISP_SHFL_DOWN ? (arg < n - (ulong)me ? (ulong)me + arg : (ulong)me)");
    pr_line(pr, "              : mode == CRISP_SHFL_XOR ? ((ulong)me ^ arg) : arg;");
    pr_line(pr, "    if (src >= n) src = (ulong)me;");
    pr_line(pr, "    return sub_group_shuffle(w, get_sub_group_local_id() / CRISP_WARP_SIZE * CRISP_WARP_SIZE + (uint)src);");
    pr_line(pr, "#endif");
    pr_line(pr, "}");
    pr_line(pr, "#endif");
    pr_blank(pr);
}

/* crisp_warp_ballot(_native): %warp-ballot (types/warps.c).  NVIDIA: PTX
 * vote.sync.ballot over the warp's lanes; elsewhere each lane's bit, OR-ed
 * down to lane 0 by shuffle-down (a lane past a partial warp's last reads
 * its own bits: OR is idempotent, and every lane after it is missing too;
 * a butterfly would lose bits there), then lane 0's bits to every lane. */
static void ballot_out(Printer *pr, int native) {
    if (native) pr_line(pr, "#if defined(CRISP_WARP_PTX) || defined(CRISP_WARP_SUBGROUPS)");
    pr_line(pr, "/* %%warp-ballot: bit l set where lane l's P holds%s */", native ? ", on native shuffles only" : "");
    if (native) pr_line(pr, "uint crisp_warp_ballot_native(bool p, bool whole)");
    else pr_line(pr, "uint crisp_warp_ballot(bool p, __local uint *mem, ulong mem_len)");
    pr_line(pr, "{");
    pr_line(pr, "#if defined(CRISP_WARP_PTX)");
    pr_line(pr, "    uint r;");
    pr_line(pr, "    __asm__ __volatile__(\"{\\n\\t.reg .pred crisp_bp;\\n\\tsetp.ne.u32 crisp_bp, %%1, 0;\\n\\tvote.sync.ballot.b32 %%0, crisp_bp, %%2;\\n\\t}\"");
    pr_line(pr, "                         : \"=r\"(r) : \"r\"(p ? 1u : 0u), \"r\"(%s));", native ? "whole ? 0xffffffffu : crisp_warp_mask()" : "crisp_warp_mask()");
    if (!native) {
        pr_line(pr, "    (void)mem;");
        pr_line(pr, "    (void)mem_len;");
    }
    pr_line(pr, "    return r;");
    pr_line(pr, "#else");
    pr_line(pr, "    uint bits = p ? 1u << crisp_lane_id() : 0u;");
    pr_line(pr, "    for (uint d = 1u; d < CRISP_WARP_SIZE; d <<= 1)");
    if (native) {
        pr_line(pr, "        bits |= crisp_warp_word_native(bits, CRISP_SHFL_DOWN | (whole ? CRISP_SHFL_WHOLE : 0u), (ulong)d);");
        pr_line(pr, "    return crisp_warp_word_native(bits, CRISP_SHFL_IDX | (whole ? CRISP_SHFL_WHOLE : 0u), 0UL);");
    } else {
        pr_line(pr, "        bits |= crisp_warp_word(bits, crisp_lane_down((ulong)d), mem, mem_len);");
        pr_line(pr, "    return crisp_warp_word(bits, crisp_lane_idx(0UL), mem, mem_len);");
    }
    pr_line(pr, "#endif");
    pr_line(pr, "}");
    if (native) pr_line(pr, "#endif");
    pr_blank(pr);
}

/* crisp_sync_warp_whole: sync-warp in %native-warp-if :whole-warps, where
 * every warp has its 32 lanes: on NVIDIA bar.warp.sync with the constant
 * full mask (no member mask computed and held in a register). */
static void sync_whole_out(Printer *pr) {
    pr_line(pr, "/* sync-warp where the workgroup is whole warps */");
    pr_line(pr, "void crisp_sync_warp_whole(void)");
    pr_line(pr, "{");
    pr_line(pr, "#if defined(CRISP_WARP_PTX)");
    pr_line(pr, "    __asm__ __volatile__(\"bar.warp.sync 0xffffffff;\" : : : \"memory\");");
    pr_line(pr, "#else");
    pr_line(pr, "    crisp_sync_warp();");
    pr_line(pr, "#endif");
    pr_line(pr, "}");
    pr_blank(pr);
}

/* One component C of scalar type S into words wK, wK+1 (K = *w). */
static void pack(Printer *pr, Scalar s, const char *c, int *w) {
    switch (s) {
    case SC_FLOAT: pr_line(pr, "    uint w%d = as_uint(%s);", *w, c); break;
    case SC_HALF: pr_line(pr, "    uint w%d = (uint)as_ushort(%s);", *w, c); break;
    case SC_CHAR: case SC_SHORT: case SC_INT: pr_line(pr, "    uint w%d = (uint)(int)%s;", *w, c); break;
    case SC_UCHAR: case SC_USHORT: case SC_UINT: pr_line(pr, "    uint w%d = (uint)%s;", *w, c); break;
    default: /* long, ulong, double: two words */
        pr_line(pr, "    uint w%d = as_uint2(%s).x;", *w, c);
        pr_line(pr, "    uint w%d = as_uint2(%s).y;", *w + 1, c);
        (*w)++;
        break;
    }
    (*w)++;
}

static const char *unpack(Arena *a, Scalar s, int *w) {
    const char *t = oclc_type_name(ty_num(s));
    const char *r;
    switch (s) {
    case SC_FLOAT: r = arena_printf(a, "as_float(w%d)", *w); break;
    case SC_HALF: r = arena_printf(a, "as_half((ushort)w%d)", *w); break;
    case SC_CHAR: case SC_SHORT: case SC_INT: r = arena_printf(a, "(%s)(int)w%d", t, *w); break;
    case SC_UCHAR: case SC_USHORT: case SC_UINT: r = arena_printf(a, "(%s)w%d", t, *w); break;
    default:
        r = arena_printf(a, "as_%s((uint2)(w%d, w%d))", t, *w, *w + 1);
        (*w)++;
        break;
    }
    (*w)++;
    return r;
}

static int words_of(const Type *t) {
    if (t->kind != TY_NUM && t->kind != TY_HWVEC) return 1;
    return (ty_scalar_info(t->sc)->size == 8 ? 2 : 1) * (t->kind == TY_HWVEC ? t->width : 1);
}

/* crisp_shuffle_T: a value of type T as lane SRC holds it, word by word
 * (plain values, not an array: Intel's CPU compiler crashes on a private
 * array kept across the local-memory lowering's barriers). */
static void shuffle_out(Printer *pr, Arena *a, const Type *t, int native) {
    const char *tn = oclc_type_name(t);
    int n = words_of(t);
    const char *word = native ? "crisp_warp_word_native" : "crisp_warp_word";
    const char *src = native ? "mode, arg" : "src";
    const char *rest = native ? "" : ", mem, mem_len";
    if (native) pr_line(pr, "#if defined(CRISP_WARP_PTX) || defined(CRISP_WARP_SUBGROUPS)");
    pr_line(pr, "/* shuffle a %s: %d word%s through %s */", tn, n, n == 1 ? "" : "s", word);
    if (native) pr_line(pr, "%s %s(%s x, uint mode, ulong arg)", tn, oclc_warp_name(a, WARP_READ_NATIVE, t), tn);
    else pr_line(pr, "%s %s(%s x, uint src, __local uint *mem, ulong mem_len)", tn, oclc_warp_name(a, WARP_READ, t), tn);
    pr_line(pr, "{");
    int k = 0;
    if (t->kind == TY_BOOL) {
        pr_line(pr, "    return %s(x ? 1u : 0u, %s%s) != 0u;", word, src, rest);
    } else if (t->kind == TY_ENUM) {
        pr_line(pr, "    return (%s)(int)%s((uint)(int)x, %s%s);", tn, word, src, rest);
    } else if (t->kind == TY_NUM && n == 1) {
        pack(pr, t->sc, "x", &k);
        k = 0;
        pr_line(pr, "    w0 = %s(w0, %s%s);", word, src, rest);
        pr_line(pr, "    return %s;", unpack(a, t->sc, &k));
    } else {
        static const char hex[] = "0123456789abcdef";
        if (t->kind == TY_NUM) pack(pr, t->sc, "x", &k);
        else
            for (int i = 0; i < t->width; i++) pack(pr, t->sc, arena_printf(a, "x.s%c", hex[i]), &k);
        for (int i = 0; i < n; i++) pr_line(pr, "    w%d = %s(w%d, %s%s);", i, word, i, src, rest);
        k = 0;
        if (t->kind == TY_NUM) {
            pr_line(pr, "    return %s;", unpack(a, t->sc, &k));
        } else {
            pr_line(pr, "    return (%s)(", tn);
            for (int i = 0; i < t->width; i++) pr_line(pr, "        %s%s", unpack(a, t->sc, &k), i + 1 < t->width ? "," : ");");
        }
    }
    pr_line(pr, "}");
    if (native) pr_line(pr, "#endif");
    pr_blank(pr);
}

/* Copy TEXT to OUT; for an OpenCL C 1.2 file without the sub-group blocks
 * (#ifdef CRISP_WARP_SUBGROUPS ... #endif, never nested), which only
 * OpenCL C 2.0 and later can build. */
static void keep_paths(Printer *out, const char *text, int subgroups) {
    int skip = 0;
    for (const char *l = text; *l;) {
        const char *e = strchr(l, '\n');
        int n = e ? (int)(e - l) : (int)strlen(l);
        if (!subgroups && !strncmp(l, "#ifdef CRISP_WARP_SUBGROUPS", 27)) skip = 1;
        if (!skip) {
            if (n) pr_line(out, "%.*s", n, l);
            else pr_blank(out);
        }
        if (skip && !strncmp(l, "#endif", 6)) skip = 0;
        l += n + (e ? 1 : 0);
    }
}

void oclc_warp_helpers(Printer *out, const Program *p, Arena *a) {
    if (!oclc_uses_warps(p)) return;
    StrBuf text;
    sb_init(&text);
    Printer pr_, *pr = &pr_;
    pr_init(pr, &text);
    base_out(pr, p);
    for (int op = WARP_ID; op < WARP_READ; op++)
        if (has_op(p, (WarpOp)op)) op_out(pr, (WarpOp)op);
    if (has_op(p, WARP_NATIVE)) native_out(pr);
    if (has_op(p, WARP_READ)) {
        read_out(pr);
        for (int i = 0; i < p->nhelpers; i++)
            if (p->helpers[i]->kind == H_WARP && p->helpers[i]->op == WARP_READ) shuffle_out(pr, a, p->helpers[i]->ty, 0);
    }
    if (has_op(p, WARP_READ_NATIVE)) {
        read_native_out(pr);
        for (int i = 0; i < p->nhelpers; i++)
            if (p->helpers[i]->kind == H_WARP && p->helpers[i]->op == WARP_READ_NATIVE) shuffle_out(pr, a, p->helpers[i]->ty, 1);
    }
    if (has_op(p, WARP_BALLOT)) ballot_out(pr, 0);
    if (has_op(p, WARP_BALLOT_NATIVE)) ballot_out(pr, 1);
    if (has_op(p, WARP_SYNC_WHOLE)) sync_whole_out(pr);
    keep_paths(out, sb_cstr(&text), p->ocl_version >= 200);
    sb_free(&text);
}
