/* soa.c - soa-vector and soa-view (spec "soa-vector and soa-view").
 *
 * A soa-vector of a struct keeps one vector per field ("structs of
 * arrays"), so (make-soa-vector point :local 64) becomes
 *     __local float pts_x[64];
 *     __local float pts_y[64];
 * (x~ pts i) is pts_x[i], (x~ pts) is the whole pts_x vector, and
 * (get-struct pts i) builds a point from the fields.  A soa-view is one
 * vector-view per field of its parent.  soa-vectors are made inside a
 * function (:private or :local memory); they do not cross the host
 * boundary and are not passed to functions. */
#include <string.h>

#include "check_int.h"

static Diag *D(Ctx *cx) { return cx->ck->d; }

/* The soa-vector a symbol names, or NULL. */
Sym *ck_soa_sym(Ctx *cx, Node *syn) {
    /* no soa-vector made yet (most programs): no scope to search (issue
       14: every NAME~ call looked its object up here) */
    if (syn->kind != N_SYMBOL || !cx->ck->nsoas) return NULL;
    Sym *s = ck_scope_lookup(cx, syn->key);
    return s && sym_rare(s)->soa_fields ? s : NULL;
}

int ck_soa_init_form(const Node *init) {
    return init && (syn_is_form(init, "make-soa-vector") || syn_is_form(init, "make-soa-view"));
}

/* Only scalars and hardware vectors may be fields (spec "Member Data
 * Rules"). */
int ck_soa_struct_ok(Checker *ck, Node *at, Type *t) {
    if (!t || t->kind != TY_STRUCT) {
        diag_error_at(ck->d, at, "E0487", "a soa-vector holds structs, found `%s`", t ? ty_name(ck->a, t) : "nothing");
        return 0;
    }
    StructDef *sd = t->sd;
    for (int i = 0; i < sd->nfields; i++)
        if (sd->fields[i].ty->kind != TY_NUM && sd->fields[i].ty->kind != TY_HWVEC) {
            diag_error_at(ck->d, at, "E0487", "`%s` cannot be a soa-vector element: field `%s` is `%s` (only scalars and hardware vectors)",
                          sd->name, sd->fields[i].name, ty_name(ck->a, sd->fields[i].ty));
            return 0;
        }
    return 1;
}

/* (make-soa-vector STRUCT [address-space] [access] [align] LENGTH) or the
 * key form, like make-vector; :private by default. */
static Sym *make_soa_vector(Ctx *cx, Sym *s, Node *name, Node *init) {
    Checker *ck = cx->ck;
    Node *len_expr = NULL;
    Type *bt = NULL;
    Type *t = ck_make_vector_type(ck, init, &len_expr, &bt);
    if (!t) return NULL;
    if (bt && bt->kind == TY_STRUCT && !t->elem) {
        t->elem = bt; /* (make-soa-vector point ...) */
    } else if (bt && (bt->kind != TY_VECTOR || !bt->soa)) {
        diag_error_at(ck->d, init->kids[1], "E0489", "`make-soa-vector` needs a soa-vector type or a struct, found `%s`", ck_tname(cx, bt));
        return NULL;
    }
    if (!ck_soa_struct_ok(ck, init, t->elem)) return NULL;
    if (t->length <= 0 || t->length > (1 << 24)) {
        diag_error_at(D(cx), init, "E0442", "make-soa-vector needs a compile-time length from 1 to 16777216");
        return NULL;
    }
    if (!t->as) t->as = AS_PRIVATE;
    if (!t->acc) t->acc = ACC_READ_WRITE;
    if (!t->align) t->align = AL_COMPACT;
    if (t->as != AS_PRIVATE && t->as != AS_LOCAL) {
        diag_error_at(D(cx), init, "E0488", "a soa-vector made in a function lives in :private or :local memory, not :%s",
                      ty_as_name(t->as));
        return NULL;
    }
    if (t->as == AS_LOCAL && cx->fn->kind != FN_KERNEL) {
        diag_error_at(D(cx), name, "E0406", "a :local vector can only be made in a kernel body");
        return NULL;
    }
    t->soa = 1;
    StructDef *sd = t->elem->sd;
    ck->nsoas++;
    sym_rare_w(cx->ck->a, s)->soa_fields = arena_alloc(ck->a, sizeof(Sym *) * (size_t)sd->nfields);
    if (!sym_rare(s)->soa_fields) return NULL;
    for (int i = 0; i < sd->nfields; i++) {
        Type *ft = ty_vector(ck->a, sd->fields[i].ty, t->as, t->acc, t->align, t->length);
        Sym *f = ck_new_local(cx, name, ck_name_join(ck, s->cname, ck_mangle(ck, sd->fields[i].name)), ft);
        if (!f) return NULL;
        if (ft->align == AL_STD140 && ty_vector_stride(ft->elem, AL_STD140) != ty_sizeof(ft->elem))
            ck_need_helper(cx, H_STD140_ELEM, ft->elem, AS_NONE);
        if (ft->as == AS_LOCAL) {
            f->hoisted_local = 1;
            CFuncRare *r = cfunc_rare_w(ck->a, cx->fn);
            arena_push(ck->a, (void ***)&r->local_arrays, &r->nlocal, &r->caplocal, f);
        } else {
            Node *decl = ck_node(cx, N_C_DECL, name, ft);
            decl->sym = f;
            ck_emit_stmt(cx, decl);
        }
        sym_rare(s)->soa_fields[i] = f;
    }
    s->ty = t;
    return s;
}

/* (make-soa-view PARENT LENGTH [OFFSET]): a view of every field. */
static Sym *make_soa_view(Ctx *cx, Sym *s, Node *init) {
    Checker *ck = cx->ck;
    if (init->nkids < 3 || init->nkids > 4) {
        diag_error_at(D(cx), init, "E0320", "`make-soa-view` takes 2 to 3 arguments, found %d", init->nkids - 1);
        return NULL;
    }
    Sym *p = ck_soa_sym(cx, init->kids[1]);
    if (!p) {
        diag_error_at(D(cx), init->kids[1], "E0489", "`make-soa-view` needs a soa-vector, found `%s`",
                      syn_to_string(ck->a, init->kids[1], 30));
        return NULL;
    }
    Node *len = ck_ulong_arg(cx, init->kids[2], "view length");
    Node *off = init->nkids > 3 ? ck_ulong_arg(cx, init->kids[3], "view offset") : ck_int_lit(cx, init, 0, ty_num(SC_ULONG));
    if (!len || !off) return NULL;
    /* one offset and length for all the fields */
    Sym *o = ck_new_temp(cx, init, ck_name_join(ck, s->cname, "off"), ty_num(SC_ULONG));
    Sym *l = ck_new_temp(cx, init, ck_name_join(ck, s->cname, "len"), ty_num(SC_ULONG));
    if (!o || !l) return NULL;
    Node *ds[2] = {ck_node(cx, N_C_DECL, init, ty_num(SC_ULONG)), ck_node(cx, N_C_DECL, init, ty_num(SC_ULONG))};
    Sym *vs[2] = {o, l};
    Node *vals[2] = {off, len};
    for (int k = 0; k < 2; k++) {
        ds[k]->sym = vs[k];
        ds[k]->kids = arena_alloc(ck->a, sizeof(Node *));
        if (!ds[k]->kids) return NULL;
        ds[k]->kids[ds[k]->nkids++] = vals[k];
        ck_emit_stmt(cx, ds[k]);
    }
    StructDef *sd = p->ty->elem->sd;
    ck->nsoas++;
    sym_rare_w(cx->ck->a, s)->soa_fields = arena_alloc(ck->a, sizeof(Sym *) * (size_t)sd->nfields);
    if (!sym_rare(s)->soa_fields) return NULL;
    for (int i = 0; i < sd->nfields; i++) {
        Sym *pf = sym_rare(p)->soa_fields[i];
        Type *ft = ty_vector(ck->a, pf->ty->elem, pf->ty->as, pf->ty->acc, pf->ty->align, -1);
        ft->view = 1;
        Node *foff = ck_var_ref(cx, init, o);
        if (sym_rare(pf)->off_sym) foff = ck_mk2(cx, N_C_BINARY, init, ty_num(SC_ULONG), OP_ADD, ck_var_ref(cx, init, sym_rare(pf)->off_sym), foff);
        Sym *f = ck_new_view(cx, init, ck_name_join(ck, s->cname, ck_mangle(ck, sd->fields[i].name)), ft, ck_var_ref(cx, init, pf), foff,
                          ck_var_ref(cx, init, l));
        if (!f) return NULL;
        sym_rare(s)->soa_fields[i] = f;
    }
    Type *t = ty_vector(ck->a, p->ty->elem, p->ty->as, p->ty->acc, p->ty->align, -1);
    t->soa = 1;
    t->view = 1;
    s->ty = t;
    s->len_cname = l->cname;
    return s;
}

/* (let ((NAME (make-soa-vector ...)))) / (make-soa-view ...) */
Sym *ck_soa_bind(Ctx *cx, Sym *s, Node *name, Node *init) {
    return syn_is_form(init, "make-soa-vector") ? make_soa_vector(cx, s, name, init) : make_soa_view(cx, s, init);
}

/* The field vector of soa-vector S that accessor H (x~ or ~x~) names. */
static Sym *soa_field(Ctx *cx, Node *syn, Sym *s, const char *h) {
    size_t n = strlen(h);
    const char *k = h[0] == '~' ? h + 1 : h;
    size_t kl = n - 1 - (h[0] == '~');
    StructDef *sd = s->ty->elem->sd;
    for (int i = 0; i < sd->nfields; i++)
        if (strlen(sd->fields[i].key) == kl && !strncmp(sd->fields[i].key, k, kl)) return sym_rare(s)->soa_fields[i];
    diag_error_at(D(cx), syn, "E0411", "`%s` has no field `%.*s` (soa-vector `%s`)", sd->name, (int)kl, k, s->name);
    return NULL;
}

/* Does a user overload of accessor H exist for OBJ: a def-function
 * (getter) or def-setter whose object parameter is OBJ_SOA ? a soa-vector
 * of SD (with an index) : the struct SD itself? */
static int user_accessor(Checker *ck, const char *h, StructDef *sd, int setter, int obj_soa) {
    if (!setter) {
        FuncDef *c[16];
        int nc = ck_func_overloads(ck, h, c, 16);
        for (int i = 0; i < nc; i++) {
            ck_resolve_signature(ck, c[i]);
            Type *t = !c[i]->bad && c[i]->nparams == 1 + obj_soa ? c[i]->params[0].ty : NULL;
            if (t && (obj_soa ? t->soa && t->elem && t->elem->sd == sd : t->kind == TY_STRUCT && t->sd == sd)) return 1;
        }
        return 0;
    }
    for (int i = 0; i < ck->nsetters; i++) {
        Node *f = ck->setters[i];
        Node *ts = ck_setter_object_type(f);
        Type *t = ts && syn_streq(f->kids[1]->key, h) ? ck_type_expr(ck, ts) : NULL;
        if (t && (obj_soa ? t->soa && t->elem && t->elem->sd == sd : t->kind == TY_STRUCT && t->sd == sd)) return 1;
    }
    return 0;
}

/* Spec "Overload member access and soa-vector": an accessor overloaded for
 * the struct but not for soa-vectors of it is asymmetric, so the soa
 * access reads or writes the raw field; warn at each such access. */
static void overload_warning(Ctx *cx, Node *syn, Sym *s, const char *h, int for_write) {
    StructDef *sd = s->ty->elem->sd;
    if (user_accessor(cx->ck, h, sd, for_write, 0) && !user_accessor(cx->ck, h, sd, for_write, 1))
        diag_warning_at(D(cx), syn, "W0401",
                        "`%s` is overloaded for `%s` but not for its soa-vectors, so on `%s` it %s the raw field (spec \"Overload member access and soa-vector\"); "
                        "define a %s of %s for (soa-vector-type %s), or write ~%s to say so",
                        h, sd->name, s->name, for_write ? "writes" : "reads", for_write ? "def-setter" : "def-function", h, sd->name, h);
}

/* A soa-vector parameter S (spec "soa-vector and soa-view": functions
 * take soa-vectors and soa-views alike): field vector k is the parameter
 * S_F, a pointer to the first element the caller's vector or view holds;
 * all share the length S_len. */
int ck_soa_param_fields(Ctx *cx, Sym *s, const Node *at) {
    Checker *ck = cx->ck;
    Type *t = s->ty;
    StructDef *sd = t->elem->sd;
    ck->nsoas++;
    sym_rare_w(cx->ck->a, s)->soa_fields = arena_alloc(ck->a, sizeof(Sym *) * (size_t)sd->nfields);
    if (!sym_rare(s)->soa_fields) return 0;
    for (int i = 0; i < sd->nfields; i++) {
        Type *ft = ty_vector(ck->a, sd->fields[i].ty, t->as, t->acc, t->align, t->length);
        Sym *f = ck_new_local(cx, at, ck_name_join(ck, s->cname, ck_mangle(ck, sd->fields[i].name)), ft);
        if (!f) return 0;
        f->kind = SYM_PARAM;
        f->len_cname = s->len_cname;
        if (ft->align == AL_STD140 && ty_vector_stride(ft->elem, AL_STD140) != ty_sizeof(ft->elem))
            ck_need_helper(cx, H_STD140_ELEM, ft->elem, AS_NONE);
        sym_rare(s)->soa_fields[i] = f;
    }
    return 1;
}

/* The call arguments for soa-vector ARG passed to a soa parameter: each
 * field's first element (a view starts at its offset), then the length. */
void ck_soa_call_args(Ctx *cx, Node *syn, Sym *arg, Node *call) {
    StructDef *sd = arg->ty->elem->sd;
    for (int i = 0; i < sd->nfields; i++) {
        Sym *f = sym_rare(arg)->soa_fields[i];
        Node *p = ck_var_ref(cx, syn, f);
        call->kids[call->nkids++] = sym_rare(f)->off_sym ? ck_mk2(cx, N_C_BINARY, syn, f->ty, OP_ADD, p, ck_var_ref(cx, syn, sym_rare(f)->off_sym)) : p;
    }
    Node *len = ck_node(cx, N_C_LENGTH, syn, ty_num(SC_ULONG));
    len->sym = sym_rare(arg)->soa_fields[0];
    call->kids[call->nkids++] = len;
}

/* (F~ SV) is the field vector; (F~ SV I) its element I, readable and (when
 * FOR_WRITE) settable.  Returns 0 when SYN is not a soa-vector access. */
int ck_soa_access(Ctx *cx, Node *syn, int for_write, Node **out) {
    const char *h = syn_head(syn);
    size_t hl = h ? strlen(h) : 0;
    if (hl < 2 || h[hl - 1] != '~' || syn->nkids < 2 || syn->nkids > 3) return 0;
    Sym *s = ck_soa_sym(cx, syn->kids[1]);
    if (!s || syn_streq(h, "length~") || syn_streq(h, "~length~")) return 0;
    /* (x~ sv i) with an overload for soa-vectors of the struct: a call */
    if (h[0] != '~' && syn->nkids == 3 && user_accessor(cx->ck, h, s->ty->elem->sd, for_write, 1)) return 0;
    *out = NULL;
    Sym *f = soa_field(cx, syn, s, h);
    if (!f) return 1;
    if (h[0] != '~') overload_warning(cx, syn, s, h, for_write);
    if (syn->nkids == 2) {
        if (for_write)
            diag_error_at(D(cx), syn, "E0432", "cannot assign to the vector `%s`; assign its elements with (set! (%s %s i) ...)",
                          syn_to_string(cx->ck->a, syn, 30), h, s->name);
        else
            *out = ck_var_ref(cx, syn, f);
        return 1;
    }
    if (for_write && (f->ty->acc == ACC_READ_ONLY)) {
        diag_error_at(D(cx), syn, "E0434", "cannot write to `%s`: it is read-only", s->name);
        return 1;
    }
    *out = ck_index_node(cx, syn, f, syn->kids[2]);
    return 1;
}

/* (get-struct SV I): the struct at I, built from its fields. */
Node *ck_soa_get_struct(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!ck_nargs_ok(cx, syn, 2, 2)) return NULL;
    Sym *s = ck_soa_sym(cx, syn->kids[1]);
    if (!s) {
        diag_error_at(D(cx), syn->kids[1], "E0489", "`get-struct` needs a soa-vector, found `%s`",
                      syn_to_string(cx->ck->a, syn->kids[1], 30));
        return NULL;
    }
    StructDef *sd = s->ty->elem->sd;
    Node **args = arena_alloc(cx->ck->a, sizeof(Node *) * (size_t)(sd->nfields + 1));
    if (!args) return NULL;
    args[0] = syn_symbol(cx->ck->a, syn->kids[0]->loc, arena_printf(cx->ck->a, "make-%s", sd->name));
    for (int i = 0; i < sd->nfields; i++) {
        Node *k[3] = {syn_symbol(cx->ck->a, syn->loc, arena_printf(cx->ck->a, "~%s~", sd->fields[i].name)), syn->kids[1], syn->kids[2]};
        args[i + 1] = syn_list(cx->ck->a, syn->loc, k, 3);
    }
    Node *mk_syn = syn_list(cx->ck->a, syn->loc, args, sd->nfields + 1);
    mk_syn->origin = syn->origin;
    return ck_struct_make(cx, mk_syn, sd);
}

/* (convert-aos-to-soa VECTOR SOA) / (convert-soa-to-aos SOA VECTOR) - spec
 * "Converting between SoA and AoS vectors": the calling thread copies the
 * first min(length) elements, field by field.  Both must hold the same
 * struct.  (Split the work between threads by giving each a view.) */
Node *ck_soa_convert(Ctx *cx, Node *syn, Type *want) {
    (void)want;
    if (!ck_nargs_ok(cx, syn, 2, 2)) return NULL;
    Arena *a = cx->ck->a;
    int to_soa = syn_streq(syn->kids[0]->key, "convert-aos-to-soa");
    Node *vsyn = syn->kids[to_soa ? 1 : 2], *ssyn = syn->kids[to_soa ? 2 : 1];
    Sym *s = ck_soa_sym(cx, ssyn);
    if (!s) {
        diag_error_at(D(cx), ssyn, "E0489", "`%s` needs a soa-vector here, found `%s`", syn->kids[0]->name,
                      syn_to_string(a, ssyn, 30));
        return NULL;
    }
    Sym *v = ck_vector_operand(cx, vsyn, syn->kids[0]->name);
    if (!v) return NULL;
    StructDef *sd = s->ty->elem->sd;
    if (!v->ty->elem || v->ty->elem->kind != TY_STRUCT || v->ty->elem->sd != sd) {
        diag_error_at(D(cx), vsyn, "E0487", "`%s` needs a vector of `%s` to match the soa-vector `%s`, found `%s`", syn->kids[0]->name,
                      sd->name, s->name, ck_tname(cx, v->ty));
        return NULL;
    }
    /* for i below (min (length~ V) (length~ S)): (set! (F~ S i) (F~ (~ V i)) ...), or the reverse */
    Node *i = cx_sym(cx, syn, arena_printf(a, "%%i%d", ++cx->temp_counter));
    Node **set = arena_alloc(a, sizeof(Node *) * (size_t)(2 * sd->nfields + 1));
    if (!set) return NULL;
    int k = 0;
    set[k++] = cx_sym(cx, syn, "set!");
    for (int f = 0; f < sd->nfields; f++) {
        Node *acc = cx_sym(cx, syn, arena_printf(a, "~%s~", sd->fields[f].name));
        Node *soa_place = cx_list(cx, syn, 3, acc, ssyn, i);
        Node *aos_place = cx_list(cx, syn, 2, acc, cx_list(cx, syn, 3, cx_sym(cx, syn, "~"), vsyn, i));
        set[k++] = to_soa ? soa_place : aos_place;
        set[k++] = to_soa ? aos_place : soa_place;
    }
    Node *count = cx_list(cx, syn, 3, cx_sym(cx, syn, "min"), cx_list(cx, syn, 2, cx_sym(cx, syn, "length~"), vsyn),
                          cx_list(cx, syn, 2, cx_sym(cx, syn, "length~"), ssyn));
    /* the core loop the prelude's dotimes expands to: (%loop (i 0 (< i n) (+ i 1)) body) */
    Node *head = cx_list(cx, syn, 4, i, cx_int(cx, syn, 0), cx_list(cx, syn, 3, cx_sym(cx, syn, "<"), i, count),
                         cx_list(cx, syn, 3, cx_sym(cx, syn, "+"), i, cx_int(cx, syn, 1)));
    Node *loop = cx_list(cx, syn, 3, cx_sym(cx, syn, "%loop"), head, syn_list(a, syn->loc, set, k));
    loop->origin = syn->origin;
    if (!loop->origin) { /* the loop's comment in the output names the form */
        Expansion *x = arena_alloc(a, sizeof *x);
        if (!x) return NULL;
        x->macro = syn->kids[0]->name;
        x->call = syn->loc;
        loop->origin = x;
    }
    Dest d = {D_DISCARD, NULL, NULL};
    ck_form_to(cx, loop, &d);
    return ck_node(cx, N_C_BLOCK, syn, &ty_void);
}
