/* evidence/diff/diff_u.c: the exact Mann-Whitney p-values with ties,
 * against tests/data/compare/u_exact.txt, which tests/compare_u_table.py
 * computed by enumerating every split (run it again to check the table). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/diff/diff_u.h"
#include "evidence/write/compare.h"
#include "tests/tap.h"

static const char *root(void)
{
  return getenv("CROSSRUN_ROOT") ? getenv("CROSSRUN_ROOT") : ".";
}

static int parse_values(char *text, double *out, int cap)
{
  int n = 0;
  for (char *save = NULL, *w = strtok_r(text, ",", &save); w && n < cap;
       w = strtok_r(NULL, ",", &save))
    out[n++] = strtod(w, NULL);
  return n;
}

static void test_table(void)
{
  char path[1024], line[1024];
  FILE *f;
  int cases = 0;

  snprintf(path, sizeof(path), "%s/tests/data/compare/u_exact.txt", root());
  f = fopen(path, "r");
  if (!TAP_OK(f != NULL, "the table of exact p-values is there (%s)", path))
    return;
  while (fgets(line, sizeof(line), f)) {
    char a_text[512], b_text[512];
    double a[32], b[32], u1, num, den;
    int na, nb;
    struct diff_u r;

    if (line[0] == '#' || sscanf(line, "%511s %511s %lf %lf/%lf", a_text,
                                 b_text, &u1, &num, &den) != 5)
      continue;
    na = parse_values(a_text, a, 32);
    nb = parse_values(b_text, b, 32);
    cases++;
    if (!TAP_EQ_INT(diff_u_test(a, na, b, nb, &r), 0, "%s against %s", a_text,
                    b_text))
      continue;
    TAP_EQ_DBL(r.u1, u1, 0, "  U1 = %g", u1);
    TAP_EQ_DBL(r.p, num / den, 1e-12 * (num / den), "  p = %.0f/%.0f", num,
               den);
    TAP_OK(r.exact, "  exact");
  }
  fclose(f);
  TAP_OK(cases >= 20, "%d cases read", cases);
}

/* Without ties the test is evidence/write/compare.c's, whose p comes
 * from the distribution of U without ties: the two agree. */
static void test_agrees_without_ties(void)
{
  double a[40], b[40];
  unsigned seed = 12345;
  int worst_ok = 1;

  for (int trial = 0; trial < 30; trial++) {
    int na = 2 + trial % 13, nb = 3 + (trial * 7) % 17;
    double u, p;
    struct diff_u r;
    for (int i = 0; i < na + nb; i++) {
      seed = seed * 1103515245u + 12345u;
      /* distinct values: i in the low digits */
      double v =
          (double)(seed % 1000) * 100 + i + (i < na ? 0 : 30 * (trial % 3));
      if (i < na)
        a[i] = v;
      else
        b[i - na] = v;
    }
    diff_u_test(a, na, b, nb, &r);
    compare_mann_whitney(a, na, b, nb, &u, &p);
    if (fabs(r.p - p) > 1e-9 * p || r.u != u || r.ties)
      worst_ok = 0;
  }
  TAP_OK(worst_ok, "without ties, U and p are those of compare_mann_whitney");
}

static void test_edges(void)
{
  double x[3] = {1, 2, 3}, big[2000];
  struct diff_u r;

  TAP_EQ_INT(diff_u_test(x, 0, x, 3, &r), -1, "an empty side is refused");
  for (int i = 0; i < 2000; i++)
    big[i] = (double)(i % 50);
  TAP_EQ_INT(diff_u_test(big, 1000, big + 1000, 1000, &r), 0,
             "1000 against 1000 with ties");
  TAP_OK(!r.exact && r.ties && r.p > 0.9,
         "  by the normal approximation with the tie correction (p %g)", r.p);
  for (int i = 0; i < 2000; i++)
    big[i] = 7;
  diff_u_test(big, 1000, big + 1000, 1000, &r);
  TAP_EQ_DBL(r.p, 1, 0, "every value tied: p 1");
  diff_u_test(big, 5, big + 5, 5, &r);
  TAP_EQ_DBL(r.p, 1, 0, "every value tied, exact: p 1");
}

int main(void)
{
  test_table();
  test_agrees_without_ties();
  test_edges();
  return tap_done();
}
