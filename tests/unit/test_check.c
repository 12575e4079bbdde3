/* test_check.c - unit tests of the checker's passes (types/check.c).
 *
 * Each case runs the first stages by hand - the reader, the expander, then
 * check_program with a TargetNames of the test's choosing - and looks at the
 * checked Program as plain data: which function instances exist, in which
 * order, under which identifiers, with which types.  One case per pass of
 * check_program: definitions collected in any order, constants resolved
 * before use, signatures and overloads, def-const-vecs evaluated and named,
 * kernels checked (instantiating what they call), functions nobody called
 * checked when their signature is complete; and the naming seam: the
 * checker reserves exactly what the target it is handed reserves, and the
 * target spells every identifier (mangling, uniquing, derived and overload
 * names, the warp memory) - OpenCL C's, or Crisp's own without a target.  Last,
 * the passes run one by one (check_passes), each leaving what the next
 * needs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../emit-oclc/names.h"
#include "../../macros/expand.h"
#include "../../reader/reader.h"
#include "../../types/check_int.h"

typedef struct T {
    Crisp c;
    CrispOptions o;
    SrcFile file;
    FILE *dout;
    char *dbuf;
    size_t dlen;
    Program *p;
} T;

/* Read, expand and check SRC (named t.crisp), naming against NAMES. */
static T *check_src(const char *src, const TargetNames *names) {
    T *t = calloc(1, sizeof *t);
    assert_non_null(t);
    t->dout = open_memstream(&t->dbuf, &t->dlen);
    assert_non_null(t->dout);
    arena_init(&t->c.arena);
    diag_init(&t->c.diag, t->dout);
    t->c.opt = &t->o;
    t->file = (SrcFile){"t.crisp", src, (int)strlen(src)};
    SrcFile **files = arena_alloc(&t->c.arena, sizeof *files);
    assert_non_null(files);
    files[0] = &t->file;
    t->c.files = files;
    t->c.nfiles = 1;
    Reader r;
    reader_init(&r, &t->c);
    Forms read = {0};
    reader_read_file(&r, &t->file, &read);
    assert_int_equal(t->c.diag.errors, 0);
    Expander *x = expander_new(&t->c);
    assert_non_null(x);
    t->p = check_program(&t->c, x, read, names);
    assert_non_null(t->p);
    return t;
}

static const char *diags(T *t) {
    fflush(t->dout);
    return t->dbuf ? t->dbuf : "";
}

static void t_free(T *t) {
    fclose(t->dout);
    free(t->dbuf);
    arena_free(&t->c.arena);
    free(t);
}

/* A clean check: no diagnostic at all. */
static T *check_ok(const char *src, const TargetNames *names) {
    T *t = check_src(src, names);
    if (t->c.diag.errors || t->c.diag.warnings) fail_msg("unexpected diagnostics:\n%s", diags(t));
    return t;
}

/* The function instance named NAME (as written) of kind K, or NULL. */
static CFunc *func(const Program *p, FnKind k, const char *name) {
    for (int i = 0; i < p->nfuncs; i++)
        if (p->funcs[i]->kind == k && !strcmp(p->funcs[i]->name, name)) return p->funcs[i];
    return NULL;
}

static int prog_index(const Program *p, const CFunc *f) {
    for (int i = 0; i < p->nfuncs; i++)
        if (p->funcs[i] == f) return i;
    return -1;
}

static int count_named(const Program *p, const char *name) {
    int n = 0;
    for (int i = 0; i < p->nfuncs; i++) n += !strcmp(p->funcs[i]->name, name);
    return n;
}

/* The first node of kind K in tree N, depth first. */
static const Node *find_kind(const Node *n, NodeKind k) {
    if (!n) return NULL;
    if (n->kind == k) return n;
    for (int i = 0; i < n->nkids; i++) {
        const Node *f = find_kind(n->kids[i], k);
        if (f) return f;
    }
    return NULL;
}

static void expect_error(const char *src, const TargetNames *names, const char *fragment) {
    T *t = check_src(src, names);
    if (!t->c.diag.errors || !strstr(diags(t), fragment))
        fail_msg("want an error with `%s`, got:\n%s", fragment, diags(t));
    t_free(t);
}

#define FVEC "(def-type fvec (vector-type float :global :read-write))\n"

/* Collection: every definition is known before any body is checked, so a
 * kernel may call a function and read a constant defined after it; the
 * program lists callees before callers. */
static void test_definitions_in_any_order(void **state) {
    (void)state;
    T *t = check_ok(FVEC
                    "(def-kernel k (v:fvec w:int)\n"
                    "  (declare (global-size :derive-from v))\n"
                    "  (set! (~ v (get-global-id 0)) (f (to-float w))))\n"
                    "(def-function f (x:float) (declare (return-type float)) (* x +scale+))\n"
                    "(def-const +scale+:float 2.0)\n",
                    &oclc_names);
    CFunc *k = func(t->p, FN_KERNEL, "k"), *f = func(t->p, FN_FUNCTION, "f");
    assert_non_null(k);
    assert_non_null(f);
    assert_true(prog_index(t->p, f) < prog_index(t->p, k));
    assert_string_equal(f->cname, "f");
    assert_int_equal(k->nparams, 2);
    assert_int_equal(k->params[0]->ty->kind, TY_VECTOR);
    assert_int_equal(k->params[0]->ty->elem->sc, SC_FLOAT);
    assert_int_equal(k->params[0]->ty->as, AS_GLOBAL);
    assert_int_equal(k->params[1]->ty->sc, SC_INT);
    assert_int_equal(k->body->kind, N_C_BLOCK);
    /* the constant is substituted where it is used: f's body is x * 2.0f */
    const Node *ret = f->body->kids[f->body->nkids - 1];
    assert_int_equal(ret->kind, N_C_RETURN);
    assert_int_equal(ret->kids[0]->kind, N_C_BINARY);
    assert_int_equal(ret->kids[0]->kids[1]->kind, N_C_FLOATLIT);
    assert_true(ret->kids[0]->kids[1]->fval == 2.0);
    t_free(t);
}

/* Constants: resolved once, in the type they declare, before bodies; a
 * length written as a constant expression is folded into the type. */
static void test_constants_resolved_first(void **state) {
    (void)state;
    T *t = check_ok(FVEC
                    "(def-const +n+:int (* 4 +m+))\n"
                    "(def-const +m+:int 8)\n"
                    "(def-kernel k (v:fvec)\n"
                    "  (declare (global-size :derive-from v))\n"
                    "  (let ((p (make-vector float :private +n+)))\n"
                    "    (set! (~ p 0) 1.0)\n"
                    "    (set! (~ v 0) (~ p 0))))\n",
                    &oclc_names);
    CFunc *k = func(t->p, FN_KERNEL, "k");
    assert_non_null(k);
    const Node *decl = find_kind(k->body, N_C_DECL);
    assert_non_null(decl);
    assert_int_equal(decl->sym->ty->kind, TY_VECTOR);
    assert_int_equal(decl->sym->ty->length, 32);
    assert_int_equal(decl->sym->ty->as, AS_PRIVATE);
    t_free(t);

    /* a cycle between constants is reported once, not looped on */
    expect_error("(def-const +a+:int (+ +b+ 1))\n(def-const +b+:int (+ +a+ 1))\n", &oclc_names, "+a+");
}

/* Signatures and overloads: one instance per overload called, each with
 * an identifier that says which it is; two definitions with the same
 * parameter types are an error pointing at both. */
static void test_signatures_and_overloads(void **state) {
    (void)state;
    T *t = check_ok(FVEC
                    "(def-function scale (x:float) (declare (return-type float)) (* x 2.0))\n"
                    "(def-function scale (x:int) (declare (return-type int)) (* x 2))\n"
                    "(def-kernel k (v:fvec n:int)\n"
                    "  (declare (global-size :derive-from v))\n"
                    "  (set! (~ v 0) (+ (scale 1.5) (to-float (scale n)))))\n",
                    &oclc_names);
    assert_int_equal(count_named(t->p, "scale"), 2);
    const char *names[2];
    int n = 0;
    for (int i = 0; i < t->p->nfuncs; i++)
        if (!strcmp(t->p->funcs[i]->name, "scale")) {
            const CFunc *f = t->p->funcs[i];
            names[n++] = f->cname;
            assert_int_equal(f->ret->sc, f->params[0]->ty->sc); /* each returns its own type */
        }
    assert_string_not_equal(names[0], names[1]);
    assert_true(strstr(names[0], "float") || strstr(names[1], "float"));
    assert_true(strstr(names[0], "int") || strstr(names[1], "int"));
    t_free(t);

    expect_error("(def-function g (x:int) (declare (return-type int)) x)\n"
                 "(def-function g (y:int) (declare (return-type int)) (+ y 1))\n",
                 &oclc_names, "error[E0105]: `g` is already defined with the same parameter types");
}

/* Functions: instantiated per call from kernels (a vector parameter takes
 * the caller's address space); nobody calls `h`: checked on its own since
 * its signature is complete; `g`'s is not (its vector has no address
 * space), so it is checked only at calls (none: no instance). */
static void test_kernels_instantiate_what_they_call(void **state) {
    (void)state;
    T *t = check_ok("(def-type gvec (vector-type float :global :read-write))\n"
                    "(def-function first (a:(vector-type float)) (declare (return-type float)) (~ a 0))\n"
                    "(def-function g (a:(vector-type float)) (declare (return-type float)) (~ a 1))\n"
                    "(def-function h (x:int) (declare (return-type int)) (+ x 1))\n"
                    "(def-kernel k (v:gvec)\n"
                    "  (declare (global-size :derive-from v))\n"
                    "  (set! (~ v 1) (first v)))\n",
                    &oclc_names);
    CFunc *first = func(t->p, FN_FUNCTION, "first");
    assert_non_null(first);
    assert_int_equal(first->params[0]->ty->as, AS_GLOBAL);
    assert_null(func(t->p, FN_FUNCTION, "g"));
    assert_non_null(func(t->p, FN_FUNCTION, "h"));
    t_free(t);

    /* an error in a function nobody calls is found when its signature is
       complete, and only then */
    expect_error("(def-function h (x:int) (declare (return-type int)) (+ x 1.5))\n", &oclc_names, "t.crisp:1:");
    T *u = check_ok("(def-function g (a:(vector-type float)) (declare (return-type float)) (+ (~ a 0) nowhere))\n", &oclc_names);
    assert_int_equal(u->p->nfuncs, 0);
    t_free(u);
}

/* The library: its functions exist only when the program calls them, and
 * a program's own definition with the same parameter types replaces the
 * library's. */
static void test_library_definitions(void **state) {
    (void)state;
    T *t = check_ok(FVEC "(def-kernel k (v:fvec) (declare (global-size :derive-from v)) (set! (~ v 0) 1.0))\n", &oclc_names);
    assert_int_equal(t->p->nfuncs, 1);
    t_free(t);
    t = check_ok("(def-type uvec (vector-type uint :global :read-write))\n"
                 "(def-function radix-key (v:uint) (declare (return-type uint)) (+ v 7))\n"
                 "(def-kernel k (v:uvec) (declare (global-size :derive-from v)) (set! (~ v 0) (radix-key (~ v 1))))\n",
                 &oclc_names);
    assert_int_equal(count_named(t->p, "radix-key"), 1);
    CFunc *rk = func(t->p, FN_FUNCTION, "radix-key");
    const Node *ret = rk->body->kids[rk->body->nkids - 1];
    assert_int_equal(ret->kind, N_C_RETURN);
    assert_int_equal(ret->kids[0]->kind, N_C_BINARY); /* ours: v + 7, not the library's v */
    t_free(t);
}

/* def-const-vecs: run once every signature is known (the body may call a
 * function), then named clear of every function's identifier. */
static void test_const_vecs_evaluated_and_named(void **state) {
    (void)state;
    T *t = check_ok("(def-type ivec (vector-type int :global :read-write))\n"
                    "(def-function table (i:int) (declare (return-type int)) (* i i))\n"
                    "(def-const-vec +table+\n"
                    "  (let ((r (make-vector int :private 4)))\n"
                    "    (dotimes (i 4) (set! (~ r i) (table i)))\n"
                    "    r))\n"
                    "(def-kernel k (v:ivec)\n"
                    "  (declare (global-size :derive-from v) (use +table+))\n"
                    "  (set! (~ v 0) (+ (~ +table+ 3) (table 2))))\n",
                    &oclc_names);
    assert_int_equal(t->p->ncvecs, 1);
    const ConstVec *cv = t->p->cvecs[0];
    assert_int_equal(cv->ty->length, 4);
    assert_non_null(cv->ivals);
    for (int i = 0; i < 4; i++) assert_int_equal(cv->ivals[i], i * i);
    CFunc *f = func(t->p, FN_FUNCTION, "table");
    assert_non_null(f);
    assert_string_equal(f->cname, "table");
    assert_string_equal(cv->cname, "cv_table");
    t_free(t);
}

/* ---- the naming seam (TargetNames) ---- */

static int toy_prefix(const char *s) {
    return !strncmp(s, "toy_", 4);
}

static int toy_reserved(const char *s) {
    return !strcmp(s, "width") || !strcmp(s, "kern") || toy_prefix(s);
}

/* The toy target reserves its own words but spells like OpenCL C. */
static const TargetNames toy_names = {
    .language = "Toy C", .reserved = toy_reserved, .reserved_prefix = toy_prefix, .spell = oclc_spell,
    .join = oclc_join, .type_part = oclc_type_part, .member = oclc_member, .unique = oclc_unique,
    .take = oclc_take, .rollback = oclc_rollback, .host_ident = oclc_host_ident};

static const char *param_cname(const Program *p, const char *fn, int i) {
    for (int k = 0; k < p->nfuncs; k++)
        if (!strcmp(p->funcs[k]->name, fn)) return p->funcs[k]->params[i]->cname;
    return NULL;
}

#define NAMES_SRC                                                      \
    FVEC "(def-function toy-f (sin:float width:float) (declare (return-type float)) (+ sin width))\n" \
         "(def-kernel k (v:fvec)\n"                                      \
         "  (declare (global-size :derive-from v))\n"                     \
         "  (set! (~ v 0) (toy-f 1.0 2.0)))\n"

/* The checker reserves what its target reserves, and nothing else: `sin`
 * is taken in OpenCL C, `width` and toy_* in the toy target, nothing
 * without a target. */
static void test_names_follow_the_target(void **state) {
    (void)state;
    T *t = check_ok(NAMES_SRC, &oclc_names);
    assert_string_equal(param_cname(t->p, "toy-f", 0), "sin_2");
    assert_string_equal(param_cname(t->p, "toy-f", 1), "width");
    assert_string_equal(func(t->p, FN_FUNCTION, "toy-f")->cname, "toy_f");
    t_free(t);

    t = check_ok(NAMES_SRC, &toy_names);
    assert_string_equal(param_cname(t->p, "toy-f", 0), "sin");
    assert_string_equal(param_cname(t->p, "toy-f", 1), "width_2");
    assert_string_equal(func(t->p, FN_FUNCTION, "toy-f")->cname, "u_toy_f"); /* out of the reserved prefix */
    t_free(t);

    t = check_ok(NAMES_SRC, NULL);
    assert_string_equal(param_cname(t->p, "toy-f", 0), "sin");
    assert_string_equal(param_cname(t->p, "toy-f", 1), "width");
    assert_string_equal(func(t->p, FN_FUNCTION, "toy-f")->cname, "toy-f"); /* Crisp's own spelling */
    t_free(t);
}

#define SPELL_SRC                                                                              \
    FVEC "(def-function twice (x:int) (declare (return-type int)) (* 2 x))\n"                   \
         "(def-function twice (x:float) (declare (return-type float)) (* 2.0 x))\n"             \
         "(def-kernel k (v:fvec)\n"                                                          \
         "  (declare (global-size :derive-from v))\n"                                         \
         "  (let ((image-data 1.0) (n (twice 2))) (let ((image-data 2.0)) (set! (~ v n) image-data))\n" \
         "    (set! (~ v 0) (+ image-data (twice 1.0)))))\n"

/* How many locals named NAME (as written) tree N declares. */
static int count_locals(const Node *n, const char *name) {
    if (!n) return 0;
    int c = n->kind == N_C_DECL && n->sym && !strcmp(n->sym->name, name);
    for (int i = 0; i < n->nkids; i++) c += count_locals(n->kids[i], name);
    return c;
}

/* The identifier of the NTH local named NAME that tree N declares, or NULL. */
static const char *local_named(const Node *n, const char *name, int nth) {
    if (!n) return NULL;
    if (n->kind == N_C_DECL && n->sym && !strcmp(n->sym->name, name) && nth-- == 0) return n->sym->cname;
    for (int i = 0; i < n->nkids; i++) {
        int before = count_locals(n->kids[i], name);
        if (nth < before) return local_named(n->kids[i], name, nth);
        nth -= before;
    }
    return NULL;
}

/* The spelling is the target's (issue 16): OpenCL C mangles Lisp names,
 * makes a shadowing name unique with _K, names an overload after its
 * parameter types and a vector's length after the vector; without a target
 * the same program keeps Crisp's names, made unique with #K. */
static void test_spelling_is_the_targets(void **state) {
    (void)state;
    T *t = check_ok(SPELL_SRC, &oclc_names);
    CFunc *k = func(t->p, FN_KERNEL, "k");
    assert_non_null(k);
    assert_string_equal(local_named(k->body, "image-data", 0), "image_data");
    assert_string_equal(local_named(k->body, "image-data", 1), "image_data_2");
    assert_string_equal(k->params[0]->len_cname, "v_len");
    int nint = 0, nfloat = 0;
    for (int i = 0; i < t->p->nfuncs; i++) {
        const CFunc *f = t->p->funcs[i];
        /* the facts the names spell: which overload, which instance */
        if (!strcmp(f->cname, "twice_int")) {
            nint++;
            assert_int_equal(f->overload, 1);
            assert_int_equal(f->instance, 0);
        }
        if (!strcmp(f->cname, "twice_float")) {
            nfloat++;
            assert_int_equal(f->overload, 2);
            assert_int_equal(f->instance, 0);
        }
    }
    assert_int_equal(nint, 1);
    assert_int_equal(nfloat, 1);
    assert_int_equal(k->overload, 0);
    t_free(t);

    t = check_ok(SPELL_SRC, NULL);
    k = func(t->p, FN_KERNEL, "k");
    assert_non_null(k);
    assert_string_equal(local_named(k->body, "image-data", 0), "image-data");
    assert_string_equal(local_named(k->body, "image-data", 1), "image-data#2");
    assert_string_equal(k->params[0]->len_cname, "v-len");
    nint = 0;
    for (int i = 0; i < t->p->nfuncs; i++) nint += !strcmp(t->p->funcs[i]->cname, "twice-int");
    assert_int_equal(nint, 1);
    t_free(t);
}

/* The warp memory of the local-memory shuffle lowering is a variable of
 * the target's support code: the checker leaves it unnamed (whatever the
 * target), the target's naming pass names it, crisp_warp_mem in OpenCL C
 * (emit-oclc/warps.c prints the functions that take it). */
#define WARP_SRC                                                              \
    FVEC "(def-kernel k (v:fvec)\n"                                           \
         "  (declare (global-size :derive-from v))\n"                          \
         "  (in-each-thread (i) (let ((x (~ v i)))\n"                          \
         "    (in-warp (lane) (set! (~ v i) (shuffle-xor x 1))))))\n"

static void test_warp_memory_is_the_targets(void **state) {
    (void)state;
    T *t = check_ok(WARP_SRC, &oclc_names);
    CFunc *k = func(t->p, FN_KERNEL, "k");
    assert_non_null(k);
    assert_non_null(cfunc_rare(k)->warp_mem);
    assert_null(cfunc_rare(k)->warp_mem->cname);
    assert_string_equal(cfunc_rare(k)->warp_mem->name, "warp-memory");
    oclc_name_program(t->p, &t->c.arena);
    assert_string_equal(cfunc_rare(k)->warp_mem->cname, "crisp_warp_mem");
    assert_string_equal(cfunc_rare(k)->warp_mem->len_cname, "crisp_warp_mem_len");
    t_free(t);
    t = check_ok(WARP_SRC, NULL);
    k = func(t->p, FN_KERNEL, "k");
    assert_non_null(k);
    assert_non_null(cfunc_rare(k)->warp_mem);
    assert_null(cfunc_rare(k)->warp_mem->cname);
    assert_null(cfunc_rare(k)->warp_mem->len_cname);
    t_free(t);
}

/* OpenCL C's spelling hooks themselves (emit-oclc/names.c). */
/* The checker leaves structs and enumerations unnamed: the checked program
 * holds their Crisp names (an enumeration's keys as written) and a key's
 * value records its key; the target's naming pass spells the identifiers,
 * once. */
static void test_structs_and_enumerations_named_by_the_target(void **state) {
    (void)state;
    T *t = check_ok("(def-struct image-px (Red-Level float) (g float))\n"
                    "(def-derived-type px2 image-px)\n"
                    "(def-function red (p:image-px) (declare (return-type float)) (red-level~ p))\n"
                    "(def-enumeration life-phylum :Chordata (:sea-worm 5))\n"
                    "(def-kernel ek (v:(vector-type int :global :write-only))\n"
                    "  (let ((p life-phylum:chordata)) (set! (~ v 0) (if (= p :sea-worm) 1 0))))\n",
                    &oclc_names);
    assert_int_equal(t->p->nenums, 1);
    EnumDef *ed = t->p->enums[0];
    assert_null(ed->cname);
    StructDef *px = NULL, *px2 = NULL; /* the library may define structs too */
    for (int i = 0; i < t->p->nstructs; i++) {
        assert_null(t->p->structs[i]->cname);
        if (!strcmp(t->p->structs[i]->name, "image-px")) px = t->p->structs[i];
        if (!strcmp(t->p->structs[i]->name, "px2")) px2 = t->p->structs[i];
    }
    assert_non_null(px);
    assert_non_null(px2);
    assert_null(px->fields[0].cname);
    const Node *m = find_kind(func(t->p, FN_FUNCTION, "red")->body, N_C_MEMBER);
    assert_non_null(m);
    assert_string_equal(m->text, "Red-Level"); /* the field, not an identifier */
    assert_null(ed->cnames);
    assert_string_equal(ed->key_names[0], "Chordata");
    assert_string_equal(ed->keys[1], "sea-worm");
    const Node *lit = find_kind(func(t->p, FN_KERNEL, "ek")->body, N_C_INTLIT);
    assert_non_null(lit);
    assert_int_equal(lit->ty->kind, TY_ENUM);
    assert_string_equal(lit->text, "chordata"); /* the key, not an identifier */
    oclc_name_program(t->p, &t->c.arena);
    assert_string_equal(ed->cname, "life_phylum");
    assert_string_equal(ed->cnames[0], "life_phylum_Chordata");
    assert_string_equal(ed->cnames[1], "life_phylum_sea_worm");
    assert_string_equal(px->cname, "image_px");
    assert_string_equal(px->fields[0].cname, "Red_Level");
    assert_string_equal(px2->fields[1].cname, "g"); /* the original's fields */
    assert_string_equal(px2->cname, "px2");
    const char **before = ed->cnames;
    oclc_name_program(t->p, &t->c.arena); /* naming twice changes nothing */
    assert_ptr_equal(ed->cnames, before);
    t_free(t);
}

static void test_oclc_spelling(void **state) {
    (void)state;
    Arena a;
    arena_init(&a);
    assert_string_equal(oclc_spell(&a, "image-data"), "image_data");
    assert_string_equal(oclc_spell(&a, "even?"), "even_p");
    assert_string_equal(oclc_spell(&a, "set-x!"), "set_x_x");
    assert_string_equal(oclc_spell(&a, "+pi+"), "pi");
    assert_string_equal(oclc_spell(&a, "~"), "elem");
    assert_string_equal(oclc_spell(&a, "2d"), "v2d");
    assert_string_equal(oclc_join(&a, "v", "len"), "v_len");
    assert_string_equal(oclc_member(&a, "p", "x"), "p.x");
    assert_string_equal(oclc_type_part(&a, ty_num(SC_UINT)), "uint");
    Type *fv = ty_vector(&a, ty_num(SC_FLOAT), AS_GLOBAL, ACC_READ_WRITE, AL_COMPACT, -1);
    assert_string_equal(oclc_type_part(&a, fv), "floatvec");
    assert_string_equal(crisp_names.type_part(&a, fv), "float-vector");
    NameTable t = {0};
    assert_string_equal(oclc_unique(&a, &oclc_names, &t, "x"), "x");
    assert_string_equal(oclc_unique(&a, &oclc_names, &t, "x"), "x_2");
    assert_string_equal(oclc_unique(&a, &oclc_names, &t, "x"), "x_3");
    assert_string_equal(oclc_unique(&a, &oclc_names, &t, "sin"), "sin_2");     /* a built-in */
    assert_string_equal(oclc_unique(&a, &oclc_names, &t, "crisp_y"), "u_crisp_y"); /* a reserved prefix */
    int mark = t.n;
    assert_string_equal(oclc_unique(&a, &oclc_names, &t, "y"), "y");
    oclc_rollback(&a, &t, mark);
    assert_string_equal(oclc_unique(&a, &oclc_names, &t, "y"), "y"); /* free again */
    oclc_take(&a, &t, "k");
    assert_string_equal(oclc_unique(&a, &oclc_names, &t, "k"), "k_2");
    assert_string_equal(oclc_host_ident(&a, "scale-then-sum"), "scale_then_sum");
    assert_string_equal(oclc_host_ident(&a, "2pass"), "o_2pass");
    assert_string_equal(oclc_support("warp-memory"), "crisp_warp_mem");
    assert_string_equal(oclc_support("warp-memory-length"), "crisp_warp_mem_len");
    arena_free(&a);
}

/* A kernel keeps its name (the host calls it by it): a reserved one is an
 * error that names the target's language. */
static void test_kernel_names_against_the_target(void **state) {
    (void)state;
    const char *kern = FVEC "(def-kernel kern (v:fvec) (declare (global-size :derive-from v)) (set! (~ v 0) 1.0))\n";
    expect_error(kern, &toy_names, "error[E0103]: kernel name `kern` is a keyword or built-in of Toy C");
    T *t = check_ok(kern, &oclc_names);
    assert_non_null(func(t->p, FN_KERNEL, "kern"));
    t_free(t);
    expect_error(FVEC "(def-kernel toy_k (v:fvec) (declare (global-size :derive-from v)) (set! (~ v 0) 1.0))\n", &toy_names,
                 "kernel name `toy_k` starts with a prefix Toy C or crisp reserves");
    expect_error(FVEC "(def-kernel sqrt (v:fvec) (declare (global-size :derive-from v)) (set! (~ v 0) 1.0))\n", &oclc_names,
                 "kernel name `sqrt` is a keyword or built-in of OpenCL C");
}

/* OpenCL C's table itself (emit-oclc/names.c). */
static void test_oclc_reserved_words(void **state) {
    (void)state;
    const char *taken[] = {"int", "float", "get_global_id", "barrier", "NULL", "INFINITY",
                           "M_PI", "FLT_MAX", "CLK_LOCAL_MEM_FENCE", "crisp_global_id", "__x", "MAXFLOAT", NULL};
    for (int i = 0; taken[i]; i++)
        if (!oclc_reserved(taken[i])) fail_msg("`%s` should be reserved", taken[i]);
    const char *free_[] = {"it", "x", "width", "sum", "crisp", "maxval", NULL};
    for (int i = 0; free_[i]; i++)
        if (oclc_reserved(free_[i])) fail_msg("`%s` should be free", free_[i]);
    assert_true(oclc_reserved_prefix("crisp_x"));
    assert_false(oclc_reserved_prefix("sqrt"));
    assert_string_equal(oclc_names.language, "OpenCL C");
}

/* ---- the passes one at a time ---- */

static const CheckPass *pass_named(const char *name) {
    for (int i = 0; check_passes[i].run; i++)
        if (!strcmp(check_passes[i].name, name)) return &check_passes[i];
    return NULL;
}

static FuncDef *funcdef(Checker *ck, const char *name) {
    for (int i = 0; i < ck->nfuncs; i++)
        if (!strcmp(ck->funcs[i]->name, name)) return ck->funcs[i];
    return NULL;
}

static void test_passes_one_by_one(void **state) {
    (void)state;
    const char *order[] = {"collect", "constants", "derived", "generate", "orchestrations", "signatures",
                           "overloads", "const-vecs", "kernels", "functions", "orchestration-checks", NULL};
    int n = 0;
    for (; check_passes[n].run; n++) {
        assert_non_null(order[n]);
        assert_string_equal(check_passes[n].name, order[n]);
    }
    assert_null(order[n]);

    const char *src = FVEC
        "(def-kernel k (v:fvec) (declare (global-size :derive-from v)) (set! (~ v 0) (f +c+)))\n"
        "(def-function f (x:float) (declare (return-type float)) (* x 2.0))\n"
        "(def-function unused (x:int) (declare (return-type int)) (+ x 1))\n"
        "(def-const +c+:float (/ 1.0 4.0))\n";
    T *t = calloc(1, sizeof *t);
    assert_non_null(t);
    t->dout = open_memstream(&t->dbuf, &t->dlen);
    arena_init(&t->c.arena);
    diag_init(&t->c.diag, t->dout);
    t->c.opt = &t->o;
    t->file = (SrcFile){"t.crisp", src, (int)strlen(src)};
    SrcFile *files[1] = {&t->file};
    t->c.files = files;
    t->c.nfiles = 1;
    Reader r;
    reader_init(&r, &t->c);
    Forms read = {0};
    reader_read_file(&r, &t->file, &read);
    Checker ck;
    assert_true(checker_init(&ck, &t->c, expander_new(&t->c), read, &oclc_names));

    /* collect: the definitions are known, nothing is typed or checked */
    pass_named("collect")->run(&ck);
    FuncDef *k = funcdef(&ck, "k"), *f = funcdef(&ck, "f");
    assert_non_null(k);
    assert_non_null(f);
    assert_non_null(funcdef(&ck, "unused"));
    assert_true(ck.forms.n >= 4);
    Sym *c = ck_global_lookup(&ck, "+c+");
    assert_non_null(c);
    assert_null(sym_rare(c)->value);
    assert_null(f->ret);
    assert_int_equal(ck.prog->nfuncs, 0);

    /* constants: the value, in its type */
    pass_named("constants")->run(&ck);
    assert_non_null(sym_rare(c)->value);
    assert_int_equal(sym_rare(c)->value->kind, N_C_FLOATLIT);
    assert_true(sym_rare(c)->value->fval == 0.25);

    /* signatures: parameter and return types; still no body checked */
    pass_named("derived")->run(&ck);
    pass_named("generate")->run(&ck);
    pass_named("orchestrations")->run(&ck);
    pass_named("signatures")->run(&ck);
    assert_non_null(f->ret);
    assert_int_equal(f->ret->sc, SC_FLOAT);
    assert_int_equal(f->params[0].ty->sc, SC_FLOAT);
    assert_int_equal(ck.prog->nfuncs, 0);
    pass_named("overloads")->run(&ck);
    pass_named("const-vecs")->run(&ck);

    /* kernels: k and the instance of f it calls, callee first */
    pass_named("kernels")->run(&ck);
    assert_int_equal(ck.prog->nfuncs, 2);
    assert_string_equal(ck.prog->funcs[0]->name, "f");
    assert_string_equal(ck.prog->funcs[1]->name, "k");
    assert_int_equal(f->ninsts, 1);

    /* functions: `unused` on its own */
    pass_named("functions")->run(&ck);
    assert_int_equal(ck.prog->nfuncs, 3);
    assert_string_equal(ck.prog->funcs[2]->name, "unused");
    pass_named("orchestration-checks")->run(&ck);

    Program *p = checker_finish(&ck);
    assert_ptr_equal(p, ck.prog);
    assert_string_equal(p->source, "t.crisp");
    assert_int_equal(t->c.diag.errors, 0);
    t_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_definitions_in_any_order),
        cmocka_unit_test(test_constants_resolved_first),
        cmocka_unit_test(test_signatures_and_overloads),
        cmocka_unit_test(test_kernels_instantiate_what_they_call),
        cmocka_unit_test(test_library_definitions),
        cmocka_unit_test(test_const_vecs_evaluated_and_named),
        cmocka_unit_test(test_names_follow_the_target),
        cmocka_unit_test(test_kernel_names_against_the_target),
        cmocka_unit_test(test_spelling_is_the_targets),
        cmocka_unit_test(test_warp_memory_is_the_targets),
        cmocka_unit_test(test_oclc_spelling),
        cmocka_unit_test(test_structs_and_enumerations_named_by_the_target),
        cmocka_unit_test(test_oclc_reserved_words),
        cmocka_unit_test(test_passes_one_by_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
