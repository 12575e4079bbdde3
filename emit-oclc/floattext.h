/* floattext.h - the spelling of a float or double constant in the emitted
 * C: the shortest `%.Ng` text that reads back as the same value (see
 * floattext.c). */
#ifndef CRISP_OCLC_FLOATTEXT_H
#define CRISP_OCLC_FLOATTEXT_H

/* Into buf (at least 32 bytes), NUL-terminated: snprintf's "%.*g" of `v`
 * with the smallest precision 1..17 whose text strtod (is_double) or
 * strtof reads back as v (as (float)v), or the precision 17 text when
 * none does.  No ".0" or "f" suffix.  Returns the length. */
int oclc_float_digits(char *buf, double v, int is_double);

/* The same by snprintf and strtod/strtof alone, precision after
 * precision (the reference oclc_float_digits is tested against). */
int oclc_float_digits_slow(char *buf, double v, int is_double);

#endif
