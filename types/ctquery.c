/* ctquery.c - what the compile-time language may ask the checker about types.
 *
 * Macros run on the compile-time evaluator (macros/eval.c), which treats
 * types as syntax but never reads it: every question about a type comes
 * here through the evaluator's host hooks, and is answered with the one
 * reader of type syntax the whole compiler uses (typeexpr.c).  Because the
 * checker expands a macro call where it reaches it (expand.h), the
 * variables in scope at the call have their types, so a macro may ask
 * `(type-of x)` of a run-time variable - what the GPU library's
 * reductions, scans and filters need (spec "Higher Order Function
 * Operations": `(is-type-of someFunction (binop-type (type-of someVar)))`).
 *
 * Spec sections: "type constraints" (is-XXXX?, type-is / value-is),
 * "type-has-prop?", "has-overload?", "is-substitutable-for?", "is-type-of /
 * type-of", "Helpers" (element-type), "tensor-view-type" (num-dims-of),
 * "First Order Functions" (return-type-of, type-signature-of),
 * "binop-type", "with-struct-accessors".
 *
 * Values and types in the compile-time language:
 *   - a type is its syntax: `float`, an alias, (vector-type float :global);
 *     types the checker made (a view, a tensor) come back as a symbol that
 *     names them exactly, spelled as the type reads in messages;
 *   - a run-time value is the syntax of the expression: a variable's
 *     symbol, a literal, (~ v i) ...;
 *   - a function is a designator (function f), #'f;
 *   - the type of a bare literal is (literal-type V): the literal takes
 *     the type its context gives it, so (is-type-of x (type-of 0)) holds
 *     for any numeric x that 0 fits (docs/library.md). */
#include <string.h>
#include <strings.h>

#include "../macros/eval.h"
#include "check_int.h"

static Checker *ck_of(void *ud) { return (Checker *)ud; }

/* ------------------------------------------------------------------ */
/* types as syntax                                                     */

static const char *acc_word(Access a) {
    return a == ACC_READ_ONLY ? "read-only" : a == ACC_WRITE_ONLY ? "write-only" : "read-write";
}

/* The syntax of `t`: a name, a (vector-type ...) expression, or a symbol
 * naming the exact type (views, tensors, soa-vectors, tuples). */
Node *ctq_type_syntax(Checker *ck, Type *t, SrcLoc loc) {
    Arena *a = ck->a;
    switch (t->kind) {
    case TY_NUM:
    case TY_HWVEC:
    case TY_BOOL: return syn_symbol(a, loc, ty_name(a, t));
    case TY_VOID: return syn_symbol(a, loc, "nil");
    case TY_STRUCT: return syn_symbol(a, loc, t->sd->name);
    case TY_ENUM: return syn_symbol(a, loc, t->ed->name);
    case TY_VECTOR:
        if (t->tag) return syn_symbol(a, loc, t->tag);
        if (!t->view && !t->soa && !t->ndims && t->elem) {
            Node *k[8];
            int n = 0;
            k[n++] = syn_symbol(a, loc, "vector-type");
            k[n++] = ctq_type_syntax(ck, t->elem, loc);
            if (t->as) k[n++] = syn_keyword(a, loc, ty_as_name(t->as));
            if (t->acc) k[n++] = syn_keyword(a, loc, acc_word(t->acc));
            if (t->align) k[n++] = syn_keyword(a, loc, ty_align_name(t->align));
            if (t->length >= 0) k[n++] = syn_int(a, loc, t->length);
            return syn_list(a, loc, k, n);
        }
        break;
    default: break;
    }
    /* a hidden alias: printed as the type reads, looked up by a key no
       program can write */
    Sym *s = arena_alloc(a, sizeof *s);
    Node *n = syn_symbol(a, loc, ty_name(a, t));
    if (!s || !n) return syn_symbol(a, loc, "nil");
    s->kind = SYM_TYPE;
    s->name = n->name;
    s->key = arena_printf(a, "%%type%d", ck->globals.n);
    s->ty = t;
    ck_scope_insert(a, &ck->globals, s);
    n->key = s->key;
    return n;
}

/* (literal-type V): the type of a bare literal V. */
static Node *literal_type(Checker *ck, Node *v) {
    Node *k[2] = {syn_symbol(ck->a, v->loc, "literal-type"), v};
    return syn_list(ck->a, v->loc, k, 2);
}

static int is_literal_type(const Node *t) {
    return syn_is_form(t, "literal-type") && t->nkids == 2 && (t->kids[1]->kind == N_INT || t->kids[1]->kind == N_FLOAT);
}

/* Can literal L take type T (an arithmetic type it fits)? */
static int literal_fits(const Node *l, const Type *t) {
    if (!t || !ty_is_arith(t)) return 0;
    Scalar sc = t->sc;
    if (l->kind == N_FLOAT) return ty_is_floatlike(t);
    if (ty_is_floatlike(t)) return 1;
    int64_t v = l->ival;
    if (l->is_unsigned) return sc == SC_ULONG;
    switch (sc) {
    case SC_CHAR: return v >= -128 && v <= 127;
    case SC_UCHAR: return v >= 0 && v <= 255;
    case SC_SHORT: return v >= -32768 && v <= 32767;
    case SC_USHORT: return v >= 0 && v <= 65535;
    case SC_INT: return v >= INT32_MIN && v <= INT32_MAX;
    case SC_UINT: return v >= 0 && v <= (int64_t)UINT32_MAX;
    case SC_ULONG: return v >= 0;
    default: return 1;
    }
}

/* The Type of type syntax `syn` (NULL after reporting).  (literal-type V)
 * is the literal's default type. */
static Type *type_of_syntax(Checker *ck, Node *syn) {
    if (is_literal_type(syn)) {
        Node *v = syn->kids[1];
        if (v->kind == N_FLOAT) return ty_num(SC_FLOAT);
        return v->is_unsigned ? ty_num(SC_ULONG) : (v->ival >= INT32_MIN && v->ival <= INT32_MAX) ? ty_num(SC_INT) : ty_num(SC_LONG);
    }
    int saved = ck->allow_incomplete;
    ck->allow_incomplete = 1;
    Type *t = ck_type_expr(ck, syn);
    ck->allow_incomplete = saved;
    return t;
}

/* Does `syn` read as a type (a base type, an alias, a struct, a type
 * form)?  Without reporting anything. */
static int names_type(Checker *ck, const Node *syn) {
    if (syn->kind == N_SYMBOL && !syn->ann) {
        if (ty_lookup_base(syn->key) && strcmp(syn->key, "nil")) return 1;
        Sym *s = ck_global_lookup(ck, syn->key);
        return s && s->kind == SYM_TYPE;
    }
    if (syn->kind == N_KEYWORD) return ty_lookup_base(syn->key) != NULL;
    const char *h = syn_head(syn);
    if (!h) return 0;
    size_t n = strlen(h);
    return is_literal_type(syn) || syn_streq(h, "vector-type") || syn_streq(h, "vector") || syn_streq(h, "maybe") ||
           (n > 5 && !strcmp(h + n - 5, "-type"));
}

/* ------------------------------------------------------------------ */
/* run-time values                                                     */

/* Is `x` a symbol naming a value (not a type) where the macro was called? */
static int is_value_name(Checker *ck, const Node *x) {
    if (x->kind != N_SYMBOL || x->ann) return 0;
    Sym *s = ck->cur ? ck_scope_lookup(ck->cur, x->key) : ck_global_lookup(ck, x->key);
    return s && s->kind != SYM_TYPE;
}

/* The variable `sym` names where the macro was called: a local or
 * parameter of the function being checked, else a global. */
static Sym *visible(Checker *ck, const Node *sym) {
    Sym *s = ck->cur ? ck_scope_lookup(ck->cur, sym->key) : ck_global_lookup(ck, sym->key);
    if (!s) s = ck_parameter_lookup(ck, sym);
    return s;
}

/* The Type of the run-time expression `v` (macro argument syntax), or NULL
 * after reporting E0218.  An expression other than a variable or literal is
 * checked (not run) in the function being checked. */
static Type *value_type(Checker *ck, Eval *ev, Node *at, Node *v) {
    if (v->kind == N_SYMBOL && !v->ann) {
        Sym *s = visible(ck, v);
        if (s && (s->kind == SYM_CONST || s->kind == SYM_PARAMETER)) {
            Node *c = ck_global_const_value(ck, s);
            return c ? c->ty : NULL;
        }
        if (s && s->kind != SYM_TYPE && s->kind != SYM_FNVAL && s->ty) return s->ty;
        if (s && s->kind == SYM_TYPE) {
            eval_error(ev, at, "`%s` names a type, not a value: use it as the type itself", v->name);
            return NULL;
        }
        if (!s) {
            eval_error_code(ev, EVAL_E_TYPEOF, at, "`type-of`: `%s` is no variable visible where the macro was called",
                            v->name);
            return NULL;
        }
    }
    if (v->kind == N_STRING) return &ty_string;
    if (v->kind == N_KEYWORD) return &ty_keyword;
    if (!ck->cur) {
        eval_error_code(ev, EVAL_E_TYPEOF, at, "`type-of` of `%s`: only constants and types are known outside a function",
                        syn_to_string(ck->a, v, 40));
        return NULL;
    }
    /* check the expression in a throw-away block: its type, not its code */
    Ctx *cx = ck->cur;
    Node *saved = cx->block;
    Node scratch = {.kind = N_C_BLOCK};
    cx->block = &scratch;
    Node *e = ck_expr(cx, v, NULL);
    cx->block = saved;
    if (!e || !e->ty) {
        if (!ev->failed) eval_error_code(ev, EVAL_E_TYPEOF, at, "`type-of`: `%s` has no type", syn_to_string(ck->a, v, 40));
        return NULL;
    }
    return e->ty;
}

/* (%aligned-buffer? V): V names a vector parameter of the kernel being
 * checked (or another name for one): its data starts an OpenCL buffer, so
 * it is aligned for any hardware-vector load (the GPU library reads such
 * vectors as float4).  A view, or a function's vector parameter, which a
 * caller may have passed as a view, is not known to be aligned. */
static int aligned_buffer(Checker *ck, const Node *v) {
    if (v->kind != N_SYMBOL || v->ann || !ck->cur || !ck->cur->fn || ck->cur->fn->kind != FN_KERNEL) return 0;
    Sym *s = ck_scope_lookup(ck->cur, v->key);
    if (!s || s->is_view || !s->ty || s->ty->kind != TY_VECTOR || s->ty->view || s->ty->soa || s->ty->ndims ||
        s->ty->align == AL_STD140 || (s->ty->as != AS_GLOBAL && s->ty->as != AS_CONSTANT))
        return 0;
    CFunc *fn = ck->cur->fn;
    for (int i = 0; i < fn->nparams; i++)
        if (fn->params[i] && fn->params[i]->cname == s->cname && !fn->params[i]->is_view) return 1;
    return 0;
}

/* (type-of X) */
static Node *q_type_of(Checker *ck, Eval *ev, Node *form, Node *v) {
    if (v->kind == N_INT || v->kind == N_FLOAT) return literal_type(ck, v);
    if ((syn_is_form(v, "function") && v->nkids == 2)) {
        Node *k[2] = {syn_symbol(ck->a, form->loc, "type-signature-of"), v};
        return eval_form(ev, syn_list(ck->a, form->loc, k, 2));
    }
    Type *t = value_type(ck, ev, form, v);
    return t ? ctq_type_syntax(ck, t, form->loc) : NULL;
}

/* ------------------------------------------------------------------ */
/* functions                                                           */

/* The function a designator names: #'f, a symbol, or a let-bound
 * function value.  NULL when `v` is none. */
static const char *designated(Checker *ck, Node *v) {
    const char *f = eval_function_name(v);
    if (f) return f;
    if (v->kind == N_SYMBOL && !v->ann) {
        Sym *s = ck->cur ? ck_scope_lookup(ck->cur, v->key) : NULL;
        if (s && s->kind == SYM_FNVAL && sym_rare(s)->fn_name && sym_rare(s)->fn_name->kind == N_SYMBOL) return sym_rare(s)->fn_name->key;
    }
    return NULL;
}

static int is_signature(const Node *t) {
    return t->kind == N_VECLIT || (syn_is_form(t, "function") && t->nkids == 2 && t->kids[1]->kind == N_LIST);
}

/* The builtin operators a reduction or a filter may name, and what they
 * take: 1 arithmetic (+ - * / min max: numbers and hardware vectors),
 * 2 bitwise (integers), 3 comparisons (two numbers => bool), 0 none. */
static int builtin_kind(const char *f) {
    static const char *const arith[] = {"+", "-", "*", "/", "min", "max", NULL};
    static const char *const bits[] = {"bit-and", "bit-or", "bit-xor", "logand", "logior", "logxor", NULL};
    static const char *const cmp[] = {"<", ">", "<=", ">=", "=", "/=", "!=", "==", NULL};
    for (int i = 0; arith[i]; i++)
        if (syn_streq(f, arith[i])) return 1;
    for (int i = 0; bits[i]; i++)
        if (syn_streq(f, bits[i])) return 2;
    for (int i = 0; cmp[i]; i++)
        if (syn_streq(f, cmp[i])) return 3;
    return 0;
}

/* Does function `f` accept signature `sig`?  Builtins by their rules;
 * def-functions by an overload with these parameter types (an open
 * parameter type - a template, an incomplete vector - accepts what would
 * instantiate it) and return type. */
static int function_fits(Checker *ck, const char *f, Node *sig, int exact) {
    Type **ps, *ret;
    int *outs, np;
    if (!ck_parse_signature(ck, sig, &ps, &outs, &np, &ret)) return -1;
    int bk = builtin_kind(f);
    if (bk) {
        if (np != 2 || !ps[0] || !ty_equal(ps[0], ps[1])) return 0;
        if (bk == 3) return ty_is_num(ps[0]) && ret && ret->kind == TY_BOOL;
        if (!ret || !ty_equal(ret, ps[0])) return 0;
        return bk == 1 ? ty_is_arith(ps[0]) : ty_is_intlike(ps[0]);
    }
    FuncDef *cands[64];
    int nc = ck_func_overloads(ck, f, cands, 64);
    for (int i = 0; i < nc; i++) {
        FuncDef *fd = cands[i];
        ck_resolve_signature(ck, fd);
        if (fd->bad || fd->nparams != np) continue;
        int ok = 1;
        for (int k = 0; k < np && ok; k++) {
            Type *pt = fd->params[k].ty;
            if (!pt) ok = !exact;
            else if (pt->kind == TY_VECTOR && ps[k]->kind == TY_VECTOR) ok = !pt->elem || ty_equal(pt->elem, ps[k]->elem);
            else ok = ty_equal(pt, ps[k]) || (!exact && pt->kind == TY_STRUCT && pt->sd->pattern &&
                                              ck_template_pattern_match(ck, pt, ps[k]));
        }
        if (ok && fd->ret && ret && !ty_equal(fd->ret, ret) && !(ret->kind == TY_VOID && fd->ret->kind == TY_VOID)) ok = 0;
        if (ok) return 1;
    }
    /* a templated function (with-template-type): instantiated per call */
    if (!exact && ck_template_lookup(ck, f)) return 1;
    return 0;
}

/* ------------------------------------------------------------------ */
/* type relations                                                      */

/* Two signatures with the same parameter and return types. */
static int signatures_equal(Checker *ck, Node *a, Node *b) {
    Type **pa, **pb, *ra, *rb;
    int *oa, *ob, na, nb;
    if (!ck_parse_signature(ck, a, &pa, &oa, &na, &ra) || !ck_parse_signature(ck, b, &pb, &ob, &nb, &rb)) return -1;
    if (na != nb || !ra != !rb || (ra && !ty_equal(ra, rb))) return 0;
    for (int i = 0; i < na; i++)
        if (!ty_equal(pa[i], pb[i]) || oa[i] != ob[i]) return 0;
    return 1;
}

static int is_signature(const Node *t);

/* type-equal of two type syntaxes; literal types match what they fit. */
static int types_equal(Checker *ck, Node *a, Node *b) {
    if (is_signature(a) || is_signature(b)) return is_signature(a) && is_signature(b) ? signatures_equal(ck, a, b) : 0;
    if (is_literal_type(a) && is_literal_type(b))
        return (a->kids[1]->kind == N_FLOAT) == (b->kids[1]->kind == N_FLOAT);
    if (is_literal_type(b)) {
        Node *t = a;
        a = b;
        b = t;
    }
    if (is_literal_type(a)) {
        Type *tb = type_of_syntax(ck, b);
        return tb ? literal_fits(a->kids[1], tb) : -1;
    }
    Type *ta = type_of_syntax(ck, a), *tb = type_of_syntax(ck, b);
    if (!ta || !tb) return -1;
    return ty_equal(ta, tb);
}

/* (is-type-of X T): X is a function designator (T a signature), a type
 * (then the same as type-equal) or a run-time value. */
static int is_type_of(Checker *ck, Eval *ev, Node *form, Node *x, Node *t) {
    const char *f = designated(ck, x);
    if (f || is_signature(t)) {
        if (!f || !is_signature(t)) return 0;
        return function_fits(ck, f, t, 0);
    }
    if (x->kind == N_INT || x->kind == N_FLOAT) return types_equal(ck, literal_type(ck, x), t);
    if (names_type(ck, x) && !is_value_name(ck, x)) return types_equal(ck, x, t);
    Type *vt = value_type(ck, ev, form, x);
    if (!vt) return -1;
    if (is_literal_type(t)) return literal_fits(t->kids[1], vt);
    Type *tt = type_of_syntax(ck, t);
    if (!tt) return -1;
    return ty_equal(vt, tt) || ck_derived_subst_ok(vt, tt);
}

/* The element type of a vector type or of a vector variable. */
static Node *element_type(Checker *ck, Eval *ev, Node *form, Node *x) {
    Type *t = NULL;
    if (is_value_name(ck, x)) t = value_type(ck, ev, form, x);
    else if (names_type(ck, x)) t = type_of_syntax(ck, x);
    else if (x->kind == N_LIST && ck->cur) t = value_type(ck, ev, form, x);
    if (!t) {
        if (!ev->failed && !ck->d->fatal)
            eval_error(ev, form, "`element-type` expects a vector type or a vector, got `%s`", syn_to_string(ck->a, x, 40));
        ev->failed = 1;
        return NULL;
    }
    if (t->kind != TY_VECTOR || !t->elem) {
        return eval_error_code(ev, EVAL_E_ELEMTYPE, form,
                               "`element-type` expects a vector type with an element type ((vector-type ELEM ...), "
                               "vector-view-type, const-vec-type, soa-vector-type or an alias of one), got `%s`",
                               ty_name(ck->a, t));
    }
    return ctq_type_syntax(ck, t->elem, form->loc);
}

/* The built-in predicates of spec "type constraints" on a type. */
static int type_predicate(const char *pred, const Type *t) {
    if (syn_streq(pred, "is-numeric?") || syn_streq(pred, "is-scalar?")) return t->kind == TY_NUM;
    if (syn_streq(pred, "is-hardware-vector?")) return t->kind == TY_HWVEC;
    if (syn_streq(pred, "is-integer?")) return ty_is_intlike(t);
    if (syn_streq(pred, "is-floating-point?")) return ty_is_floatlike(t);
    if (syn_streq(pred, "is-signed?")) return ty_is_arith(t) && ty_category(t) != CAT_UNSIGNED;
    if (syn_streq(pred, "is-orderable?")) return t->kind == TY_NUM;
    if (syn_streq(pred, "is-vector?")) return t->kind == TY_VECTOR;
    if (syn_streq(pred, "is-soa-vector?")) return t->kind == TY_VECTOR && t->soa;
    return -1;
}

static int is_builtin_predicate(const char *name) {
    static const char *const preds[] = {"is-numeric?", "is-scalar?", "is-hardware-vector?", "is-integer?",
                                        "is-floating-point?", "is-signed?", "is-orderable?", "is-vector?",
                                        "is-soa-vector?", NULL};
    for (int i = 0; preds[i]; i++)
        if (syn_streq(name, preds[i])) return 1;
    return 0;
}

/* A type argument of a predicate: a type, or a value whose type is meant. */
static Type *type_arg(Checker *ck, Eval *ev, Node *form, Node *x) {
    if (x->kind == N_INT || x->kind == N_FLOAT) return type_of_syntax(ck, literal_type(ck, x));
    if (names_type(ck, x) && !is_value_name(ck, x)) return type_of_syntax(ck, x);
    return value_type(ck, ev, form, x);
}

/* (num-dims-of T) */
static Node *num_dims_of(Checker *ck, Eval *ev, Node *form, Node *x) {
    Type *t = type_arg(ck, ev, form, x);
    if (!t) return NULL;
    if (t->kind == TY_VECTOR && t->ndims > 0) return syn_int(ck->a, form->loc, t->ndims);
    if (t->kind == TY_IDENT && t->ndims > 0) return syn_int(ck->a, form->loc, t->ndims);
    return eval_error_code(ev, EVAL_E_NUMDIMS, form,
                           "`num-dims-of` expects a tensor-view type with its number of dimensions, "
                           "(tensor-view-type N ...), got `%s`",
                           syn_to_string(ck->a, x, 40));
}

/* (address-space-of X): the address space keyword (:global :local
 * :constant :private) of the vector, view or soa-vector X (a variable or a
 * type), nil when X is none - a function, a number, another type - so a
 * macro can tell a vector argument from a function argument (the GPU
 * library's scans). */
static Node *address_space_of(Checker *ck, Eval *ev, Node *form, Node *x) {
    if (x->kind == N_SYMBOL && !x->ann) {
        Sym *s = visible(ck, x);
        if (!s && !names_type(ck, x)) return ev->nil;
        if (s && s->kind == SYM_FNVAL) return ev->nil;
    } else if (x->kind != N_LIST || syn_is_form(x, "function") || syn_is_form(x, "quote")) {
        return ev->nil;
    }
    Type *t = type_arg(ck, ev, form, x);
    if (!t) return NULL;
    if (t->kind != TY_VECTOR || t->as == AS_NONE) return ev->nil;
    return syn_keyword(ck->a, form->loc, ty_as_name(t->as));
}

/* (type-has-prop? T 'prop): a struct field, or a vector property. */
static int type_has_prop(Checker *ck, Eval *ev, Node *form, Node *x, Node *p) {
    if (!((p->kind == N_SYMBOL || p->kind == N_KEYWORD) && !p->ann) && p->kind != N_STRING) {
        eval_error(ev, form, "`type-has-prop?` expects a property name such as 'length, got `%s`", syn_to_string(ck->a, p, 30));
        return -1;
    }
    const char *pn = p->name;
    Type *t = type_arg(ck, ev, form, x);
    if (!t) return -1;
    if (t->kind == TY_VECTOR)
        return !strcasecmp(pn, "length") || (t->view && (!strcasecmp(pn, "offset") || !strcasecmp(pn, "parent"))) ||
               (t->ndims > 0 && (!strcasecmp(pn, "dims") || !strcasecmp(pn, "strides")));
    if (t->kind == TY_STRUCT) {
        if (!ck_struct_resolve(ck, t->sd)) return -1;
        for (int i = 0; i < t->sd->nfields; i++)
            if (!strcasecmp(t->sd->fields[i].name, pn)) return 1;
    }
    return 0;
}

/* The struct of with-struct-accessors: its field names, or 0. */
static Node *struct_fields(Checker *ck, Node *x) {
    if (x->kind != N_SYMBOL || x->ann || !names_type(ck, x)) return NULL;
    Type *t = type_of_syntax(ck, x);
    if (!t || t->kind != TY_STRUCT || !ck_struct_resolve(ck, t->sd)) return NULL;
    Node **k = arena_alloc(ck->a, sizeof *k * (size_t)(t->sd->nfields + 1));
    if (!k) return NULL;
    for (int i = 0; i < t->sd->nfields; i++) k[i] = syn_symbol(ck->a, x->loc, t->sd->fields[i].name);
    return syn_list(ck->a, x->loc, k, t->sd->nfields);
}

/* (%struct-field-types S): the types of the fields of struct S, in
 * order, as type syntax (lib/sort.crisp writes one vector parameter per
 * field of a struct for the soa sorts); NULL when S is no struct. */
static Node *struct_field_types(Checker *ck, Node *x) {
    if (x->kind != N_SYMBOL || x->ann || !names_type(ck, x)) return NULL;
    Type *t = type_of_syntax(ck, x);
    if (!t || t->kind != TY_STRUCT || !ck_struct_resolve(ck, t->sd)) return NULL;
    Node **k = arena_alloc(ck->a, sizeof *k * (size_t)(t->sd->nfields + 1));
    if (!k) return NULL;
    for (int i = 0; i < t->sd->nfields; i++) {
        k[i] = ctq_type_syntax(ck, t->sd->fields[i].ty, x->loc);
        if (!k[i]) return NULL;
    }
    return syn_list(ck->a, x->loc, k, t->sd->nfields);
}

/* The signature syntax #(P... => R) of function `f`'s only (or first)
 * overload with a complete signature; NULL after reporting E0216. */
static Node *signature_of(Checker *ck, Eval *ev, Node *form, const char *f, Node *at) {
    FuncDef *cands[16];
    int nc = ck_func_overloads(ck, f, cands, 16);
    for (int i = 0; i < nc; i++) {
        FuncDef *fd = cands[i];
        ck_resolve_signature(ck, fd);
        if (fd->bad) continue;
        int ok = 1;
        for (int k = 0; k < fd->nparams; k++) ok &= fd->params[k].ty != NULL;
        if (!ok) continue;
        Node **k = arena_alloc(ck->a, sizeof *k * (size_t)(fd->nparams + 2 + (fd->ret && fd->ret->kind == TY_TUPLE ? fd->ret->nelems : 1)));
        if (!k) return NULL;
        int n = 0;
        for (int j = 0; j < fd->nparams; j++) k[n++] = ctq_type_syntax(ck, fd->params[j].ty, form->loc);
        k[n++] = syn_symbol(ck->a, form->loc, "=>");
        if (!fd->ret || fd->ret->kind == TY_VOID) k[n++] = syn_symbol(ck->a, form->loc, "void");
        else if (fd->ret->kind == TY_TUPLE && !fd->ret->maybe)
            for (int j = 0; j < fd->ret->nelems; j++) k[n++] = ctq_type_syntax(ck, fd->ret->elems[j], form->loc);
        else k[n++] = ctq_type_syntax(ck, fd->ret, form->loc);
        Node *v = syn_list(ck->a, form->loc, k, n);
        v->kind = N_VECLIT;
        return v;
    }
    return eval_error_code(ev, EVAL_E_FUNSIG, at, "`%s`: no def-function `%s` with a known signature (give its parameters types)",
                           form->kids[0]->name, f);
}

/* The signature #(P... => R) of def-function `f` (its first overload with
 * a complete signature), or NULL: for (def-type NAME (type-signature-of #'f)). */
Node *ctq_signature_syntax(Checker *ck, const char *f, SrcLoc loc) {
    FuncDef *cands[16];
    int nc = ck_func_overloads(ck, f, cands, 16);
    for (int i = 0; i < nc; i++) {
        FuncDef *fd = cands[i];
        ck_resolve_signature(ck, fd);
        if (fd->bad) continue;
        int ok = 1;
        for (int k = 0; k < fd->nparams; k++) ok &= fd->params[k].ty != NULL;
        if (!ok) continue;
        Node **k = arena_alloc(ck->a, sizeof *k * (size_t)(fd->nparams + 2 + (fd->ret && fd->ret->kind == TY_TUPLE ? fd->ret->nelems : 1)));
        if (!k) return NULL;
        int n = 0;
        for (int j = 0; j < fd->nparams; j++) k[n++] = ctq_type_syntax(ck, fd->params[j].ty, loc);
        k[n++] = syn_symbol(ck->a, loc, "=>");
        if (fd->ret && fd->ret->kind == TY_TUPLE && !fd->ret->maybe)
            for (int j = 0; j < fd->ret->nelems; j++) k[n++] = ctq_type_syntax(ck, fd->ret->elems[j], loc);
        else if (fd->ret && fd->ret->kind != TY_VOID) k[n++] = ctq_type_syntax(ck, fd->ret, loc);
        Node *v = syn_list(ck->a, loc, k, n);
        v->kind = N_VECLIT;
        return v;
    }
    return NULL;
}

/* The part of signature `sig` after `=>`: `void`, a type, or a list. */
static Node *return_part(Checker *ck, Node *sig, SrcLoc loc) {
    Node *l = sig->kind == N_VECLIT ? sig : sig->kids[1];
    int arrow = -1;
    for (int i = 0; i < l->nkids; i++)
        if (syn_is_sym(l->kids[i], "=>") || syn_is_sym(l->kids[i], "->")) arrow = i;
    int nr = arrow < 0 ? 0 : l->nkids - arrow - 1;
    if (nr == 0) return syn_symbol(ck->a, loc, "void");
    if (nr == 1) return l->kids[arrow + 1];
    return syn_list(ck->a, loc, l->kids + arrow + 1, nr);
}

/* Functions that only exist at run time but may be called from a
 * macro's compile-time code to build code: generators of templated
 * functions (gen-NAME), def-functions, and the forms that make vectors. */
static int is_run_time_function(Checker *ck, const char *name) {
    static const char *const makers[] = {"make-scratch-vector", "make-result-vector", "make-implicit-vector",
                                         "make-vector", "make-vector-view", NULL};
    for (int i = 0; makers[i]; i++)
        if (syn_streq(name, makers[i])) return 1;
    if (!strncmp(name, "gen-", 4) && ck_template_lookup(ck, name + 4)) return 1;
    return ck_func_lookup(ck, name) != NULL || ck_template_lookup(ck, name) != NULL;
}

/* ------------------------------------------------------------------ */
/* the hooks                                                           */

static Node *truth(Eval *ev, int v) { return v ? ev->t : ev->nil; }

static int host_call(Eval *ev, void *ud, const Node *cform, const char *name, Node **a, int n, Node **out) {
    Checker *ck = ck_of(ud);
    Node *form = (Node *)(uintptr_t)cform;
    int r = -2;
#define NEED(k)                                                                                              \
    do {                                                                                                     \
        if (n != (k)) {                                                                                      \
            eval_error(ev, form, "`%s` expects %d argument%s, got %d", name, (k), (k) == 1 ? "" : "s", n); \
            return -1;                                                                                       \
        }                                                                                                    \
    } while (0)
    int errs = ck->d->errors;
    if (syn_streq(name, "type-of")) {
        NEED(1);
        *out = q_type_of(ck, ev, form, a[0]);
    } else if (syn_streq(name, "is-type-of")) {
        NEED(2);
        r = is_type_of(ck, ev, form, a[0], a[1]);
    } else if (syn_streq(name, "type-equal") || syn_streq(name, "is-type-equal?")) {
        NEED(2);
        r = types_equal(ck, a[0], a[1]);
    } else if (syn_streq(name, "element-type")) {
        NEED(1);
        *out = element_type(ck, ev, form, a[0]);
    } else if (is_builtin_predicate(name)) {
        NEED(1);
        Type *t = type_arg(ck, ev, form, a[0]);
        r = t ? type_predicate(name, t) : -1;
    } else if (syn_streq(name, "address-space-of")) {
        NEED(1);
        *out = address_space_of(ck, ev, form, a[0]);
    } else if (syn_streq(name, "num-dims-of")) {
        NEED(1);
        *out = num_dims_of(ck, ev, form, a[0]);
    } else if (syn_streq(name, "type-has-prop?")) {
        NEED(2);
        r = type_has_prop(ck, ev, form, a[0], a[1]);
    } else if (syn_streq(name, "is-substitutable-for?")) {
        NEED(2);
        Type *x = type_arg(ck, ev, form, a[0]), *y = x ? type_arg(ck, ev, form, a[1]) : NULL;
        r = x && y ? ty_equal(x, y) || ck_derived_subst_ok(x, y) : -1;
    } else if (syn_streq(name, "has-overload?")) {
        if (!is_signature(a[1])) {
            eval_error_code(ev, EVAL_E_SIG, form->nkids > 2 ? form->kids[2] : form,
                            "`has-overload?` expects a signature #(PARAM-TYPE... => RETURN-TYPE) or "
                            "#'(PARAM-TYPE... => RETURN-TYPE), got `%s`",
                            syn_to_string(ck->a, a[1], 40));
            return -1;
        }
        const char *f = designated(ck, a[0]);
        r = f ? function_fits(ck, f, a[1], 1) : 0;
    } else if (syn_streq(name, "return-type-of")) {
        if (is_signature(a[0])) *out = return_part(ck, a[0], form->loc);
        else {
            const char *f = designated(ck, a[0]);
            Node *sig = f ? signature_of(ck, ev, form, f, a[0]) : NULL;
            *out = sig ? return_part(ck, sig, form->loc) : NULL;
        }
    } else if (syn_streq(name, "type-signature-of")) {
        if (is_signature(a[0])) *out = a[0];
        else {
            const char *f = designated(ck, a[0]);
            *out = f ? signature_of(ck, ev, form, f, a[0]) : NULL;
        }
    } else if (syn_streq(name, "%integer-variable-type")) {
        /* the integer type of a visible variable or constant, else nil:
           dotimes counts in its count's type (no error when it is none) */
        NEED(1);
        Sym *v = a[0]->kind == N_SYMBOL && !a[0]->ann ? visible(ck, a[0]) : NULL;
        Type *t = NULL;
        if (v && (v->kind == SYM_CONST || v->kind == SYM_PARAMETER)) {
            Node *c = ck_global_const_value(ck, v);
            t = c ? c->ty : NULL;
        } else if (v && (v->kind == SYM_LOCAL || v->kind == SYM_PARAM)) {
            t = v->ty;
        }
        *out = t && ty_is_int(t) ? ctq_type_syntax(ck, t, form->loc) : ev->nil;
        return 1;
    } else if (syn_streq(name, "%declared-local-size")) {
        /* the local size the code being expanded will run at, as far as
           the checker knows it now: the linear size of the function's
           (local-size :set-to ...); nil in a one-dimensional kernel that
           declares none (crisp chooses one after the body, sidechan.c,
           following the library's (%default-local-size N)); :unknown
           elsewhere (:derive-from, a kernel of 2 or 3 dimensions, a
           function that declares none).  The grid scans' tile shape
           follows it (lib/scan-grid.crisp, docs/library.md "Scans"). */
        NEED(0);
        const CFunc *fn = ck->cur ? ck->cur->fn : NULL;
        const SizeDecl *sd = fn ? &cfunc_rare(fn)->lsize : NULL;
        if (sd && sd->present && sd->nset > 0) {
            int64_t l = 1;
            for (int d = 0; d < sd->nset; d++) l *= sd->set_to[d] > 0 ? sd->set_to[d] : 1;
            *out = syn_int(ck->a, form->loc, l);
        } else if (fn && fn->kind == FN_KERNEL && !sd->present && !fn->exact && !fn->single_task && cfunc_gsize(fn)->dims <= 1) {
            *out = ev->nil;
        } else {
            *out = syn_keyword(ck->a, form->loc, "unknown");
        }
        return 1;
    } else if (syn_streq(name, "%aligned-buffer?")) {
        NEED(1);
        r = aligned_buffer(ck, a[0]);
    } else if (syn_streq(name, "%struct-fields")) {
        NEED(1);
        *out = struct_fields(ck, a[0]);
        return *out ? 1 : 0;
    } else if (syn_streq(name, "%struct-field-types")) {
        NEED(1);
        *out = struct_field_types(ck, a[0]);
        return *out ? 1 : 0;
    } else if (is_run_time_function(ck, name)) {
        /* a run-time function called at compile time, as in a macro's
           default argument: the call, as code (staging) */
        Node **k = arena_alloc(ck->a, sizeof *k * (size_t)(n + 1));
        if (!k) return -1;
        k[0] = syn_symbol(ck->a, form->loc, name);
        for (int i = 0; i < n; i++) k[i + 1] = a[i];
        *out = syn_list(ck->a, form->loc, k, n + 1);
        return 1;
    } else {
        /* is-STRUCT? for a def-struct or derived type STRUCT */
        size_t len = strlen(name);
        if (n == 1 && len > 4 && !strncmp(name, "is-", 3) && name[len - 1] == '?') {
            Sym *s = ck_global_lookup(ck, arena_strndup(ck->a, name + 3, len - 4));
            if (s && s->kind == SYM_TYPE) {
                Type *want = ck_type_expr(ck, syn_symbol(ck->a, form->loc, s->name));
                Type *t = want ? type_arg(ck, ev, form, a[0]) : NULL;
                r = t ? ty_equal(t, want) : -1;
            }
        }
        if (r == -2) return 0;
    }
#undef NEED
    if (r != -2) {
        if (r < 0) return -1;
        *out = truth(ev, r);
        return 1;
    }
    if (!*out) {
        if (ck->d->errors == errs && !ev->failed) eval_error(ev, form, "`%s` failed", name);
        return -1;
    }
    return 1;
}

/* Symbols with no compile-time binding: type names evaluate to
 * themselves, def-consts and def-parameters to their values. */
static int host_var(Eval *ev, void *ud, const Node *sym, Node **out) {
    (void)ev;
    Checker *ck = ck_of(ud);
    if (sym->kind != N_SYMBOL || sym->ann) return 0;
    if (names_type(ck, sym)) {
        *out = (Node *)(uintptr_t)sym;
        return 1;
    }
    Sym *s = ck_global_lookup(ck, sym->key);
    if (!s) s = ck_parameter_lookup(ck, sym);
    if (s && (s->kind == SYM_CONST || s->kind == SYM_PARAMETER)) {
        Node *v = ck_global_const_value(ck, s);
        if (v && v->kind == N_C_INTLIT && ty_is_int(v->ty)) *out = syn_int(ck->a, sym->loc, v->ival);
        else if (v && v->kind == N_C_FLOATLIT) *out = syn_float(ck->a, sym->loc, v->fval);
        else return 0;
        return 1;
    }
    return 0;
}

void ctquery_install(Checker *ck) {
    Eval *ev = ck->ev;
    if (!ev) return;
    ev->host_call = host_call;
    ev->host_var = host_var;
    ev->host_ud = ck;
}
