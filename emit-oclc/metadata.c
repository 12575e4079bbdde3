/* metadata.c - BASE.metacrisp: the JSON description of every kernel's
 * OpenCL arguments (the kernel ABI of abi.h), for hoisting code and tools.
 * The format is part of the ABI (README "Metadata"); keys are printed in a
 * fixed order so the file is deterministic. */
#include <stdio.h>
#include <string.h>

#include "abi.h"
#include "ctext.h"
#include "emit_oclc.h"
#include "sizeprint.h"

static void json_str(StrBuf *b, const char *s) {
    sb_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') sb_printf(b, "\\%c", *p);
        else if (*p == '\n') sb_puts(b, "\\n");
        else if (*p == '\t') sb_puts(b, "\\t");
        else if (*p < 32) sb_printf(b, "\\u%04x", *p);
        else sb_putc(b, (char)*p);
    }
    sb_putc(b, '"');
}

static void key_str(StrBuf *b, const char *key, const char *val) {
    sb_printf(b, ", \"%s\": ", key);
    json_str(b, val);
}

static void size_json(StrBuf *b, const SizeDecl *sd) {
    if (!sd->present) {
        sb_puts(b, "null");
        return;
    }
    sb_printf(b, "{\"dims\": %d", sd->dims);
    if (sd->nset) {
        sb_puts(b, ", \"set_to\": [");
        for (int i = 0; i < sd->nset; i++) sb_printf(b, "%s%lld", i ? ", " : "", (long long)sd->set_to[i]);
        sb_putc(b, ']');
    }
    if (sd->nderive) {
        sb_puts(b, ", \"derive_from\": [");
        for (int i = 0; i < sd->nderive; i++) {
            if (i) sb_puts(b, ", ");
            json_str(b, sd->derive[i]);
        }
        sb_putc(b, ']');
    }
    if (sd->msg) key_str(b, "msg", sd->msg);
    sb_putc(b, '}');
}

/* "size": {"crisp": ..., "c": ..., "python": ..., "inputs": [...]}: the
 * size tree printed as C and Python over docs/abi.md's input names. */
static void expr_json(StrBuf *b, Arena *a, const AbiKernel *k, const char *key, const AbiSize *z) {
    sb_printf(b, ", \"%s\": {", key);
    if (z->crisp) {
        sb_puts(b, "\"crisp\": ");
        json_str(b, z->crisp);
        sb_puts(b, ", ");
    }
    sb_puts(b, "\"c\": ");
    json_str(b, size_c(a, z->expr, abi_input_name, (void *)k));
    key_str(b, "python", size_py(a, z->expr, abi_input_name, (void *)k));
    sb_puts(b, ", \"inputs\": [");
    const SizeExpr **in = NULL;
    int nin = 0, cap = 0;
    sz_collect_inputs(a, z->expr, &in, &nin, &cap);
    for (int i = 0; i < nin; i++) {
        if (i) sb_puts(b, ", ");
        const char *name = abi_input_name((void *)k, in[i]);
        json_str(b, name ? name : size_input_default(a, in[i]));
    }
    sb_puts(b, "]}");
}

static void arg_json(StrBuf *b, Arena *ar, const AbiKernel *k, const AbiArg *a) {
    sb_printf(b, "        {\"index\": %d, \"name\": ", a->index);
    json_str(b, a->name);
    sb_printf(b, ", \"role\": \"%s\"", abi_role_name(a->role));
    key_str(b, "type", a->type);
    if (a->role == ROLE_LENGTH) {
        key_str(b, "param", a->param);
        if (k->args[a->measures].role == ROLE_SCRATCH) sb_puts(b, ", \"unit\": \"bytes\"");
    } else if (a->role != ROLE_SCALAR) {
        sb_printf(b, ", \"element\": \"%s\", \"address_space\": \"%s\", \"access\": \"%s\", \"align\": \"%s\", \"stride\": %d",
                  a->element, ty_as_name(a->as), ty_acc_name(a->acc), ty_align_name(a->align), a->stride);
        if (a->is_out) sb_puts(b, ", \"out\": true");
        if (a->fixed_length >= 0) sb_printf(b, ", \"length\": %lld", (long long)a->fixed_length);
        if (a->role == ROLE_RESULT || a->role == ROLE_IMPLICIT || a->role == ROLE_SCRATCH || a->role == ROLE_LOCAL)
            expr_json(b, ar, k, a->role == ROLE_SCRATCH ? "bytes" : "size", &a->size);
        if (a->need) {
            AbiSize z = {NULL, a->need};
            expr_json(b, ar, k, "touches", &z);
        }
        if (a->unchecked) key_str(b, "unchecked", a->unchecked);
        if (a->comment) key_str(b, "comment", a->comment);
    }
    sb_putc(b, '}');
}

/* "orchestrations": each one's steps (kernel, mode, where every argument
 * comes from) and its buffers (the orchestration's arguments and the
 * result vectors passed between steps), for tools (docs/orchestration.md).
 * Launch sizes are each kernel's own ("kernels" above). */
static void orchs_json(StrBuf *b, const Abi *abi, Arena *ar) {
    static const char *modes[] = {"sequential", "parallel", "interleaved"};
    sb_puts(b, ",\n  \"orchestrations\": [");
    for (int i = 0; i < abi->norchs; i++) {
        const AbiOrch *ao = &abi->orchs[i];
        const Orchestration *o = ao->o;
        sb_printf(b, "%s\n    {\n      \"name\": ", i ? "," : "");
        json_str(b, o->name);
        key_str(b, "ident", o->ident);
        key_str(b, "origin", o->origin);
        sb_printf(b, ", \"line\": %d,\n      \"buffers\": [", o->line);
        for (int j = 0; j < ao->nbufs; j++) {
            const AbiOrchBuf *ob = &ao->bufs[j];
            sb_printf(b, "%s\n        {\"index\": %d, \"name\": ", j ? "," : "", j);
            json_str(b, ob->ident);
            sb_printf(b, ", \"kind\": \"%s\", \"step\": %d", ob->fresh ? "argument" : "result", ob->step);
            key_str(b, "kernel_arg", ob->arg->name);
            sb_printf(b, ", \"role\": \"%s\"", abi_role_name(ob->arg->role));
            if (ob->arg->role != ROLE_SCALAR) sb_printf(b, ", \"element\": \"%s\"", ob->arg->element);
            else key_str(b, "type", ob->arg->type);
            sb_printf(b, ", \"read\": %s, \"written\": %s", ob->read ? "true" : "false", ob->written ? "true" : "false");
            if (ob->like >= 0) sb_printf(b, ", \"intermediate\": {\"length_of\": %d}", ob->like); /* may be left out */
            sb_putc(b, '}');
        }
        sb_puts(b, "\n      ],\n      \"steps\": [");
        for (int s = 0; s < o->nsteps; s++) {
            const OrchStep *st = &o->steps[s];
            sb_printf(b, "%s\n        {\"kernel\": ", s ? "," : "");
            json_str(b, st->kernel);
            const AbiKernel *k = &abi->kernels[ao->kernel[s]];
            sb_printf(b, ", \"mode\": \"%s\", \"line\": %d, \"global_size\": ", modes[st->mode], st->line);
            size_json(b, k->gsize); /* the kernel's own: each step launches with its sizes */
            if (st->gsize) key_str(b, "global_size_value", orch_expr_text(ar, ao, st->gsize, ORCH_TEXT_CRISP, NULL, NULL));
            sb_puts(b, ", \"local_size\": ");
            size_json(b, k->lsize);
            sb_puts(b, ", \"args\": [");
            for (int j = 0; j < st->nargs; j++) {
                sb_puts(b, j ? ", " : "");
                sb_puts(b, "{\"param\": ");
                json_str(b, k->args[k->param_arg[j]].name);
                sb_printf(b, ", \"buffer\": %d", ao->slot[s][j]);
                if (st->args[j].expr) key_str(b, "value", orch_expr_text(ar, ao, st->args[j].expr, ORCH_TEXT_CRISP, NULL, NULL));
                if (st->args[j].step >= 0) {
                    sb_puts(b, ", \"from\": ");
                    json_str(b, o->steps[st->args[j].step].kernel);
                    sb_puts(b, ", \"from_param\": ");
                    json_str(b, ao->bufs[ao->slot[s][j]].arg->name);
                }
                sb_putc(b, '}');
            }
            sb_putc(b, ']');
            if (st->mode == ORCH_INTERLEAVED) {
                sb_puts(b, ", \"offset\": ");
                json_str(b, k->args[k->param_arg[st->offset_param]].name);
                sb_puts(b, ", \"length\": ");
                json_str(b, k->args[k->param_arg[st->length_param]].name);
                sb_puts(b, ", \"exclude\": [");
                for (int j = 0, n = 0; j < st->nargs; j++)
                    if (st->exclude[j]) {
                        sb_puts(b, n++ ? ", " : "");
                        json_str(b, k->args[k->param_arg[j]].name);
                    }
                sb_putc(b, ']');
            }
            sb_putc(b, '}');
        }
        sb_puts(b, "\n      ]");
        if (o->nloops) { /* run-time loops: the steps [first_step, end_step) */
            sb_puts(b, ",\n      \"loops\": [");
            for (int l = 0; l < o->nloops; l++) {
                const OrchLoop *ol = &o->loops[l];
                sb_printf(b, "%s\n        {\"var\": ", l ? "," : "");
                json_str(b, ol->var);
                key_str(b, "kind", ol->halving ? "do-times-by-half" : "do-times-by-doubling");
                key_str(b, "start", orch_expr_text(ar, ao, ol->start, ORCH_TEXT_CRISP, NULL, NULL));
                key_str(b, "limit", orch_expr_text(ar, ao, ol->limit, ORCH_TEXT_CRISP, NULL, NULL));
                sb_printf(b, ", \"while\": \"%s\", \"first_step\": %d, \"end_step\": %d, \"depth\": %d, \"line\": %d}",
                          ol->halving ? "0 < var, var >= limit" : "0 < var <= limit", ol->first, ol->end, ol->depth, ol->line);
            }
            sb_puts(b, "\n      ]");
        }
        sb_puts(b, "\n    }");
    }
    sb_puts(b, "\n  ]");
}

void emit_metadata(StrBuf *b, const Program *p, Arena *scratch) {
    emit_metadata_binaries(b, p, scratch, NULL, 0);
}

void emit_metadata_binaries(StrBuf *b, const Program *p, Arena *scratch, const MetaBinary *bins, int nbins) {
    Abi *abi = abi_build(scratch, p);
    sb_printf(b, "{\n  \"crisp_version\": \"%s\",\n  \"source\": ", CRISP_VERSION);
    json_str(b, p->source);
    sb_printf(b, ",\n  \"ocl_version\": \"%d.%d\",\n  \"build_options\": \"%s\"", p->ocl_version / 100,
              p->ocl_version / 10 % 10, abi ? abi->cl_std : "");
    sb_printf(b, ",\n  \"debug_output\": %s", p->debug_output ? "true" : "false");
    sb_puts(b, ",\n  \"kernels\": [");
    for (int ki = 0; abi && ki < abi->nkernels; ki++) {
        const AbiKernel *k = &abi->kernels[ki];
        /* what printing a kernel allocates (its size expressions' inputs)
           is dead once it is printed (issue 14: a sixth of what --metadata
           added to the peak) */
        ArenaMark printing = arena_scope_begin(scratch);
        sb_printf(b, "%s\n    {\n      \"name\": ", ki ? "," : "");
        json_str(b, k->name);
        sb_printf(b, ",\n      \"line\": %d,\n", k->line);
        if (k->exact) sb_puts(b, "      \"exact\": true,\n");
        sb_puts(b, "      \"args\": [\n");
        for (int i = 0; i < k->nargs; i++) {
            arg_json(b, scratch, k, &k->args[i]);
            sb_puts(b, i + 1 < k->nargs ? ",\n" : "\n");
        }
        sb_puts(b, "      ],\n      \"global_size\": ");
        size_json(b, k->gsize);
        sb_puts(b, ",\n      \"local_size\": ");
        size_json(b, k->lsize);
        sb_printf(b, ",\n      \"single_task\": %s", k->single_task ? "true" : "false");
        if (k->uses_warp) {
            /* the warp size each lowering assumes (docs/warps.md), and the
               __local memory the local-memory one needs */
            sb_printf(b, ",\n      \"warp\": {\"size\": %d, \"paths\": {%s\"ptx\": %d, \"local\": %d}, "
                         "\"local_bytes_per_thread\": %d}",
                      CRISP_WARP_SIZE, p->ocl_version >= 200 ? "\"subgroups\": 32, " : "", CRISP_WARP_SIZE, CRISP_WARP_SIZE,
                      4 * k->warp_words);
        }
        if (k->lmem && k->lmem->nparts) {
            /* __local bytes per workgroup: at the declared local size (null:
               known only at launch), the fixed part, the total as a size */
            const LocalMem *lm = k->lmem;
            sb_puts(b, ",\n      \"local_mem\": {\"bytes\": ");
            if (lm->at_size >= 0) sb_printf(b, "%lld", (long long)lm->at_size);
            else sb_puts(b, "null");
            sb_puts(b, ", \"at_local_size\": ");
            if (lm->local_size) sb_printf(b, "%lld", (long long)lm->local_size);
            else sb_puts(b, "null");
            sb_printf(b, ", \"static_bytes\": %lld", (long long)lm->static_bytes);
            if (lm->bytes) {
                AbiSize z = {NULL, lm->bytes};
                expr_json(b, scratch, k, "size", &z);
            }
            sb_putc(b, '}');
        }
        if (k->nscratch) {
            sb_puts(b, ",\n      \"scratch\": [");
            for (int i = 0; i < k->nscratch; i++) {
                const AbiScratchPart *sp = &k->scratch[i];
                sb_printf(b, "%s\n        {\"name\": ", i ? "," : "");
                json_str(b, sp->name);
                sb_printf(b, ", \"element\": \"%s\", \"stride\": %d", sp->element, sp->stride);
                expr_json(b, scratch, k, "size", &sp->count);
                if (sp->comment) key_str(b, "comment", sp->comment);
                sb_putc(b, '}');
            }
            sb_puts(b, "\n      ]");
        }
        sb_puts(b, "\n    }");
        arena_scope_end(scratch, printing);
    }
    sb_puts(b, abi && abi->nkernels ? "\n  ]" : "]");
    /* struct layouts (std140), for host code that builds buffers of them */
    sb_puts(b, ",\n  \"structs\": [");
    int ns = 0;
    for (int i = 0; i < p->nstructs; i++) {
        const StructDef *sd = p->structs[i];
        if (sd->state != 2 || sd->has_views) continue; /* holding views: device only */
        sb_printf(b, "%s\n    {\"name\": ", ns++ ? "," : "");
        json_str(b, sd->name);
        key_str(b, "cname", sd->cname);
        sb_printf(b, ", \"size\": %d, \"align\": %d, \"fields\": [", sd->size, sd->align);
        for (int j = 0; j < sd->nfields; j++) {
            const Field *f = &sd->fields[j];
            sb_printf(b, "%s{\"name\": ", j ? ", " : "");
            json_str(b, f->name);
            key_str(b, "cname", f->cname);
            key_str(b, "type", oclc_type_name(f->ty));
            sb_printf(b, ", \"offset\": %d, \"size\": %d}", f->offset, f->size);
        }
        sb_puts(b, "]}");
    }
    sb_puts(b, ns ? "\n  ]" : "]");
    sb_puts(b, ",\n  \"enums\": [");
    for (int i = 0; i < p->nenums; i++) {
        const EnumDef *ed = p->enums[i];
        sb_printf(b, "%s\n    {\"name\": ", i ? "," : "");
        json_str(b, ed->name);
        key_str(b, "cname", ed->cname);
        sb_puts(b, ", \"values\": {");
        for (int j = 0; j < ed->nkeys; j++) {
            sb_puts(b, j ? ", " : "");
            json_str(b, ed->keys[j]);
            sb_printf(b, ": %lld", (long long)ed->values[j]);
        }
        sb_puts(b, "}}");
    }
    sb_puts(b, p->nenums ? "\n  ]" : "]");
    if (abi && abi->nsorts) {
        /* gen-bitonic-sort-vector / gen-radix-sort-vector: the host functions
           and the kernels they run, in order (docs/library.md "Sorting") */
        sb_puts(b, ",\n  \"sorts\": [");
        for (int i = 0; i < abi->nsorts; i++) {
            const AbiSort *s = &abi->sorts[i];
            sb_printf(b, "%s\n    {\"name\": ", i ? "," : "");
            json_str(b, s->name);
            key_str(b, "kind", s->kind == HOST_SORT_RADIX ? "radix" : "bitonic");
            key_str(b, "element", s->elem);
            sb_puts(b, ", \"kernels\": [");
            for (int j = 0; j < 3; j++) {
                sb_puts(b, j ? ", " : "");
                json_str(b, s->k[j]->name);
            }
            sb_putc(b, ']');
            if (s->kind == HOST_SORT_RADIX)
                sb_printf(b, ", \"passes\": %d, \"pairs\": %s, \"digit_bits\": %d, \"local_size\": %d, \"keys_per_thread\": %d}",
                          s->passes, s->pairs ? "true" : "false", s->digit_bits, s->wg, s->kpt);
            else sb_printf(b, ", \"local_size\": %d, \"in_place\": %s}", s->wg, s->in_place ? "true" : "false");
        }
        sb_puts(b, "\n  ]");
    }
    if (abi && abi->norchs) orchs_json(b, abi, scratch);
    if (p->debug_output) {
        /* what the host needs to decode debug records (docs/abi.md) */
        sb_puts(b, ",\n  \"debug_sites\": [");
        for (int i = 0; i < p->nsites; i++) {
            const DebugSite *s = p->sites[i];
            sb_printf(b, "%s\n    {\"id\": %d, \"file\": ", i ? "," : "", i);
            json_str(b, s->file);
            sb_printf(b, ", \"line\": %d, \"kind\": \"%s\", \"parts\": [", s->line, s->kind);
            for (int j = 0; j < s->nparts; j++) {
                const DebugPart *dp = &s->parts[j];
                sb_puts(b, j ? ", " : "");
                if (dp->text) {
                    sb_puts(b, "{\"text\": ");
                    json_str(b, dp->text);
                    sb_putc(b, '}');
                } else {
                    sb_printf(b, "{\"type\": \"%s\", \"expr\": ", dp->ty ? oclc_type_name(dp->ty) : "int");
                    json_str(b, dp->expr ? dp->expr : "");
                    sb_putc(b, '}');
                }
            }
            sb_puts(b, "]}");
        }
        sb_puts(b, p->nsites ? "\n  ]" : "]");
    }
    if (nbins) {
        /* the IR and binaries written beside the .cl (docs/targets.md) */
        sb_puts(b, ",\n  \"binaries\": [");
        for (int i = 0; i < nbins; i++) {
            sb_printf(b, "%s\n    {\"file\": ", i ? "," : "");
            json_str(b, bins[i].file);
            key_str(b, "target", bins[i].target);
            key_str(b, "loader", bins[i].loader);
            sb_putc(b, '}');
        }
        sb_puts(b, "\n  ]");
    }
    sb_puts(b, "\n}\n");
}
