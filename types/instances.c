/* instances.c - the checker's passes over bodies: kernels, then the
 * function instances they call.
 *
 * Why it exists: a function body is checked for concrete parameter types:
 * a kernel for its declared ones (with its launch declarations: global-size,
 * local-size, single-task), a def-function once per distinct set of
 * argument types it is called with (a vector parameter may leave its
 * address space or access open), which is also where recursion is found.
 * Functions nobody calls are checked on their own when their signature is
 * complete; the library's only when called. */
#include <string.h>

#include "../macros/expand.h"
#include "consteval.h"

/* arena_push, storing in place while there is room (no call) */
#define PUSH(a, arr, n, cap, item)                                                                                     \
    ((n) < (cap) ? (void)((arr)[(n)++] = (void *)(item)) : arena_push((a), (void ***)&(arr), &(n), &(cap), (void *)(item)))

static int size_list(Ctx *cx, Node *v, Node **items) {
    if (syn_is_form(v, "quote") && v->nkids == 2) v = v->kids[1];
    if (v->kind == N_LIST) {
        if (v->nkids > 3 || v->nkids == 0) return -1;
        for (int i = 0; i < v->nkids; i++) items[i] = v->kids[i];
        return v->nkids;
    }
    (void)cx;
    items[0] = v;
    return 1;
}

static void size_decl(Ctx *cx, Node *e, SizeDecl *sd) {
    Checker *ck = cx->ck;
    const char *what = syn_head(e);
    if (sd->present) {
        diag_error_at(ck->d, e, "E0701", "`%s` is declared twice", what);
        return;
    }
    sd->present = 1;
    sd->at = e;
    for (int i = 1; i < e->nkids; i++) {
        Node *k = e->kids[i];
        if (k->kind != N_KEYWORD || i + 1 >= e->nkids) {
            diag_error_at(ck->d, k, "E0702", "expected :set-to, :derive-from, :dims or :msg in `%s`, found `%s`", what,
                          syn_to_string(ck->a, k, 30));
            return;
        }
        Node *v = e->kids[++i];
        Node *items[3];
        if (syn_streq(k->key, "set-to")) {
            int n = size_list(cx, v, items);
            if (n < 0) {
                diag_error_at(ck->d, v, "E0703", ":set-to takes 1 to 3 sizes");
                return;
            }
            for (int j = 0; j < n; j++) {
                int64_t x;
                if (!ck_const_syn_int(cx, items[j], &x) || x <= 0) {
                    diag_error_at(ck->d, items[j], "E0704", ":set-to sizes must be positive compile-time integers, found `%s`",
                                  syn_to_string(ck->a, items[j], 30));
                    return;
                }
                sd->set_to[j] = x;
            }
            sd->nset = n;
        } else if (syn_streq(k->key, "derive-from")) {
            int n = size_list(cx, v, items);
            if (n < 0) {
                diag_error_at(ck->d, v, "E0703", ":derive-from takes 1 to 3 parameters");
                return;
            }
            for (int j = 0; j < n; j++) {
                Sym *s = items[j]->kind == N_SYMBOL ? ck_scope_lookup(cx, items[j]->key) : NULL;
                if (!s || s->kind != SYM_PARAM) {
                    diag_error_at(ck->d, items[j], "E0705", ":derive-from names a kernel parameter, found `%s`",
                                  syn_to_string(ck->a, items[j], 30));
                    return;
                }
                if (!(s->ty->kind == TY_VECTOR || ty_is_int(s->ty))) {
                    diag_error_at(ck->d, items[j], "E0706", ":derive-from parameter `%s` must be a vector or an integer, found `%s`",
                                  s->name, ck_tname(cx, s->ty));
                    return;
                }
                sd->derive[j] = s->name;
                sd->derive_sym[j] = s;
            }
            sd->nderive = n;
        } else if (syn_streq(k->key, "dims")) {
            int64_t x;
            if (!ck_const_syn_int(cx, v, &x) || x < 1 || x > 3) {
                diag_error_at(ck->d, v, "E0707", ":dims must be 1, 2 or 3");
                return;
            }
            sd->dims = (int)x;
        } else if (syn_streq(k->key, "msg")) {
            if (v->kind != N_STRING) {
                diag_error_at(ck->d, v, "E0708", ":msg takes a string");
                return;
            }
            sd->msg = v->name;
        } else {
            diag_error_at(ck->d, k, "E0702", "unknown key `:%s` in `%s` (expected :set-to, :derive-from, :dims, :msg)", k->key,
                          what);
            return;
        }
    }
    if (sd->nset && sd->nderive) {
        diag_error_at(ck->d, e, "E0709", "`%s` cannot use both :set-to and :derive-from", what);
        return;
    }
    int ar = sd->nset ? sd->nset : sd->nderive;
    if (sd->dims && ar && sd->dims != ar) {
        diag_error_at(ck->d, e, "E0710", "`%s` says :dims %d but lists %d size%s", what, sd->dims, ar, ar == 1 ? "" : "s");
        return;
    }
    if (!sd->dims) sd->dims = ar;
}

/* Kernel-level declarations: sizes, single-task (function decls were read
 * by ck_resolve_signature). */
static void kernel_decls(Ctx *cx, FuncDef *fd) {
    CFunc *fn = cx->fn;
    for (int i = 0; i < fd->ndecls; i++) {
        const Node *d = fd->decls[i];
        for (int j = 1; j < d->nkids; j++) {
            Node *e = d->kids[j];
            const char *h = syn_head(e);
            if (syn_is_sym(e, "single-task")) {
                if (fd->kind != FN_KERNEL)
                    diag_error_at(cx->ck->d, e, "E0711", "`single-task` is a kernel declaration");
                fn->single_task = 1;
            } else if (h && (syn_streq(h, "global-size") || syn_streq(h, "local-size") || syn_streq(h, "global-work-size") ||
                             syn_streq(h, "local-work-size"))) {
                /* (local-work-size :set-to N) is the spec's other spelling
                   (its histogram-pass block; bitonic-sort-workgroup writes
                   local-size), after its get-local-work-size query */
                size_decl(cx, e, h[0] == 'g' ? cfunc_gsize_w(cx->ck->a, fn) : &cfunc_rare_w(cx->ck->a, fn)->lsize);
            } else if (h && (syn_streq(h, "return-type") || syn_streq(h, "type") || syn_streq(h, "type-signature-of"))) {
            } else if (e->kind == N_VECLIT || syn_is_form(e, "function")) {
            } else if (h && syn_streq(h, "use")) {
                constvec_decl(cx, e);
            } else if (ck_is_analysis_decl(h ? h : e->kind == N_SYMBOL ? e->key : NULL)) {
                fn->analysis_optin = 1; /* read by analysis/ */
            } else if (h && (syn_streq(h, "uniform") || syn_streq(h, "%capture-uniform"))) {
                diag_error_at(cx->ck->d, e, "E1101",
                              "(declare (uniform ...)) belongs in the let that binds the variable (spec \"(uniform <varName>)\"), not in the declarations of `%s`",
                              fd->name);
            } else if (h && (syn_streq(h, "global-mem") || syn_streq(h, "local"))) {
                diag_error_at(cx->ck->d, e, "E0396",
                              "(declare (%s ...)) belongs in the let that binds the variable (docs/language.md, \"Shared variables\"), not in the declarations of `%s`",
                              h, fd->name);
            } else if (h && syn_streq(h, "grid-level")) {
                if (fd->kind == FN_FUNCTION)
                    diag_error_at(cx->ck->d, e, "E0501",
                                  "`%s` declares (grid-level), but def-function bodies are thread level; use def-grid-function",
                                  fd->name);
            } else {
                diag_warning_at(cx->ck->d, e, "W0302", "unknown declaration `%s` ignored", syn_to_string(cx->ck->a, e, 40));
            }
        }
    }
    if (cfunc_gsize(fn)->present && cfunc_rare(fn)->lsize.present && cfunc_gsize(fn)->dims && cfunc_rare(fn)->lsize.dims && cfunc_gsize(fn)->dims != cfunc_rare(fn)->lsize.dims)
        diag_error_at(cx->ck->d, cfunc_rare(fn)->lsize.at, "E0712", "local-size has %d dimension%s but global-size has %d",
                      cfunc_rare(fn)->lsize.dims, cfunc_rare(fn)->lsize.dims == 1 ? "" : "s", cfunc_gsize(fn)->dims);
    if (fn->single_task && (cfunc_gsize(fn)->present || cfunc_rare(fn)->lsize.present))
        diag_error_at(cx->ck->d, cfunc_gsize(fn)->present ? cfunc_gsize(fn)->at : cfunc_rare(fn)->lsize.at, "E0713",
                      "a single-task kernel runs on one thread; it cannot also declare global-size or local-size");
}

/* A type a variable, parameter or result may have on the target: not
 * bfloat16, which OpenCL C 1.2 lacks (docs/language.md).  Reports E0905. */
int ck_value_type_ok(Checker *ck, const Type *t, const Node *at) {
    if ((t->kind == TY_NUM || t->kind == TY_HWVEC) && t->sc == SC_BFLOAT16) {
        diag_error_at(ck->d, at, "E0905", "`bfloat16` is not available in OpenCL C (no OpenCL C version has a bfloat16 type); use `half` or `float`");
        return 0;
    }
    return 1;
}

static Sym *make_param(Ctx *cx, ParamDecl *pd, Type *t) {
    if (!ck_value_type_ok(cx->ck, t, pd->name)) return NULL;
    Sym *s = ck_new_local(cx, pd->name, pd->name->name, t);
    if (!s) return NULL;
    s->kind = SYM_PARAM;
    s->write_only = pd->is_out;
    if (t->kind == TY_IDENT) {
        /* an identity tensor: no data, so no C parameter at all */
    } else if (t->ndims) {
        /* a tensor-view parameter: the root's pointer, the offset, and
           pointers to the caller's private dims and strides arrays (so the
           callee sees, and transpose! changes, the caller's view) */
        Type *ul = ty_num(SC_ULONG);
        Type *arr = ty_vector(cx->ck->a, ul, AS_PRIVATE, ACC_READ_WRITE, AL_COMPACT, t->ndims);
        Sym *o = ck_new_local(cx, pd->name, ck_name_join(cx->ck, s->cname, "off"), ul);
        Sym *ds = ck_new_local(cx, pd->name, ck_name_join(cx->ck, s->cname, "dims"), arr);
        Sym *ss = ck_new_local(cx, pd->name, ck_name_join(cx->ck, s->cname, "strides"), arr);
        if (!o || !ds || !ss) return NULL;
        s->is_view = 1;
        sym_rare_w(cx->ck->a, s)->off_sym = o;
        sym_rare_w(cx->ck->a, s)->dims_sym = ds;
        sym_rare_w(cx->ck->a, s)->strides_sym = ss;
    } else if (t->soa) {
        /* a soa-vector parameter: one pointer per field and one length */
        s->len_cname = ck_local_cname(cx, ck_name_join(cx->ck, s->cname, "len"));
        if (!ck_soa_param_fields(cx, s, pd->name)) return NULL;
    } else if (t->kind == TY_VECTOR) {
        s->len_cname = ck_local_cname(cx, ck_name_join(cx->ck, s->cname, "len"));
        if (t->align == AL_STD140 && ty_vector_stride(t->elem, AL_STD140) != ty_sizeof(t->elem))
            ck_need_helper(cx, H_STD140_ELEM, t->elem, AS_NONE);
    }
    if (ty_is_arith(t) && t->sc == SC_DOUBLE) ck_prog_of(cx)->uses_fp64 = 1;
    return s;
}

static void check_body(Ctx *cx, FuncDef *fd) {
    Dest d = {D_RETURN, NULL, NULL};
    Node **body = fd->body;
    int n = fd->nbody;
    cx->block = cx->fn->body;
    if (cx->fn->single_task) {
        /* guard: only the first thread runs the body */
        Node *blk = ck_new_block(cx, fd->form);
        cx->block = blk;
        ck_body_to(cx, body, n, &d);
        cx->block = cx->fn->body;
        Node *test = ck_node(cx, N_C_BINARY, fd->form, &ty_bool);
        test->op = OP_EQ;
        test->kids = arena_alloc(cx->ck->a, sizeof(Node *) * 2);
        if (!test->kids) return;
        ck_need_helper(cx, H_GLOBAL_ID, NULL, AS_NONE);
        Node *id = ck_helper_call(cx, fd->form, ty_num(SC_ULONG), ck_need_helper(cx, H_GLOBAL_LINEAR_ID, NULL, AS_NONE), NULL, 0);
        if (!id) return;
        test->kids[0] = id;
        test->kids[1] = ck_int_lit(cx, fd->form, 0, ty_num(SC_ULONG));
        test->nkids = 2;
        Node *ifn = ck_node(cx, N_C_IF, fd->form, &ty_void);
        ifn->kids = arena_alloc(cx->ck->a, sizeof(Node *) * 3);
        if (!ifn->kids) return;
        ifn->kids[0] = test;
        ifn->kids[1] = blk;
        ifn->kids[2] = NULL;
        ifn->nkids = 3;
        ifn->text = "single-task: only the first thread runs the kernel body";
        ck_emit_stmt(cx, ifn);
        return;
    }
    if (n == 0 && fd->ret->kind != TY_VOID) {
        diag_error_at(cx->ck->d, fd->form, "E0332", "`%s` must return `%s`, but its body is empty", fd->name,
                      ty_name(cx->ck->a, fd->ret));
        return;
    }
    ck_body_to(cx, body, n, &d);
}

static CFunc *check_function(Checker *ck, FuncDef *fd, Type **ptys, const Node *call) {
    CFunc *fn = arena_alloc(ck->a, sizeof *fn);
    if (!fn) return NULL;
    fn->kind = fd->kind;
    fn->name = fd->name;
    fn->def = fd->form;
    fn->ret = fd->ret;
    fn->body = syn_new(ck->a, N_C_BLOCK, fd->form->loc);
    fn->consteval = ck->ct != NULL; /* run by the compiler, never emitted */
    fn->instance = fd->ninsts;
    if (fd->overloaded && fd->kind != FN_KERNEL) {
        FuncDef *defs[256];
        int nd = ck_func_overloads(ck, fd->key, defs, 256);
        for (int i = 0; i < nd && !fn->overload; i++)
            if (defs[i] == fd) fn->overload = i + 1;
    }
    /* the C name: kernels keep theirs; functions get a unique mangled name */
    if (fd->kind == FN_KERNEL) {
        fn->cname = fd->name;
        ck_names_take(ck, &ck->cnames, fn->cname);
    } else {
        /* an instance of a function whose vector parameters leave the
           address space open is named after the spaces it was made for */
        const char *base = fd->cname_base;
        for (int i = 0; i < fd->nparams; i++)
            if (fd->params[i].ty && fd->params[i].ty->kind == TY_VECTOR && !fd->params[i].ty->as)
                base = ck_name_join(ck, base, ty_as_name(ptys[i]->as));
        /* ... and after the element types its incomplete vector parameters
           (an incomplete template alias such as (vec-type nil)) were given */
        for (int i = 0; i < fd->nparams; i++)
            if (fd->params[i].ty && fd->params[i].ty->kind == TY_VECTOR && !fd->params[i].ty->elem && ptys[i]->elem)
                base = ck_name_join(ck, base, ck_type_part(ck, ptys[i]->elem));
        /* ... and after the rank an (identity-tensor-type) or
           (tensor-view-type) parameter got */
        for (int i = 0; i < fd->nparams; i++)
            if (fd->params[i].ty && fd->params[i].ty->kind == TY_IDENT && !fd->params[i].ty->ndims)
                base = ck_name_join(ck, base, arena_printf(ck->a, "id%d", ptys[i]->ndims));
            else if (fd->params[i].ty && fd->params[i].ty->kind == TY_VECTOR && fd->params[i].ty->ndims < 0)
                base = ck_name_join(ck, base, arena_printf(ck->a, "rank%d", ptys[i]->ndims));
        fn->cname = fn->consteval ? base : ck_unique_name(ck, &ck->cnames, base);
    }
    Ctx cx = {.ck = ck, .fn = fn, .fd = fd, .names = ck_names_fresh(ck), .memo = ck_memo_fresh(ck)};
    ck_scope_push(&cx);
    fn->params = arena_alloc(ck->a, sizeof(Sym *) * (size_t)(fd->nparams + 1));
    if (!fn->params) return NULL;
    for (int i = 0; i < fd->nparams; i++) {
        Sym *s = make_param(&cx, &fd->params[i], ptys[i]);
        if (!s) return NULL;
        fn->params[fn->nparams++] = s;
        ck_scope_add(&cx, s);
    }
    if (fn->ret->kind == TY_TUPLE) {
        fn->retptrs = arena_alloc(ck->a, sizeof(Sym *) * (size_t)fn->ret->nelems);
        if (!fn->retptrs) return NULL;
        for (int i = 1; i < fn->ret->nelems; i++) {
            Sym *r = ck_new_local(&cx, fd->form, arena_printf(ck->a, "value%d", i + 1), fn->ret->elems[i]);
            if (!r) return NULL;
            r->kind = SYM_RETPTR;
            fn->retptrs[i - 1] = r;
        }
    }
    kernel_decls(&cx, fd);
    if (fd->kind == FN_KERNEL && !fd->exact && ck->c->opt->debug_output) ck_debug_sym(&cx, fd->form);
    fn->exact = fd->exact;
    (void)call;
    PUSH(ck->a, ck->stack, ck->nstack, ck->capstack, fd);
    fd->checking = 1;
    int visible = ck->x ? expander_enter(ck->x, fd->form) : 0;
    check_body(&cx, fd);
    if (ck->x) expander_leave(ck->x, visible);
    ck_side_finish_kernel(&cx);
    /* the parameters' scope serves the next function's (issue 14: left
       pushed, every function made a new scope and grew its array) */
    ck_scope_pop(&cx);
    ck_names_release(ck, &cx.names); /* its locals have their C names */
    ck_memo_release(ck, &cx.memo); /* its expansions are checked (issue 14: memory) */
    fd->checking = 0;
    ck->nstack--;
    if (!fd->capinsts && (fd->insts = arena_alloc8(ck->a, sizeof(CFunc *) * 2)))
        fd->capinsts = 2; /* most functions have one instance (issue 14: an
                             arena_push call per function, 0.3 M at 1 MB) */
    PUSH(ck->a, fd->insts, fd->ninsts, fd->capinsts, fn);
    Program *p = ck->prog;
    if (!fn->consteval) {
        PUSH(ck->a, p->funcs, p->nfuncs, p->capfuncs, fn);
        void **slot = fn->kind != FN_KERNEL && fn->cname ? strmap_slot(ck->a, &p->funcs_by_cname, fn->cname) : NULL;
        if (slot && !*slot) *slot = fn; /* one probe (issue 14) */
    }
    return fn;
}

static Type *concrete_param(Checker *ck, Type *decl, Type *arg) {
    if (decl->kind == TY_IDENT && arg && arg->kind == TY_IDENT) return arg; /* (identity-tensor-type): the argument's rank */
    if (decl->kind == TY_STRUCT && decl->sd->pattern && arg && ck_template_pattern_match(ck, decl, arg)) return arg;
    if (decl->kind != TY_VECTOR || !arg || arg->kind != TY_VECTOR) return decl;
    Type *t = ty_vector(ck->a, decl->elem ? decl->elem : arg->elem, decl->as ? decl->as : arg->as,
                        decl->acc ? decl->acc : arg->acc, decl->align ? decl->align : arg->align,
                        decl->length >= 0 ? decl->length : arg->length);
    if (decl->ndims) {
        t->view = 1;
        t->ndims = decl->ndims < 0 ? arg->ndims : decl->ndims; /* (tensor-view-type): the argument's rank */
    }
    t->tag = decl->tag; /* a derived type's parameter: the derived type inside (derived.c) */
    t->tag_subst = decl->tag_subst;
    if (decl->soa) { /* one instance for soa-vectors and views of any length */
        t->soa = 1;
        t->length = decl->length;
    }
    return t;
}

CFunc *ck_instantiate(Ctx *cx, FuncDef *fd, Type **argtys, const Node *call) {
    Checker *ck = cx->ck;
    ck_resolve_signature(ck, fd);
    if (fd->bad) return NULL;
    if (fd->checking) {
        diag_error_at(ck->d, call, "E0601", "recursive call to `%s`: Crisp does not allow recursion", fd->name);
        for (int i = ck->nstack - 1; i >= 0; i--) {
            diag_note(ck->d, ck->stack[i]->form->loc, "`%s` is being checked here", ck->stack[i]->name);
            if (ck->stack[i] == fd) break;
        }
        return NULL;
    }
    if (ck->nstack > 256) {
        diag_fatal(ck->d, call->loc, call->origin, "E0602", "call chain deeper than 256 functions");
        return NULL;
    }
    Type **ptys = arena_alloc(ck->a, sizeof(Type *) * (size_t)(fd->nparams + 1));
    if (!ptys) return NULL;
    for (int i = 0; i < fd->nparams; i++) ptys[i] = concrete_param(ck, fd->params[i].ty, argtys ? argtys[i] : NULL);
    for (int i = 0; i < fd->ninsts; i++) {
        CFunc *f = fd->insts[i];
        int same = f->consteval == (ck->ct != NULL); /* compile-time code has instances of its own */
        for (int j = 0; j < fd->nparams && same; j++)
            if (!ty_equal(f->params[j]->ty, ptys[j])) same = 0;
        if (same) {
            constvec_call(cx, f, call, 1);
            return f;
        }
    }
    for (int i = 0; i < fd->nparams; i++) {
        Type *t = ptys[i];
        if (t->kind == TY_VECTOR && (!t->elem || !t->as)) {
            diag_error_at(ck->d, call, "E0603", "cannot instantiate `%s`: parameter `%s` has incomplete type `%s`", fd->name,
                          fd->params[i].name->name, ty_name(ck->a, t));
            return NULL;
        }
        if (t->kind == TY_STRUCT && t->sd->pattern) {
            diag_error_at(ck->d, call, "E0603", "cannot instantiate `%s`: parameter `%s` has incomplete type `%s`", fd->name,
                          fd->params[i].name->name, ty_name(ck->a, t));
            return NULL;
        }
        if (t->kind == TY_VECTOR && !t->acc) t->acc = ACC_READ_WRITE;
        if (t->kind == TY_VECTOR && !t->align) t->align = AL_COMPACT;
    }
    CFunc *f = check_function(ck, fd, ptys, call);
    if (f) constvec_call(cx, f, call, 0);
    return f;
}

static int complete_signature(FuncDef *fd) {
    for (int i = 0; i < fd->nparams; i++) {
        Type *t = fd->params[i].ty;
        if (!t) return 0;
        if (t->kind == TY_VECTOR && (!t->elem || !t->as)) return 0;
        if (t->kind == TY_STRUCT && t->sd->pattern) return 0; /* incomplete struct template */
        if (t->kind == TY_IDENT && !t->ndims) return 0;       /* any rank: instantiated per rank */
    }
    return 1;
}

/* Pass "kernels": every kernel body, for its declared parameter types
 * (instantiating the functions it calls). */
void ck_pass_kernels(Checker *ck) {
    for (int i = 0; i < ck->nfuncs && !ck->c->diag.fatal; i++) {
        FuncDef *fd = ck->funcs[i];
        if (fd->kind != FN_KERNEL || fd->bad) continue;
        Type **ptys = arena_alloc(ck->a, sizeof(Type *) * (size_t)(fd->nparams + 1));
        if (!ptys) break;
        for (int j = 0; j < fd->nparams; j++) ptys[j] = fd->params[j].ty;
        check_function(ck, fd, ptys, fd->form);
    }
}

/* Pass "functions": the functions nobody called whose signatures are
 * complete (library functions are checked only when called: tree
 * shaking). */
void ck_pass_functions(Checker *ck) {
    for (int i = 0; i < ck->nfuncs && !ck->c->diag.fatal; i++) {
        FuncDef *fd = ck->funcs[i];
        if (fd->kind == FN_KERNEL || fd->bad || fd->ninsts || fd->hof_src) continue; /* hof.c: made for calls */
        if (fd->from_lib) continue; /* the library: only what the program calls */
        if (!complete_signature(fd)) continue; /* checked at each call */
        Type **ptys = arena_alloc(ck->a, sizeof(Type *) * (size_t)(fd->nparams + 1));
        if (!ptys) break;
        for (int j = 0; j < fd->nparams; j++) ptys[j] = concrete_param(ck, fd->params[j].ty, NULL);
        for (int j = 0; j < fd->nparams; j++) {
            if (ptys[j]->kind == TY_VECTOR && !ptys[j]->acc) ptys[j]->acc = ACC_READ_WRITE;
            if (ptys[j]->kind == TY_VECTOR && !ptys[j]->align) ptys[j]->align = AL_COMPACT;
        }
        check_function(ck, fd, ptys, fd->form);
    }
}
