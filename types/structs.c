/* structs.c - def-struct: std140 layout, make-NAME and NAME~ accessors.
 *
 * Spec "Struct Types" (member data rules, layout and alignment, member
 * access `x~` and `~x~`).  Crisp structs always use the std140 layout of
 * Vulkan/OpenGL.  The emitted OpenCL struct reproduces it exactly: explicit
 * padding members put every field at its std140 offset, 3-component vector
 * fields are stored as 3-element arrays (std140 gives them 12 bytes; an
 * OpenCL float3 takes 16) and read with vload3 / written with vstore3, and
 * the struct is 16-byte aligned. */
#include <string.h>

#include "check_int.h"

static Diag *D(Checker *ck) {
    return ck->d;
}

/* (def-struct NAME FIELD...) with FIELD (name type), (name:type) or name:type */
void ck_struct_collect(Checker *ck, Node *form) {
    if (form->nkids < 2 || form->kids[1]->kind != N_SYMBOL || form->kids[1]->ann) {
        diag_error_at(D(ck), form, "E0140", "expected (def-struct name (field type)...)");
        return;
    }
    Node *name = form->kids[1];
    if (ty_lookup_base(name->key)) {
        diag_error_at(D(ck), name, "E0132", "`%s` is a built-in type and cannot be redefined", name->name);
        return;
    }
    if (form->nkids < 3) {
        diag_error_at(D(ck), form, "E0141", "struct `%s` has no fields", name->name);
        return;
    }
    StructDef *sd = arena_alloc(ck->a, sizeof *sd);
    Type *t = arena_alloc(ck->a, sizeof *t);
    if (!sd || !t) return;
    sd->name = name->name;
    sd->def = form;
    t->kind = TY_STRUCT;
    t->sd = sd;
    sd->type = t;
    Sym *s = ck_new_global(ck, SYM_TYPE, name);
    if (!s) return;
    s->ty = t;
    arena_push(ck->a, (void ***)&ck->prog->structs, &ck->prog->nstructs, &ck->prog->capstructs, sd);
}

/* Is F a field spec: name:type, (name:type) or (name type)?  Sets *name and
 * *type when it is (either may be NULL). */
int ck_struct_field_shape(Node *f, Node **name, Node **type) {
    Node *n = NULL, *t = NULL;
    if (f->kind == N_SYMBOL && f->ann) n = f, t = f->ann;
    else if (f->kind == N_LIST && f->nkids == 1 && f->kids[0]->kind == N_SYMBOL && f->kids[0]->ann)
        n = f->kids[0], t = f->kids[0]->ann;
    else if (f->kind == N_LIST && f->nkids == 2 && f->kids[0]->kind == N_SYMBOL && !f->kids[0]->ann)
        n = f->kids[0], t = f->kids[1];
    if (!n) return 0;
    if (name) *name = n;
    if (type) *type = t;
    return 1;
}

static int field_syntax(Checker *ck, Node *f, Node **name, Node **type) {
    if (ck_struct_field_shape(f, name, type)) return 1;
    diag_error_at(D(ck), f, "E0142", "expected a field (name type) or name:type, found `%s`", syn_to_string(ck->a, f, 40));
    return 0;
}

static int subst_keyword(Checker *ck, Node *v, int *out) {
    static const char *names[] = {"no", "equal", "pass-orig", "pass-derived", NULL};
    for (int i = 0; names[i]; i++)
        if (syn_is_kw(v, names[i])) {
            *out = i;
            return 1;
        }
    diag_error_at(D(ck), v, "E0160", "`:subst` is one of :no :equal :pass-orig :pass-derived, found `%s`", syn_to_string(ck->a, v, 30));
    return 0;
}

/* Is SYN a vector, vector-view, soa or tensor-view type: a type form, or
 * an alias defined as one (matrix, a def-type of a vector type)?  Decided
 * on the syntax: derived types are collected before types are resolved. */
static int vector_original(Checker *ck, Node *syn, int depth) {
    static const char *forms[] = {"vector-type", "vector-view-type", "soa-vector-type", "soa-view-type",
                                  "tensor-view-type", "tensor-view", "const-vec-type", NULL};
    for (int i = 0; forms[i]; i++)
        if (syn_is_form(syn, forms[i])) return 1;
    const char *h = syn->kind == N_SYMBOL ? syn->key : syn_head(syn);
    size_t hl = h ? strlen(h) : 0;
    if (syn->kind == N_LIST && hl > 5 && !strcmp(h + hl - 5, "-type")) {
        /* (NAME-type ARGS...) of a templated def-type: a vector type when
           the template's body is one (ck_type_expr says E0164 otherwise) */
        if (ck_template_is_def_type(ck, arena_strndup(ck->a, h, hl - 5))) return 1;
    }
    Sym *s = h && depth < 16 ? ck_global_lookup(ck, h) : NULL;
    if (!s || s->kind != SYM_TYPE) return 0;
    if (s->ty) return s->ty->kind == TY_VECTOR;
    return sym_rare(s)->type_syn && (syn_is_form(sym_rare(s)->type_syn, "def-derived-type") || vector_original(ck, sym_rare(s)->type_syn, depth + 1));
}

/* The :subst of a (def-derived-type NAME ORIGINAL [:subst MODE]) form
 * (already checked by ck_derived_collect): 0 :no, 1 :equal, 2 :pass-orig,
 * 3 :pass-derived. */
int ck_derived_subst_of(const Node *form) {
    static const char *names[] = {"no", "equal", "pass-orig", "pass-derived", NULL};
    for (int i = 3; i + 1 < form->nkids; i += 2)
        if (syn_is_kw(form->kids[i], "subst"))
            for (int k = 0; names[k]; k++)
                if (syn_is_kw(form->kids[i + 1], names[k])) return k;
    return 0;
}

/* (def-derived-type NEW ORIGINAL &key (subst :no)): a new struct type with
 * the original's fields and layout (spec "Derived Types"). */
void ck_derived_collect(Checker *ck, Node *form) {
    if (form->nkids < 3 || form->kids[1]->kind != N_SYMBOL) {
        diag_error_at(D(ck), form, "E0161", "expected (def-derived-type name original-type [:subst :no])");
        return;
    }
    int subst = 0;
    for (int i = 3; i < form->nkids; i += 2) {
        if (!syn_is_kw(form->kids[i], "subst") || i + 1 >= form->nkids) {
            diag_error_at(D(ck), form->kids[i], "E0161", "def-derived-type takes only :subst, found `%s`",
                          syn_to_string(ck->a, form->kids[i], 30));
            return;
        }
        if (!subst_keyword(ck, form->kids[i + 1], &subst)) return;
    }
    if (vector_original(ck, form->kids[2], 0)) {
        /* a derived vector, view, soa or tensor-view type: an alias
           resolved by ck_type_expr through this very form (typeexpr.c,
           "def-derived-type") */
        Sym *s = ck_new_global(ck, SYM_TYPE, form->kids[1]);
        if (s) sym_rare_w(ck->a, s)->type_syn = form;
        return;
    }
    /* collect it as a struct, then mark how it is made */
    Node *fake_kids[3] = {form->kids[0], form->kids[1], form->kids[2]};
    Node *fake = syn_list(ck->a, form->loc, fake_kids, 3);
    int before = ck->prog->nstructs;
    ck_struct_collect(ck, fake);
    if (ck->prog->nstructs == before) return;
    StructDef *sd = ck->prog->structs[ck->prog->nstructs - 1];
    sd->def = form;
    sd->subst = subst;
    sd->orig_syn = form->kids[2];
}

/* (set-derived ORIGINAL DERIVED &key subst): relate two existing structs;
 * the sizes must allow the substitution the :subst key promises. */
void ck_set_derived(Checker *ck, Node *form) {
    if (form->nkids < 3) {
        diag_error_at(D(ck), form, "E0162", "expected (set-derived original-type derived-type [:subst ...])");
        return;
    }
    Type *o = ck_type_expr(ck, form->kids[1]), *d = ck_type_expr(ck, form->kids[2]);
    if (!o || !d) return;
    if (o->kind != TY_STRUCT || d->kind != TY_STRUCT) {
        diag_error_at(D(ck), form, "E0162", "set-derived relates two struct types, found `%s` and `%s`", ty_name(ck->a, o), ty_name(ck->a, d));
        return;
    }
    int subst = 0;
    for (int i = 3; i + 1 < form->nkids; i += 2)
        if (syn_is_kw(form->kids[i], "subst") && !subst_keyword(ck, form->kids[i + 1], &subst)) return;
    int os = o->sd->size, ds = d->sd->size;
    int ok = subst == 0 || (subst == 1 && os == ds) || (subst == 2 && os <= ds) || (subst == 3 && ds <= os);
    if (!ok) {
        static const char *rule[4] = {"any size", "the same size", "a derived size at least the original's", "a derived size at most the original's"};
        diag_error_at(D(ck), form, "E0163", "set-derived with :subst %s needs %s, but `%s` is %d bytes and `%s` is %d",
                      subst == 1 ? ":equal" : subst == 2 ? ":pass-orig" : ":pass-derived", rule[subst & 3], o->sd->name, os, d->sd->name, ds);
        return;
    }
    d->sd->derived_from = o->sd;
    d->sd->subst = subst;
}

/* Is T a struct holding vector-views, or a vector of them (device only)? */
int ck_struct_holds_views(Checker *ck, const Type *t) {
    if (t && t->kind == TY_VECTOR) t = t->elem;
    return t && t->kind == TY_STRUCT && !t->sd->pattern && ck_struct_resolve(ck, t->sd) && t->sd->has_views;
}

/* May a value of struct type `from` stand where `to` is expected? */
int ck_struct_subst_ok(const Type *from, const Type *to) {
    if (!from || !to || from->kind != TY_STRUCT || to->kind != TY_STRUCT) return 0;
    const StructDef *f = from->sd, *t = to->sd;
    if (f->derived_from == t) return f->subst == 1 || f->subst == 2;  /* derived -> original */
    if (t->derived_from == f) return t->subst == 1 || t->subst == 3;  /* original -> derived */
    return 0;
}

/* May a vector of type FROM go where TO is expected, as far as derived
 * vector types go (the other parts are checked by the caller)?  0 no, 1
 * the same (or no) derived type, 2 by the derived type's :subst.  A
 * derived tensor-view type always passes for its original (docs/types.md,
 * tensor-views). */
int ck_vector_tag_fit(const Type *from, const Type *to) {
    if (from->tag == to->tag || (from->tag && to->tag && syn_streq(from->tag, to->tag))) return 1;
    if (from->tag && to->tag) return 0;
    if (from->tag) return from->ndims || from->tag_subst == 1 || from->tag_subst == 2 ? 2 : 0; /* derived -> original */
    return to->tag_subst == 1 || to->tag_subst == 3 ? 2 : 0;                                    /* original -> derived */
}

/* May a value of type FROM stand where TO is expected through a derived
 * type's :subst (is-substitutable-for?): structs, or a derived vector type
 * and its original. */
int ck_derived_subst_ok(const Type *from, const Type *to) {
    if (!from || !to) return 0;
    if (from->kind == TY_STRUCT) return ck_struct_subst_ok(from, to);
    if (from->kind != TY_VECTOR || to->kind != TY_VECTOR || ck_vector_tag_fit(from, to) != 2) return 0;
    Type a = *from, b = *to;
    a.tag = b.tag = NULL;
    a.tag_subst = b.tag_subst = 0;
    return ty_equal(&a, &b);
}

/* Resolve the field types and compute the std140 layout (once). */
int ck_struct_resolve(Checker *ck, StructDef *sd) {
    if (sd->state == 2) return 1;
    if (sd->state == -1) return 0;
    const Node *form = sd->def;
    if (sd->state == 1) {
        diag_error_at(D(ck), form, "E0143", sd->orig_syn ? "derived type `%s` derives from itself" : "struct `%s` contains itself",
                      sd->name);
        sd->state = -1;
        return 0;
    }
    if (sd->orig_syn) {
        /* a derived type: the original's fields and layout */
        sd->state = 1;
        Type *o = ck_type_expr(ck, (Node *)sd->orig_syn);
        if (!o) {
            sd->state = -1;
            return 0;
        }
        if (o->kind != TY_STRUCT) {
            diag_error_at(D(ck), (const Node *)sd->orig_syn, "E0164", "def-derived-type derives from a struct here, found `%s`", ty_name(ck->a, o));
            sd->state = -1;
            return 0;
        }
        sd->derived_from = o->sd;
        sd->fields = o->sd->fields;
        sd->nfields = o->sd->nfields;
        sd->size = o->sd->size;
        sd->align = o->sd->align;
        sd->has_views = o->sd->has_views;
        sd->state = 2;
        return 1;
    }
    sd->state = 1;
    int n = form->nkids - 2;
    sd->fields = arena_alloc(ck->a, sizeof(Field) * (size_t)n);
    if (!sd->fields) return 0;
    int off = 0, ok = 1;
    for (int i = 0; i < n; i++) {
        Node *fname, *ftype;
        if (!field_syntax(ck, form->kids[i + 2], &fname, &ftype)) {
            ok = 0;
            continue;
        }
        for (int j = 0; j < sd->nfields; j++)
            if (syn_streq(sd->fields[j].key, fname->key)) {
                diag_error_at(D(ck), fname, "E0144", "struct `%s` has two fields named `%s`", sd->name, fname->name);
                ok = 0;
            }
        Type *t = ck_type_expr(ck, ftype);
        if (!t) {
            ok = 0;
            continue;
        }
        if (t->kind == TY_STRUCT && t->sd->pattern) {
            diag_error_at(D(ck), ftype, "E1017", "field `%s` of struct `%s` must have a complete type, found the incomplete `%s`",
                          fname->name, sd->name, t->sd->name);
            ok = 0;
            continue;
        }
        if (t->kind == TY_STRUCT && !ck_struct_resolve(ck, t->sd)) {
            ok = 0;
            continue;
        }
        if (t->kind == TY_VECTOR && !t->soa && !t->ndims && !t->tag) {
            /* a vector-view field (spec "Incomplete Types": (pair-type nil
               (vector-view-type))): a pointer and a length */
            if (!t->elem || !t->as) {
                diag_error_at(D(ck), ftype, "E0145",
                              "field `%s` of struct `%s` is a vector-view of `%s`; a field needs its element type and address space (a templated struct gets them from make-%s's argument)",
                              fname->name, sd->name, ty_name(ck->a, t), sd->name);
                ok = 0;
                continue;
            }
            Type *vt = ty_vector(ck->a, t->elem, t->as, t->acc ? t->acc : ACC_READ_WRITE, t->align ? t->align : AL_COMPACT, -1);
            vt->view = 1;
            Field *f = &sd->fields[sd->nfields++];
            f->name = fname->name;
            f->key = fname->key;
            f->ty = vt;
            f->view = 1;
            f->align = 8;
            f->size = 16;
            off = (off + 7) / 8 * 8;
            f->offset = off;
            off += f->size;
            sd->has_views = 1;
            continue;
        }
        if (t->kind == TY_STRUCT && t->sd->has_views) sd->has_views = 1;
        if (!(t->kind == TY_NUM || t->kind == TY_STRUCT || t->kind == TY_ENUM || (t->kind == TY_HWVEC && t->width <= 4))) {
            diag_error_at(D(ck), ftype, "E0145",
                          "field `%s` of struct `%s` has type `%s`; struct fields are numbers, 2-, 3- or 4-component vectors, structs or vector-views%s",
                          fname->name, sd->name, ty_name(ck->a, t),
                          t->kind == TY_BOOL ? " (bool has no fixed size on the device: use uchar or int)" : "");
            ok = 0;
            continue;
        }
        if ((t->kind == TY_NUM || t->kind == TY_HWVEC) && t->sc == SC_BFLOAT16) {
            diag_error_at(D(ck), ftype, "E0905", "`bfloat16` is not available in OpenCL C (no OpenCL C version has a bfloat16 type); use `half` or `float`");
            ok = 0;
            continue;
        }
        Field *f = &sd->fields[sd->nfields++];
        f->name = fname->name;
        f->key = fname->key;
        f->ty = t;
        f->align = ty_std140_align(t);
        f->size = ty_std140_size(t);
        f->as_array = t->kind == TY_HWVEC && t->width == 3;
        off = (off + f->align - 1) / f->align * f->align;
        f->offset = off;
        off += f->size;
    }
    sd->align = 16;
    sd->size = (off + 15) / 16 * 16;
    if (sd->size == 0) sd->size = 16;
    sd->state = ok ? 2 : -1;
    return ok;
}

static Field *find_field(StructDef *sd, const char *key) {
    for (int i = 0; i < sd->nfields; i++)
        if (syn_streq(sd->fields[i].key, key)) return &sd->fields[i];
    return NULL;
}

/* The C lvalue of a struct variable or of a struct field of one (a.inner),
 * or NULL for another expression. */
static const char *member_path(Ctx *cx, const Node *base) {
    if (base->kind == N_C_VAR && base->sym && base->sym->cname) return base->sym->cname;
    if (base->kind == N_C_MEMBER && !base->op && base->nkids == 1) {
        const char *p = member_path(cx, base->kids[0]);
        return p ? ck_names_member(cx->ck, p, ck_mangle(cx->ck, base->text)) : NULL;
    }
    return NULL;
}

/* (F~ S) for a vector-view field F (spec "Incomplete Types"): the view
 * the struct holds, as a vector variable whose C names are the struct's
 * members (S.F the pointer to its first element, S.F_len its length), so
 * every vector operation works on it.  Read-only: a new view is stored by
 * making a new struct (make-NAME). */
static Node *view_field(Ctx *cx, Node *syn, Node *base, Field *f, int for_write) {
    if (for_write) {
        diag_error_at(D(cx->ck), syn, "E0157",
                      "the vector-view field `%s` of `%s` cannot be assigned; make a new struct with make-%s (its elements can be set: (set! (~ (%s~ s) i) v))",
                      f->name, base->ty->sd->name, base->ty->sd->name, f->name);
        return NULL;
    }
    const char *path = member_path(cx, base);
    if (!path) {
        diag_error_at(D(cx->ck), syn, "E0158", "the vector-view field `%s` is read from a struct variable; bind `%s` with let first",
                      f->name, syn_to_string(cx->ck->a, syn->kids[1], 30));
        return NULL;
    }
    Sym *s = arena_alloc(cx->ck->a, sizeof *s);
    if (!s) return NULL;
    s->kind = SYM_LOCAL;
    s->name = arena_printf(cx->ck->a, "(%s~ %s)", f->name, syn_to_string(cx->ck->a, syn->kids[1], 30));
    s->key = s->name;
    const char *field = ck_mangle(cx->ck, f->name);
    s->cname = ck_names_member(cx->ck, path, field);
    s->len_cname = ck_names_member(cx->ck, path, ck_name_join(cx->ck, field, "len"));
    s->ty = f->ty;
    s->def = syn;
    return ck_var_ref(cx, syn, s);
}

/* (NAME~ S) and (~NAME~ S): a field of struct value `base` (already
 * checked).  for_write: the caller assigns through it. */
Node *ck_struct_member(Ctx *cx, Node *syn, Node *base, int for_write) {
    (void)for_write;
    const char *h = syn->kids[0]->key;
    size_t hl = strlen(h);
    const char *fk = arena_strndup(cx->ck->a, h + (h[0] == '~'), hl - 1 - (h[0] == '~'));
    StructDef *sd = base->ty->sd;
    Field *f = find_field(sd, fk);
    if (!f) {
        StrBuf names;
        sb_init(&names);
        for (int i = 0; i < sd->nfields; i++) sb_printf(&names, "%s%s~", i ? ", " : "", sd->fields[i].name);
        diag_error_at(D(cx->ck), syn, "E0146", "struct `%s` has no field `%s` (its accessors are %s)", sd->name, fk,
                      sb_cstr(&names));
        sb_free(&names);
        return NULL;
    }
    if (f->view) return view_field(cx, syn, base, f, for_write);
    Node *m = ck_node(cx, N_C_MEMBER, syn, f->ty);
    m->kids = arena_alloc(cx->ck->a, sizeof(Node *));
    if (!m->kids) return NULL;
    m->kids[0] = base;
    m->nkids = 1;
    m->text = f->name; /* the field; the target spells its identifier */
    m->op = f->as_array; /* read with vload3, written with vstore3 */
    return m;
}

/* Component k of a 3-vector field stored as T[3]: s.field[k]. */
Node *ck_struct_component(Ctx *cx, Node *m, int k) {
    Node *x = ck_node(cx, N_C_INDEX, m, ty_num(m->ty->sc));
    x->kids = arena_alloc(cx->ck->a, sizeof(Node *) * 2);
    if (!x->kids) return NULL;
    x->kids[0] = m;
    x->kids[1] = ck_int_lit(cx, m, k, ty_num(SC_INT));
    x->nkids = 2;
    return x;
}

/* A 3-vector field read: (float3)(s.f[0], s.f[1], s.f[2]).  (Plain
 * component reads rather than vload3: portable, and tools such as oclgrind
 * handle them.) */
Node *ck_struct_member_value(Ctx *cx, Node *m) {
    if (!m || !m->op) return m;
    Node *c = ck_node(cx, N_C_HWVEC, m, m->ty);
    c->kids = arena_alloc(cx->ck->a, sizeof(Node *) * 3);
    if (!c->kids) return NULL;
    for (int k = 0; k < 3; k++) c->kids[k] = ck_struct_component(cx, m, k);
    c->nkids = 3;
    return c;
}

/* The value CV (checked from V) for the vector-view field F: a vector
 * variable of F's element type and address space. */
static Node *view_field_value(Ctx *cx, const Node *v, Node *cv, const Field *f, const StructDef *sd) {
    const Type *t = cv->ty, *ft = f->ty;
    const char *why = cv->kind != N_C_VAR || !t || t->kind != TY_VECTOR ? "it is not a vector variable"
                      : t->soa || t->ndims                             ? "a field holds a vector or vector-view, not a soa or tensor-view"
                      : !ty_equal(t->elem, ft->elem)                    ? "element types differ"
                      : t->as != ft->as                                 ? "address spaces differ"
                      : !ck_vector_tag_fit(t, ft)                          ? "its derived type's :subst does not let it pass for the original"
                      : (ft->acc == ACC_READ_WRITE || ft->acc == ACC_WRITE_ONLY) && (t->acc == ACC_READ_ONLY || t->as == AS_CONSTANT)
                          ? "the field is writable but the vector is read-only"
                      : (cv->sym->write_only || t->acc == ACC_WRITE_ONLY) && ft->acc != ACC_WRITE_ONLY
                          ? "the vector is write-only but the field may be read; declare the field :write-only"
                          : NULL;
    if (why) {
        diag_error_at(D(cx->ck), v, "E0310", "field `%s` of `%s`: expected `%s`, found `%s` (%s)", f->name, sd->name,
                      ty_name(cx->ck->a, ft), ty_name(cx->ck->a, t), why);
        return NULL;
    }
    return cv;
}

/* (make-NAME :field value ...) or (make-NAME value ...): a struct value;
 * fields not given are zero. */
Node *ck_struct_make(Ctx *cx, Node *syn, StructDef *sd) {
    return ck_struct_make_checked(cx, syn, sd, NULL);
}

/* ck_struct_make with the value arguments already checked: PRE[i] is the
 * i-th value of SYN (make-NAME by template name, templates.c), or PRE is
 * NULL and each value is checked here against its field's type. */
Node *ck_struct_make_checked(Ctx *cx, Node *syn, StructDef *sd, Node **pre) {
    Checker *ck = cx->ck;
    if (!ck_struct_resolve(ck, sd)) return NULL;
    Node **vals = arena_alloc(ck->a, sizeof(Node *) * (size_t)sd->nfields);
    if (!vals) return NULL;
    int keyed = syn->nkids > 1 && syn->kids[1]->kind == N_KEYWORD;
    if (!keyed && syn->nkids - 1 > sd->nfields) {
        diag_error_at(D(ck), syn, "E0147", "`make-%s` takes at most %d values (one per field), found %d", sd->name, sd->nfields,
                      syn->nkids - 1);
        return NULL;
    }
    for (int i = 1; i < syn->nkids; i++) {
        Field *f;
        Node *v;
        if (keyed) {
            Node *k = syn->kids[i];
            if (k->kind != N_KEYWORD || i + 1 >= syn->nkids) {
                diag_error_at(D(ck), k, "E0148", "`make-%s` takes :field value pairs, found `%s`", sd->name, syn_to_string(ck->a, k, 30));
                return NULL;
            }
            f = find_field(sd, k->key);
            if (!f) {
                diag_error_at(D(ck), k, "E0146", "struct `%s` has no field `%s`", sd->name, k->name);
                return NULL;
            }
            v = syn->kids[++i];
        } else {
            f = &sd->fields[i - 1];
            v = syn->kids[i];
        }
        int fi = (int)(f - sd->fields);
        if (vals[fi]) {
            diag_error_at(D(ck), v, "E0149", "field `%s` of `%s` is given twice", f->name, sd->name);
            return NULL;
        }
        Node *cv = pre ? pre[keyed ? (i - 2) / 2 : i - 1] : ck_expr(cx, v, f->view ? NULL : f->ty);
        if (cv && f->view) cv = view_field_value(cx, v, cv, f, sd);
        else if (cv) cv = ck_coerce_part(cx, cv, f->ty, v, "field", f->name, sd->name);
        if (!cv) return NULL;
        vals[fi] = cv;
    }
    Node *c = ck_node(cx, N_C_CALL, syn, sd->type);
    c->kids = arena_alloc(ck->a, sizeof(Node *) * (size_t)(2 * sd->nfields));
    if (!c->kids) return NULL;
    for (int i = 0; i < sd->nfields; i++) {
        Field *f = &sd->fields[i];
        if (vals[i] && f->view) {
            /* a view: its first element's address and its length */
            Sym *vs = vals[i]->sym;
            Node *len = ck_node(cx, N_C_LENGTH, vals[i], ty_num(SC_ULONG));
            len->sym = vs;
            c->kids[c->nkids++] = sym_rare(vs)->off_sym ? ck_mk2(cx, N_C_BINARY, vals[i], vs->ty, OP_ADD, vals[i], ck_var_ref(cx, vals[i], sym_rare(vs)->off_sym)) : vals[i];
            c->kids[c->nkids++] = len;
        } else if (vals[i]) c->kids[c->nkids++] = vals[i];
        else if (f->ty->kind == TY_STRUCT || f->view) {
            diag_error_at(D(ck), syn, "E0150", "`make-%s` needs a value for the %s field `%s`", sd->name, f->view ? "vector-view" : "struct", f->name);
            return NULL;
        } else if (f->ty->kind == TY_HWVEC) {
            Node *z = ck_node(cx, N_C_CAST, syn, f->ty);
            z->kids = arena_alloc(ck->a, sizeof(Node *));
            if (!z->kids) return NULL;
            z->kids[0] = ck_int_lit(cx, syn, 0, ty_num(f->ty->sc));
            z->nkids = 1;
            c->kids[c->nkids++] = z;
        } else {
            c->kids[c->nkids++] = ck_int_lit(cx, syn, 0, f->ty);
        }
    }
    Helper *h = ck_need_helper(cx, H_MAKE_STRUCT, c->ty, AS_NONE);
    if (!h) return NULL;
    c->op = BI_HELPER;
    c->ival = h->index;
    return c;
}
