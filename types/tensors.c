/* tensors.c - tensor-views and matrices (spec "Tensors", "Matrices").
 *
 * A tensor-view is a vector-view with a shape: inside a function it is the
 * view's pointer, offset and length plus two private arrays,
 *     ulong M_dims[N]     the extent of each dimension
 *     ulong M_strides[N]  the elements to skip for a step in each dimension
 * so (~ M i j) is M[M_off + i * M_strides[0] + j * M_strides[1]] and the
 * generated C reads like the hand-written version.  The number of
 * dimensions is known at compile time; extents and strides are run-time
 * values.  A matrix is a 2-dimensional tensor-view.  A tensor-view is
 * passed to a function whose parameter is a (tensor-view-type N ...) as
 * four arguments: the root pointer, the offset and pointers to the caller's
 * dims and strides arrays (types/check.c make_param), so a transpose! in
 * the callee changes the caller's view.  Tensor-views never reach the host:
 * kernels cannot take them (E0136). */
#include <string.h>

#include "check_int.h"

#define MAX_DIMS 8

static Diag *D(Ctx *cx) { return cx->ck->d; }

static Type *ulong_ty(void) { return ty_num(SC_ULONG); }

/* A private ulong[n] initialised with VALS, named NAME. */
static Sym *ulong_array(Ctx *cx, Node *syn, const char *name, Node **vals, int n) {
    Type *t = ty_vector(cx->ck->a, ulong_ty(), AS_PRIVATE, ACC_READ_WRITE, AL_COMPACT, n);
    Sym *s = ck_new_local(cx, syn, name, t);
    Node *lst = ck_mk(cx, N_C_HWVEC, syn, NULL, n);
    if (!s || !lst) return NULL;
    for (int i = 0; i < n; i++) lst->kids[lst->nkids++] = vals[i];
    sym_rare_w(cx->ck->a, s)->init = lst;
    Node *decl = ck_node(cx, N_C_DECL, syn, t);
    decl->sym = s;
    ck_emit_stmt(cx, decl);
    return s;
}

/* ARR[k] for a ulong array symbol. */
static Node *at(Ctx *cx, Node *syn, Sym *arr, int k) {
    return ck_mk2(cx, N_C_INDEX, syn, ulong_ty(), 0, ck_var_ref(cx, syn, arr), ck_int_lit(cx, syn, k, ulong_ty()));
}

static Node *mul(Ctx *cx, Node *syn, Node *a, Node *b) { return ck_mk2(cx, N_C_BINARY, syn, ulong_ty(), OP_MUL, a, b); }
static Node *add(Ctx *cx, Node *syn, Node *a, Node *b) { return ck_mk2(cx, N_C_BINARY, syn, ulong_ty(), OP_ADD, a, b); }

/* The product of the N extents in DIMS: the number of elements. */
static Node *extent_product(Ctx *cx, Node *syn, Sym *dims, int n) {
    Node *len = at(cx, syn, dims, 0);
    for (int k = 1; k < n; k++) len = mul(cx, syn, len, at(cx, syn, dims, k));
    return len;
}

/* An index of `~` on a tensor: any integer (like a vector index), as ulong. */
static Node *tensor_subscript(Ctx *cx, Node *isyn) {
    Node *i = ck_index_expr(cx, isyn, "tensor index");
    if (!i || (i->ty->kind == TY_NUM && i->ty->sc == SC_ULONG)) return i;
    return ck_mk1(cx, N_C_CAST, isyn, ty_num(SC_ULONG), i);
}

Node *ck_tensor_length(Ctx *cx, Node *syn, Sym *t) { return extent_product(cx, syn, sym_rare(t)->dims_sym, sym_ndims(t)); }

/* A new tensor-view on the data PARENT's pointer points to (a vector, a
 * vector-view or a tensor-view: all point to the root), starting at the
 * absolute offset OFF, with N extents and strides (NULL strides: row-major). */
static Node *new_tensor(Ctx *cx, Node *syn, Sym *parent, Node *off, Node **dims, Node **strides, int n) {
    const char *base = cx->bind_hint ? cx->bind_hint : n == 2 ? "matrix" : "tensor";
    cx->bind_hint = NULL;
    Sym *ds = ulong_array(cx, syn, ck_name_join(cx->ck, base, "dims"), dims, n);
    if (!ds) return NULL;
    /* strides computed from the extents read the dims array */
    for (int k = 0; k < n; k++)
        if (!strides[k]) {
            Node *s = ck_int_lit(cx, syn, 1, ulong_ty());
            for (int j = n - 1; j > k; j--) s = j == n - 1 ? at(cx, syn, ds, j) : mul(cx, syn, at(cx, syn, ds, j), s);
            strides[k] = s;
        }
    Sym *ss = ulong_array(cx, syn, ck_name_join(cx->ck, base, "strides"), strides, n);
    if (!ss) return NULL;
    Node *len = extent_product(cx, syn, ds, n);
    Type *t = ty_vector(cx->ck->a, parent->ty->elem, parent->ty->as, parent->ty->acc, parent->ty->align, -1);
    t->view = 1;
    t->ndims = n;
    Sym *v = ck_new_view(cx, syn, base, t, ck_var_ref(cx, syn, parent), off, len);
    if (!v) return NULL;
    v->write_only = parent->write_only;
    sym_rare_w(cx->ck->a, v)->dims_sym = ds;
    sym_rare_w(cx->ck->a, v)->strides_sym = ss;
    return ck_var_ref(cx, syn, v);
}

/* The parent of a new tensor-view: a vector or vector-view, not a tensor. */
static Sym *tensor_parent(Ctx *cx, Node *syn, const char *what) {
    Sym *p = ck_vector_operand(cx, syn, what);
    if (p && sym_ndims(p)) {
        diag_error_at(D(cx), syn, "E0474", "`%s` needs a vector or vector-view as parent, `%s` is already a tensor-view", what,
                      p->name);
        return NULL;
    }
    return p;
}

/* The offset of a view on P: :offset K (default 0) plus P's own offset. */
static Node *view_offset(Ctx *cx, Node *syn, Sym *p, Node *ksyn) {
    Node *off = ksyn ? ck_ulong_arg(cx, ksyn, "view offset") : ck_int_lit(cx, syn, 0, ulong_ty());
    if (off && sym_rare(p)->off_sym) off = add(cx, syn, ck_var_ref(cx, syn, sym_rare(p)->off_sym), off);
    return off;
}

/* Split ARGS of SYN at the first keyword: positional ones in POS, the keys
 * :offset and (make-matrix) :major in OFFSET / MAJOR. */
static int split_args(Ctx *cx, Node *syn, Node **pos, int max, Node **offset, Node **major, int allow_major) {
    int np = 0;
    for (int i = 1; i < syn->nkids; i++) {
        Node *a = syn->kids[i];
        if (a->kind == N_KEYWORD) {
            if (i + 1 >= syn->nkids) {
                diag_error_at(D(cx), a, "E0475", ":%s without a value in `%s`", a->name, syn->kids[0]->name);
                return -1;
            }
            if (syn_streq(a->key, "offset")) *offset = syn->kids[i + 1];
            else if (allow_major && syn_streq(a->key, "major")) *major = syn->kids[i + 1];
            else {
                diag_error_at(D(cx), a, "E0475", "`%s` takes :offset%s, found `:%s`", syn->kids[0]->name,
                              allow_major ? " and :major" : "", a->name);
                return -1;
            }
            i++;
            continue;
        }
        if (np >= max) {
            diag_error_at(D(cx), a, "E0476", "`%s` supports at most %d dimensions", syn->kids[0]->name, MAX_DIMS);
            return -1;
        }
        pos[np++] = a;
    }
    return np;
}

/* Is SYN a variable holding a vector (not a tensor)? */
static int names_vector(Ctx *cx, Node *syn) {
    if (syn->kind != N_SYMBOL) return 0;
    Sym *s = ck_scope_lookup(cx, syn->key);
    return s && s->ty && s->ty->kind == TY_VECTOR;
}

/* Stride values from a #(s0 s1 ...) literal or a vector of N strides. */
static int stride_values(Ctx *cx, Node *syn, Node *ssyn, Node **out, int n) {
    if (ssyn->kind == N_VECLIT) {
        if (ssyn->nkids != n) {
            diag_error_at(D(cx), ssyn, "E0477", "%d strides for %d dimensions", ssyn->nkids, n);
            return 0;
        }
        for (int k = 0; k < n; k++)
            if (!(out[k] = ck_ulong_arg(cx, ssyn->kids[k], "stride"))) return 0;
        return 1;
    }
    Sym *sv = ck_vector_operand(cx, ssyn, "strides");
    if (!sv) return 0;
    if (sv->ty->length >= 0 && sv->ty->length != n) {
        diag_error_at(D(cx), ssyn, "E0477", "%lld strides for %d dimensions", (long long)sv->ty->length, n);
        return 0;
    }
    for (int k = 0; k < n; k++) {
        Node *i = ck_int_lit(cx, syn, k, ulong_ty());
        Node *e = ck_mk2(cx, N_C_INDEX, syn, sv->ty->elem, 0, ck_var_ref(cx, syn, sv), i);
        if (sym_rare(sv)->off_sym) e->kids[1] = add(cx, syn, ck_var_ref(cx, syn, sym_rare(sv)->off_sym), i);
        out[k] = ck_coerce(cx, e, ulong_ty(), ssyn, "stride");
        if (!out[k]) return 0;
    }
    return 1;
}

/* (make-tensor-view PARENT LEN... &key offset)
 * (make-tensor-view STRIDES PARENT LEN... &key offset)  - spec "Creating Tensors"
 * Without strides the layout is row-major (the last index is contiguous). */
static Node *make_tensor_view(Ctx *cx, Node *syn) {
    Node *pos[MAX_DIMS + 2], *offset = NULL, *major = NULL;
    int np = split_args(cx, syn, pos, MAX_DIMS + 2, &offset, &major, 0);
    if (np < 0) return NULL;
    int with_strides = np >= 3 && (pos[0]->kind == N_VECLIT || (names_vector(cx, pos[0]) && names_vector(cx, pos[1])));
    int first = with_strides ? 2 : 1, n = np - first;
    if (n < 1) {
        diag_error_at(D(cx), syn, "E0478", "expected (make-tensor-view [strides] parent len...), found %d argument%s", np,
                      np == 1 ? "" : "s");
        return NULL;
    }
    if (n > MAX_DIMS) {
        diag_error_at(D(cx), syn, "E0476", "`make-tensor-view` supports at most %d dimensions", MAX_DIMS);
        return NULL;
    }
    Sym *p = tensor_parent(cx, pos[first - 1], "make-tensor-view");
    if (!p) return NULL;
    Node *dims[MAX_DIMS], *strides[MAX_DIMS] = {0};
    for (int k = 0; k < n; k++)
        if (!(dims[k] = ck_ulong_arg(cx, pos[first + k], "tensor extent"))) return NULL;
    if (with_strides && !stride_values(cx, syn, pos[0], strides, n)) return NULL;
    Node *off = view_offset(cx, syn, p, offset);
    return off ? new_tensor(cx, syn, p, off, dims, strides, n) : NULL;
}

/* (make-matrix PARENT ROWS COLS &key (major :row) (offset 0))
 * (make-matrix PARENT STRIDES ROWS COLS &key (offset 0))  - spec "Matrices" */
static Node *make_matrix(Ctx *cx, Node *syn) {
    Node *pos[4], *offset = NULL, *major = NULL;
    int np = split_args(cx, syn, pos, 4, &offset, &major, 1);
    if (np < 0) return NULL;
    if (np != 3 && np != 4) {
        diag_error_at(D(cx), syn, "E0478", "expected (make-matrix parent [strides] rows cols), found %d argument%s", np,
                      np == 1 ? "" : "s");
        return NULL;
    }
    Sym *p = tensor_parent(cx, pos[0], "make-matrix");
    if (!p) return NULL;
    Node *dims[2], *strides[2] = {0};
    for (int k = 0; k < 2; k++)
        if (!(dims[k] = ck_ulong_arg(cx, pos[np - 2 + k], "matrix extent"))) return NULL;
    if (np == 4) {
        if (major) {
            diag_error_at(D(cx), major, "E0475", "`make-matrix` takes either strides or :major, not both");
            return NULL;
        }
        if (!stride_values(cx, syn, pos[1], strides, 2)) return NULL;
    }
    Node *off = view_offset(cx, syn, p, offset);
    if (!off) return NULL;
    if (major && !(major->kind == N_KEYWORD && (syn_streq(major->key, "row") || syn_streq(major->key, "col")))) {
        diag_error_at(D(cx), major, "E0479", "`:major` is :row or :col, found `%s`", syn_to_string(cx->ck->a, major, 30));
        return NULL;
    }
    Node *m = new_tensor(cx, syn, p, off, dims, strides, 2);
    if (m && major && syn_streq(major->key, "col")) {
        /* column-major: the row index is contiguous */
        Sym *s = m->sym;
        Node *set0 = ck_mk2(cx, N_C_ASSIGN, syn, ulong_ty(), OP_SET, at(cx, syn, sym_rare(s)->strides_sym, 0), ck_int_lit(cx, syn, 1, ulong_ty()));
        Node *set1 = ck_mk2(cx, N_C_ASSIGN, syn, ulong_ty(), OP_SET, at(cx, syn, sym_rare(s)->strides_sym, 1), at(cx, syn, sym_rare(s)->dims_sym, 0));
        ck_emit_stmt(cx, ck_mk1(cx, N_C_EXPR, syn, &ty_void, set0));
        ck_emit_stmt(cx, ck_mk1(cx, N_C_EXPR, syn, &ty_void, set1));
    }
    return m;
}

/* (~ T I...): odometer order, one index per dimension. */
Node *ck_tensor_index(Ctx *cx, Node *syn, Sym *t, Node **idx, int n) {
    if (n != sym_ndims(t)) {
        diag_error_at(D(cx), syn, "E0483", "`%s` has %d dimension%s: `~` needs %d ind%s, found %d", t->name, sym_ndims(t),
                      sym_ndims(t) == 1 ? "" : "s", sym_ndims(t), sym_ndims(t) == 1 ? "ex" : "ices", n);
        return NULL;
    }
    Node *flat = ck_var_ref(cx, syn, sym_rare(t)->off_sym);
    for (int k = 0; k < n; k++) {
        Node *i = tensor_subscript(cx, idx[k]);
        if (!i) return NULL;
        flat = add(cx, syn, flat, mul(cx, syn, i, at(cx, syn, sym_rare(t)->strides_sym, k)));
    }
    return ck_mk2(cx, N_C_INDEX, syn, t->ty->elem, 0, ck_var_ref(cx, syn, t), flat);
}

static Sym *tensor_operand(Ctx *cx, Node *syn, const char *what, int ndims) {
    Sym *t = ck_vector_operand(cx, syn, what);
    if (!t) return NULL;
    if (!sym_ndims(t) || (ndims && sym_ndims(t) != ndims)) {
        diag_error_at(D(cx), syn, "E0484", "`%s` needs a %s, `%s` is %s", what, ndims == 2 ? "matrix (a 2-dimensional tensor-view)" : "tensor-view",
                      t->name, sym_ndims(t) ? arena_printf(cx->ck->a, "a %d-dimensional tensor-view", sym_ndims(t)) : "not a tensor-view");
        return NULL;
    }
    return t;
}

/* (row Y M) / (col X M), also (row M Y): a 1-dimensional view of one row
 * or column. */
static Node *row_or_col(Ctx *cx, Node *syn, int is_col) {
    if (!ck_nargs_ok(cx, syn, 2, 2)) return NULL;
    const char *what = syn->kids[0]->name;
    int mfirst = names_vector(cx, syn->kids[1]);
    Sym *m = tensor_operand(cx, syn->kids[mfirst ? 1 : 2], what, 2);
    if (!m) return NULL;
    Node *i = ck_ulong_arg(cx, syn->kids[mfirst ? 2 : 1], is_col ? "column index" : "row index");
    if (!i) return NULL;
    int fixed = is_col ? 1 : 0, free = 1 - fixed;
    Node *off = add(cx, syn, ck_var_ref(cx, syn, sym_rare(m)->off_sym), mul(cx, syn, i, at(cx, syn, sym_rare(m)->strides_sym, fixed)));
    Node *dims[1] = {at(cx, syn, sym_rare(m)->dims_sym, free)}, *strides[1] = {at(cx, syn, sym_rare(m)->strides_sym, free)};
    return new_tensor(cx, syn, m, off, dims, strides, 1); /* m's pointer is the root's */
}

/* (transpose T): a new view with the order of dimensions reversed. */
static Node *transpose(Ctx *cx, Node *syn) {
    if (!ck_nargs_ok(cx, syn, 1, 1)) return NULL;
    Sym *t = tensor_operand(cx, syn->kids[1], "transpose", 0);
    if (!t) return NULL;
    int n = sym_ndims(t);
    Node *dims[MAX_DIMS], *strides[MAX_DIMS];
    for (int k = 0; k < n; k++) {
        dims[k] = at(cx, syn, sym_rare(t)->dims_sym, n - 1 - k);
        strides[k] = at(cx, syn, sym_rare(t)->strides_sym, n - 1 - k);
    }
    return new_tensor(cx, syn, t, ck_var_ref(cx, syn, sym_rare(t)->off_sym), dims, strides, n);
}

/* (transpose! T): reverse the dimensions in place (no data moves). */
static Node *transpose_x(Ctx *cx, Node *syn) {
    if (!ck_nargs_ok(cx, syn, 1, 1)) return NULL;
    Sym *t = tensor_operand(cx, syn->kids[1], "transpose!", 0);
    if (!t) return NULL;
    Sym *arrs[2] = {sym_rare(t)->dims_sym, sym_rare(t)->strides_sym};
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < sym_ndims(t) / 2; k++) {
            int j = sym_ndims(t) - 1 - k;
            Sym *tmp = ck_declare_temp(cx, syn, a ? "stride" : "dim", ulong_ty(), at(cx, syn, arrs[a], k));
            if (!tmp) return NULL;
            ck_emit_stmt(cx, ck_mk1(cx, N_C_EXPR, syn, &ty_void,
                              ck_mk2(cx, N_C_ASSIGN, syn, ulong_ty(), OP_SET, at(cx, syn, arrs[a], k), at(cx, syn, arrs[a], j))));
            ck_emit_stmt(cx, ck_mk1(cx, N_C_EXPR, syn, &ty_void,
                              ck_mk2(cx, N_C_ASSIGN, syn, ulong_ty(), OP_SET, at(cx, syn, arrs[a], j), ck_var_ref(cx, syn, tmp))));
        }
    return ck_node(cx, N_C_BLOCK, syn, &ty_void);
}

/* (dims~ T), (strides~ T): the ulong[N] arrays (readable and settable
 * element by element); (num-dims~ T): N; (num-rows M), (num-cols M). */
static Node *property(Ctx *cx, Node *syn, const char *h) {
    if (!ck_nargs_ok(cx, syn, 1, 1)) return NULL;
    int matrix = syn_streq(h, "num-rows") || syn_streq(h, "num-cols");
    Sym *t = tensor_operand(cx, syn->kids[1], syn->kids[0]->name, matrix ? 2 : 0);
    if (!t) return NULL;
    if (syn_streq(h, "dims~")) return ck_var_ref(cx, syn, sym_rare(t)->dims_sym);
    if (syn_streq(h, "strides~")) return ck_var_ref(cx, syn, sym_rare(t)->strides_sym);
    if (syn_streq(h, "num-dims~")) return ck_int_lit(cx, syn, sym_ndims(t), ulong_ty());
    return at(cx, syn, sym_rare(t)->dims_sym, syn_streq(h, "num-rows") ? 0 : 1);
}

/* (set! (dims~ T) V) / (set! (strides~ T) V) - spec "Mutable Strides":
 * every extent or stride from V, a vector (or view) of N integers or a
 * #(...) literal of N. */
Node *ck_tensor_set_array(Ctx *cx, Node *place, Node *value) {
    Checker *ck = cx->ck;
    if (!ck_nargs_ok(cx, place, 1, 1)) return NULL;
    Sym *t = tensor_operand(cx, place->kids[1], place->kids[0]->name, 0);
    if (!t) return NULL;
    int n = sym_ndims(t);
    Sym *arr = place->kids[0]->key[0] == 'd' ? sym_rare(t)->dims_sym : sym_rare(t)->strides_sym;
    int literal = value->kind == N_VECLIT;
    Sym *v = NULL;
    if (literal) {
        int nv = value->nkids;
        if (nv != n) {
            diag_error_at(ck->d, value, "E0483", "`%s` has %d dimension%s: `%s` needs %d values, found %d", t->name, n, n == 1 ? "" : "s",
                          place->kids[0]->name, n, nv);
            return NULL;
        }
    } else {
        v = ck_vector_operand(cx, value, place->kids[0]->name);
        if (!v) return NULL;
        if (!ty_is_int(v->ty->elem)) {
            diag_error_at(ck->d, value, "E0403", "`%s` takes integers, found a vector of `%s`", place->kids[0]->name, ck_tname(cx, v->ty->elem));
            return NULL;
        }
        if (v->ty->length >= 0 && v->ty->length != n) {
            diag_error_at(ck->d, value, "E0483", "`%s` has %d dimension%s: `%s` needs %d values, `%s` has %lld", t->name, n,
                          n == 1 ? "" : "s", place->kids[0]->name, n, v->name, (long long)v->ty->length);
            return NULL;
        }
    }
    for (int k = 0; k < n; k++) {
        Node *e;
        if (literal) {
            Node *src = value->kids[k];
            e = ck_ulong_arg(cx, src, place->kids[0]->name);
        } else {
            e = ck_index_node(cx, value, v, cx_int(cx, value, k));
            if (e) e = ck_mk1(cx, N_C_CAST, value, ulong_ty(), e);
        }
        if (!e) return NULL;
        ck_emit_stmt(cx, ck_mk1(cx, N_C_EXPR, place, &ty_void, ck_mk2(cx, N_C_ASSIGN, place, ulong_ty(), OP_SET, at(cx, place, arr, k), e)));
    }
    return ck_node(cx, N_C_BLOCK, place, &ty_void);
}

/* (get-layout M): a value of the built-in enumeration matrix-layout
 * (:row-major :col-major :other-layout), from M's current strides.  The
 * enumeration is defined on first use. */
static Node *get_layout(Ctx *cx, Node *syn, Type *want) {
    if (!ck_nargs_ok(cx, syn, 1, 1)) return NULL;
    if (!tensor_operand(cx, syn->kids[1], "get-layout", 2)) return NULL;
    Checker *ck = cx->ck;
    Arena *a = ck->a;
    SrcLoc l = syn->loc;
    Sym *e = ck_global_lookup(ck, "matrix-layout");
    if (!e) {
        ck_enum_collect(ck, cx_list(cx, syn, 5, cx_sym(cx, syn, "def-enumeration"), cx_sym(cx, syn, "matrix-layout"),
                                 syn_keyword(a, l, "row-major"), syn_keyword(a, l, "col-major"),
                                 syn_keyword(a, l, "other-layout")));
        e = ck_global_lookup(ck, "matrix-layout");
    }
    if (!e || !e->ty || e->ty->kind != TY_ENUM) {
        diag_error_at(D(cx), syn, "E0412", "`get-layout` returns the built-in enumeration `matrix-layout`, but the program defines `matrix-layout` as something else");
        return NULL;
    }
    /* (if (and (= (~ (strides~ M) 1) 1) (= (~ (strides~ M) 0) (~ (dims~ M) 1))) :row-major
           (if (and (= (~ (strides~ M) 0) 1) (= (~ (strides~ M) 1) (~ (dims~ M) 0))) :col-major :other-layout)) */
    Node *m = syn->kids[1], *one = cx_int(cx, syn, 1);
    Node *st[2], *dim[2];
    for (int k = 0; k < 2; k++) {
        st[k] = cx_list(cx, syn, 3, cx_sym(cx, syn, "~"), cx_list(cx, syn, 2, cx_sym(cx, syn, "strides~"), m), cx_int(cx, syn, k));
        dim[k] = cx_list(cx, syn, 3, cx_sym(cx, syn, "~"), cx_list(cx, syn, 2, cx_sym(cx, syn, "dims~"), m), cx_int(cx, syn, k));
    }
    Node *row = cx_list(cx, syn, 3, cx_sym(cx, syn, "and"), cx_list(cx, syn, 3, cx_sym(cx, syn, "="), st[1], one),
                        cx_list(cx, syn, 3, cx_sym(cx, syn, "="), st[0], dim[1]));
    Node *col = cx_list(cx, syn, 3, cx_sym(cx, syn, "and"), cx_list(cx, syn, 3, cx_sym(cx, syn, "="), st[0], one),
                        cx_list(cx, syn, 3, cx_sym(cx, syn, "="), st[1], dim[0]));
    Node *q = cx_list(cx, syn, 4, cx_sym(cx, syn, "if"), row, syn_keyword(a, l, "row-major"),
                      cx_list(cx, syn, 4, cx_sym(cx, syn, "if"), col, syn_keyword(a, l, "col-major"),
                              syn_keyword(a, l, "other-layout")));
    return ck_expr(cx, q, want && want->kind == TY_ENUM ? want : e->ty);
}

/* (as-NAME T)  - spec "Overloading Element Access", "Derived Types"
 * For a derived tensor-view type NAME (def-derived-type NAME
 * (tensor-view-type N ...)): the same view (same C variables) typed NAME,
 * so `~` and other overloads on NAME apply to it. */
Node *ck_tensor_as_derived(Ctx *cx, Node *syn, Type *dt) {
    if (!ck_nargs_ok(cx, syn, 1, 1)) return NULL;
    Sym *t = tensor_operand(cx, syn->kids[1], syn->kids[0]->name, dt->ndims);
    if (!t) return NULL;
    const Type *at = t->ty;
    const char *why = dt->elem && !ty_equal(dt->elem, at->elem) ? "element types differ"
                      : dt->as && dt->as != at->as             ? "address spaces differ"
                      : dt->acc && dt->acc != at->acc          ? "access differs"
                      : dt->align && dt->align != at->align    ? "alignments differ"
                                                               : NULL;
    if (why) {
        diag_error_at(D(cx), syn, "E0548", "`%s` is not a `%s` (`%s`): %s", t->name, dt->tag, ck_tname(cx, at), why);
        return NULL;
    }
    Sym *v = arena_alloc(cx->ck->a, sizeof *v);
    Type *ty = arena_alloc(cx->ck->a, sizeof *ty);
    if (!v || !ty) return NULL;
    *ty = *at;
    ty->tag = dt->tag;
    *v = *t; /* another name for the same view */
    v->ty = ty;
    sym_rare_unshare(cx->ck->a, v);
    return ck_var_ref(cx, syn, v);
}

/* ---- identity tensors (spec "identity-tensor") ----
 * An identity tensor is the Kronecker delta of some rank: no data, no
 * extents, immutable.  Its type is TY_IDENT (the rank in ndims); a variable
 * of that type has no C declaration and an (identity-tensor-type N)
 * parameter no C parameter.  (~ I i j ...) is (i == j && ...) ? 1 : 0,
 * whose 1 and 0 take the type the context wants, like a literal (int
 * without a context); with constant indices it is the literal 1 or 0. */

/* The rank of the identity tensor SYN names (a variable or a
 * (make-identity-tensor N) form), without checking it; 0 for anything else. */
int ck_identity_rank(Ctx *cx, Node *syn) {
    if (syn->kind == N_SYMBOL) {
        if (!cx->ck->nidents) return 0; /* no identity tensor yet (issue 14: every (~ v i) looked v up here) */
        Sym *s = ck_scope_lookup(cx, syn->key);
        return s && s->ty && s->ty->kind == TY_IDENT ? s->ty->ndims : 0;
    }
    int64_t n;
    if (syn_is_form(syn, "make-identity-tensor") && syn->nkids == 2 && ck_const_syn_int(cx, syn->kids[1], &n) && n >= 1 &&
        n <= MAX_DIMS)
        return (int)n;
    if (syn_is_form(syn, "transpose") && syn->nkids == 2) return ck_identity_rank(cx, syn->kids[1]);
    return 0;
}

/* (make-identity-tensor RANK)  - spec "identity-tensor"
 * A value with no data; RANK is a compile-time integer from 1 to 8. */
static Node *make_identity_tensor(Ctx *cx, Node *syn) {
    int64_t n = 0;
    if (syn->nkids != 2 || !ck_const_syn_int(cx, syn->kids[1], &n) || n < 1 || n > MAX_DIMS) {
        diag_error_at(D(cx), syn, "E0540", "expected (make-identity-tensor RANK) with a compile-time RANK from 1 to %d, found `%s`",
                      MAX_DIMS, syn_to_string(cx->ck->a, syn, 40));
        return NULL;
    }
    cx->ck->nidents++;
    Sym *s = ck_new_local(cx, syn, "identity", ty_identity(cx->ck->a, (int)n));
    return s ? ck_var_ref(cx, syn, s) : NULL;
}

/* Are index syntaxes A and B the same variable or integer? */
static int same_index(const Node *a, const Node *b) {
    if (a->kind != b->kind) return 0;
    if (a->kind == N_SYMBOL) return syn_streq(a->key, b->key);
    return a->kind == N_INT && a->ival == b->ival;
}

/* (~ I i j ...) on an identity tensor of rank N  - spec "identity-tensor"
 * 1 where all N indices are equal, else 0 (N = 1: always 1). */
Node *ck_identity_index(Ctx *cx, Node *syn, int rank) {
    if (ck_tensor_ref_error(cx, syn)) return NULL;
    int n = syn->nkids - 2;
    if (n != rank) {
        diag_error_at(D(cx), syn, "E0483", "`%s` is an identity tensor of rank %d: `~` needs %d ind%s, found %d",
                      syn_to_string(cx->ck->a, syn->kids[1], 30), rank, rank, rank == 1 ? "ex" : "ices", n);
        return NULL;
    }
    if (!ck_expr(cx, syn->kids[1], NULL)) return NULL; /* a make-identity-tensor form is checked */
    Node *idx[MAX_DIMS];
    int64_t v[MAX_DIMS];
    int all_const = 1;
    for (int k = 0; k < n; k++) {
        if (!(idx[k] = tensor_subscript(cx, syn->kids[2 + k]))) return NULL;
        all_const &= ck_const_int(cx, idx[k], &v[k]);
    }
    int equal = 1;
    for (int k = 1; all_const && k < n; k++) equal &= v[k] == v[0];
    if (all_const || n == 1) return ck_adopting_delta(cx, syn, NULL, equal);
    Node *cond = NULL;
    for (int k = 1; k < n; k++) {
        /* an index written like an earlier one adds nothing (and a == a
           draws a compiler warning) */
        int repeat = 0;
        for (int j = 0; j < k; j++) repeat |= same_index(syn->kids[2 + j], syn->kids[2 + k]);
        if (repeat) continue;
        Node *eq = ck_mk2(cx, N_C_BINARY, syn, &ty_bool, OP_EQ, idx[0], idx[k]);
        cond = cond ? ck_mk2(cx, N_C_BINARY, syn, &ty_bool, OP_AND, cond, eq) : eq;
    }
    return ck_adopting_delta(cx, syn, cond, 1); /* no distinct indices: 1 */
}

/* (is-identity-tensor? T)  - spec "identity-tensor"
 * true for an identity tensor, false for a tensor-view, decided at compile
 * time. */
static Node *is_identity_tensor(Ctx *cx, Node *syn) {
    if (!ck_nargs_ok(cx, syn, 1, 1)) return NULL;
    Node *v = ck_expr(cx, syn->kids[1], NULL);
    if (!v) return NULL;
    int yes = v->ty->kind == TY_IDENT;
    if (!yes && !(v->ty->kind == TY_VECTOR && v->ty->ndims && v->kind == N_C_VAR)) {
        diag_error_at(D(cx), syn->kids[1], "E0543", "`is-identity-tensor?` needs a tensor-view, found `%s`", ck_tname(cx, v->ty));
        return NULL;
    }
    Node *b = ck_node(cx, N_C_BOOLLIT, syn, &ty_bool);
    b->ival = yes;
    return b;
}

/* An identity tensor A passed as parameter PNAME (type PT) of FNAME, or
 * anything passed to an (identity-tensor-type [N]) parameter: only an
 * identity tensor of the parameter's rank fits. */
int ck_identity_arg_ok(Ctx *cx, Node *asyn, Node *a, Type *pt, const char *pname, const char *fname) {
    if (pt->kind != TY_IDENT) {
        diag_error_at(D(cx), asyn, "E0545",
                      "`%s` is an identity tensor: it holds no data, so it cannot be passed as parameter `%s` of `%s` (`%s`); declare the parameter (identity-tensor-type [RANK])",
                      syn_to_string(cx->ck->a, asyn, 30), pname, fname, ck_tname(cx, pt));
        return 0;
    }
    if (a->ty->kind != TY_IDENT || (pt->ndims && pt->ndims != a->ty->ndims)) {
        diag_error_at(D(cx), asyn, "E0544", "parameter `%s` of `%s` is `%s`, found `%s`%s", pname, fname, ck_tname(cx, pt),
                      ck_tname(cx, a->ty), a->ty->kind == TY_IDENT ? "" : "; pass (make-identity-tensor RANK)");
        return 0;
    }
    return 1;
}

/* The tensor forms of the builtin table.  A user function of the same
 * name (row, col, transpose ...) wins over the builtin. */
Node *ck_tensor_form(Ctx *cx, Node *syn, Type *want) {
    const char *h = syn->kids[0]->key;
    Checker *ck = cx->ck;
    if (ck_func_lookup(ck, h) || ck_template_lookup(ck, h) || ck_hof_lookup(ck, h)) return ck_user_call(cx, syn, want, NULL, 0);
    if (syn_streq(h, "make-identity-tensor")) return make_identity_tensor(cx, syn);
    if (syn_streq(h, "is-identity-tensor?")) return is_identity_tensor(cx, syn);
    if (syn->nkids == 2 && ck_identity_rank(cx, syn->kids[1])) {
        /* (num-dims~ I) is the rank; (transpose I) is I itself */
        if (syn_streq(h, "num-dims~")) return ck_int_lit(cx, syn, ck_identity_rank(cx, syn->kids[1]), ulong_ty());
        if (syn_streq(h, "transpose")) return ck_expr(cx, syn->kids[1], NULL);
    }
    if (syn_streq(h, "make-tensor-view")) return make_tensor_view(cx, syn);
    if (syn_streq(h, "make-matrix")) return make_matrix(cx, syn);
    if (syn_streq(h, "row") || syn_streq(h, "col")) return row_or_col(cx, syn, h[0] == 'c');
    if (syn_streq(h, "transpose")) return transpose(cx, syn);
    if (syn_streq(h, "transpose!")) return transpose_x(cx, syn);
    if (syn_streq(h, "get-layout")) return get_layout(cx, syn, want);
    return property(cx, syn, h);
}
