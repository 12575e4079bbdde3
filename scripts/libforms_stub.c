/* libforms_stub.c - no library forms: what scripts/gen_libforms.c links
 * in place of build/gen/libforms.c, the file it writes (reader/libforms.h). */
#include "../reader/libforms.h"

const LibForms crisp_libforms[] = {{0, 0, 0, 0, 0, 0, 0}};
