/* templates.c - with-template-type: generic functions, kernels, structs and
 * type aliases (spec "Template Types", "XXXX-type", "gen-XXXX", "type
 * constraints").
 *
 * A template is kept as syntax.  An instance is the same definition with
 * the template parameters replaced by concrete types (or values), checked
 * like any hand-written definition: a function instance joins the
 * overloads of its name, so ordinary overload resolution picks it.
 * Instances are made by
 *   - a call to a templated function: the parameters are deduced from the
 *     exact argument types (no promotion during deduction);
 *   - (gen-NAME ARGS...) at top level (kernels: (gen-NAME ARGS... "c_name"));
 *   - (NAME-type ARGS...) in a type position (structs and def-type).
 * Constraints (declare (type-is T #'pred)) are checked for every instance.
 * &optional / &key parameters take their defaults when not given (or not
 * deducible at a call); a default is resolved like a written argument, so
 * both spellings find the same instance.  nil in (NAME-type ...) leaves a
 * part open (an incomplete type): a def-type vector alias loses its element
 * type, a struct template becomes a placeholder (Pattern) matching its
 * instances; both are completed from the argument at each call. */
#include <string.h>

#include "../macros/eval.h"
#include "../macros/expand.h"
#include "check_int.h"

typedef struct TmplInst {
    Type **args;
    Node **vals;
    int nargs;
    FuncDef *fd;          /* function instances */
    Type *ty;             /* struct / alias instances */
    int failed;           /* its computed fields failed (reported once) */
} TmplInst;

struct Template {
    const char *name, *key;
    Node *form;           /* the wrapped def-... form */
    const char *kind;     /* "def-function", "def-kernel", "def-struct", ... */
    Node **params;        /* parameter symbols */
    Node **defaults;      /* &optional / &key defaults (syntax) or NULL */
    char *iskey;          /* 1 for &key parameters (given as :NAME VALUE) */
    int nparams, nrequired;
    Node **constraints;   /* (type-is T #'pred) / (value-is P #'pred) */
    int nconstraints;
    TmplInst **insts;
    int ninsts, capinsts;
    int counter;
};

static Diag *D(Checker *ck) {
    return ck->d;
}

Template *ck_template_lookup(Checker *ck, const char *key) {
    for (int i = 0; i < ck->ntemplates; i++)
        if (syn_streq(ck->templates[i]->key, key)) return ck->templates[i];
    return NULL;
}

/* Is KEY a templated def-type (its NAME-type makes an alias)? */
int ck_template_is_def_type(Checker *ck, const char *key) {
    Template *t = ck_template_lookup(ck, key);
    return t && syn_streq(t->kind, "def-type");
}

/* Does syntax N mention the symbol KEY (anywhere, annotations included)? */
static int mentions(const Node *n, const char *key, int depth) {
    if (!n || depth > 10000) return 0;
    if (n->kind == N_SYMBOL) return syn_streq(n->key, key) || mentions(n->ann, key, depth + 1);
    if (n->kind == N_LIST || n->kind == N_VECLIT || n->kind == N_HWVEC)
        for (int i = 0; i < n->nkids; i++)
            if (mentions(n->kids[i], key, depth + 1)) return 1;
    return 0;
}

/* An &optional / &key template parameter that was not given and has no
 * default is absent: nil inside the template (spec "&optional &key":
 * `(when C '(color:C))`).  It is kept apart from an explicit nil, which
 * makes an incomplete type. */
static Node *absent_node(Checker *ck, SrcLoc loc) {
    Node *n = syn_symbol(ck->a, loc, "nil");
    n->key = "%absent";
    return n;
}

static int is_absent(const Node *n) {
    return n && n->kind == N_SYMBOL && syn_streq(n->key, "%absent");
}

/* Is template argument I left open (an explicit nil: incomplete)? */
static int is_open(Type *const *args, Node *const *vals, int i) {
    return !args[i] && syn_is_nil(vals[i]);
}

/* (with-template-type (T U &optional (M 0)) [(declare (type-is T #'p)...)] DEF...) */
/* NAME replaced by VALUE in `n`; a call (NAME ARG...) becomes
 * (funcall VALUE ARG...), since VALUE is a function value such as
 * (gen-make-reduction-local-scratch-vec T M). */
static Node *subst_value(Checker *ck, Node *n, Node **names, Node **vals, int nb, int depth) {
    if (depth > 500) return n;
    if (n->kind == N_SYMBOL && !n->ann) {
        for (int k = 0; k < nb; k++)
            if (syn_streq(n->key, names[k]->key)) return vals[k];
        return n;
    }
    if (n->kind != N_LIST && n->kind != N_VECLIT && n->kind != N_HWVEC) return n;
    Node *c = NULL;
    int head_is_name = -1;
    if (n->kind == N_LIST && n->nkids && n->kids[0]->kind == N_SYMBOL && !n->kids[0]->ann)
        for (int k = 0; k < nb; k++)
            if (syn_streq(n->kids[0]->key, names[k]->key)) head_is_name = k;
    if (head_is_name >= 0) {
        Node **kids = arena_alloc(ck->a, sizeof(Node *) * (size_t)(n->nkids + 1));
        if (!kids) return n;
        kids[0] = syn_symbol(ck->a, n->kids[0]->loc, "funcall");
        kids[1] = vals[head_is_name];
        for (int j = 1; j < n->nkids; j++) kids[j + 1] = subst_value(ck, n->kids[j], names, vals, nb, depth + 1);
        c = syn_list(ck->a, n->loc, kids, n->nkids + 1);
        if (c) c->origin = n->origin;
        return c ? c : n;
    }
    for (int j = 0; j < n->nkids; j++) {
        Node *k = subst_value(ck, n->kids[j], names, vals, nb, depth + 1);
        if (k == n->kids[j]) continue;
        if (!c && !(c = syn_copy(ck->a, n))) return n;
        c->kids[j] = k;
    }
    return c ? c : n;
}

/* The definitions of a with-template-type body entry: DEF itself, or those
 * inside (let ((NAME VALUE)...) DEF...) with the bindings substituted. */
static void let_definitions(Checker *ck, Node *def, Node **names, Node **vals, int nb, Node ***out, int *n, int *cap,
                            int depth) {
    if ((syn_is_form(def, "let") || syn_is_form(def, "let*")) && def->nkids >= 3 && def->kids[1]->kind == N_LIST && depth < 16) {
        Node *bl = def->kids[1];
        Node **nn = arena_alloc(ck->a, sizeof(Node *) * (size_t)(nb + bl->nkids + 1));
        Node **vv = arena_alloc(ck->a, sizeof(Node *) * (size_t)(nb + bl->nkids + 1));
        if (!nn || !vv) return;
        for (int k = 0; k < nb; k++) nn[k] = names[k], vv[k] = vals[k];
        int m = nb;
        for (int k = 0; k < bl->nkids; k++) {
            Node *b = bl->kids[k];
            if (b->kind == N_LIST && b->nkids == 2 && b->kids[0]->kind == N_SYMBOL) {
                nn[m] = b->kids[0];
                vv[m++] = subst_value(ck, b->kids[1], names, vals, nb, 0);
            } else {
                diag_error_at(D(ck), b, "E1004", "a binding around templated definitions is (NAME VALUE), found `%s`",
                              syn_to_string(ck->a, b, 30));
            }
        }
        for (int j = 2; j < def->nkids; j++) let_definitions(ck, def->kids[j], nn, vv, m, out, n, cap, depth + 1);
        return;
    }
    arena_push(ck->a, (void ***)out, n, cap, nb ? subst_value(ck, def, names, vals, nb, 0) : def);
}

void ck_template_collect(Checker *ck, Node *form) {
    if (form->nkids < 3 || !syn_is_list(form->kids[1])) {
        diag_error_at(D(ck), form, "E1001", "expected (with-template-type (T ...) (def-... ))");
        return;
    }
    Node *pl = form->kids[1];
    Node **params = arena_alloc(ck->a, sizeof(Node *) * (size_t)(pl->nkids + 1));
    Node **defs = arena_alloc(ck->a, sizeof(Node *) * (size_t)(pl->nkids + 1));
    char *iskey = arena_alloc(ck->a, (size_t)(pl->nkids + 1));
    if (!params || !defs || !iskey) return;
    int np = 0, nreq = 0, optional = 0, key = 0;
    for (int i = 0; i < pl->nkids; i++) {
        Node *p = pl->kids[i];
        if (syn_is_sym(p, "&optional") || syn_is_sym(p, "&key")) {
            optional = 1;
            if (syn_is_sym(p, "&key")) key = 1;
            continue;
        }
        Node *d = NULL;
        if (optional && p->kind == N_LIST && p->nkids == 2 && p->kids[0]->kind == N_SYMBOL) {
            d = p->kids[1];
            p = p->kids[0];
        }
        if (p->kind != N_SYMBOL || p->ann) {
            diag_error_at(D(ck), p, "E1002", "a template parameter is a name, found `%s`", syn_to_string(ck->a, p, 30));
            return;
        }
        params[np] = p;
        iskey[np] = (char)key;
        defs[np++] = d;
        if (!optional) nreq++;
    }
    for (int k = 0; k < np; k++)
        for (int j = k; j < np && defs[k]; j++)
            if (mentions(defs[k], params[j]->key, 0)) {
                diag_error_at(D(ck), defs[k], "E1019",
                              "the default of template parameter `%s` refers to `%s`, which is not an earlier parameter", params[k]->name,
                              params[j]->name);
                return;
            }
    int i = 2;
    Node **cons = NULL;
    int ncons = 0, capcons = 0;
    for (; i < form->nkids && syn_is_form(form->kids[i], "declare"); i++) {
        Node *d = form->kids[i];
        for (int j = 1; j < d->nkids; j++) {
            Node *c = d->kids[j];
            if ((syn_is_form(c, "type-is") || syn_is_form(c, "value-is")) && c->nkids >= 3)
                arena_push(ck->a, (void ***)&cons, &ncons, &capcons, c);
            else
                diag_error_at(D(ck), c, "E1003", "expected (type-is T #'predicate) or (value-is P #'predicate), found `%s`",
                              syn_to_string(ck->a, c, 40));
        }
    }
    /* (let ((NAME VALUE)...) DEF...) between with-template-type and its
       definitions (spec "Template Types"): the bindings are compile-time
       values, substituted into the definitions */
    Node **flat = NULL;
    int nflat = 0, capflat = 0;
    for (int j = i; j < form->nkids; j++) let_definitions(ck, form->kids[j], NULL, NULL, 0, &flat, &nflat, &capflat, 0);
    for (int j = 0; j < nflat; j++) {
        Node *def = flat[j];
        const char *h = syn_head(def);
        if (!h || !(syn_streq(h, "def-function") || syn_streq(h, "def-grid-function") || syn_streq(h, "def-kernel") ||
                    syn_streq(h, "def-struct") || syn_streq(h, "def-type") || syn_streq(h, "def-orchestration"))) {
            diag_error_at(D(ck), def, "E1004",
                          "with-template-type wraps def-function, def-grid-function, def-kernel, def-struct, def-type or def-orchestration, found `%s`",
                          syn_to_string(ck->a, def, 30));
            continue;
        }
        if (def->nkids < 3 || def->kids[1]->kind != N_SYMBOL) {
            diag_error_at(D(ck), def, "E1004", "malformed templated `%s`", h);
            continue;
        }
        (void)i;
        Template *t = arena_alloc(ck->a, sizeof *t);
        if (!t) return;
        t->name = def->kids[1]->name;
        t->key = syn_streq(h, "def-kernel") ? def->kids[1]->name : def->kids[1]->key;
        t->form = def;
        t->kind = h;
        t->params = params;
        t->defaults = defs;
        t->iskey = iskey;
        t->nparams = np;
        t->nrequired = nreq;
        t->constraints = cons;
        t->nconstraints = ncons;
        arena_push(ck->a, (void ***)&ck->templates, &ck->ntemplates, &ck->captemplates, t);
    }
}

/* A symbol naming a concrete type, for substitution into syntax. */
static Node *type_name_node(Checker *ck, Type *t, SrcLoc loc) {
    if (t->kind == TY_STRUCT) return syn_symbol(ck->a, loc, t->sd->name);
    if (t->kind == TY_ENUM) return syn_symbol(ck->a, loc, t->ed->name);
    if (t->kind == TY_NUM || t->kind == TY_HWVEC || t->kind == TY_BOOL || t->kind == TY_VOID)
        return syn_symbol(ck->a, loc, ty_name(ck->a, t));
    /* an unnamed type (a vector type): a hidden alias */
    Sym *s = arena_alloc(ck->a, sizeof *s);
    if (!s) return syn_symbol(ck->a, loc, "nil");
    s->kind = SYM_TYPE;
    s->name = arena_printf(ck->a, "%%type%d", ck->globals.n);
    s->key = s->name;
    s->ty = t;
    ck_scope_insert(ck->a, &ck->globals, s);
    return syn_symbol(ck->a, loc, s->name);
}

static const char *arg_text(Checker *ck, Type *ty, Node *val) {
    if (ty) return ty_name(ck->a, ty);
    return syn_to_string(ck->a, val, 30);
}

static const char *arg_cname(Checker *ck, Type *ty, Node *val) {
    if (ty) {
        /* a vector argument is named after its element type alone */
        Type plain = *ty;
        if (ty->kind == TY_VECTOR) plain.tag = NULL, plain.soa = 0;
        return ck_type_part(ck, &plain);
    }
    return ck_mangle(ck, val->kind == N_KEYWORD ? val->name : syn_to_string(ck->a, val, 20));
}

/* Built-in type constraints (spec "type constraints"). */
static int builtin_constraint(Checker *ck, const char *pred, Type *ty, Node *val, int *known) {
    *known = 1;
    if (ty) {
        if (syn_streq(pred, "is-numeric?") || syn_streq(pred, "is-scalar?")) return ty->kind == TY_NUM;
        if (syn_streq(pred, "is-hardware-vector?")) return ty->kind == TY_HWVEC;
        if (syn_streq(pred, "is-integer?")) return ty_is_int(ty);
        if (syn_streq(pred, "is-floating-point?")) return ty_is_float(ty);
        if (syn_streq(pred, "is-orderable?")) return ty->kind == TY_NUM;
        if (syn_streq(pred, "is-signed?")) return ty->kind == TY_NUM && ty_category(ty) != CAT_UNSIGNED;
        size_t n = strlen(pred);
        if (!strncmp(pred, "is-", 3) && n > 4 && pred[n - 1] == '?') {
            const char *tn = arena_strndup(ck->a, pred + 3, n - 4);
            if (ty->kind == TY_STRUCT) return !strcmp(syn_lower(ck->a, ty->sd->name), tn);
            if (ty->kind == TY_ENUM) return !strcmp(syn_lower(ck->a, ty->ed->name), tn);
            Sym *s = ck_global_lookup(ck, tn);
            if (s && s->kind == SYM_TYPE) return 0;
        }
    } else if (val) {
        if (syn_streq(pred, "is-address-space?")) return val->kind == N_KEYWORD && ck_as_keyword(val->key) != AS_NONE;
        /* :std140 or :compact (spec "layout and alignment"); the spec's
           sorting blocks use it ((value-is A #'is-alignment?)) and define
           it nowhere */
        if (syn_streq(pred, "is-alignment?")) return val->kind == N_KEYWORD && ck_align_keyword(val->key) != AL_NONE;
        size_t n = strlen(pred);
        if (!strncmp(pred, "is-", 3) && n > 4 && pred[n - 1] == '?' && val->kind == N_KEYWORD) {
            Sym *s = ck_global_lookup(ck, arena_strndup(ck->a, pred + 3, n - 4));
            if (s && s->ty && s->ty->kind == TY_ENUM) {
                for (int i = 0; i < s->ty->ed->nkeys; i++)
                    if (syn_streq(s->ty->ed->keys[i], val->key)) return 1;
                return 0;
            }
        }
    }
    *known = 0;
    return 0;
}

static Eval *template_eval(Checker *ck);
static Node **arg_syntax(Checker *ck, Type **args, Node **vals, int n, SrcLoc loc);

/* (type-is T #'PRED) with a def-constraint PRED (spec "def-constraint"):
 * PRED run on the compile-time evaluator with the argument's type (or
 * value) quoted.  1 or 0; -1 when PRED is no def-constraint or %defun; -2
 * after an error in its body (reported). */
static int user_constraint(Checker *ck, Node *pred, Type *ty, Node *val) {
    Eval *ev = template_eval(ck);
    if (!ev || !eval_has_function(ev, pred->key)) return -1;
    Node **a = arg_syntax(ck, &ty, &val, 1, pred->loc);
    if (!a) return -2;
    Node *quote[2] = {syn_symbol(ck->a, pred->loc, "quote"), a[0]};
    Node *call[2] = {pred, syn_list(ck->a, pred->loc, quote, 2)};
    Node *v = eval_form(ev, syn_list(ck->a, pred->loc, call, 2));
    return v ? eval_truthy(v) : -2;
}

static int check_constraints(Checker *ck, Template *t, Type **args, Node **vals, const Node *at) {
    for (int i = 0; i < t->nconstraints; i++) {
        Node *c = t->constraints[i];
        int is_type = syn_is_form(c, "type-is");
        Node *pn = c->kids[1];
        Node *pred = c->kids[2];
        if (syn_is_form(pred, "function") && pred->nkids == 2) pred = pred->kids[1];
        int k = -1;
        for (int j = 0; j < t->nparams; j++)
            if (pn->kind == N_SYMBOL && syn_streq(t->params[j]->key, pn->key)) k = j;
        if (k < 0 || pred->kind != N_SYMBOL) {
            diag_error_at(D(ck), c, "E1005", "`%s` names no template parameter of `%s`", syn_to_string(ck->a, c, 40), t->name);
            return 0;
        }
        if (is_open(args, vals, k) || is_absent(vals[k])) continue; /* incomplete or absent */
        if (is_type && !args[k]) {
            diag_error_at(D(ck), at, "E1006", "`%s` expects a type for `%s`, found the value `%s`", t->name, pn->name,
                          syn_to_string(ck->a, vals[k], 30));
            return 0;
        }
        if (!is_type && args[k]) {
            diag_error_at(D(ck), at, "E1006", "`%s` expects a value for `%s` (value-is), found the type `%s`", t->name, pn->name,
                          ty_name(ck->a, args[k]));
            return 0;
        }
        int known;
        int ok = builtin_constraint(ck, pred->key, args[k], vals[k], &known);
        if (!known) { /* a def-constraint of the user's */
            int r = user_constraint(ck, pred, args[k], vals[k]);
            if (r == -2) return 0;
            if (r >= 0) {
                known = 1;
                ok = r;
            }
        }
        if (!known) {
            diag_error_at(D(ck), pred, "E1007", "unknown type constraint `%s`", pred->name);
            return 0;
        }
        if (!ok) {
            diag_error_at(D(ck), at, "E1008", "`%s` with %s = %s violates the constraint (%s %s #'%s)", t->name, pn->name,
                          arg_text(ck, args[k], vals[k]), is_type ? "type-is" : "value-is", pn->name, pred->name);
            diag_note(D(ck), c->loc, "the constraint is declared here");
            return 0;
        }
    }
    return 1;
}

static int same_args(TmplInst *in, Type **args, Node **vals, int n) {
    for (int i = 0; i < n; i++) {
        if (!!in->args[i] != !!args[i]) return 0;
        if (args[i] && !ty_equal(in->args[i], args[i])) return 0;
        if (!args[i] && strcmp(in->vals[i]->key ? in->vals[i]->key : "", vals[i]->key ? vals[i]->key : "")) return 0;
    }
    return 1;
}

/* An incomplete struct template (pair-type nil int): a placeholder struct
 * type that matches every instance of the template agreeing on the given
 * arguments.  A function parameter of this type is instantiated per call
 * with the argument's struct (check.c concrete_param). */
typedef struct Pattern {
    Template *t;
    TmplInst *in; /* the given arguments; nil ones have neither type nor value */
} Pattern;

static TmplInst *pattern_instance(Checker *ck, Template *t, TmplInst *in) {
    Pattern *pt = arena_alloc(ck->a, sizeof *pt);
    StructDef *sd = arena_alloc(ck->a, sizeof *sd);
    Type *ty = arena_alloc(ck->a, sizeof *ty);
    if (!pt || !sd || !ty) return NULL;
    pt->t = t;
    pt->in = in;
    const char *text = "";
    for (int i = 0; i < t->nparams; i++)
        text = arena_printf(ck->a, "%s %s", text, in->args[i] ? ty_name(ck->a, in->args[i]) : syn_to_string(ck->a, in->vals[i], 30));
    sd->name = arena_printf(ck->a, "(%s-type%s)", t->name, text);
    /* no identifier: a placeholder is never printed (a parameter of its
       type is instantiated per call with the argument's struct) */
    sd->def = t->form;
    sd->state = 2;
    sd->size = 16;
    sd->align = 16;
    sd->pattern = pt;
    sd->type = ty;
    ty->kind = TY_STRUCT;
    ty->sd = sd;
    in->ty = ty;
    arena_push(ck->a, (void ***)&t->insts, &t->ninsts, &t->capinsts, in);
    return in;
}

/* Does vector type T have the parts the open vector type P gives
 * ((vector-view-type) in an incomplete type: any element type, address
 * space...)? */
static int open_vector_fits(const Type *p, const Type *t) {
    if (p->kind != TY_VECTOR || t->kind != TY_VECTOR || p->soa != t->soa || p->ndims != t->ndims || p->tag || t->tag) return 0;
    return (!p->elem || ty_equal(p->elem, t->elem)) && (!p->as || p->as == t->as) && (!p->acc || p->acc == t->acc) &&
           (!p->align || p->align == t->align) && (p->length < 0 || p->length == t->length);
}

int ck_template_pattern_match(Checker *ck, const Type *pattern, const Type *arg) {
    (void)ck;
    const Pattern *pt = pattern->sd->pattern;
    if (!arg || arg->kind != TY_STRUCT || arg->sd->pattern) return 0;
    for (int k = 0; k < pt->t->ninsts; k++) {
        TmplInst *in = pt->t->insts[k];
        if (in->ty != arg) continue;
        for (int i = 0; i < pt->t->nparams; i++) {
            if (is_open(pt->in->args, pt->in->vals, i)) continue;
            if (!!pt->in->args[i] != !!in->args[i]) return 0;
            if (in->args[i] && !ty_equal(in->args[i], pt->in->args[i]) && !open_vector_fits(pt->in->args[i], in->args[i])) return 0;
            if (!in->args[i] && strcmp(in->vals[i]->key ? in->vals[i]->key : "", pt->in->vals[i]->key ? pt->in->vals[i]->key : ""))
                return 0;
        }
        return 1;
    }
    return 0;
}

/* The syntax standing for the first N template arguments inside the
 * template: a type's name, a value, nil for an absent parameter. */
static Node **arg_syntax(Checker *ck, Type **args, Node **vals, int n, SrcLoc loc) {
    Node **repl = arena_alloc(ck->a, sizeof(Node *) * (size_t)(n + 1));
    if (!repl) return NULL;
    for (int i = 0; i < n; i++)
        repl[i] = args[i] ? type_name_node(ck, args[i], loc) : is_absent(vals[i]) ? syn_symbol(ck->a, loc, "nil") : vals[i];
    return repl;
}

/* The compile-time evaluator: the expander's, which knows the user's
 * %defuns and def-constraints (a fresh one when there is no expander). */
static Eval *template_eval(Checker *ck) {
    if (!ck->ev) {
        ck->ev = arena_alloc(ck->a, sizeof *ck->ev);
        if (ck->ev) eval_init(ck->ev, ck->c);
    }
    return ck->ev;
}

/* Is V a list of several field specs, (x:T y:T) or ((a T) (b T))? */
static int field_list(Node *v) {
    if (v->kind != N_LIST || v->nkids == 0 || ck_struct_field_shape(v, NULL, NULL)) return 0;
    for (int i = 0; i < v->nkids; i++)
        if (!ck_struct_field_shape(v->kids[i], NULL, NULL)) return 0;
    return 1;
}

/* What body entry F of a templated def-struct is: 0 a field spec, 1 a
 * field list (the spec's (def-struct point (x:T y:T))), 2 computed - a list
 * that is neither, or whose head is a special form of the compile-time
 * language ((when C '(color:C)), (cond ...), (if ...)). */
static int entry_kind(Checker *ck, Node *f) {
    if (syn_is_nil(f)) return 2; /* what (cond) expands to */
    if (f->kind != N_LIST) return 0;
    if (field_list(f)) return 1;
    if (!ck_struct_field_shape(f, NULL, NULL)) return 2;
    Eval *ev = template_eval(ck);
    return ev && f->kids[0]->kind == N_SYMBOL && !f->kids[0]->ann && eval_is_special_form(ev, f->kids[0]->key) ? 2 : 0;
}

/* The templated def-struct of `t` with its computed entries evaluated
 * (spec "&optional &key": (when C '(color:C))).  Each runs on the
 * compile-time evaluator with the template parameters bound to REPL (the
 * arguments' syntax; nil when absent) and must give a field spec, a list of
 * field specs, or nil (no field).  The result is still to be substituted.
 * NULL after an error. */
static Node *computed_fields(Checker *ck, Template *t, Node **repl) {
    Node *form = t->form;
    int any = 0;
    for (int i = 2; i < form->nkids; i++) any |= entry_kind(ck, form->kids[i]);
    if (!any) return form;
    Eval *ev = template_eval(ck);
    if (!ev) return NULL;
    Node **kids = NULL;
    int n = 0, cap = 0;
    arena_push(ck->a, (void ***)&kids, &n, &cap, form->kids[0]);
    arena_push(ck->a, (void ***)&kids, &n, &cap, form->kids[1]);
    for (int i = 2; i < form->nkids; i++) {
        Node *e = form->kids[i];
        int kind = entry_kind(ck, e);
        if (kind == 0) arena_push(ck->a, (void ***)&kids, &n, &cap, e);
        for (int k = 0; kind == 1 && k < e->nkids; k++) arena_push(ck->a, (void ***)&kids, &n, &cap, e->kids[k]);
        if (kind != 2) continue;
        /* (let ((T 'float) (C 'nil) ...) ENTRY) with the parameters given
           hidden keys outside quotes (T would be the constant t); they
           keep their spelling for messages */
        Node **binds = arena_alloc(ck->a, sizeof(Node *) * (size_t)(t->nparams + 1));
        Node **names = arena_alloc(ck->a, sizeof(Node *) * (size_t)(t->nparams + 1));
        if (!binds || !names) return NULL;
        for (int k = 0; k < t->nparams; k++) {
            names[k] = syn_copy(ck->a, t->params[k]);
            names[k]->key = arena_printf(ck->a, "%%%s", t->params[k]->key);
            Node *q[2] = {syn_symbol(ck->a, e->loc, "quote"), repl[k]};
            Node *b[2] = {names[k], syn_list(ck->a, e->loc, q, 2)};
            binds[k] = syn_list(ck->a, e->loc, b, 2);
        }
        Node *let[3] = {syn_symbol(ck->a, e->loc, "let"), syn_list(ck->a, e->loc, binds, t->nparams),
                        syn_subst(ck->a, e, t->params, names, t->nparams)};
        Node *v = eval_form(ev, syn_list(ck->a, e->loc, let, 3));
        if (!v) return NULL;
        if (syn_is_nil(v)) continue;
        int one = ck_struct_field_shape(v, NULL, NULL);
        int nv = one ? 1 : v->kind == N_LIST ? v->nkids : 0;
        if (!nv) {
            diag_error_at(D(ck), e, "E1018", "a computed field of struct template `%s` must give a field spec, a list of them or nil, found `%s`",
                          t->name, syn_to_string(ck->a, v, 40));
            return NULL;
        }
        for (int k = 0; k < nv; k++) {
            Node *f = one ? v : v->kids[k];
            if (!ck_struct_field_shape(f, NULL, NULL)) {
                diag_error_at(D(ck), e, "E1018",
                              "a computed field of struct template `%s` must give a field spec, a list of them or nil, found `%s` in `%s`",
                              t->name, syn_to_string(ck->a, f, 30), syn_to_string(ck->a, v, 40));
                return NULL;
            }
            arena_push(ck->a, (void ***)&kids, &n, &cap, f);
        }
    }
    return syn_list(ck->a, form->loc, kids, n);
}

/* Make (or find) the instance of `t` for ARGS (types) / VALS (values). */
#define TMPL_MAX_DEPTH 64

static TmplInst *instance_1(Checker *ck, Template *t, Type **args, Node **vals, const Node *at, const char *kernel_name);

/* An instance of T for ARGS/VALS: the one made before, or a new one.  A
 * template that needs itself (directly or through others) would nest
 * without end: it stops at TMPL_MAX_DEPTH with E1024. */
static TmplInst *instance(Checker *ck, Template *t, Type **args, Node **vals, const Node *at, const char *kernel_name) {
    for (int i = 0; i < t->ninsts; i++)
        if (same_args(t->insts[i], args, vals, t->nparams) && !kernel_name) return t->insts[i]->failed ? NULL : t->insts[i];
    if (ck->tmpl_depth >= TMPL_MAX_DEPTH) {
        diag_error_at(D(ck), at, "E1024", "instantiating `%s` nests %d templates deep: is it defined in terms of itself?", t->name,
                      TMPL_MAX_DEPTH);
        return NULL;
    }
    ck->tmpl_depth++;
    TmplInst *in = instance_1(ck, t, args, vals, at, kernel_name);
    ck->tmpl_depth--;
    return in;
}

static TmplInst *instance_1(Checker *ck, Template *t, Type **args, Node **vals, const Node *at, const char *kernel_name) {
    int incomplete = 0;
    for (int i = 0; i < t->nparams; i++)
        if (is_open(args, vals, i)) incomplete = 1;
    if (!check_constraints(ck, t, args, vals, at)) return NULL;
    Node **repl = arg_syntax(ck, args, vals, t->nparams, at->loc);
    if (!repl) return NULL;
    /* the instance's name is NAME_T (spec "gen-XXXX": v_a_${T}; its kernels
       and orchestrations keep it on the host), T's words the target's */
    const char *suffix = "";
    for (int i = 0; i < t->nparams; i++)
        suffix = arena_printf(ck->a, "%s_%s", suffix, arg_cname(ck, args[i], vals[i])); /* a Crisp name: NAME_T */
    TmplInst *in = arena_alloc(ck->a, sizeof *in);
    if (!in) return NULL;
    in->args = args;
    in->vals = vals;
    in->nargs = t->nparams;
    Node *form = t->form;
    if (syn_streq(t->kind, "def-struct") && !incomplete) form = computed_fields(ck, t, repl);
    if (!form) {
        /* remembered, so the error is not repeated at each use */
        in->failed = 1;
        arena_push(ck->a, (void ***)&t->insts, &t->ninsts, &t->capinsts, in);
        return NULL;
    }
    form = syn_subst(ck->a, form, t->params, repl, t->nparams);
    form = syn_copy(ck->a, form);
    if (ck->x && !(form = expander_features(ck->x, form))) {
        /* #+(is-floating-point? T) decided for this instance */
        in->failed = 1;
        arena_push(ck->a, (void ***)&t->insts, &t->ninsts, &t->capinsts, in);
        return NULL;
    }
    const char *h = t->kind;
    if (incomplete && syn_streq(h, "def-struct")) return pattern_instance(ck, t, in);
    if (syn_streq(h, "def-orchestration")) {
        /* spec "template def-orchestration": (gen-NAME T) makes NAME_T;
           "v_a_${T}" and v_a_T::C name the instance's kernels */
        const char **cn = arena_alloc(ck->a, sizeof(char *) * (size_t)(t->nparams + 1));
        if (!cn) return NULL;
        for (int i = 0; i < t->nparams; i++) cn[i] = arg_cname(ck, args[i], vals[i]);
        form = orch_subst_names(ck, form, t->params, cn, t->nparams);
        orch_collect(ck, form, arena_printf(ck->a, "%s%s", t->name, suffix));
        arena_push(ck->a, (void ***)&t->insts, &t->ninsts, &t->capinsts, in);
        return in;
    }
    if (syn_streq(h, "def-kernel")) {
        if (!kernel_name) {
            diag_error_at(D(ck), at, "E1009", "templated kernel `%s` needs a name: (gen-%s ARGS... \"kernel_name\")", t->name, t->name);
            return NULL;
        }
        form->kids[1] = syn_symbol(ck->a, form->kids[1]->loc, kernel_name);
        in->fd = ck_collect_instance(ck, form, FN_KERNEL, kernel_name);
        if (!in->fd) return NULL;
    } else if (syn_streq(h, "def-struct")) {
        const char *iname = arena_printf(ck->a, "%s%s", t->name, suffix);
        form->kids[1] = syn_symbol(ck->a, form->kids[1]->loc, iname);
        ck_struct_collect(ck, form);
        Sym *sym = ck_global_lookup(ck, syn_lower(ck->a, iname));
        if (!sym || !sym->ty || sym->ty->kind != TY_STRUCT || !ck_struct_resolve(ck, sym->ty->sd)) return NULL;
        in->ty = sym->ty;
    } else if (syn_streq(h, "def-type")) {
        in->ty = ck_type_expr(ck, form->kids[2]);
        if (!in->ty) return NULL;
    } else {
        in->fd = ck_collect_instance(ck, form, syn_streq(h, "def-grid-function") ? FN_GRID : FN_FUNCTION,
                                  arena_printf(ck->a, "%s%s", ck_mangle(ck, t->name), suffix));
        if (!in->fd) return NULL;
    }
    arena_push(ck->a, (void ***)&t->insts, &t->ninsts, &t->capinsts, in);
    return in;
}

/* One template argument G for parameter I: a type (a base type name, an
 * alias or a type form) or a value (keyword, number).  nil is an
 * incomplete argument, allowed only when ALLOW_NIL (NAME-type). */
static int resolve_arg(Checker *ck, Template *t, int i, Node *g, Type **args, Node **vals, int allow_nil) {
    if (syn_is_nil(g)) {
        if (!allow_nil) {
            diag_error_at(D(ck), g, "E1011", "gen-%s cannot instantiate an incomplete type: expected a type for `%s`, found nil",
                          t->name, t->params[i]->name);
            return 0;
        }
        vals[i] = syn_symbol(ck->a, g->loc, "nil");
        return 1;
    }
    int is_type = (g->kind == N_SYMBOL && (ty_lookup_base(g->key) || (ck_global_lookup(ck, g->key) &&
                                                                       ck_global_lookup(ck, g->key)->kind == SYM_TYPE))) ||
                  (g->kind == N_LIST && syn_head(g));
    if (is_type) {
        args[i] = ck_type_expr(ck, g);
        if (!args[i]) return 0;
    } else {
        vals[i] = g;
    }
    return 1;
}

/* Parameter I was not given: its default with the earlier parameters
 * substituted (spec "&optional &key", (with-template-type (T &optional
 * (U T)) ...)), resolved like a written argument; absent when it has no
 * default (or nil).  0 after an error. */
static int take_default(Checker *ck, Template *t, int i, Type **args, Node **vals, const Node *at) {
    Node *d = t->defaults[i];
    if (i < t->nrequired) {
        diag_error_at(D(ck), at, "E1010", "`%s` needs a value for template parameter `%s`", t->name, t->params[i]->name);
        return 0;
    }
    if (!d || syn_is_nil(d)) {
        vals[i] = absent_node(ck, at->loc);
        return 1;
    }
    Node **repl = arg_syntax(ck, args, vals, i, at->loc);
    return repl && resolve_arg(ck, t, i, syn_subst(ck->a, d, t->params, repl, i), args, vals, 0);
}

/* The key parameter of `t` named by keyword K, or -1. */
static int key_param(Template *t, const Node *k) {
    if (k->kind != N_KEYWORD) return -1;
    for (int i = 0; i < t->nparams; i++)
        if (t->iskey[i] && syn_streq(t->params[i]->key, k->key)) return i;
    return -1;
}

/* The template arguments ARGS of (gen-NAME ARGS...) or (NAME-type ARGS...):
 * positional arguments for the required and &optional parameters, then
 * :NAME VALUE pairs for &key parameters; a parameter not given takes its
 * default.  A type for each type parameter, a value (keyword, number)
 * otherwise; nil (an incomplete type) only when ALLOW_NIL. */
static int template_args(Checker *ck, Template *t, Node **given, int n, Type ***args, Node ***vals, const Node *at,
                         int allow_nil) {
    *args = arena_alloc(ck->a, sizeof(Type *) * (size_t)(t->nparams + 1));
    *vals = arena_alloc(ck->a, sizeof(Node *) * (size_t)(t->nparams + 1));
    Node **g = arena_alloc(ck->a, sizeof(Node *) * (size_t)(t->nparams + 1));
    if (!*args || !*vals || !g) return 0;
    int npos = 0, nposparams = 0;
    for (int i = 0; i < t->nparams; i++)
        if (!t->iskey[i]) nposparams++;
    int haskeys = nposparams < t->nparams, ngivenpos = 0;
    while (ngivenpos < n && key_param(t, given[ngivenpos]) < 0 &&
           !(haskeys && ngivenpos >= nposparams && given[ngivenpos]->kind == N_KEYWORD))
        ngivenpos++;
    int j = 0;
    for (; j < ngivenpos; j++) {
        if (npos >= nposparams) {
            diag_error_at(D(ck), at, "E1010", "`%s` takes %d%s positional template argument%s, found %d", t->name, t->nrequired,
                          nposparams > t->nrequired ? arena_printf(ck->a, " to %d", nposparams) : "",
                          nposparams == 1 ? "" : "s", ngivenpos);
            return 0;
        }
        int k = 0;
        for (int c = 0; k < t->nparams; k++)
            if (!t->iskey[k] && c++ == npos) break;
        g[k] = given[j];
        npos++;
    }
    for (; j < n; j += 2) {
        int k = key_param(t, given[j]);
        if (k < 0) {
            const char *keys = "";
            for (int i = 0; i < t->nparams; i++)
                if (t->iskey[i]) keys = arena_printf(ck->a, "%s%s:%s", keys, *keys ? " " : "", t->params[i]->name);
            diag_error_at(D(ck), given[j], "E1015", "`%s` expected a template key (%s), found `%s`", t->name,
                          *keys ? keys : "it has none", syn_to_string(ck->a, given[j], 30));
            return 0;
        }
        if (j + 1 >= n) {
            diag_error_at(D(ck), given[j], "E1015", "`%s`: template key `:%s` expected a value, found none", t->name,
                          t->params[k]->name);
            return 0;
        }
        g[k] = given[j + 1];
    }
    if (npos < t->nrequired) {
        diag_error_at(D(ck), at, "E1010", "`%s` takes %d%s template argument%s, found %d", t->name, t->nrequired,
                      nposparams > t->nrequired ? arena_printf(ck->a, " to %d", nposparams) : "", nposparams == 1 ? "" : "s", npos);
        return 0;
    }
    for (int i = 0; i < t->nparams; i++) {
        /* an explicit nil for an &optional or &key parameter of gen- means
         * its default: the spec's blocks pass an absent keyword argument on
         * ((gen-make-reduction-local-scratch-vec (type-of v) message) with
         * no :message given); docs/types.md */
        if (g[i] && !allow_nil && i >= t->nrequired && syn_is_nil(g[i])) g[i] = NULL;
        if (g[i] ? !resolve_arg(ck, t, i, g[i], *args, *vals, allow_nil) : !take_default(ck, t, i, *args, *vals, at)) return 0;
    }
    return 1;
}

/* The template of (gen-NAME ...), or NULL after an error. */
static Template *gen_template(Checker *ck, Node *form) {
    const char *h = syn_head(form);
    Template *t = ck_template_lookup(ck, h + 4);
    if (!t) {
        /* kernel templates are keyed by their exact name */
        for (int i = 0; i < ck->ntemplates && !t; i++)
            if (syn_streq(ck->templates[i]->kind, "def-kernel") && !strcmp(syn_lower(ck->a, ck->templates[i]->name), h + 4))
                t = ck->templates[i];
    }
    if (!t)
        diag_error_at(D(ck), form, "E1012", "`%s`: there is no templated definition named `%s`", form->kids[0]->name, form->kids[0]->name + 4);
    return t;
}

int ck_template_is_gen(const Node *a) {
    const char *h = syn_head(a);
    return h && h[0] == 'g' && h[1] == 'e' && h[2] == 'n' && h[3] == '-' && h[4]; /* (no strncmp call: asked of every let's value) */
}

/* Is A (gen-NAME ARGS...) of a templated def-function or def-grid-function
 * (a function value known at compile time: spec "gen-XXXX", "generating
 * scratch vectors" binds one to a let variable and calls it)? */
int ck_template_is_gen_function(Checker *ck, const Node *a) {
    if (!ck_template_is_gen(a)) return 0;
    Template *t = ck_template_lookup(ck, syn_head(a) + 4);
    return t && (syn_streq(t->kind, "def-function") || syn_streq(t->kind, "def-grid-function"));
}

/* (gen-NAME TYPES...) passed where a function is expected, #'NAME (spec
 * "gen-XXXX": (fold someVector (gen-addTwo int))): the instance of the
 * templated function NAME for TYPES, or NULL after an error. */
FuncDef *ck_template_function_arg(Checker *ck, Node *a) {
    Template *t = gen_template(ck, a);
    if (!t) return NULL;
    if (strcmp(t->kind, "def-function") && strcmp(t->kind, "def-grid-function")) {
        diag_error_at(D(ck), a, "E1023", "`%s` is passed as a function, but `%s` is a templated %s; only templated functions can be",
                      syn_to_string(ck->a, a, 40), t->name, t->kind + 4);
        return NULL;
    }
    Type **args;
    Node **vals;
    if (!template_args(ck, t, a->kids + 1, a->nkids - 1, &args, &vals, a, 0)) return NULL;
    TmplInst *in = instance(ck, t, args, vals, a, NULL);
    return in ? in->fd : NULL;
}

/* (gen-NAME ARGS... ["kernel_name"]) at top level. */
void ck_template_gen(Checker *ck, Node *form) {
    Template *t = gen_template(ck, form);
    if (!t) return;
    int n = form->nkids - 1;
    const char *kname = NULL;
    if (syn_streq(t->kind, "def-kernel")) {
        if (n < 1 || form->kids[form->nkids - 1]->kind != N_STRING) {
            diag_error_at(D(ck), form, "E1009", "templated kernel `%s` needs a name: (gen-%s ARGS... \"kernel_name\")", t->name, t->name);
            return;
        }
        kname = form->kids[form->nkids - 1]->name;
        n--;
    }
    Type **args;
    Node **vals;
    if (!template_args(ck, t, form->kids + 1, n, &args, &vals, form, 0)) return;
    instance(ck, t, args, vals, form, kname);
}

/* (NAME-type ARGS...) in a type position. */
Type *ck_template_type(Checker *ck, Node *syn) {
    const char *h = syn_head(syn);
    size_t n = strlen(h);
    Template *t = ck_template_lookup(ck, arena_strndup(ck->a, h, n - 5));
    if (!t || (strcmp(t->kind, "def-struct") && strcmp(t->kind, "def-type"))) return NULL;
    Type **args;
    Node **vals;
    if (!template_args(ck, t, syn->kids + 1, syn->nkids - 1, &args, &vals, syn, 1)) return &ty_void;
    TmplInst *in = instance(ck, t, args, vals, syn, NULL);
    return in ? in->ty : &ty_void;
}

/* Deduce T from one parameter type syntax and an argument type. */
static void deduce(Checker *ck, Template *t, Node *psyn, Type *at, Type **args, int *conflict) {
    if (!psyn || !at) return;
    if (psyn->kind == N_SYMBOL) {
        for (int i = 0; i < t->nparams; i++)
            if (syn_streq(t->params[i]->key, psyn->key)) {
                if (args[i] && !ty_equal(args[i], at)) *conflict = i + 1;
                else args[i] = at;
            }
        return;
    }
    static const char *vector_forms[] = {"vector-type", "vector", "vector-view-type", "soa-vector-type", "soa-view-type"};
    int vector_form = 0;
    for (size_t i = 0; i < sizeof vector_forms / sizeof *vector_forms; i++) vector_form |= syn_is_form(psyn, vector_forms[i]);
    if (vector_form && at->kind == TY_VECTOR && at->elem && psyn->nkids > 1)
        deduce(ck, t, psyn->kids[1], at->elem, args, conflict);
    /* (tensor-view-type N (vector-type T ...)): T from the view's parent */
    if (syn_is_form(psyn, "tensor-view-type") && at->kind == TY_VECTOR && at->ndims && psyn->nkids > 2)
        deduce(ck, t, psyn->kids[2], at, args, conflict);
    /* (NAME-type T ...) of a templated struct (spec "Template Types",
       "Incomplete Types"): T from the instance the argument is */
    const char *h = syn_head(psyn);
    size_t hl = h ? strlen(h) : 0;
    if (hl > 5 && !strcmp(h + hl - 5, "-type") && at->kind == TY_STRUCT) {
        Template *st = ck_template_lookup(ck, arena_strndup(ck->a, h, hl - 5));
        for (int k = 0; st && syn_streq(st->kind, "def-struct") && k < st->ninsts; k++) {
            TmplInst *in = st->insts[k];
            if (in->failed || !in->ty || !ty_equal(in->ty, at)) continue;
            for (int j = 0; j + 1 < psyn->nkids && j < in->nargs; j++)
                if (in->args[j]) deduce(ck, t, psyn->kids[j + 1], in->args[j], args, conflict);
            return;
        }
    }
    /* (ALIAS T ...) of a vector or tensor-view alias, e.g. (matrix T): T is
       the element type (the first argument that is not a keyword) */
    if (syn_is_list(psyn) && psyn->nkids > 1 && psyn->kids[0]->kind == N_SYMBOL && psyn->kids[1]->kind != N_KEYWORD &&
        at->kind == TY_VECTOR && at->elem) {
        Sym *alias = ck_global_lookup(ck, psyn->kids[0]->key);
        Type *base = alias && alias->kind == SYM_TYPE ? ck_type_expr(ck, psyn->kids[0]) : NULL;
        if (base && base->kind == TY_VECTOR)
            deduce(ck, t, psyn->kids[1], at->elem, args, conflict);
    }
}

/* (vector-type T :global :readable A) with A a value parameter of the
 * template (spec "Radix Sort in Crisp": histogram-pass deduces its
 * alignment A so): A, written where the form's address space and access
 * are given as keywords, is the alignment, and takes the argument's
 * (:compact or :std140).  Fills VALS[i] of a parameter not given. */
static void deduce_alignment(Checker *ck, Template *t, Node *psyn, Type *at, Node **vals) {
    if (!psyn || !at || at->kind != TY_VECTOR || at->align == AL_NONE || !syn_is_form(psyn, "vector-type")) return;
    int has_as = 0, has_acc = 0, has_al = 0;
    Node *sym = NULL;
    for (int k = 2; k < psyn->nkids; k++) {
        Node *e = psyn->kids[k];
        if (e->kind == N_KEYWORD) {
            if (ck_as_keyword(e->key) != AS_NONE) has_as = 1;
            else if (ck_acc_keyword(e->key) != ACC_NONE) has_acc = 1;
            else if (ck_align_keyword(e->key) != AL_NONE) has_al = 1;
        } else if (e->kind == N_SYMBOL && !sym) {
            sym = e;
        }
    }
    if (!sym || !has_as || !has_acc || has_al) return;
    for (int i = 0; i < t->nparams; i++)
        if (syn_streq(t->params[i]->key, sym->key) && !vals[i])
            vals[i] = syn_keyword(ck->a, psyn->loc, ty_align_name(at->align));
}

/* The parameter type syntax of a templated function's i-th parameter. */
/* The type syntax of the I-th parameter of a def-function FORM: its
 * annotation, a (declare (type P T)) or its place in a declared signature
 * #'(...); NULL when untyped. */
Node *ck_param_type_syntax(Node *form, int i) {
    Node *pl = form->kids[2];
    int k = -1;
    Node *name = NULL;
    for (int j = 0; j < pl->nkids; j++) {
        Node *p = pl->kids[j];
        if (p->kind == N_SYMBOL && p->key[0] == '&') continue;
        if (p->kind == N_LIST && p->nkids == 2) p = p->kids[0];
        if (++k == i) name = p;
    }
    if (!name || name->kind != N_SYMBOL) return NULL; /* malformed: reported by collect_func */
    if (name->ann) return name->ann;
    int first = 3;
    if (first < form->nkids - 1 && form->kids[first]->kind == N_STRING) first++; /* docstring */
    for (int j = first; j < form->nkids && syn_is_form(form->kids[j], "declare"); j++) {
        Node *d = form->kids[j];
        for (int m = 1; m < d->nkids; m++) {
            Node *e = d->kids[m];
            if (syn_is_form(e, "type") && e->nkids >= 3)
                for (int q = 1; q < e->nkids - 1; q++)
                    if (e->kids[q]->kind == N_SYMBOL && syn_streq(e->kids[q]->key, name->key)) return e->kids[e->nkids - 1];
            Node *sig = e->kind == N_VECLIT ? e : syn_is_form(e, "function") && e->nkids == 2 ? e->kids[1] : NULL;
            if (sig) {
                int pos = -1;
                for (int q = 0; q < sig->nkids; q++) {
                    Node *x = sig->kids[q];
                    if (syn_is_sym(x, "=>") || syn_is_sym(x, "->")) break;
                    if (x->kind == N_SYMBOL && x->key[0] == '&') continue;
                    if (++pos == i) return x;
                }
            }
        }
    }
    return NULL;
}

/* Is checked value V a literal, whose type an argument of a known type
 * may decide instead (deduction)? */
static int flex_literal(const Node *v) {
    return v->op && (v->kind == N_C_INTLIT || v->kind == N_C_FLOATLIT);
}

/* Do the checked values PRE of (make-NAME ...) fit struct instance SD:
 * every named field exists (KEYED) or there are at most as many values as
 * fields, and each value's type is its field's exactly (literals only when
 * EXACT_LITERALS)? */
static int make_fits(Checker *ck, Node *syn, int keyed, Node **pre, int n, StructDef *sd, int exact_literals) {
    if (!keyed && n > sd->nfields) return 0;
    for (int i = 0; i < n; i++) {
        Field *f = NULL;
        if (!keyed) f = &sd->fields[i];
        else
            for (int k = 0; k < sd->nfields; k++)
                if (!strcmp(sd->fields[k].key, syn->kids[1 + 2 * i]->key)) f = &sd->fields[k];
        if (!f) return 0;
        if (f->view) { /* a vector-view field: a vector of its element type and address space */
            const Type *t = pre[i]->ty;
            if (pre[i]->kind != N_C_VAR || t->kind != TY_VECTOR || t->soa || t->ndims || !ty_equal(t->elem, f->ty->elem) ||
                t->as != f->ty->as || !ck_vector_tag_fit(t, f->ty) || (f->ty->acc != ACC_READ_ONLY && t->acc == ACC_READ_ONLY) ||
                ((pre[i]->sym->write_only || t->acc == ACC_WRITE_ONLY) && f->ty->acc != ACC_WRITE_ONLY))
                return 0;
            continue;
        }
        if ((exact_literals || !flex_literal(pre[i])) && !ty_equal(pre[i]->ty, f->ty)) return 0;
    }
    (void)ck;
    return 1;
}

/* The instances of `t` in SET (NULL: all complete ones), for messages:
 * "point_float (x:float y:float), ...". */
static const char *describe_instances(Checker *ck, Template *t, TmplInst **set, int nset) {
    const char *out = "";
    for (int i = 0; i < (set ? nset : t->ninsts); i++) {
        TmplInst *in = set ? set[i] : t->insts[i];
        if (!in->ty || in->ty->kind != TY_STRUCT || in->ty->sd->pattern) continue;
        StructDef *sd = in->ty->sd;
        const char *fs = "";
        for (int k = 0; k < sd->nfields; k++)
            fs = arena_printf(ck->a, "%s%s%s:%s", fs, k ? " " : "", sd->fields[k].name, ty_name(ck->a, sd->fields[k].ty));
        out = arena_printf(ck->a, "%s%s%s (%s)", out, *out ? ", " : "", sd->name, fs);
    }
    return out;
}

/* (make-NAME :field value ...) or (make-NAME value ...) where NAME is a
 * struct template (spec "gen-XXXX": (gen-point int) then (make-point :x a
 * :y b)): the one complete instance whose field types the values' types
 * match exactly (no promotion; a literal decides only when the other
 * values leave a choice, and then an instance whose every field is given
 * wins).  Returns 0 when NAME is no struct template;
 * otherwise 1 with *SD the instance and *PRE the checked values, or *SD
 * NULL after an error. */
int ck_template_make_struct(Ctx *cx, Node *syn, StructDef **sd, Node ***pre) {
    Checker *ck = cx->ck;
    Template *t = ck_template_lookup(ck, syn->kids[0]->key + 5);
    *sd = NULL;
    if (!t || strcmp(t->kind, "def-struct")) return 0;
    const char *mk = syn->kids[0]->name;
    int keyed = syn->nkids > 1 && syn->kids[1]->kind == N_KEYWORD;
    int n = keyed ? (syn->nkids - 1) / 2 : syn->nkids - 1;
    for (int i = 1; keyed && i < syn->nkids; i += 2)
        if (syn->kids[i]->kind != N_KEYWORD || i + 1 >= syn->nkids) {
            diag_error_at(D(ck), syn->kids[i], "E0148", "`%s` takes :field value pairs, found `%s`", mk,
                          syn_to_string(ck->a, syn->kids[i], 30));
            return 1;
        }
    *pre = arena_alloc(ck->a, sizeof(Node *) * (size_t)(n + 1));
    if (!*pre) return 1;
    const char *given = "";
    for (int i = 0; i < n; i++) {
        Node *v = syn->kids[keyed ? 2 + 2 * i : 1 + i];
        (*pre)[i] = ck_expr(cx, v, NULL);
        if (!(*pre)[i]) return 1;
        given = arena_printf(ck->a, "%s%s%s%s", given, *given ? " " : "", keyed ? arena_printf(ck->a, ":%s ", syn->kids[1 + 2 * i]->name) : "",
                             ty_name(ck->a, (*pre)[i]->ty));
    }
    TmplInst **cands = NULL;
    int ncands = 0, capcands = 0, ninsts = 0;
    for (int i = 0; i < t->ninsts; i++) {
        TmplInst *in = t->insts[i];
        if (!in->ty || in->ty->kind != TY_STRUCT || in->ty->sd->pattern || in->ty->sd->state != 2) continue;
        ninsts++;
        if (make_fits(ck, syn, keyed, *pre, n, in->ty->sd, 0)) arena_push(ck->a, (void ***)&cands, &ncands, &capcands, in);
    }
    /* between several: literals at their own type, then an instance
       whose every field is given */
    for (int rule = 0; rule < 2 && ncands > 1; rule++) {
        TmplInst *only = NULL;
        int nfit = 0;
        for (int i = 0; i < ncands; i++)
            if (rule ? cands[i]->ty->sd->nfields == n : make_fits(ck, syn, keyed, *pre, n, cands[i]->ty->sd, 1))
                only = cands[i], nfit++;
        if (nfit == 1) cands[0] = only, ncands = 1;
    }
    if (!ninsts) {
        diag_error_at(D(ck), syn, "E1020", "`%s`: struct template `%s` has no instance yet; make one first with (gen-%s TYPE...)", mk,
                      t->name, t->name);
        return 1;
    }
    if (!ncands) {
        diag_error_at(D(ck), syn, "E1021",
                      "`%s` with (%s) matches no instance of struct template `%s` (field types must match exactly, no promotion); "
                      "the instances are %s",
                      mk, given, t->name, describe_instances(ck, t, NULL, 0));
        return 1;
    }
    if (ncands > 1) {
        diag_error_at(D(ck), syn, "E1022",
                      "`%s` with (%s) is ambiguous between instances of struct template `%s`: %s; convert a value or call "
                      "the instance by name, e.g. (make-%s ...)",
                      mk, given, t->name, describe_instances(ck, t, cands, ncands), cands[0]->ty->sd->name);
        return 1;
    }
    *sd = cands[0]->ty->sd;
    return 1;
}

/* The instance of templated function `key` for a call with checked
 * arguments ARGV, or NULL (with a diagnostic when deduction fails). */
FuncDef *ck_template_for_call(Checker *ck, const char *key, Node *call, Node **argv, int n) {
    Template *t = ck_template_lookup(ck, key);
    if (!t || (strcmp(t->kind, "def-function") && strcmp(t->kind, "def-grid-function"))) return NULL;
    Type **args = arena_alloc(ck->a, sizeof(Type *) * (size_t)(t->nparams + 1));
    Node **vals = arena_alloc(ck->a, sizeof(Node *) * (size_t)(t->nparams + 1));
    if (!args || !vals) return NULL;
    int conflict = 0;
    /* typed arguments first, then literals at their default type */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            int flex = flex_literal(argv[i]);
            if (flex != pass) continue;
            if (flex) {
                /* a literal only decides a parameter nothing else decided */
                Type *tmp[32] = {0};
                int c2 = 0;
                if (t->nparams > 32) continue;
                deduce(ck, t, ck_param_type_syntax(t->form, i), argv[i]->ty, tmp, &c2);
                for (int k = 0; k < t->nparams; k++)
                    if (tmp[k] && !args[k]) args[k] = tmp[k];
                continue;
            }
            deduce(ck, t, ck_param_type_syntax(t->form, i), argv[i]->ty, args, &conflict);
            deduce_alignment(ck, t, ck_param_type_syntax(t->form, i), argv[i]->ty, vals);
        }
    if (conflict) {
        diag_error_at(D(ck), call, "E1013",
                      "`%s`: template parameter `%s` would have two different types (no promotion during deduction: convert an argument)",
                      t->name, t->params[conflict - 1]->name);
        return NULL;
    }
    for (int i = 0; i < t->nparams; i++)
        if (!args[i] && !vals[i]) {
            if (i >= t->nrequired) {
                /* resolved like a written argument: the same instance */
                if (!take_default(ck, t, i, args, vals, call)) return NULL;
                continue;
            }
            diag_error_at(D(ck), call, "E1014", "cannot deduce template parameter `%s` of `%s` from the arguments; use (gen-%s ...)",
                          t->params[i]->name, t->name, t->name);
            return NULL;
        }
    TmplInst *in = instance(ck, t, args, vals, call, NULL);
    return in ? in->fd : NULL;
}
