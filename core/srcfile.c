/* srcfile.c - the process-wide table behind SrcLoc's file number (node.h).
 *
 * Why a table: a location is 8 bytes (line, column, file number) instead
 * of 16 with a pointer, which makes every node 64 bytes, not 72 (issue 14:
 * nodes are most of a compilation's memory).  The table is process-wide,
 * not per compilation, because the built-in texts' forms are read once and
 * shared by every compilation (reader/builtin.c).  A mutex guards it:
 * compilations may run in several threads at once. */
#include "node.h"

#include <pthread.h>

static pthread_mutex_t srcfile_lock = PTHREAD_MUTEX_INITIALIZER;
static const SrcFile *srcfiles[SRCFILE_MAX + 1]; /* [1..SRCFILE_MAX) used */
static unsigned char srcfile_kept[SRCFILE_MAX + 1];
static unsigned srcfile_next = 1; /* where the search for a free number starts */
/* One past the highest number ever given: the searches stop there (issue
 * 14: scanning all 4,095 slots at each of the library's 13 claims was a
 * fifth of a small program's instructions). */
static unsigned srcfile_top = 1;

unsigned srcfile_id(const SrcFile *f) {
    if (!f) return 0;
    pthread_mutex_lock(&srcfile_lock);
    unsigned id = 0;
    for (unsigned i = 1; i < srcfile_top && !id; i++)
        if (srcfiles[i] == f) id = i;
    if (!id) {
        /* a free number, else the oldest one not kept (round robin) */
        for (unsigned i = 1; i < srcfile_top && !id; i++)
            if (!srcfiles[i]) id = i;
        if (!id && srcfile_top < SRCFILE_MAX) id = srcfile_top++;
        for (unsigned n = 0; n < SRCFILE_MAX && !id; n++) {
            unsigned i = srcfile_next;
            srcfile_next = srcfile_next + 1 < SRCFILE_MAX ? srcfile_next + 1 : 1;
            if (!srcfile_kept[i]) id = i;
        }
        if (id) srcfiles[id] = f;
    }
    pthread_mutex_unlock(&srcfile_lock);
    return id;
}

void srcfile_keep(const SrcFile *f) {
    unsigned id = srcfile_id(f);
    pthread_mutex_lock(&srcfile_lock);
    if (id) srcfile_kept[id] = 1;
    pthread_mutex_unlock(&srcfile_lock);
}

int srcfile_claim(const SrcFile *f, unsigned id) {
    if (!f || !id || id >= SRCFILE_MAX) return 0;
    pthread_mutex_lock(&srcfile_lock);
    int ok = srcfiles[id] == f;
    if (!ok && !srcfiles[id]) {
        ok = 1;
        for (unsigned i = 1; i < srcfile_top && ok; i++) ok = srcfiles[i] != f; /* not numbered already */
        if (ok) srcfiles[id] = f;
        if (ok && id >= srcfile_top) srcfile_top = id + 1;
    }
    if (ok) srcfile_kept[id] = 1;
    pthread_mutex_unlock(&srcfile_lock);
    return ok;
}

const SrcFile *srcfile_of(unsigned fid) {
    if (!fid || fid >= SRCFILE_MAX) return NULL;
    pthread_mutex_lock(&srcfile_lock);
    const SrcFile *f = srcfiles[fid];
    pthread_mutex_unlock(&srcfile_lock);
    return f;
}
