/* warps.c - the warp forms: in-warp, the shuffles, lane and warp ids,
 * sync-warp and +warp-size+ (spec "Warps & Shuffles", "Builtin GPU
 * Functions & Constants"; decisions in docs/warps.md).
 *
 * Crisp's warp is 32 lanes on every device.  The checker only decides
 * what is legal and records what the emitter needs: N_C_WARP nodes (op a
 * WarpOp), Helper entries of kind H_WARP (which support code, and the
 * value types shuffled), and per function the __local words the
 * local-memory lowering needs (CFunc.warp_mem / warp_words), which reach
 * the kernel's ABI as a host-sized __local argument.  How each op becomes
 * OpenCL C on each device is emit-oclc/warps.c.
 *
 * Two rules make the three lowerings agree:
 *  - shuffles happen only inside `in-warp` (spec "in-warp");
 *  - warp-collective operations (shuffles, sync-warp, calls of functions
 *    that contain them) are reached by every thread of the workgroup: not
 *    inside a branch, loop or and/or operand whose condition may differ
 *    between threads.  "Uniform" is judged on the syntax of the condition:
 *    literals, constants, kernel scalar parameters, lengths of kernel
 *    vectors, launch sizes, workgroup ids, +warp-size+, counters of uniform
 *    loops, and arithmetic on those.  The local-memory lowering uses
 *    workgroup barriers, so the rule is per workgroup, not per warp. */
#include <string.h>

#include "check_int.h"

static Diag *D(Ctx *cx) {
    return cx->ck->d;
}

/* ---- uniformity (judged on syntax) ---- */

static int is_uniform_sym(Ctx *cx, const Sym *s) {
    if (s->wg_uniform) return 1; /* declared so (check.c: uniform, %workgroup-uniform) */
    for (int i = 0; i < cx->nuniform; i++)
        if (cx->uniform[i] == s) return 1;
    return 0;
}

/* Heads whose value is the same for every thread of a workgroup; pure
 * operators, uniform when their operands are (uniform_syn). */
const char *const ck_uniform_launch_heads[] = {
    "get-local-size", "get-local-work-size", "local-work-size", "get-num-groups", "get-workgroup-id", "get-group-id",
    "get-global-size", "get-global-work-size", "global-work-size", "get-work-dim", "get-global-offset",
    "get-local-linear-size", "get-global-linear-size", "get-total-threads", "get-num-warps", NULL};
const char *const ck_uniform_op_heads[] = {
    "+", "-", "*", "/", "<", ">", "<=", ">=", "=", "==", "/=", "!=", "and", "or", "not", "min", "max", "clamp", "abs",
    "logand", "logior", "logxor", "lognot", "bit-and", "bit-or", "bit-xor", "bit-not", "ash", "floor", "ceil", "round",
    "truncate", "select-if", "the", NULL};

static int uniform_syn(Ctx *cx, const Node *syn);

static int all_uniform(Ctx *cx, const Node *syn, int from) {
    for (int i = from; i < syn->nkids; i++)
        if (!uniform_syn(cx, syn->kids[i])) return 0;
    return 1;
}

static int uniform_syn(Ctx *cx, const Node *syn) {
    if (!syn) return 1;
    switch (syn->kind) {
    case N_INT:
    case N_FLOAT:
    case N_STRING:
    case N_KEYWORD: return 1;
    case N_SYMBOL: {
        const char *k = syn->key;
        if (syn_streq(k, "t") || syn_streq(k, "nil") || syn_streq(k, "true") || syn_streq(k, "false")) return 1;
        Sym *s = ck_scope_lookup(cx, k);
        if (!s) s = ck_parameter_lookup(cx->ck, syn);
        if (!s) return syn_streq(k, "+warp-size+");
        if (s->kind == SYM_CONST || s->kind == SYM_PARAMETER) return 1;
        /* a kernel's scalar arguments are the same for every thread */
        if (s->kind == SYM_PARAM && cx->fn->kind == FN_KERNEL && s->ty && s->ty->kind != TY_VECTOR) return 1;
        return is_uniform_sym(cx, s);
    }
    case N_LIST: break;
    default: return 0;
    }
    const char *h = syn_head(syn);
    if (!h) return 0;
    /* the same for every thread of a workgroup (ck_uniform_launch_heads);
       the heads' names tested through their memo (ck_head) */
    unsigned hf = ck_head(cx->ck, h)->flags;
    if (hf & HEAD_UNIFORM_LAUNCH) return all_uniform(cx, syn, 1);
    if ((syn_streq(h, "length~") || syn_streq(h, "~length~")) && syn->nkids == 2 && syn->kids[1]->kind == N_SYMBOL) {
        Sym *v = ck_scope_lookup(cx, syn->kids[1]->key);
        return v && ((v->kind == SYM_PARAM && cx->fn->kind == FN_KERNEL) || (v->ty && v->ty->length >= 0));
    }
    /* pure operators of uniform operands (ck_uniform_op_heads) */
    if (hf & HEAD_UNIFORM_OP) return all_uniform(cx, syn, 1);
    if ((!strncmp(h, "to-", 3) || !strncmp(h, "as-", 3)) && syn->nkids == 2) return uniform_syn(cx, syn->kids[1]);
    return 0;
}

const Node *ck_warp_branch_enter(Ctx *cx, const Node *construct, const Node *test) {
    const Node *saved = cx->divergent;
    if (!cx->divergent && !uniform_syn(cx, test)) cx->divergent = construct;
    return saved;
}

/* A loop is uniform when its start, test and step are, its counter being
 * uniform in them; the counter is then uniform in the body too. */
const Node *ck_warp_loop_enter(Ctx *cx, const Node *loop, Sym *var, const Node *init, const Node *test, const Node *step) {
    const Node *saved = cx->divergent;
    if (!uniform_syn(cx, init)) {
        if (!cx->divergent) cx->divergent = loop;
        return saved;
    }
    arena_push(cx->ck->a, (void ***)&cx->uniform, &cx->nuniform, &cx->capuniform, var);
    if (!uniform_syn(cx, test) || !uniform_syn(cx, step)) {
        cx->nuniform--;
        if (!cx->divergent) cx->divergent = loop;
    }
    return saved;
}

const Node *ck_warp_divergent_enter(Ctx *cx, const Node *construct) {
    const Node *saved = cx->divergent;
    if (!cx->divergent) cx->divergent = construct;
    return saved;
}

/* The user's name for a construct: the macro it came from, or its head. */
static const char *construct_name(Ctx *cx, const Node *c) {
    if (c->origin) {
        const Expansion *x = c->origin;
        while (x->parent && strcmp(x->macro, "when") && strcmp(x->macro, "unless") && strcmp(x->macro, "cond")) x = x->parent;
        return x->macro;
    }
    const char *h = syn_head(c);
    if (h && syn_streq(h, "%no-barrier") && c->nkids > 1 && c->kids[1]->kind == N_STRING) return c->kids[1]->name;
    if (h && syn_streq(h, "%loop")) return "loop";
    return h ? h : syn_to_string(cx->ck->a, c, 20);
}

/* Warp-collective operations must be reached by the whole workgroup. */
static int convergent(Ctx *cx, const Node *at, const char *what) {
    if (!cx->divergent) return 1;
    const Node *c = cx->divergent;
    diag_error_at(D(cx), at, "E0581",
                  "%s inside divergent control flow: every thread of the workgroup must reach it (docs/warps.md)", what);
    diag_note(D(cx), c->loc, "the threads may take different paths at this `%s`, whose condition is not uniform",
              construct_name(cx, c));
    return 0;
}

/* ---- the warp memory of the local-memory lowering ---- */

/* The __local words of the current function (a kernel argument, or a hidden
 * parameter of a function its callers fill); at least WORDS per thread. */
static Sym *warp_mem(Ctx *cx, const Node *at, int words) {
    CFunc *fn = cx->fn;
    if (words > cfunc_rare(fn)->warp_words) cfunc_rare_w(cx->ck->a, fn)->warp_words = words;
    if (cfunc_rare(fn)->warp_mem) return cfunc_rare(fn)->warp_mem;
    if (fn->kind == FN_KERNEL && fn->exact) {
        diag_error_at(D(cx), at, "E0586",
                      "def-kernel-exact `%s` takes exactly its declared parameters, but shuffles need the __local warp memory "
                      "of the local-memory lowering as an extra argument (docs/warps.md); use def-kernel", fn->name);
        return NULL;
    }
    Type *ty = ty_vector(cx->ck->a, ty_num(SC_UINT), AS_LOCAL, ACC_READ_WRITE, AL_COMPACT, -1);
    /* a variable of the target's support code: no identifier here, the
       target's naming pass gives it one (emit-oclc/names.c: crisp_warp_mem) */
    Sym *s = arena_alloc(cx->ck->a, sizeof *s);
    if (!s) return NULL;
    s->kind = SYM_PARAM;
    s->name = s->key = "warp-memory";
    s->ty = ty;
    s->def = at;
    cfunc_rare_w(cx->ck->a, fn)->warp_mem = s;
    return s;
}

static Helper *warp_helper(Ctx *cx, WarpOp op, Type *ty) {
    Program *p = ck_prog_of(cx);
    for (int i = 0; i < p->nhelpers_of_kind[H_WARP]; i++) {
        Helper *h = p->helpers_of_kind[H_WARP][i];
        if (h->op == (int)op && (!ty || ty_equal(h->ty, ty)) && helper_live(p, h)) return h;
    }
    Helper *h = arena_alloc(cx->ck->a, sizeof *h);
    if (!h) return NULL;
    h->kind = H_WARP;
    h->op = (int)op;
    h->ty = ty;
    ck_helper_add(cx->ck->a, p, h);
    return h;
}

/* Support every warp op needs: the path selection, lanes and ids. */
static void uses_warp(Ctx *cx) {
    cx->fn->uses_warp = 1;
    ck_need_helper(cx, H_LOCAL_LINEAR_ID, NULL, AS_NONE);
    ck_need_helper(cx, H_LOCAL_LINEAR_SIZE, NULL, AS_NONE);
    warp_helper(cx, WARP_LANE_ID, NULL);
}

/* 32-bit words a value of type T takes in warp memory (0: cannot shuffle). */
static int words_of(const Type *t) {
    if (t->kind == TY_BOOL || t->kind == TY_ENUM) return 1;
    if (t->kind != TY_NUM && t->kind != TY_HWVEC) return 0;
    if (t->sc == SC_BFLOAT16) return 0;
    int per = ty_scalar_info(t->sc)->size == 8 ? 2 : 1;
    return per * (t->kind == TY_HWVEC ? t->width : 1);
}

/* ---- the forms ---- */

static const struct {
    const char *name;
    WarpOp op;
    const char *spec;
} forms[] = {
    {"in-warp", WARP__COUNT, "in-warp"},
    {"get-lane-id", WARP_LANE_ID, "Builtin GPU Functions"},
    {"get-warp-id", WARP_ID, "Builtin GPU Functions"},
    {"get-num-warps", WARP_NUM, "Builtin GPU Functions"},
    {"%warp-lanes", WARP_LANES, "docs/warps.md"},
    {"sync-warp", WARP_SYNC, "Builtin GPU Functions"},
    {"shuffle", WARP_SHUFFLE, "shuffle"},
    {"shuffle-up", WARP_SHUFFLE_UP, "shuffle-up / shuffle-down"},
    {"shuffle-down", WARP_SHUFFLE_DOWN, "shuffle-up / shuffle-down"},
    {"shuffle-xor", WARP_SHUFFLE_XOR, "shuffle-xor"},
    {"%warp-ballot", WARP_BALLOT, "docs/warps.md"},
    {NULL, WARP__COUNT, NULL},
};

int ck_warp_form_name(const char *key) {
    /* asked about every call's head: the second byte first (get-global-id
       and set! share the first with some of these) */
    for (int i = 0; forms[i].name; i++)
        if (forms[i].name[0] == key[0] && forms[i].name[1] == key[1] && syn_streq(forms[i].name, key)) return 1;
    return 0;
}

const char *ck_warp_form_at(int i) {
    return forms[i].name;
}

static Node *warp_node(Ctx *cx, const Node *at, WarpOp op, Type *ty, int nkids) {
    Node *n = ck_mk(cx, N_C_WARP, at, ty, nkids);
    if (n) n->op = (int)op;
    return n;
}

/* (in-warp (LANE) BODY...) - spec "in-warp": LANE is this thread's lane
 * (immutable) in BODY, where the shuffles may be used.  No value. */
static Node *in_warp(Ctx *cx, Node *syn) {
    Node *ids = syn->nkids >= 2 ? syn->kids[1] : NULL;
    if (!ids || ids->kind != N_LIST || ids->nkids != 1 || ids->kids[0]->kind != N_SYMBOL) {
        diag_error_at(D(cx), ids ? ids : syn, "E0582", "expected (in-warp (LANE-ID) BODY...), found `%s`",
                      syn_to_string(cx->ck->a, syn, 40));
        return NULL;
    }
    Node *lane = ids->kids[0];
    /* (let ((LANE (get-lane-id))) (declare (%immutable LANE)) BODY...) */
    Node *let = cx_list(cx, syn, 3, cx_sym(cx, syn, "let"),
                        cx_list(cx, syn, 1, cx_list(cx, lane, 2, lane, cx_list(cx, lane, 1, cx_sym(cx, lane, "get-lane-id")))),
                        cx_list(cx, syn, 2, cx_sym(cx, syn, "declare"),
                                cx_list(cx, syn, 2, cx_sym(cx, syn, "%immutable"), cx_sym(cx, lane, lane->name))));
    if (!let) return NULL;
    Node **kids = arena_alloc(cx->ck->a, sizeof(Node *) * (size_t)(3 + syn->nkids - 2));
    if (!kids) return NULL;
    for (int i = 0; i < 3; i++) kids[i] = let->kids[i];
    for (int i = 2; i < syn->nkids; i++) kids[3 + i - 2] = syn->kids[i];
    let->kids = kids;
    let->nkids = 3 + syn->nkids - 2;
    const Node *saved = cx->in_warp;
    cx->in_warp = syn;
    Dest discard = {D_DISCARD, NULL, NULL};
    ck_form_to(cx, let, &discard);
    cx->in_warp = saved;
    return ck_node(cx, N_C_BLOCK, syn, &ty_void);
}

/* (shuffle VAR LANE), (shuffle-up VAR DELTA), (shuffle-down VAR DELTA),
 * (shuffle-xor VAR MASK) - spec "shuffle", "shuffle-up / shuffle-down",
 * "shuffle-xor".  VAR's value as held by another lane of the warp; where
 * that lane does not exist, the caller's own value (docs/warps.md). */
static Node *shuffle(Ctx *cx, Node *syn, WarpOp op, Type *want) {
    const char *name = syn->kids[0]->name;
    if (!ck_nargs_ok(cx, syn, 2, 2)) return NULL;
    if (!cx->in_warp) {
        diag_error_at(D(cx), syn, "E0580", "`%s` outside `in-warp`: shuffles exchange values between the lanes of a warp, "
                      "so they belong inside (in-warp (lane-id) ...)", name);
        return NULL;
    }
    /* in %native-warp-if's native branch only the warp's own lanes meet */
    if (!cx->native_warp && !convergent(cx, syn, arena_printf(cx->ck->a, "`%s`", name))) return NULL;
    Node *v = ck_expr(cx, syn->kids[1], want && ty_is_arith(want) ? want : NULL);
    if (!v) return NULL;
    if (v->ty->kind == TY_TUPLE) v->ty = v->ty->elems[0];
    int words = words_of(v->ty);
    if (!words) {
        diag_error_at(D(cx), syn->kids[1], "E0583",
                      "`%s` moves numbers, bools and hardware vectors between lanes, not `%s`%s", name, ck_tname(cx, v->ty),
                      v->ty->kind == TY_STRUCT ? ": shuffle the struct field by field" : "");
        return NULL;
    }
    if (v->op && (v->kind == N_C_INTLIT || v->kind == N_C_FLOATLIT)) v->op = 0; /* a literal takes its default type */
    Node *l = ck_expr(cx, syn->kids[2], NULL); /* a literal keeps its sign: -1 is no lane */
    if (!l) return NULL;
    if (!ty_is_int(l->ty)) {
        diag_error_at(D(cx), syn->kids[2], "E0584", "the %s of `%s` must be an integer, found `%s`",
                      op == WARP_SHUFFLE ? "lane" : op == WARP_SHUFFLE_XOR ? "lane mask" : "lane delta", name, ck_tname(cx, l->ty));
        return NULL;
    }
    if (l->kind == N_C_INTLIT && l->op && l->ival >= 0) {
        l = ck_int_lit(cx, syn->kids[2], l->ival, ty_num(SC_ULONG)); /* 16UL */
    } else if (!(l->ty->kind == TY_NUM && l->ty->sc == SC_ULONG)) {
        l = ck_mk1(cx, N_C_CAST, syn->kids[2], ty_num(SC_ULONG), l); /* negative: no lane, the own value */
        if (!l) return NULL;
    }
    uses_warp(cx);
    Sym *mem = NULL;
    if (!cx->native_warp) {
        cx->fn->warp_collective = 1;
        mem = warp_mem(cx, syn, 1); /* values travel a 32-bit word at a time */
        if (!mem) return NULL;
    }
    /* the lane helpers (crisp_lane_up, ...) serve the local-memory lowering;
       native shuffles pass their mode and operand (emit-oclc/warps.c) */
    if ((mem && !warp_helper(cx, op, NULL)) || !warp_helper(cx, mem ? WARP_READ : WARP_READ_NATIVE, v->ty)) return NULL;
    Node *n = warp_node(cx, syn, op, v->ty, 2);
    if (!n) return NULL;
    n->kids[0] = v;
    n->kids[1] = l;
    n->nkids = 2;
    n->sym = mem;
    n->ival = cx->native_warp == 2; /* whole warps (%native-warp-if :whole-warps) */
    return n;
}

/* (%warp-ballot PREDICATE) - the library's internal vote (docs/warps.md,
 * "%warp-ballot"): a uint whose bit l is set where lane l of this warp has
 * PREDICATE true (a bool, or a number: not zero), in every lane.  Like the
 * shuffles it belongs inside `in-warp` and is reached by the whole
 * workgroup outside %native-warp-if's native branch.  NVIDIA: one
 * vote.sync.ballot; elsewhere the lanes' bits OR-ed by shuffles
 * (sub-groups or local memory; emit-oclc/warps.c). */
static Node *ballot(Ctx *cx, Node *syn) {
    if (!ck_nargs_ok(cx, syn, 1, 1)) return NULL;
    if (!cx->in_warp) {
        diag_error_at(D(cx), syn, "E0580", "`%%warp-ballot` outside `in-warp`: a ballot gathers the lanes of a warp, "
                      "so it belongs inside (in-warp (lane-id) ...)");
        return NULL;
    }
    if (!cx->native_warp && !convergent(cx, syn, "`%warp-ballot`")) return NULL;
    Node *v = ck_expr(cx, syn->kids[1], &ty_bool);
    if (!v) return NULL;
    if (v->ty->kind == TY_TUPLE) v->ty = v->ty->elems[0];
    if (v->ty->kind != TY_BOOL && v->ty->kind != TY_NUM) {
        diag_error_at(D(cx), syn->kids[1], "E0583", "`%%warp-ballot` tests a bool or a number in each lane, not `%s`",
                      ck_tname(cx, v->ty));
        return NULL;
    }
    uses_warp(cx);
    Sym *mem = NULL;
    if (!cx->native_warp) {
        cx->fn->warp_collective = 1;
        mem = warp_mem(cx, syn, 1);
        if (!mem) return NULL;
        /* its exchanges: crisp_warp_word, crisp_lane_down, crisp_lane_idx */
        if (!warp_helper(cx, WARP_SHUFFLE_DOWN, NULL) || !warp_helper(cx, WARP_SHUFFLE, NULL) ||
            !warp_helper(cx, WARP_READ, ty_num(SC_UINT)))
            return NULL;
    } else if (!warp_helper(cx, WARP_READ_NATIVE, ty_num(SC_UINT))) {
        return NULL;
    }
    if (!warp_helper(cx, mem ? WARP_BALLOT : WARP_BALLOT_NATIVE, NULL)) return NULL;
    Node *n = warp_node(cx, syn, WARP_BALLOT, ty_num(SC_UINT), 1);
    if (!n) return NULL;
    n->kids[0] = v;
    n->nkids = 1;
    n->sym = mem;
    n->ival = cx->native_warp == 2;
    return n;
}

/* %native-warp-if (check.c): the warp support code, and crisp_warp_native,
 * which tells whether this device's shuffles are native. */
void ck_warp_native_use(Ctx *cx) {
    uses_warp(cx);
    warp_helper(cx, WARP_NATIVE, NULL);
}

Node *ck_warp_form(Ctx *cx, Node *syn, Type *want) {
    const char *h = syn->kids[0]->key;
    int i = 0;
    while (strcmp(forms[i].name, h)) i++;
    WarpOp op = forms[i].op;
    if (op == WARP__COUNT) return in_warp(cx, syn);
    if (op == WARP_BALLOT) return ballot(cx, syn);
    if (op >= WARP_SHUFFLE) return shuffle(cx, syn, op, want);
    if (!ck_nargs_ok(cx, syn, 0, 0)) return NULL;
    if (op == WARP_SYNC && !cx->native_warp && !convergent(cx, syn, "`sync-warp`")) return NULL;
    uses_warp(cx);
    if (op == WARP_SYNC && !cx->native_warp) cx->fn->warp_collective = 1;
    if (op != WARP_LANE_ID && !warp_helper(cx, op, NULL)) return NULL;
    if (op == WARP_SYNC && !warp_helper(cx, WARP_LANES, NULL)) return NULL; /* the PTX member mask */
    if (op == WARP_SYNC && cx->native_warp == 2 && !warp_helper(cx, WARP_SYNC_WHOLE, NULL)) return NULL;
    Node *n = warp_node(cx, syn, op, op == WARP_SYNC ? &ty_void : ty_num(SC_UINT), 0);
    if (n) n->ival = op == WARP_SYNC && cx->native_warp == 2; /* crisp_sync_warp_whole */
    return n;
}

/* ---- +warp-size+ ---- */

/* The user may restate the spec's (def-constant +warp-size+:ulong 32);
 * any other value contradicts the warp the lowerings build. */
static int user_warp_size_ok(Ctx *cx, const Node *at) {
    Sym *s = ck_global_lookup(cx->ck, "+warp-size+");
    if (!s || (s->kind != SYM_CONST && s->kind != SYM_PARAMETER)) return 1;
    Node *v = ck_global_const_value(cx->ck, s);
    int64_t n;
    if (!v) return 0;
    if (ck_const_int(cx, v, &n) && n == CRISP_WARP_SIZE) return 1;
    diag_error_at(D(cx), at, "E0480", "`+warp-size+` is %d on every device (docs/warps.md), but this program defines it as `%s`",
                  CRISP_WARP_SIZE, syn_to_string(cx->ck->a, sym_rare(s)->init ? sym_rare(s)->init : at, 30));
    if (s->def) diag_note(D(cx), s->def->loc, "`+warp-size+` is defined here; remove the definition or make it %d", CRISP_WARP_SIZE);
    return 0;
}

/* +warp-size+ - spec "Builtin GPU Functions & Constants": 32, a literal
 * that takes the type its context wants (ulong when it has no say). */
Node *ck_warp_size_value(Ctx *cx, Node *syn, Type *want) {
    if (!user_warp_size_ok(cx, syn)) return NULL;
    Sym *s = ck_global_lookup(cx->ck, "+warp-size+");
    (void)want; /* a flexible literal: the operators that use it adapt it */
    Node *n = ck_int_lit(cx, syn, CRISP_WARP_SIZE, s && sym_rare(s)->value ? sym_rare(s)->value->ty : ty_num(SC_ULONG));
    if (!s || !sym_rare(s)->type_syn) n->op = 1; /* LIT_FLEX_INT (check_expr.c) */
    return n;
}

/* (device-has :subgroups) - spec "target-has / device-has": a file for
 * OpenCL C 2.0 or 3.0 lets the device answer; an OpenCL C 1.2 one cannot
 * use sub-groups, so the answer is nil, with a warning naming the flag. */
int ck_warp_device_has_subgroups(Ctx *cx, const Node *syn) {
    if (ck_prog_of(cx)->ocl_version >= 200) return 1;
    diag_warning_at(D(cx), syn, "W0580",
                    "(device-has :subgroups) is always nil in an OpenCL C 1.2 file: sub-groups need OpenCL C 2.0; "
                    "compile with --ocl-version=2.0 or --ocl-version=3.0 to let the device answer");
    return 0;
}

/* ---- calls ---- */

int ck_warp_call_args(Ctx *cx, CFunc *callee, const Node *call_syn, Node **extra, int *nextra) {
    if (!callee->uses_warp) return 1;
    if (callee->warp_collective) {
        if (!convergent(cx, call_syn, arena_printf(cx->ck->a, "a call of `%s`, which uses warp operations,", callee->name)))
            return 0;
        cx->fn->warp_collective = 1;
    }
    uses_warp(cx);
    if (!cfunc_rare(callee)->warp_mem) return 1;
    Sym *m = warp_mem(cx, call_syn, cfunc_rare(callee)->warp_words);
    if (!m) return 0;
    extra[(*nextra)++] = ck_var_ref(cx, call_syn, m);
    Node *len = ck_node(cx, N_C_LENGTH, call_syn, ty_num(SC_ULONG));
    len->sym = m;
    extra[(*nextra)++] = len;
    return 1;
}
