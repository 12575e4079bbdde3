/* collect.c - the checker's first pass: every top-level definition.
 *
 * Why it exists: Crisp compiles in several passes (spec "multi-pass"
 * compilation), so definitions may come in any order.  This pass expands
 * each top-level form's macros, then records what each definition names -
 * kernels and functions (FuncDef, their signatures as written), constants,
 * parameters, types, setters, templates, def-const-vecs - without checking
 * any body.  The library's definitions come first; a program's own
 * definition of the same name replaces the library's. */
#include <ctype.h>
#include <string.h>

#include "../macros/expand.h"
#include "consteval.h"

/* arena_push, storing in place while there is room (no call) */
#define PUSH(a, arr, n, cap, item)                                                                                     \
    ((n) < (cap) ? (void)((arr)[(n)++] = (void *)(item)) : arena_push((a), (void ***)&(arr), &(n), &(cap), (void *)(item)))

/* A symbol of kind K for the name NAME (not yet in any scope). */
Sym *ck_sym_named(Checker *ck, SymKind k, Node *name) {
    Sym *s = arena_alloc(ck->a, sizeof *s);
    if (!s) return NULL;
    s->kind = k;
    s->name = name->name;
    s->key = name->key;
    s->def = name;
    if (k == SYM_FNVAL) ck->nfnvals++;
    return s;
}

/* A new global of kind K named NAME; NULL (after E0101) when taken. */
Sym *ck_new_global(Checker *ck, SymKind k, Node *name) {
    Sym *s = ck_sym_named(ck, k, name);
    if (!s) return NULL;
    Sym *old = ck_global_lookup(ck, name->key);
    s->from_lib = ck->in_library;
    if (old && old->from_lib && !ck->in_library) {
        /* the program's own definition replaces the library's */
        for (int i = 0; i < ck->globals.n; i++)
            if (ck->globals.syms[i] == old) ck->globals.syms[i] = s;
        if (ck->globals.idx.cap) strmap_put(ck->a, &ck->globals.idx, s->key, s);
        ck->globals.version++; /* ck_global_lookup's memo (GlobalMemo) */
        return s;
    }
    if (old) {
        diag_error_at(ck->d, name, "E0101", "`%s` is already defined", name->name);
        if (old->def) diag_note(ck->d, old->def->loc, "previous definition of `%s` is here", old->name);
        return NULL;
    }
    ck_scope_insert(ck->a, &ck->globals, s);
    return s;
}

static int is_c_identifier(const char *s) {
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_')) return 0;
    return 1;
}

/* Parse parameters and declarations of a def-kernel / def-function. */
static FuncDef *collect_func(Checker *ck, Node *form, FnKind kind) {
    const char *what = syn_head(form);
    if (form->nkids < 3 || form->kids[1]->kind != N_SYMBOL || !syn_is_list(form->kids[2]) ||
        syn_is_form(form->kids[2], "declare")) {
        const char *found = form->nkids < 2 ? "nothing"
                            : form->kids[1]->kind != N_SYMBOL ? syn_to_string(ck->a, form->kids[1], 30)
                            : form->nkids < 3 ? "no parameter list"
                                              : syn_to_string(ck->a, form->kids[2], 30);
        diag_error_at(ck->d, form, "E0102", "expected (%s name (params...) body...), found `%s` where the %s belongs",
                      what, found, form->nkids >= 2 && form->kids[1]->kind == N_SYMBOL ? "parameter list" : "name");
        return NULL;
    }
    Node *name = form->kids[1];
    FuncDef *fd = arena_alloc(ck->a, sizeof *fd);
    if (!fd) return NULL;
    fd->kind = kind;
    fd->name = name->name;
    fd->key = kind == FN_KERNEL ? name->name : name->key;
    fd->form = form;
    fd->from_lib = ck->in_library;
    if (kind == FN_KERNEL) {
        if (!is_c_identifier(name->name)) {
            diag_error_at(ck->d, name, "E0103",
                          "kernel name `%s` is not a valid C identifier (use letters, digits and underscores, e.g. `%s`)",
                          name->name, ck_mangle(ck, name->name));
            fd->bad = 1;
        } else if (ck_is_reserved(ck, name->name)) {
            /* a kernel keeps its name on the host: it cannot be renamed */
            diag_error_at(ck->d, name, "E0103",
                          ck_has_reserved_prefix(ck, name->name)
                              ? "kernel name `%s` starts with a prefix %s or crisp reserves; choose another name, e.g. `k_%s`"
                              : "kernel name `%s` is a keyword or built-in of %s; choose another name, e.g. `%s_kernel`",
                          name->name, ck_names_language(ck), name->name);
            fd->bad = 1;
        }
        /* one probe for the question and the entry (issue 14) */
        void **slot = strmap_slot(ck->a, &ck->kernels_idx, name->name);
        FuncDef *prev = slot ? *slot : NULL;
        if (prev) {
            diag_error_at(ck->d, name, "E0104", "kernel `%s` is already defined (kernels cannot be overloaded)", name->name);
            diag_note(ck->d, prev->form->loc, "previous definition is here");
            fd->bad = 1;
        } else if (slot) {
            *slot = fd;
        }
    } else {
        /* a second definition of a name is an overload (spec "Function
           Overloading"); identical signatures are rejected once resolved */
        FuncDef *old = ck_func_lookup(ck, fd->key);
        if (old) fd->overloaded = old->overloaded = 1;
    }
    Node *pl = form->kids[2];
    fd->params = arena_alloc(ck->a, sizeof(ParamDecl) * (size_t)(pl->nkids + 1));
    if (!fd->params) return NULL;
    int out = 0, mode = 0;
    for (int i = 0; i < pl->nkids; i++) {
        Node *p = pl->kids[i];
        if (syn_is_sym(p, "&out")) {
            if (kind == FN_FUNCTION)
                diag_error_at(ck->d, p, "E0106", "`&out` is for kernels and grid functions");
            out = 1;
            continue;
        }
        if (syn_is_sym(p, "&optional") || syn_is_sym(p, "&key")) {
            /* spec style H: defaults are filled in at each call */
            int m = p->key[1] == 'o' ? 1 : 2;
            if (kind == FN_KERNEL) {
                diag_error_at(ck->d, p, "E0107", "kernels do not take `%s` parameters", p->name);
                fd->bad = 1;
            } else if (m < mode || (m == mode)) {
                diag_error_at(ck->d, p, "E0110", "`%s` after %s: the order is required, &optional, &key", p->name,
                              mode == 1 ? "&optional" : "&key");
                fd->bad = 1;
            }
            mode = m;
            continue;
        }
        if (p->kind == N_SYMBOL && (p->key[0] == '&')) {
            diag_error_at(ck->d, p, "E0107", "unknown lambda-list keyword `%s` (expected &optional, &key or &out)", p->name);
            fd->bad = 1;
            continue;
        }
        Node *deflt = NULL;
        if (mode && p->kind == N_LIST && p->nkids == 2 && p->kids[0]->kind == N_SYMBOL) {
            deflt = p->kids[1]; /* (name default) */
            p = p->kids[0];
        }
        if (p->kind != N_SYMBOL) {
            diag_error_at(ck->d, p, "E0108", "expected a parameter name, found `%s`", syn_to_string(ck->a, p, 40));
            fd->bad = 1;
            continue;
        }
        for (int j = 0; j < fd->nparams; j++)
            if (syn_streq(fd->params[j].name->key, p->key)) {
                diag_error_at(ck->d, p, "E0109", "parameter `%s` appears twice", p->name);
                fd->bad = 1;
            }
        fd->params[fd->nparams].name = p;
        fd->params[fd->nparams].is_out = out;
        fd->params[fd->nparams].mode = mode;
        fd->params[fd->nparams].deflt = deflt;
        fd->nparams++;
    }
    int i = 3;
    if (i < form->nkids - 1 && form->kids[i]->kind == N_STRING) i++; /* docstring */
    int ndecl = 0;
    while (i + ndecl < form->nkids && syn_is_form(form->kids[i + ndecl], "declare")) ndecl++;
    fd->decls = (const Node **)(form->kids + i);
    fd->ndecls = ndecl;
    fd->body = form->kids + i + ndecl;
    fd->nbody = form->nkids - i - ndecl;
    fd->cname_base = kind == FN_KERNEL ? name->name : ck_mangle(ck, name->name);
    PUSH(ck->a, ck->funcs, ck->nfuncs, ck->capfuncs, fd);
    ck_func_index(ck, fd);
    return fd;
}

/* A template instance: collected like a hand-written definition; function
 * instances join the overloads of their name. */
FuncDef *ck_collect_instance(Checker *ck, Node *form, FnKind kind, const char *cname_base) {
    FuncDef *fd = collect_func(ck, form, kind);
    if (!fd) return NULL;
    if (kind != FN_KERNEL) {
        fd->cname_base = cname_base;
        ck_fnbase_put(ck, cname_base, fd);
        fd->overloaded = 1;
        fd->is_instance = 1;
    }
    ck_resolve_signature(ck, fd);
    return fd->bad ? NULL : fd;
}

static void collect_const(Checker *ck, Node *form) {
    const char *h = syn_head(form);
    if (form->nkids != 3 || form->kids[1]->kind != N_SYMBOL) {
        diag_error_at(ck->d, form, "E0110", "expected (%s name value)", h);
        return;
    }
    Sym *s = ck_new_global(ck, SYM_CONST, form->kids[1]);
    if (!s) return;
    sym_rare_w(ck->a, s)->type_syn = form->kids[1]->ann;
    sym_rare_w(ck->a, s)->init = form->kids[2];
    s->immutable = 1;
}

static void collect_parameter(Checker *ck, Node *form) {
    if (form->nkids < 2 || form->nkids > 3 || form->kids[1]->kind != N_SYMBOL) {
        diag_error_at(ck->d, form, "E0111", "expected (def-parameter NAME[:type] [default])");
        return;
    }
    Node *name = form->kids[1];
    Sym *s = ck_new_global(ck, SYM_PARAMETER, name);
    if (!s) return;
    s->key = name->name; /* parameters are case sensitive */
    sym_rare_w(ck->a, s)->type_syn = name->ann;
    sym_rare_w(ck->a, s)->init = form->nkids == 3 ? form->kids[2] : NULL;
    s->immutable = 1;
}

static int all_symbols(const Node *list) {
    for (int i = 0; i < list->nkids; i++)
        if (list->kids[i]->kind != N_SYMBOL) return 0;
    return 1;
}

static void collect(Checker *ck, Node *f) {
    const char *h = syn_head(f);
    if (!h) {
        diag_error_at(ck->d, f, "E0130", "expected a top-level definition such as (def-kernel ...), found `%s`",
                      syn_to_string(ck->a, f, 40));
        return;
    }
    /* the definitions by what follows def- (issue 14: most of the
       tests below shared its first bytes, and strcmp ran for each) */
    const char *def = h[0] == 'd' && h[1] == 'e' && h[2] == 'f' && h[3] == '-' ? h + 4 : NULL;
    if (def && syn_streq(def, "kernel")) collect_func(ck, f, FN_KERNEL);
    else if (def && syn_streq(def, "function")) {
        if (!ck_hof_collect(ck, f)) collect_func(ck, f, FN_FUNCTION);
    }
    else if (def && syn_streq(def, "grid-function")) collect_func(ck, f, FN_GRID);
    else if (def && syn_streq(def, "struct")) ck_struct_collect(ck, f);
    else if (def && syn_streq(def, "enumeration")) ck_enum_collect(ck, f);
    else if (def && syn_streq(def, "derived-type")) ck_derived_collect(ck, f);
    else if (def && syn_streq(def, "setter")) {
        if (f->nkids < 4 || f->kids[1]->kind != N_SYMBOL || !syn_is_list(f->kids[2]) || f->kids[2]->nkids < 2)
            diag_error_at(ck->d, f, "E0170", "expected (def-setter NAME~ (object [index...] new-value) body...)");
        else if (!all_symbols(f->kids[2]))
            diag_error_at(ck->d, f->kids[2], "E0170", "def-setter parameters are names, as in (object [index...] new-value)");
        else if (f->nkids > 2 && syn_is_list(f->kids[2]) && f->kids[2]->nkids > 17)
            diag_error_at(ck->d, f->kids[2], "E0170", "a def-setter takes at most 15 indices");
        else if (!ck_setter_object_type(f))
            diag_error_at(ck->d, f->kids[2]->kids[0], "E0171",
                          "def-setter `%s` needs the type of its object `%s`: annotate it or (declare (type %s TYPE))",
                          f->kids[1]->key, syn_to_string(ck->a, f->kids[2]->kids[0], 30), syn_to_string(ck->a, f->kids[2]->kids[0], 30));
        else
            arena_push(ck->a, (void ***)&ck->setters, &ck->nsetters, &ck->capsetters, f);
    }
    else if (syn_streq(h, "set-derived")) {
        /* linked once every type is known (check_program) */
        ck->nderived_forms++;
    }
    else if (syn_streq(h, "with-template-type")) ck_template_collect(ck, f);
    else if (!strncmp(h, "gen-", 4)) {
        /* instantiated once every definition is known (check_program) */
        ck->ngen_forms++;
    }
    else if (def && syn_streq(def, "kernel-exact")) {
        FuncDef *fd = collect_func(ck, f, FN_KERNEL);
        if (fd) fd->exact = 1;
    }
    else if (def && (syn_streq(def, "const") || syn_streq(def, "constant"))) collect_const(ck, f);
    else if (def && syn_streq(def, "parameter")) collect_parameter(ck, f);
    else if (def && syn_streq(def, "type")) {
        if (f->nkids != 3 || f->kids[1]->kind != N_SYMBOL) {
            diag_error_at(ck->d, f, "E0131", "expected (def-type name type-expr)");
            return;
        }
        if (ty_lookup_base(f->kids[1]->key)) {
            diag_error_at(ck->d, f->kids[1], "E0132", "`%s` is a built-in type and cannot be redefined", f->kids[1]->name);
            return;
        }
        if (ck_is_signature_type(f->kids[2])) return; /* a signature alias: substituted by signature_aliases */
        Sym *s = ck_new_global(ck, SYM_TYPE, f->kids[1]);
        if (s) sym_rare_w(ck->a, s)->type_syn = f->kids[2];
    } else if (syn_streq(h, "declaim")) {
        /* static-analysis opt-ins: read by analysis/ */
        PUSH(ck->a, ck->prog->declaims, ck->prog->ndeclaims, ck->prog->capdeclaims, f);
    } else if (syn_streq(h, "declare")) {
        /* (declare (type +PI+ float)) after a def-const: spec style */
        for (int j = 1; j < f->nkids; j++) {
            Node *e = f->kids[j];
            if (syn_is_form(e, "type") && e->nkids >= 3) {
                for (int k = 1; k < e->nkids - 1; k++) {
                    Sym *s = e->kids[k]->kind == N_SYMBOL ? ck_global_lookup(ck, e->kids[k]->key) : NULL;
                    if (!s) s = ck_parameter_lookup(ck, e->kids[k]);
                    if (!s || (s->kind != SYM_CONST && s->kind != SYM_PARAMETER)) {
                        diag_error_at(ck->d, e->kids[k], "E0133", "top-level (declare (type ...)) names no def-const or def-parameter `%s`",
                                      syn_to_string(ck->a, e->kids[k], 30));
                        continue;
                    }
                    sym_rare_w(ck->a, s)->type_syn = e->kids[e->nkids - 1];
                }
            } else {
                diag_error_at(ck->d, e, "E0134", "only (type ...) may be declared at top level");
            }
        }
    } else if (def && syn_streq(def, "const-vec")) {
        if (f->nkids < 3 || f->kids[1]->kind != N_SYMBOL) {
            diag_error_at(ck->d, f, "E0180", "expected (def-const-vec NAME body...)");
            return;
        }
        Sym *s = ck_new_global(ck, SYM_CONSTVEC, f->kids[1]);
        if (s) {
            sym_rare_w(ck->a, s)->init = f;
            s->immutable = 1;
        }
    } else if (syn_streq(h, "%host-bitonic-sort") || syn_streq(h, "%host-radix-sort")) {
        /* written by gen-bitonic-sort-vector and gen-radix-sort-vector (lib/sort.crisp) */
        int radix = syn_streq(h, "%host-radix-sort");
        int ok = f->nkids == (radix ? 10 : 7) && f->kids[5]->kind == N_INT && f->kids[5]->ival > 0 &&
                 f->kids[5]->ival <= 65536 && f->kids[6]->kind == N_INT;
        for (int i = 7; ok && i < f->nkids; i++) ok = f->kids[i]->kind == N_INT && f->kids[i]->ival > 0 && f->kids[i]->ival <= 1024;
        for (int i = 1; ok && i < 5; i++) ok = f->kids[i]->kind == N_STRING && f->kids[i]->slen > 0;
        if (!ok) {
            diag_error_at(ck->d, f, "E0130", "expected (%s \"name\" \"kernel\" \"kernel\" \"kernel\" N N%s)", h, radix ? " N N N" : "");
            return;
        }
        HostSort *hs = arena_alloc(ck->a, sizeof *hs);
        if (!hs) return;
        hs->kind = radix ? HOST_SORT_RADIX : HOST_SORT_BITONIC;
        hs->name = f->kids[1]->name;
        for (int i = 0; i < 3; i++) hs->kernel[i] = f->kids[2 + i]->name;
        if (radix) {
            hs->passes = (int)f->kids[5]->ival;
            hs->pairs = f->kids[6]->ival != 0;
            hs->digit_bits = (int)f->kids[7]->ival;
            hs->wg = (int)f->kids[8]->ival;
            hs->kpt = (int)f->kids[9]->ival;
            hs->in_place = 1;
        } else {
            hs->wg = (int)f->kids[5]->ival;
            hs->in_place = f->kids[6]->ival != 0;
        }
        hs->line = f->loc.line;
        PUSH(ck->a, ck->prog->sorts, ck->prog->nsorts, ck->prog->capsorts, hs);
    } else if (def && syn_streq(def, "orchestration")) {
        orch_collect(ck, f, NULL);
    } else {
        diag_error_at(ck->d, f, "E0130",
                      "expected a top-level definition (def-kernel, def-function, def-grid-function, def-type, def-const, def-parameter), found `(%s ...)`",
                      f->kids[0]->name);
    }
}

/* A form name past its "def-" the same as B?  (Compared here: short
 * names, and a strcmp call per top-level form cost more; issue 14.) */
static inline int def_name_is(const char *a, const char *b) {
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}

/* Spec "Type Aliases and Type Constructors": (def-type binT #'(long long =>
 * long)) names a function signature.  Signatures are syntax to the checker
 * (a function argument is specialised per call), so before a function is
 * collected, an alias defined earlier is replaced by its signature where the
 * function's parameter types are written: annotations and (declare (type
 * P... ALIAS)). */
static Node *alias_signature(Checker *ck, Node *t) {
    for (int j = 0; t && t->kind == N_SYMBOL && j < ck->nsigs; j++)
        if (syn_streq(ck->sig_names[j]->key, t->key)) return ck->sig_types[j];
    return NULL;
}

static void signature_aliases(Checker *ck, Node *f) {
    /* every form it acts on is a def-: the others are out after one look
       at the head, and def-type is told by what follows "def-" (issue 14:
       a strcmp per top-level form, 0.5 M instructions at 1 MB) */
    const char *h = syn_head(f);
    if (!h || h[0] != 'd' || h[1] != 'e' || h[2] != 'f' || h[3] != '-') return;
    int def_type = def_name_is(h + 4, "type");
    if (def_type && f->nkids == 3 && syn_is_form(f->kids[2], "type-signature-of") && f->kids[2]->nkids == 2) {
        /* (def-type NAME (type-signature-of #'f)): the signature of a
           function defined before (spec "First Order Functions") */
        Node *fn = f->kids[2]->kids[1];
        const char *name = syn_is_form(fn, "function") && fn->nkids == 2 && fn->kids[1]->kind == N_SYMBOL ? fn->kids[1]->key : NULL;
        Node *sig = name ? ctq_signature_syntax(ck, name, f->kids[2]->loc) : NULL;
        if (!sig) return; /* reported once, when the alias is resolved (typeexpr.c) */
        sig->kind = N_LIST; /* #'(P... => R), as a signature alias is written */
        Node *k[2] = {syn_symbol(ck->a, sig->loc, "function"), sig};
        f->kids[2] = syn_list(ck->a, sig->loc, k, 2);
    }
    if (def_type && f->nkids == 3 && f->kids[1]->kind == N_SYMBOL && ck_is_signature_type(f->kids[2])) {
        int cap = ck->capsigs;
        arena_push(ck->a, (void ***)&ck->sig_names, &ck->nsigs, &ck->capsigs, f->kids[1]);
        ck->nsigs--;
        ck->capsigs = cap;
        arena_push(ck->a, (void ***)&ck->sig_types, &ck->nsigs, &ck->capsigs, f->kids[2]);
        return;
    }
    if (!ck->nsigs || !(def_name_is(h + 4, "function") || def_name_is(h + 4, "grid-function")) || f->nkids < 3 ||
        f->kids[2]->kind != N_LIST)
        return;
    for (int k = 0; k < f->kids[2]->nkids; k++) {
        Node *p = f->kids[2]->kids[k], *sg = p->kind == N_SYMBOL ? alias_signature(ck, p->ann) : NULL;
        if (sg) p->ann = sg;
    }
    for (int j = 3; j < f->nkids && (syn_is_form(f->kids[j], "declare") || f->kids[j]->kind == N_STRING); j++)
        for (int m = 1; f->kids[j]->kind == N_LIST && m < f->kids[j]->nkids; m++) {
            Node *e = f->kids[j]->kids[m];
            Node *sg = syn_is_form(e, "type") && e->nkids >= 3 ? alias_signature(ck, e->kids[e->nkids - 1]) : NULL;
            if (sg) e->kids[e->nkids - 1] = sg;
        }
}

/* Pass 1 for one top-level form as read: its macros expanded (expand.h),
 * then each resulting definition collected. */
static void collect_toplevel(Checker *ck, Node *form, Forms *all) {
    Forms out = {0};
    expander_toplevel(ck->x, form, &out);
    for (int i = 0; i < out.n && !ck->c->diag.fatal; i++) {
        signature_aliases(ck, out.v[i]);
        collect(ck, out.v[i]);
        forms_push(ck->a, all, out.v[i]);
    }
}

/* Pass "collect": the library's definitions, then the program's, in
 * order; ck->forms gets every definition (its macros expanded). */
/* The kernels and the functions among FORMS as written. */
static void count_functions(Forms forms, int *nkernels, int *nfuncs) {
    for (int i = 0; i < forms.n; i++) {
        const char *h = syn_head(forms.v[i]);
        if (!h || h[0] != 'd' || h[1] != 'e' || h[2] != 'f' || h[3] != '-') continue;
        if (syn_streq(h + 4, "kernel") || syn_streq(h + 4, "kernel-exact")) ++*nkernels;
        else if (syn_streq(h + 4, "function") || syn_streq(h + 4, "grid-function")) ++*nfuncs;
    }
}

/* Room in the tables that hold every function for the functions the
 * program and the library define as written (a macro's come on top):
 * issue 14, they were rehashed at every doubling. */
static void reserve_functions(Checker *ck, Forms lib) {
    int nk = 0, nf = 0;
    count_functions(lib, &nk, &nf);
    count_functions(ck->read, &nk, &nf);
    strmap_reserve(ck->a, &ck->kernels_idx, nk);
    strmap_reserve(ck->a, &ck->funcs_idx, nf);
    strmap_reserve(ck->a, &ck->fnbases, nk + nf);
    /* each kernel and each function's first instance take a file-scope C
       name; the functions' first instances are indexed by it */
    strmap_reserve(ck->a, &ck->cnames.live, nk + nf);
    strmap_reserve(ck->a, &ck->prog->funcs_by_cname, nf);
}

void ck_pass_collect(Checker *ck) {
    Crisp *c = ck->c;
    reserve_functions(ck, ck->x ? expander_library(ck->x) : (Forms){0});
    if (ck->x) {
        Forms lib = expander_library(ck->x);
        ck->in_library = 1;
        for (int i = 0; i < lib.n && !c->diag.fatal; i++) {
            signature_aliases(ck, lib.v[i]);
            collect(ck, lib.v[i]);
            forms_push(ck->a, &ck->forms, lib.v[i]);
        }
        ck->in_library = 0;
    }
    if (ck->x) expander_expect(ck->x, ck->read.n);
    for (int i = 0; i < ck->read.n && !c->diag.fatal; i++) {
        if (ck->x) collect_toplevel(ck, ck->read.v[i], &ck->forms);
        else {
            signature_aliases(ck, ck->read.v[i]);
            collect(ck, ck->read.v[i]);
            forms_push(ck->a, &ck->forms, ck->read.v[i]);
        }
    }
}
