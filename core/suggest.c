/* suggest.c - nearest known name (suggest.h). */
#include "suggest.h"

#include <ctype.h>
#include <string.h>

/* Letters only, lower case: "Get_Local-Id" and "get-local-id" agree. */
static int same_letters(const char *a, const char *b) {
    for (;;) {
        while (*a == '-' || *a == '_') a++;
        while (*b == '-' || *b == '_') b++;
        if (!*a || !*b) return !*a && !*b;
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
        a++, b++;
    }
}

/* Damerau-Levenshtein (adjacent transpositions), capped: names are short. */
static int distance(const char *a, const char *b, int cap) {
    int n = (int)strlen(a), m = (int)strlen(b);
    if (n > 63 || m > 63 || (n > m ? n - m : m - n) > cap) return cap + 1;
    int d[64][64];
    for (int i = 0; i <= n; i++) d[i][0] = i;
    for (int j = 0; j <= m; j++) d[0][j] = j;
    for (int i = 1; i <= n; i++) {
        int rowmin = cap + 1;
        for (int j = 1; j <= m; j++) {
            int c = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + c < v) v = d[i - 1][j - 1] + c;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
            if (v < rowmin) rowmin = v;
        }
        if (rowmin > cap) return cap + 1;
    }
    return d[n][m];
}

void suggest_init(Suggest *s, const char *name) {
    s->name = name;
    s->best = NULL;
    s->dist = 1000;
}

void suggest_add(Suggest *s, const char *cand) {
    if (!cand || !*cand || cand[0] == '%' || !strcmp(cand, s->name)) return;
    int cap = strlen(s->name) <= 3 ? 1 : 2;
    int d = same_letters(s->name, cand) ? 0 : distance(s->name, cand, cap);
    if (d <= cap && (d < s->dist || (d == s->dist && s->best && strcmp(cand, s->best) < 0))) {
        s->best = cand;
        s->dist = d;
    }
}

const char *suggest_best(const Suggest *s) {
    return s->best;
}
