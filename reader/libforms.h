/* libforms.h - the built-in library's forms, read at build time.
 *
 * Why it exists: reading the library's 280 KB of Crisp (the lib folder) was
 * the same work in every run of crisp, a twentieth of compiling a 1 MB
 * program and nearly all of compiling a small one (issue 14).  The build
 * runs the reader once (scripts/gen_libforms.c, a program linked with the
 * reader) and writes the syntax nodes it made as C data
 * (build/gen/libforms.c); reader/builtin.c hands those out instead of
 * parsing the text.  They are the nodes the reader makes at run time, field
 * for field (the tree, the spellings, which nodes share a spelling); the
 * file number of their locations is one the build chose (LIBFORMS_FID0 +
 * the file's index), which builtin.c claims for the file at first use (or,
 * if a process has given that number to another file, writes the one it
 * gets into the nodes).  A file the reader cannot read the
 * same way every time (one with a #+ / #- form, whose reading depends on
 * -D) is not there (nforms < 0) and is read at run time, as before. */
#ifndef CRISP_LIBFORMS_H
#define CRISP_LIBFORMS_H

#include "../core/node.h"

/* The file numbers the build gives the library's texts (their index in
 * crisp_library from this one up): the top of the table, which a process
 * reaches only after thousands of files (core/srcfile.c numbers from 1). */
#define LIBFORMS_FID0 (SRCFILE_MAX - 64)
#define LIBFORMS_MAX 64

typedef struct LibForms {
    const char *name;  /* the library file (crisp_library's name); NULL ends */
    int textlen;       /* the length of the text it was read from */
    Node **forms;      /* its top-level forms */
    int nforms;        /* -1: not read at build time */
    Node *nodes;       /* every node of the forms, for their file number */
    int nnodes;
    unsigned fid;      /* the file number the nodes' locations carry */
} LibForms;

/* One entry per crisp_library entry, in its order (build/gen/libforms.c;
 * scripts/libforms_stub.c, with none, for the program that writes it). */
extern const LibForms crisp_libforms[];

#endif
