/* sidechan.c - side channels, the run-time debug channel and the
 * marshalling forms of def-kernel-exact.
 *
 * Spec sections "Side Channel Vectors", "Argument Passing and Side
 * Channels", "def-kernel-exact" and "Logging and Debugging".  A side channel
 * made in a kernel becomes a kernel parameter (result, implicit) or a view
 * into the one scratch pool; one made in a def-function becomes a hidden
 * parameter that every caller supplies with a side channel of its own, its
 * size rewritten in the caller's terms, until the kernel's own parameters
 * and launch sizes are all that is left - which is what the host can
 * compute.  Invocations are counted statically, so none may be in a loop.
 * The layout the host sees is docs/abi.md. */
#include <stdio.h>
#include <string.h>

#include "check_int.h"

Node *ck_global_const_value(Checker *ck, Sym *s);

static Diag *D(Ctx *cx) {
    return cx->ck->d;
}

static const char *side_word(SideKind k) {
    return k == SIDE_RESULT ? "result" : k == SIDE_IMPLICIT ? "implicit" : k == SIDE_SCRATCH ? "scratch" : k == SIDE_LOCAL ? "local"
           : k == SIDE_UNIFORM ? "uniform" : "debug";
}

/* ---- size expressions ---- */

/* The launch size a builtin names: SZ_GLOBAL_SIZE etc.; *takes_dim when it
 * takes a dimension argument.  0 for anything else. */
static SizeOp launch_input(const char *h, int *takes_dim) {
    static const struct { const char *crisp; SizeOp op; int dim; } t[] = {
        {"get-global-size", SZ_GLOBAL_SIZE, 1}, {"get-global-work-size", SZ_GLOBAL_SIZE, 1},
        {"global-work-size", SZ_GLOBAL_SIZE, 1}, {"get-local-size", SZ_LOCAL_SIZE, 1},
        {"get-local-work-size", SZ_LOCAL_SIZE, 1}, {"local-work-size", SZ_LOCAL_SIZE, 1},
        {"get-num-groups", SZ_NUM_GROUPS, 1}, {"get-num-workgroups", SZ_NUM_GROUPS, 1},
        {"get-global-linear-size", SZ_GLOBAL_LINEAR_SIZE, 0}, {"get-total-threads", SZ_GLOBAL_LINEAR_SIZE, 0},
        {"get-local-linear-size", SZ_LOCAL_LINEAR_SIZE, 0}, {"get-linear-work-size", SZ_LOCAL_LINEAR_SIZE, 0},
        {NULL, SZ_INT, 0}};
    for (int i = 0; t[i].crisp; i++)
        if (syn_streq(h, t[i].crisp)) {
            *takes_dim = t[i].dim;
            return t[i].op;
        }
    return SZ_INT;
}

/* The position of parameter S among the current function's parameters. */
static int param_index(Ctx *cx, const Sym *s) {
    for (int i = 0; i < cx->fn->nparams; i++)
        if (cx->fn->params[i] == s) return i;
    return -1;
}

/* A constant's value as a leaf (integer, or a fractional literal). */
static SizeExpr *const_leaf(Ctx *cx, const Node *v) {
    return v->kind == N_C_FLOATLIT || v->kind == N_FLOAT ? sz_float(cx->ck->a, v->fval) : sz_int(cx->ck->a, v->ival);
}

/* Check that `syn` only uses what a size may use (spec "Side Channel
 * Vectors": parameters, lengths, constants, launch sizes) and, when OUT is
 * given (in a kernel), build its tree (sizeexpr.h) in *OUT. */
static int size_expr(Ctx *cx, Node *syn, SizeExpr **out, const Node *site) {
    Checker *ck = cx->ck;
    Arena *a = ck->a;
    if (syn->kind == N_INT) {
        if (syn->ival < 0) {
            diag_error_at(D(cx), syn, "E0805", "a side-channel size cannot be negative, found %lld", (long long)syn->ival);
            return 0;
        }
        if (out) *out = sz_int(a, syn->ival);
        return 1;
    }
    if (syn->kind == N_FLOAT) {
        if (out) *out = sz_float(a, syn->fval);
        return 1;
    }
    if (syn->kind == N_SYMBOL) {
        Sym *s = ck_scope_lookup(cx, syn->key);
        if (!s) s = ck_parameter_lookup(ck, syn);
        if (s && (s->kind == SYM_CONST || s->kind == SYM_PARAMETER)) {
            Node *v = ck_global_const_value(ck, s);
            if (!v) return 0;
            if (out) *out = const_leaf(cx, v);
            return 1;
        }
        if (!s && syn_streq(syn->key, "+warp-size+")) {
            /* the warp's lanes, the same on every device (docs/warps.md) */
            if (out) *out = sz_int(a, CRISP_WARP_SIZE);
            return 1;
        }
        if (s && s->kind == SYM_LOCAL && s->size_init && !s->assigned && s->resolving < 8) {
            /* a let variable never assigned: its initializer (spec
               "generating scratch vectors": (let ((n (ceil ...))) (make-scratch-vector T :local n))) */
            s->resolving++;
            int ok = size_expr(cx, s->size_init, out, site);
            s->resolving--;
            return ok;
        }
        if (s && s->kind == SYM_PARAM && ty_is_int(s->ty)) {
            if (out) *out = sz_param(a, SZ_SCALAR, s->name, param_index(cx, s), ty_category(s->ty) == CAT_SIGNED);
            return 1;
        }
        diag_error_at(D(cx), syn, "E0806",
                      "the size of a side channel can only use the %s's integer parameters, lengths of its vector parameters, constants and launch sizes; `%s` is %s",
                      cx->fn->kind == FN_KERNEL ? "kernel" : "function", syn->name,
                      !s ? "unknown" : s->kind == SYM_PARAM ? "not an integer" : "a local variable");
        if (site != syn) diag_note(D(cx), site->loc, "in the size of this side channel");
        return 0;
    }
    const char *hd = syn_head(syn);
    if (!hd) {
        diag_error_at(D(cx), syn, "E0806", "unexpected `%s` in a side-channel size", syn_to_string(a, syn, 40));
        return 0;
    }
    if (syn_streq(hd, "length~") && syn->nkids == 2 && syn->kids[1]->kind == N_SYMBOL) {
        Sym *s = ck_scope_lookup(cx, syn->kids[1]->key);
        if (!s || s->kind != SYM_PARAM || !s->ty || s->ty->kind != TY_VECTOR) {
            diag_error_at(D(cx), syn->kids[1], "E0806", "a side-channel size can take the length of a vector parameter only, not `%s`",
                          syn->kids[1]->name);
            return 0;
        }
        if (out) *out = s->ty->length >= 0 ? sz_int(a, s->ty->length) : sz_param(a, SZ_LENGTH, s->name, param_index(cx, s), 0);
        return 1;
    }
    if (syn_streq(hd, "get-warp-size") && syn->nkids == 1) {
        /* lib/prelude.crisp's (get-warp-size), +warp-size+: sizes are read
           before macros run (spec "generating scratch vectors" uses it) */
        if (out) *out = sz_int(a, CRISP_WARP_SIZE);
        return 1;
    }
    int takes_dim = 0;
    SizeOp lop = launch_input(hd, &takes_dim);
    if (lop != SZ_INT) {
        int64_t d = 0;
        if (takes_dim && syn->nkids == 2 && !ck_const_syn_int(cx, syn->kids[1], &d)) d = -1;
        if (d < 0 || d > 2 || syn->nkids > (takes_dim ? 2 : 1)) {
            diag_error_at(D(cx), syn, "E0806", "`%s` in a side-channel size needs a constant dimension 0, 1 or 2", hd);
            return 0;
        }
        if (out) *out = sz_launch(a, lop, (int)d);
        return 1;
    }
    if (!strncmp(hd, "to-", 3) && syn->nkids == 2) return size_expr(cx, syn->kids[1], out, site);
    static const struct { const char *name; SizeOp op; } ops[] = {
        {"+", SZ_ADD}, {"-", SZ_SUB}, {"*", SZ_MUL}, {"/", SZ_DIV}, {"min", SZ_MIN}, {"max", SZ_MAX},
        {"ceil", SZ_CEIL_DIV}, {"floor", SZ_FLOOR_DIV}, {NULL, SZ_INT}};
    int op = -1;
    for (int i = 0; ops[i].name; i++)
        if (syn_streq(ops[i].name, hd)) op = i;
    int binary = op >= 0 && (ops[op].op == SZ_CEIL_DIV || ops[op].op == SZ_FLOOR_DIV);
    if (op < 0 || syn->nkids < 2 || (binary && syn->nkids != 3) || syn->nkids > 65) {
        diag_error_at(D(cx), syn, "E0806",
                      "`%s` cannot be used in a side-channel size (use + - * / min max ceil floor, length~, constants, parameters and launch sizes)",
                      syn_to_string(a, syn, 40));
        return 0;
    }
    /* (ceil a b) / (floor a b) are integer divisions rounded up / down */
    SizeExpr *kids[64];
    for (int i = 1; i < syn->nkids; i++) {
        kids[i - 1] = NULL;
        if (!size_expr(cx, syn->kids[i], out ? &kids[i - 1] : NULL, site)) return 0;
    }
    if (out) *out = sz_node(a, ops[op].op, kids, syn->nkids - 1);
    return 1;
}

/* Replace the callee's parameters in `syn` by the caller's arguments. */
static Node *subst(Ctx *cx, Node *syn, FuncDef *fd, Node *call) {
    int n = fd->nparams < call->nkids - 1 ? fd->nparams : call->nkids - 1;
    Node **names = arena_alloc(cx->ck->a, sizeof(Node *) * (size_t)(n + 1));
    if (!names) return syn;
    for (int i = 0; i < n; i++) names[i] = (Node *)fd->params[i].name; /* only compared */
    return syn_subst(cx->ck->a, syn, names, call->kids + 1, n);
}

/* A size with a fractional factor, (* (get-global-linear-size) 1.5), is
 * computed in float inside the kernel (and rounded up, like on the host):
 * every non-literal leaf is converted with to-float. */
static Node *floatify(Ctx *cx, Node *syn) {
    if (syn->kind == N_INT || syn->kind == N_FLOAT) return syn;
    const char *h = syn_head(syn);
    if (h && (syn_streq(h, "+") || syn_streq(h, "-") || syn_streq(h, "*") || syn_streq(h, "/") || syn_streq(h, "min") ||
              syn_streq(h, "max"))) {
        Node *c = syn_copy(cx->ck->a, syn);
        for (int i = 1; i < c->nkids; i++) c->kids[i] = floatify(cx, c->kids[i]);
        return c;
    }
    return cx_list(cx, syn, 2, cx_sym(cx, syn, "to-float"), syn);
}

/* ---- side channels at kernel level ---- */

static Node *bin(Ctx *cx, const Node *at, int op, Node *a, Node *b) {
    return ck_mk2(cx, N_C_BINARY, at, ty_num(SC_ULONG), op, a, b);
}

/* A pointer-and-length view variable: `T *name = ptr; ulong name_len = n;` */
static Sym *declare_view(Ctx *cx, const Node *at, const char *name, Type *ty, Node *ptr, Node *len) {
    Sym *s = ck_view_var(cx, at, name, ty);
    return s ? ck_view_decl(cx, at, s, ptr, len) : NULL;
}

static Sym *kernel_param(Ctx *cx, const Node *at, const char *name, Type *ty) {
    Sym *s = ck_new_local(cx, at, name, ty);
    if (!s) return NULL;
    s->kind = SYM_PARAM;
    s->len_cname = ck_new_local(cx, at, ck_name_join(cx->ck, s->cname, "len"), ty_num(SC_ULONG))->cname;
    return s;
}

/* Make side channel `kind` in the current kernel; count is syntax over the
 * kernel's parameters.  Returns the vector the kernel body sees. */
static Sym *kernel_side(Ctx *cx, SideKind kind, const char *name, const char *comment, Type *ty, Node *count,
                        const Node *at) {
    Checker *ck = cx->ck;
    CFunc *fn = cx->fn;
    SizeExpr *size = NULL;
    int ok = size_expr(cx, count, &size, at);
    SideChannel *sc = arena_alloc(ck->a, sizeof *sc);
    if (!ok || !sc || !size) return NULL;
    if (!name) {
        int k = 0;
        for (int i = 0; i < cfunc_rare(fn)->nsides; i++) k += cfunc_rare(fn)->sides[i]->kind == kind;
        name = arena_printf(ck->a, "%s%d", side_word(kind), k);
    }
    for (int i = 0; i < cfunc_rare(fn)->nsides; i++)
        if (syn_streq(cfunc_rare(fn)->sides[i]->name, name)) {
            diag_error_at(D(cx), at, "E0807", "kernel `%s` already has a side channel named \"%s\"", fn->name, name);
            diag_note(D(cx), cfunc_rare(fn)->sides[i]->at->loc, "the other one is made here");
            break;
        }
    sc->kind = kind;
    sc->name = name;
    sc->comment = comment;
    sc->ty = ty;
    sc->size_crisp = syn_to_string(ck->a, count, 200);
    /* a fractional size is computed in floating point and rounded up */
    sc->size = size->is_float ? sz_node(ck->a, SZ_CEIL, &size, 1) : size;
    sc->at = at;
    int h_is_float = size->is_float;
    if (kind == SIDE_SCRATCH) {
        /* a view into the pool at the next 16-byte aligned offset */
        Type *ul = ty_num(SC_ULONG);
        if (!cfunc_rare(fn)->scratch_pool) {
            cfunc_rare_w(cx->ck->a, fn)->scratch_pool = kernel_param(cx, at, "scratch-pool", ty_vector(ck->a, ty_num(SC_UCHAR), AS_GLOBAL, ACC_READ_WRITE, AL_COMPACT, -1));
            if (!cfunc_rare(fn)->scratch_pool) return NULL;
        }
        Node *n = ck_expr(cx, h_is_float ? floatify(cx, count) : count, NULL);
        if (n && ty_is_float(n->ty) && !(n->op && n->kind == N_C_INTLIT)) {
            /* a fractional size rounds up, as on the host */
            Node *up = ck_mk(cx, N_C_CAST, count, ul, 1);
            if (!up) return NULL;
            up->op = CAST_RTP;
            up->kids[0] = n;
            up->nkids = 1;
            n = up;
        } else if (n) {
            n = ck_coerce(cx, n, ul, count, "scratch size");
        }
        if (!n) return NULL;
        Node *off = cfunc_rare(fn)->scratch_bytes ? cfunc_rare(fn)->scratch_bytes : ck_int_lit(cx, at, 0, ul);
        Node *pool = ck_var_ref(cx, at, cfunc_rare(fn)->scratch_pool);
        Node *ptr = off->kind == N_C_INTLIT && off->ival == 0 ? pool : bin(cx, at, OP_ADD, pool, off);
        sc->sym = declare_view(cx, at, cx->bind_hint ? cx->bind_hint : name, ty, ptr, n);
        int stride = ty_vector_stride(ty->elem, ty->align);
        /* next offset: off + (n * stride + 15) / 16 * 16 */
        Node *bytes = bin(cx, at, OP_MUL, bin(cx, at, OP_DIV, bin(cx, at, OP_ADD, bin(cx, at, OP_MUL, n, ck_int_lit(cx, at, stride, ul)), ck_int_lit(cx, at, 15, ul)),
                                              ck_int_lit(cx, at, 16, ul)),
                          ck_int_lit(cx, at, 16, ul));
        cfunc_rare_w(cx->ck->a, fn)->scratch_bytes = off->kind == N_C_INTLIT && off->ival == 0 ? bytes : bin(cx, at, OP_ADD, off, bytes);
    } else {
        sc->sym = kernel_param(cx, at, kind == SIDE_LOCAL && cx->bind_hint ? cx->bind_hint : name, ty);
    }
    CFuncRare *r = cfunc_rare_w(ck->a, fn);
    arena_push(ck->a, (void ***)&r->sides, &r->nsides, &r->capsides, sc);
    return sc->sym;
}

/* Does a size depend on the local size (local_size*, num_groups*,
 * local_linear_size)? */
static int uses_local_size(const SizeExpr *e) {
    if (!e) return 0;
    if (e->op == SZ_LOCAL_SIZE || e->op == SZ_NUM_GROUPS || e->op == SZ_LOCAL_LINEAR_SIZE) return 1;
    for (int i = 0; i < e->nkids; i++)
        if (uses_local_size(e->kids[i])) return 1;
    return 0;
}

/* After a kernel's body: a kernel whose side channels are sized by the
 * local size must be launched with one, so when it declares none, the
 * compiler declares 256 work-items (16x16, 8x8x4 in 2 and 3 dimensions) -
 * a size every OpenCL device runs - and says so in the hoists' comments.
 * A one-dimensional kernel whose library code asked for fewer
 * (`(%default-local-size N)`: the radix passes, whose tiles need more than
 * the 32 KiB of local memory OpenCL guarantees at 256, docs/library.md
 * "Radix sort") gets N. */
void ck_side_finish_kernel(Ctx *cx) {
    CFunc *fn = cx->fn;
    if (fn->kind != FN_KERNEL || fn->exact || cfunc_rare(fn)->lsize.present || fn->single_task) return;
    int needs = 0;
    for (int i = 0; i < cfunc_rare(fn)->nsides && !needs; i++) needs = uses_local_size(cfunc_rare(fn)->sides[i]->size);
    if (!needs) return;
    int dims = cfunc_gsize(fn)->dims > 0 ? cfunc_gsize(fn)->dims : 1;
    static const int64_t sizes[3][3] = {{256, 1, 1}, {16, 16, 1}, {8, 8, 4}};
    SizeDecl *ls = &cfunc_rare_w(cx->ck->a, fn)->lsize;
    ls->present = 1;
    ls->dims = dims;
    ls->nset = dims;
    for (int d = 0; d < dims; d++) ls->set_to[d] = sizes[dims - 1][d];
    ls->msg = "chosen by crisp: the kernel's workgroup scratch is sized by the local size; declare (local-size ...) to choose another";
    if (dims == 1 && fn->lsize_default > 0 && fn->lsize_default < sizes[0][0]) {
        ls->set_to[0] = fn->lsize_default;
        ls->msg = "chosen by crisp: the kernel's workgroup scratch is sized by the local size, and at this one the library's tiles fit 32 KiB; declare (local-size ...) to choose another";
    }
    ls->at = fn->def;
}

/* `syn` with the let variables it names (never assigned) replaced by their
 * initializers, recursively: a size the caller can read in its own terms. */
static Node *inline_locals(Ctx *cx, Node *syn, int depth) {
    if (depth > 16) return syn;
    if (syn->kind == N_SYMBOL) {
        Sym *s = ck_scope_lookup(cx, syn->key);
        if (s && s->kind == SYM_LOCAL && s->size_init && !s->assigned) return inline_locals(cx, s->size_init, depth + 1);
        return syn;
    }
    if (syn->kind != N_LIST) return syn;
    Node *copy = NULL;
    for (int i = 1; i < syn->nkids; i++) {
        Node *k = inline_locals(cx, syn->kids[i], depth + 1);
        if (k == syn->kids[i]) continue;
        if (!copy && !(copy = syn_copy(cx->ck->a, syn))) return syn;
        copy->kids[i] = k;
    }
    return copy ? copy : syn;
}

/* A side channel needed from the caller of the current function. */
static Sym *function_side(Ctx *cx, SideKind kind, const char *name, const char *comment, Type *ty, Node *count,
                          const Node *at) {
    CFunc *fn = cx->fn;
    FnSide *fs = arena_alloc(cx->ck->a, sizeof *fs);
    if (!fs || !size_expr(cx, count, NULL, at)) return NULL;
    count = inline_locals(cx, count, 0);
    fs->kind = kind;
    fs->name = name;
    fs->comment = comment;
    fs->ty = ty;
    fs->count = count;
    fs->at = at;
    fs->param = kernel_param(cx, at, cx->bind_hint ? cx->bind_hint : name ? name : side_word(kind), ty);
    if (!fs->param) return NULL;
    CFuncRare *r = cfunc_rare_w(cx->ck->a, fn);
    arena_push(cx->ck->a, (void ***)&r->fsides, &r->nfsides, &r->capfsides, fs);
    return fs->param;
}

static Sym *exact_side(Ctx *cx, SideKind kind, const char *name, const Node *at);

/* The slot of a uniform value in a function: a hidden __local parameter
 * every caller fills with a slot of its own (types/uniform.c). */
Sym *ck_side_uniform_param(Ctx *cx, const Node *at, const char *name, Type *vt) {
    return function_side(cx, SIDE_UNIFORM, name, NULL, vt, cx_int(cx, at, 1), at);
}

static Sym *make_side(Ctx *cx, SideKind kind, const char *name, const char *comment, Type *ty, Node *count,
                      const Node *at) {
    if (kind == SIDE_UNIFORM) return ck_uniform_slot(cx, at, name, ty->elem); /* uniform.c */
    if (cx->fn->kind != FN_FUNCTION && cx->fn->exact) return exact_side(cx, kind, name, at);
    if (cx->fn->kind == FN_KERNEL) return kernel_side(cx, kind, name, comment, ty, count, at);
    return function_side(cx, kind, name, comment, ty, count, at);
}

/* (make-result-vector VEC-EXPR [LENGTH] &key name comment)
 * (make-scratch-vector ...)  (make-implicit-vector ...)
 * VEC-EXPR is a vector value (same type and length) or a type expression,
 * written as one type or as (vector-type ...) arguments. */
Node *ck_side_make(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    Checker *ck = cx->ck;
    const char *h = syn->kids[0]->key;
    SideKind kind = syn_streq(h, "make-result-vector") ? SIDE_RESULT : syn_streq(h, "make-scratch-vector") ? SIDE_SCRATCH : SIDE_IMPLICIT;
    const char *name = NULL, *comment = NULL;
    Node *pos[16];
    int np = 0;
    for (int i = 1; i < syn->nkids; i++) {
        Node *k = syn->kids[i];
        if (k->kind == N_KEYWORD && (syn_streq(k->key, "name") || syn_streq(k->key, "comment"))) {
            if (i + 1 >= syn->nkids || syn->kids[i + 1]->kind != N_STRING) {
                diag_error_at(D(cx), k, "E0808", "`:%s` takes a string", k->key);
                return NULL;
            }
            if (k->key[0] == 'n') name = syn->kids[++i]->name;
            else comment = syn->kids[++i]->name;
            continue;
        }
        if (np == 16) {
            diag_error_at(D(cx), k, "E0320", "too many arguments to `%s`", h);
            return NULL;
        }
        pos[np++] = k;
    }
    if (np == 0) {
        diag_error_at(D(cx), syn, "E0809", "`%s` needs a vector or a vector type, and a length", h);
        return NULL;
    }
    if (cx->loop_depth > 0) {
        diag_error_at(D(cx), syn, "E0801",
                      "`%s` inside a loop: side channels are counted at compile time, so each must be made exactly once", h);
        return NULL;
    }
    if (name && (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != strlen(name))) {
        diag_error_at(D(cx), syn, "E0810", ":name \"%s\" must be letters, digits, - and _ (it names a kernel argument)", name);
        return NULL;
    }
    Type *ty = NULL;
    Node *count = NULL;
    Sym *src = pos[0]->kind == N_SYMBOL ? ck_scope_lookup(cx, pos[0]->key) : NULL;
    if (src && src->ty && src->ty->kind == TY_VECTOR && src->kind != SYM_TYPE) {
        /* same element type and layout; the length unless given */
        ty = src->ty;
        count = np > 1 ? pos[1] : cx_list(cx, syn, 2, cx_sym(cx, syn, "length~"), pos[0]);
        if (np > 2) {
            diag_error_at(D(cx), pos[2], "E0320", "`%s` takes a vector and an optional length", h);
            return NULL;
        }
    } else {
        Type *base = (pos[0]->kind == N_SYMBOL || pos[0]->kind == N_LIST) && !syn_is_form(pos[0], "vector-type")
                         ? NULL
                         : NULL;
        Sym *alias = pos[0]->kind == N_SYMBOL ? ck_global_lookup(ck, pos[0]->key) : NULL;
        if ((alias && alias->kind == SYM_TYPE) || syn_is_form(pos[0], "vector-type")) base = ck_type_expr(ck, pos[0]);
        if (base && base->kind == TY_VECTOR) {
            ty = base;
            if (np > 1) count = pos[1];
            if (np > 2) {
                diag_error_at(D(cx), pos[2], "E0320", "`%s` takes a vector type and an optional length", h);
                return NULL;
            }
        } else {
            Node *args = syn_list(ck->a, syn->loc, pos, np);
            ty = ck_vector_type_args(ck, args, 0, 1, &count);
        }
        if (!ty) return NULL;
        if (!count && ty->length >= 0) count = cx_int(cx, syn, ty->length);
    }
    if (!ty->elem) {
        diag_error_at(D(cx), syn, "E0811", "`%s` needs an element type", h);
        return NULL;
    }
    if (!count) {
        diag_error_at(D(cx), syn, "E0812", "`%s` needs a length: give one, or a vector or type that has one", h);
        return NULL;
    }
    if (ty->as == AS_LOCAL && kind == SIDE_SCRATCH) {
        /* workgroup scratch the host sizes: a __local kernel argument */
        kind = SIDE_LOCAL;
    } else if (ty->as && ty->as != AS_GLOBAL) {
        diag_error_at(D(cx), syn, "E0813", "side channels live in :global memory, not :%s%s", ty_as_name(ty->as),
                      ty->as == AS_LOCAL ? " (make-scratch-vector :local gives workgroup scratch; or use make-vector :local)" : "");
        return NULL;
    }
    Type *vt = ty_vector(ck->a, ty->elem, kind == SIDE_LOCAL ? AS_LOCAL : AS_GLOBAL, ACC_READ_WRITE,
                         ty->align ? ty->align : AL_COMPACT, -1);
    Sym *s = make_side(cx, kind, name, comment, vt, count, syn);
    return s ? ck_var_ref(cx, syn, s) : NULL;
}

/* Extra arguments a call to `callee` needs: a side channel of the caller
 * for each of the callee's, and the debug channel. */
int ck_side_call_args(Ctx *cx, CFunc *callee, Node *call_syn, FuncDef *fd, Node **extra, int *nextra) {
    for (int i = 0; i < cfunc_rare(callee)->nfsides; i++) {
        FnSide *fs = cfunc_rare(callee)->fsides[i];
        if (cx->loop_depth > 0 && fs->kind != SIDE_UNIFORM) {
            diag_error_at(D(cx), call_syn, "E0802",
                          "`%s` makes a %s side channel, so it cannot be called inside a loop (side channels are counted at compile time)",
                          fd->name, side_word(fs->kind));
            diag_note(D(cx), fs->at->loc, "the side channel is made here");
            return 0;
        }
        Node *count = subst(cx, fs->count, fd, (Node *)call_syn);
        int errs = cx->ck->d->errors;
        Sym *s = make_side(cx, fs->kind, fs->name, fs->comment, fs->ty, count, call_syn);
        if (!s) {
            if (cx->ck->d->errors > errs) diag_note(D(cx), fs->at->loc, "`%s` makes the side channel here", fd->name);
            return 0;
        }
        extra[(*nextra)++] = ck_var_ref(cx, call_syn, s);
        Node *len = ck_node(cx, N_C_LENGTH, call_syn, ty_num(SC_ULONG));
        len->sym = s;
        extra[(*nextra)++] = len;
    }
    if (!ck_warp_call_args(cx, callee, call_syn, extra, nextra)) return 0; /* warps.c */
    if (cfunc_rare(callee)->debug) {
        Sym *d = ck_debug_sym(cx, call_syn);
        if (!d) return 0;
        extra[(*nextra)++] = ck_var_ref(cx, call_syn, d);
        Node *len = ck_node(cx, N_C_LENGTH, call_syn, ty_num(SC_ULONG));
        len->sym = d;
        extra[(*nextra)++] = len;
    }
    return 1;
}

/* ---- the debug channel ---- */

Sym *ck_debug_sym(Ctx *cx, const Node *at) {
    CFunc *fn = cx->fn;
    if (cfunc_rare(fn)->debug) return cfunc_rare(fn)->debug;
    if (fn->kind == FN_KERNEL && fn->exact) {
        diag_error_at(D(cx), at, "E0820",
                      "def-kernel-exact `%s` logs with --debug-output: marshall the channel first with (marshall-debug-logging-vector ptr words)",
                      fn->name);
        return NULL;
    }
    cfunc_rare_w(cx->ck->a, fn)->debug = kernel_param(cx, at, "debug", ty_vector(cx->ck->a, ty_num(SC_UINT), AS_GLOBAL, ACC_READ_WRITE, AL_COMPACT, -1));
    return cfunc_rare(fn)->debug;
}

static int site_parts(Ctx *cx, Node **args, int n, DebugSite *site, const char *prefix) {
    site->parts = arena_alloc(cx->ck->a, sizeof(DebugPart) * (size_t)(n + 2));
    if (!site->parts) return 0;
    if (prefix) site->parts[site->nparts++].text = prefix;
    for (int i = 0; i < n; i++) {
        DebugPart *p = &site->parts[site->nparts++];
        if (args[i]->kind == N_STRING) p->text = args[i]->name;
        else p->expr = syn_to_string(cx->ck->a, args[i], 80);
    }
    return 1;
}

static Node *new_site(Ctx *cx, Node *syn, const char *kind, Node **args, int n, const char *prefix) {
    Program *p = ck_prog_of(cx);
    DebugSite *site = arena_alloc(cx->ck->a, sizeof *site);
    if (!site || !site_parts(cx, args, n, site, prefix)) return NULL;
    const Expansion *x = syn->origin;
    SrcLoc loc = syn->loc;
    while (x) { /* the user's own line, not a macro's */
        loc = x->call;
        x = x->parent;
    }
    site->file = srcloc_file(loc) ? srcloc_file(loc)->name : "?";
    site->line = loc.line;
    site->kind = kind;
    arena_push(cx->ck->a, (void ***)&p->sites, &p->nsites, &p->capsites, site);
    /* (%debug-log SITE value...) */
    Node *kids[34];
    int k = 0;
    kids[k++] = cx_sym(cx, syn, "%debug-log");
    kids[k++] = cx_int(cx, syn, p->nsites - 1);
    for (int i = 0; i < n && k < 34; i++)
        if (args[i]->kind != N_STRING) kids[k++] = args[i];
    Node *l = syn_list(cx->ck->a, syn->loc, kids, k);
    l->origin = syn->origin;
    ptrmap_put(cx->ck->a, &cx->ck->internal, l, l);
    return l;
}

static Node *nothing(Ctx *cx, Node *syn) {
    return ck_node(cx, N_C_BLOCK, syn, &ty_void);
}

/* (r-t-output E...)  (r-t-assert TEST E...)  (r-t-assert-0 TEST E...)
 * (r-t-workgroup-output-if TEST E...)  (r-t-workgroup-assert TEST E...)
 * Without --debug-output these compile to nothing (arguments unevaluated). */
Node *ck_debug_form(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    Checker *ck = cx->ck;
    const char *h = syn->kids[0]->key;
    if (syn_streq(h, "%debug-log")) {
        if (!ptrmap_get(&ck->internal, syn)) {
            diag_error_at(D(cx), syn->kids[0], "E0405",
                          "`%%debug-log` is internal to crisp (what r-t-output and r-t-assert become); log with r-t-output");
            return NULL;
        }
        Sym *d = ck_debug_sym(cx, syn);
        if (!d) return NULL;
        int site_id = (int)syn->kids[1]->ival;
        DebugSite *site = ck_prog_of(cx)->sites[site_id];
        int nv = syn->nkids - 2;
        Type **tys = arena_alloc(ck->a, sizeof(Type *) * (size_t)(nv + 1));
        Node *call = ck_node(cx, N_C_CALL, syn, &ty_void);
        call->kids = arena_alloc(ck->a, sizeof(Node *) * (size_t)(nv + 3));
        if (!tys || !call->kids) return NULL;
        call->kids[call->nkids++] = ck_var_ref(cx, syn, d);
        Node *len = ck_node(cx, N_C_LENGTH, syn, ty_num(SC_ULONG));
        len->sym = d;
        call->kids[call->nkids++] = len;
        call->kids[call->nkids++] = ck_int_lit(cx, syn, site_id, ty_num(SC_UINT));
        int vi = 0;
        for (int i = 0; i < nv; i++) {
            Node *v = ck_expr(cx, syn->kids[i + 2], NULL);
            if (!v) return NULL;
            if (v->op && (v->kind == N_C_INTLIT || v->kind == N_C_FLOATLIT))
                v = ck_coerce(cx, v, v->kind == N_C_INTLIT ? ty_num(SC_INT) : ty_num(SC_FLOAT), syn->kids[i + 2], "logged value");
            if (!v) return NULL;
            if (v->ty->kind == TY_TUPLE) v->ty = v->ty->elems[0];
            if (v->ty->kind != TY_NUM && v->ty->kind != TY_BOOL) {
                diag_error_at(D(cx), syn->kids[i + 2], "E0821",
                              "only numbers, bools and literal strings can be logged, found `%s` (log the components one by one)",
                              ck_tname(cx, v->ty));
                return NULL;
            }
            tys[vi] = v->ty;
            call->kids[call->nkids++] = v;
            while (vi < site->nparts && site->parts[vi].text) vi++;
            for (int j = 0, seen = 0; j < site->nparts; j++)
                if (!site->parts[j].text && seen++ == i) site->parts[j].ty = v->ty;
        }
        /* one helper per sequence of value types */
        Program *p = ck_prog_of(cx);
        Helper *hp = NULL;
        for (int i = 0; i < p->nhelpers_of_kind[H_DEBUG_LOG] && !hp; i++) {
            Helper *x = p->helpers_of_kind[H_DEBUG_LOG][i];
            if (x->ntys != nv || !helper_live(p, x)) continue;
            int same = 1;
            for (int j = 0; j < nv; j++) same &= ty_equal(x->tys[j], tys[j]);
            if (same) hp = x;
        }
        if (!hp) {
            hp = ck_need_helper(cx, H_DEBUG_LOG, NULL, AS_NONE);
            if (!hp) return NULL;
            hp->tys = tys;
            hp->ntys = nv;
        }
        ck_need_helper(cx, H_GLOBAL_ID, NULL, AS_NONE);
        ck_need_helper(cx, H_GLOBAL_LINEAR_ID, NULL, AS_NONE);
        call->op = BI_HELPER;
        call->ival = hp->index;
        return call;
    }
    int is_output = syn_streq(h, "r-t-output");
    if (!is_output && syn->nkids < 2) {
        diag_error_at(D(cx), syn, "E0320", "`%s` needs a test expression", syn->kids[0]->name);
        return NULL;
    }
    if (!ck->c->opt->debug_output) return nothing(cx, syn);
    Node **args = syn->kids + (is_output ? 1 : 2);
    int n = syn->nkids - (is_output ? 1 : 2);
    if (n > 30) {
        diag_error_at(D(cx), syn, "E0320", "`%s` logs at most 30 items", syn->kids[0]->name);
        return NULL;
    }
    Dest discard = {D_DISCARD, NULL, NULL};
    if (is_output) {
        Node *log = new_site(cx, syn, "output", args, n, NULL);
        return log ? ck_debug_form(cx, log, NULL) : NULL;
    }
    Node *test = syn->kids[1];
    const char *prefix = arena_printf(ck->a, "assertion failed: %s", syn_to_string(ck->a, test, 120));
    int wg = !strncmp(h, "r-t-workgroup-", 14);
    int assert_ = strstr(h, "assert") != NULL;
    Node *log = new_site(cx, syn, assert_ ? "assert" : "output", args, n, assert_ ? prefix : NULL);
    if (!log) return NULL;
    Node *cond = assert_ ? cx_list(cx, syn, 2, cx_sym(cx, syn, "not"), test) : test;
    if (!wg) {
        if (syn_streq(h, "r-t-assert-0"))
            cond = cx_list(cx, syn, 3, cx_sym(cx, syn, "and"), cx_list(cx, syn, 3, cx_sym(cx, syn, "="), cx_list(cx, syn, 1, cx_sym(cx, syn, "get-global-linear-id")), cx_int(cx, syn, 0)), cond);
        ck_form_to(cx, cx_list(cx, syn, 3, cx_sym(cx, syn, "if"), cond, log), &discard);
        return nothing(cx, syn);
    }
    /* workgroup forms: the lowest local id for which the test holds logs */
    if (cx->fn->kind != FN_KERNEL) {
        diag_error_at(D(cx), syn, "E0822", "`%s` needs workgroup memory, so it can only be used in a kernel body", syn->kids[0]->name);
        return NULL;
    }
    Node *lid = cx_list(cx, syn, 2, cx_sym(cx, syn, "to-uint"), cx_list(cx, syn, 1, cx_sym(cx, syn, "get-local-linear-id")));
    Node *first = cx_list(cx, syn, 3, cx_sym(cx, syn, "~"), cx_sym(cx, syn, "%wg-first"), cx_int(cx, syn, 0));
    Node *body = cx_list(cx, syn, 6, cx_sym(cx, syn, "progn"),
                   cx_list(cx, syn, 3, cx_sym(cx, syn, "if"), cx_list(cx, syn, 3, cx_sym(cx, syn, "="), lid, cx_int(cx, syn, 0)),
                     cx_list(cx, syn, 3, cx_sym(cx, syn, "set!"), first, cx_int(cx, syn, 4294967295LL))),
                   cx_list(cx, syn, 1, cx_sym(cx, syn, "local-barrier")),
                   cx_list(cx, syn, 3, cx_sym(cx, syn, "if"), cond, cx_list(cx, syn, 3, cx_sym(cx, syn, "atomic-min!"), first, lid)),
                   cx_list(cx, syn, 1, cx_sym(cx, syn, "local-barrier")),
                   cx_list(cx, syn, 3, cx_sym(cx, syn, "if"), cx_list(cx, syn, 3, cx_sym(cx, syn, "="), lid, first), log));
    Node *mkv = cx_list(cx, syn, 4, cx_sym(cx, syn, "make-vector"), cx_sym(cx, syn, "uint"), syn_keyword(ck->a, syn->loc, "local"), cx_int(cx, syn, 1));
    Node *let = cx_list(cx, syn, 3, cx_sym(cx, syn, "let"), cx_list(cx, syn, 1, cx_list(cx, syn, 2, cx_sym(cx, syn, "%wg-first"), mkv)), body);
    ck_form_to(cx, let, &discard);
    return nothing(cx, syn);
}

/* ---- def-kernel-exact ---- */

static Sym *exact_side(Ctx *cx, SideKind kind, const char *name, const Node *at) {
    (void)kind;
    for (int i = 0; i < cfunc_rare(cx->fn)->nsides; i++) {
        SideChannel *sc = cfunc_rare(cx->fn)->sides[i];
        if (sc->kind == kind && name && syn_streq(sc->name, name)) return sc->sym;
    }
    diag_error_at(D(cx), at, "E0830",
                  "def-kernel-exact `%s` has no marshalled %s vector named \"%s\": add (marshall-%s-vector ptr bytes :name \"%s\") before this",
                  cx->fn->name, side_word(kind), name ? name : "?", side_word(kind), name ? name : "...");
    return NULL;
}

/* (marshall-vector PTR BYTES TYPE): a vector over a voidp parameter.
 * (marshall-result-vector PTR BYTES :name N [:type T]), and the scratch,
 * implicit and debug-logging variants: memory for the side channels of the
 * functions a def-kernel-exact calls.  Only in def-kernel-exact. */
Node *ck_marshall_form(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    Checker *ck = cx->ck;
    const char *h = syn->kids[0]->key;
    if (cx->fn->kind != FN_KERNEL || !cx->fn->exact) {
        diag_error_at(D(cx), syn, "E0831", "`%s` can only be used in a def-kernel-exact body", syn->kids[0]->name);
        return NULL;
    }
    if (syn->nkids < 3) {
        diag_error_at(D(cx), syn, "E0320", "`%s` needs a pointer parameter and a byte count", syn->kids[0]->name);
        return NULL;
    }
    Node *p = syn->kids[1];
    Sym *ps = p->kind == N_SYMBOL ? ck_scope_lookup(cx, p->key) : NULL;
    if (!ps || ps->kind != SYM_PARAM || !ps->ty || ps->ty->kind != TY_VOIDP) {
        diag_error_at(D(cx), p, "E0832", "`%s` takes a voidp parameter of the kernel, found `%s`", syn->kids[0]->name,
                      syn_to_string(ck->a, p, 30));
        return NULL;
    }
    Type *ul = ty_num(SC_ULONG);
    Node *bytes = ck_expr(cx, syn->kids[2], ul);
    if (bytes) bytes = ck_coerce(cx, bytes, ul, syn->kids[2], "byte count");
    if (!bytes) return NULL;
    if (syn_streq(h, "marshall-vector")) {
        if (syn->nkids != 4) {
            diag_error_at(D(cx), syn, "E0320", "expected (marshall-vector ptr bytes vector-type)");
            return NULL;
        }
        Type *t = ck_type_expr(ck, syn->kids[3]);
        if (!t) return NULL;
        if (t->kind != TY_VECTOR || !t->elem) {
            diag_error_at(D(cx), syn->kids[3], "E0833", "marshall-vector needs a vector type with an element type, found `%s`",
                          ck_tname(cx, t));
            return NULL;
        }
        Type *vt = ty_vector(ck->a, t->elem, t->as ? t->as : AS_GLOBAL, t->acc ? t->acc : ACC_READ_WRITE,
                             t->align ? t->align : AL_COMPACT, -1);
        if (vt->as != AS_GLOBAL) {
            diag_error_at(D(cx), syn->kids[3], "E0834", "voidp parameters point to :global memory; marshall-vector cannot make `%s`",
                          ck_tname(cx, vt));
            return NULL;
        }
        if (vt->align == AL_STD140 && ty_vector_stride(vt->elem, AL_STD140) != ty_sizeof(vt->elem))
            ck_need_helper(cx, H_STD140_ELEM, vt->elem, AS_NONE);
        Node *count = ck_node(cx, N_C_BINARY, syn, ul);
        count->op = OP_DIV;
        count->kids = arena_alloc(ck->a, sizeof(Node *) * 2);
        if (!count->kids) return NULL;
        count->kids[0] = bytes;
        count->kids[1] = ck_int_lit(cx, syn, ty_vector_stride(vt->elem, vt->align), ul);
        count->nkids = 2;
        Sym *s = declare_view(cx, syn, cx->bind_hint ? cx->bind_hint : arena_printf(ck->a, "%s-vec", ps->name), vt,
                              ck_var_ref(cx, syn, ps), count);
        return s ? ck_var_ref(cx, syn, s) : NULL;
    }
    SideKind kind = strstr(h, "result") ? SIDE_RESULT : strstr(h, "scratch") ? SIDE_SCRATCH : strstr(h, "implicit") ? SIDE_IMPLICIT : SIDE_DEBUG;
    const char *name = NULL;
    Type *et = kind == SIDE_DEBUG ? ty_num(SC_UINT) : NULL;
    for (int i = 3; i + 1 < syn->nkids; i += 2) {
        Node *k = syn->kids[i], *v = syn->kids[i + 1];
        if (syn_is_kw(k, "name") && v->kind == N_STRING) name = v->name;
        else if (syn_is_kw(k, "type")) {
            Type *t = ck_type_expr(ck, v);
            if (!t) return NULL;
            et = t->kind == TY_VECTOR ? t->elem : t;
        } else {
            diag_error_at(D(cx), k, "E0835", "`%s` takes :name \"...\" and :type, found `%s`", syn->kids[0]->name,
                          syn_to_string(ck->a, k, 30));
            return NULL;
        }
    }
    if ((syn->nkids - 3) % 2) {
        diag_error_at(D(cx), syn, "E0835", "`%s` takes :name \"...\" and :type after the byte count", syn->kids[0]->name);
        return NULL;
    }
    if (kind == SIDE_SCRATCH) et = ty_num(SC_UCHAR);
    if (kind != SIDE_DEBUG && kind != SIDE_SCRATCH && !name) {
        diag_error_at(D(cx), syn, "E0836", "`%s` needs :name, the name the side channel was made with", syn->kids[0]->name);
        return NULL;
    }
    if (!et) {
        diag_error_at(D(cx), syn, "E0837", "`%s` needs :type, the element type of the side channel", syn->kids[0]->name);
        return NULL;
    }
    Type *vt = ty_vector(ck->a, et, AS_GLOBAL, ACC_READ_WRITE, AL_COMPACT, -1);
    Node *count = ck_node(cx, N_C_BINARY, syn, ul);
    count->op = OP_DIV;
    count->kids = arena_alloc(ck->a, sizeof(Node *) * 2);
    if (!count->kids) return NULL;
    count->kids[0] = bytes;
    count->kids[1] = ck_int_lit(cx, syn, ty_vector_stride(et, AL_COMPACT), ul);
    count->nkids = 2;
    Sym *s = declare_view(cx, syn, name ? name : side_word(kind), vt, ck_var_ref(cx, syn, ps), count);
    if (!s) return NULL;
    if (kind == SIDE_DEBUG) {
        cfunc_rare_w(cx->ck->a, cx->fn)->debug = s;
    } else {
        SideChannel *sc = arena_alloc(ck->a, sizeof *sc);
        if (!sc) return NULL;
        sc->kind = kind;
        sc->name = name ? name : "scratch";
        sc->ty = vt;
        sc->sym = s;
        sc->at = syn;
        sc->size_crisp = "(marshalled by the host)";
        CFuncRare *r = cfunc_rare_w(ck->a, cx->fn);
        arena_push(ck->a, (void ***)&r->sides, &r->nsides, &r->capsides, sc);
        if (kind == SIDE_SCRATCH) cfunc_rare_w(cx->ck->a, cx->fn)->scratch_pool = s;
    }
    return ck_var_ref(cx, syn, s);
}
