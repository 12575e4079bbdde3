/* floattext.c - the shortest %g spelling of a constant (floattext.h).
 *
 * The emitted C spells a float or double constant with the fewest
 * significant digits that read back as the same value.  Asking snprintf
 * for each precision and strtof whether its text reads back took up to 17
 * pairs of calls, about 7,800 instructions per distinct constant (issue 14:
 * a seventh of the emitter on the 1 MB program).  Here, for magnitudes from
 * 1e-9 to 1e17, the digits are made once, exactly, in integers:
 * v = M * 2^E times 10^k (k = 17 - X, 10^X <= v < 10^(X+1)) is
 * M * 5^k * 2^(E+k), within 128 bits (M < 2^53, 5^k < 2^64 for k <= 27),
 * whose integer part N has 18 digits and whose fraction is known to be zero
 * or not; each precision's rounding of N is then exact (a tie, where
 * snprintf follows the rounding mode, goes the slow way).  Whether a
 * float's text reads back is decided by where its value falls between
 * the midpoints to the float's neighbours (what strtof rounds to), in
 * double arithmetic with a margin far wider than its rounding error and
 * far narrower than the gap; strtof decides inside the margin, and strtod
 * for a double.  Anything else (zero, tiny or huge values, NaN) goes the
 * slow way, which is also the reference tests/unit/test_emit.c compares
 * with. */
#include "floattext.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

int oclc_float_digits_slow(char *buf, double v, int is_double) {
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, 32, "%.*g", p, v);
        double back = is_double ? strtod(buf, NULL) : (double)strtof(buf, NULL);
        if (back == (is_double ? v : (double)(float)v)) break;
    }
    return (int)strlen(buf);
}

static const uint64_t pow10_u[19] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull, 1000000000ull,
    10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull, 100000000000000ull,
    1000000000000000ull, 10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
};

/* 10^0 .. 10^22, each exact in a double */
static const double pow10_d[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* %.{p}g's text of d * 10^(x - p + 1), d having p digits: fixed notation
 * for -4 <= x < p, else d.ddde+XX; trailing zeros (and a bare point) left
 * out, as %g does without '#'. */
static int g_text(char *buf, int neg, uint64_t d, int p, int x) {
    char ds[20];
    for (int i = p - 1; i >= 0; i--) {
        ds[i] = (char)('0' + d % 10);
        d /= 10;
    }
    int m = p; /* the digits up to the last nonzero one */
    while (m > 1 && ds[m - 1] == '0') m--;
    char *o = buf;
    if (neg) *o++ = '-';
    if (x < -4 || x >= p) {
        *o++ = ds[0];
        if (m > 1) {
            *o++ = '.';
            memcpy(o, ds + 1, (size_t)(m - 1));
            o += m - 1;
        }
        *o++ = 'e';
        *o++ = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100) *o++ = (char)('0' + ax / 100);
        *o++ = (char)('0' + ax / 10 % 10);
        *o++ = (char)('0' + ax % 10);
    } else if (x >= 0) {
        memcpy(o, ds, (size_t)(x + 1));
        o += x + 1;
        if (m > x + 1) {
            *o++ = '.';
            memcpy(o, ds + x + 1, (size_t)(m - x - 1));
            o += m - x - 1;
        }
    } else {
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -x - 1; i++) *o++ = '0';
        memcpy(o, ds, (size_t)m);
        o += m;
    }
    *o = 0;
    return (int)(o - buf);
}

/* floor(M * 2^E * 10^k) into *n, and whether a fraction was left over;
 * 0 when it does not fit 64 bits. */
static int scaled(uint64_t mant, int e, int k, uint64_t *n, int *frac) {
    static const uint64_t pow5[28] = {
        1ull, 5ull, 25ull, 125ull, 625ull, 3125ull, 15625ull, 78125ull, 390625ull, 1953125ull, 9765625ull,
        48828125ull, 244140625ull, 1220703125ull, 6103515625ull, 30517578125ull, 152587890625ull,
        762939453125ull, 3814697265625ull, 19073486328125ull, 95367431640625ull, 476837158203125ull,
        2384185791015625ull, 11920928955078125ull, 59604644775390625ull, 298023223876953125ull,
        1490116119384765625ull, 7450580596923828125ull,
    };
    if (k < 0 || k > 27) return 0;
    u128 prod = (u128)mant * pow5[k];
    int s = e + k; /* prod * 2^s */
    if (s >= 0) {
        if (s > 63 || prod >> (64 - s) != 0) return 0;
        *n = (uint64_t)(prod << s);
        *frac = 0;
        return 1;
    }
    if (-s >= 128) return 0;
    u128 q = prod >> -s;
    if (q >> 64) return 0;
    *n = (uint64_t)q;
    *frac = (prod & (((u128)1 << -s) - 1)) != 0;
    return 1;
}

int oclc_float_digits(char *buf, double v, int is_double) {
    double a = fabs(v);
    if (!(a >= 1e-9 && a < 1e17)) return oclc_float_digits_slow(buf, v, is_double);
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    uint64_t mant = (bits & ((1ull << 52) - 1)) | (1ull << 52); /* normal: a >= 1e-9 */
    int e = (int)(bits >> 52) - 1075;                            /* a = mant * 2^e */
    /* X, or one less: floor(log10(2^(e+52))) */
    int l2 = e + 52;
    int x = l2 >= 0 ? (l2 * 78913) >> 18 : -((((-l2) * 78913) >> 18) + 1);
    uint64_t n;
    int frac;
    if (!scaled(mant, e, 17 - x, &n, &frac)) return oclc_float_digits_slow(buf, v, is_double);
    if (n >= pow10_u[18]) {
        x++;
        if (!scaled(mant, e, 17 - x, &n, &frac)) return oclc_float_digits_slow(buf, v, is_double);
    }
    if (n < pow10_u[17] || n >= pow10_u[18]) return oclc_float_digits_slow(buf, v, is_double);
    /* a float's neighbours: strtof rounds into (lo, hi), ties to even */
    float t = (float)a;
    double td = t, lo = 0, hi = 0, eps = td * 0x1p-45;
    if (!is_double) {
        lo = (td + (double)nextafterf(t, 0.0f)) * 0.5;
        hi = (td + (double)nextafterf(t, INFINITY)) * 0.5;
    }
    int len = 0;
    for (int p = 1; p <= 17; p++) {
        uint64_t q = pow10_u[18 - p], d = n / q, rem = n % q, half = q / 2;
        if (rem == half && !frac) return oclc_float_digits_slow(buf, v, is_double); /* a tie */
        if (rem > half || (rem == half && frac)) d++;
        int xp = x;
        if (d == pow10_u[p]) { /* 9.99 -> 10.0 */
            d = pow10_u[p - 1];
            xp = x + 1;
        }
        len = g_text(buf, v < 0, d, p, xp);
        int ok;
        if (is_double) {
            ok = strtod(buf, NULL) == v;
        } else {
            int j = xp - p + 1; /* the text's value: d * 10^j */
            ok = -1;
            if (p <= 15 && j >= -22 && j <= 22) { /* d and 10^|j| exact: one rounding */
                double c = j >= 0 ? (double)d * pow10_d[j] : (double)d / pow10_d[-j];
                if (c > lo + eps && c < hi - eps) ok = 1;
                else if (c < lo - eps || c > hi + eps) ok = 0;
            }
            if (ok < 0) ok = strtof(buf, NULL) == (float)v;
        }
        if (ok) return len;
    }
    return len;
}
