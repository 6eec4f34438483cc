#!/usr/bin/env python3
"""The exact two-sided Mann-Whitney p-values that tests/test_compare_u.c
checks evidence/diff/diff_u.c against, by brute force: every way of
splitting the pooled values into the two sides is enumerated, U is counted
pair by pair (ties one half) and p is the share of splits at least as far
from na*nb/2 as the observed U, as an exact fraction. Independent of the C
code on purpose: no ranks, no recursion.

    python3 tests/compare_u_table.py > tests/data/compare/u_exact.txt
"""
from fractions import Fraction
from itertools import combinations

CASES = [
    ([1], [2]),
    ([1], [1]),
    ([1, 2], [3]),
    ([1, 2, 3], [4, 5, 6]),
    ([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]),
    ([1, 3, 5, 7, 9], [2, 4, 6, 8, 10]),
    ([1, 2, 2], [2, 3]),
    ([1, 1, 1], [1, 1]),
    ([1, 1, 2, 2], [2, 2, 3, 3]),
    ([5, 5, 5, 6, 6], [6, 6, 7, 7, 7]),
    ([10, 20, 20, 30], [20, 30, 30, 40, 40]),
    ([4096, 4096, 8192], [8192, 8192, 8192, 12288]),
    ([1.5, 2.5, 2.5, 2.5, 3.5, 4.5], [2.5, 3.5, 3.5, 5.5, 6.5, 6.5]),
    ([3, 3, 3, 3, 3, 4], [3, 4, 4, 4, 4, 4, 4]),
    ([1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7]),
    ([100, 101, 101, 102, 103, 103, 104], [103, 104, 104, 105, 106, 106]),
    ([7, 7, 8], [1, 2, 2, 3, 3, 3, 4, 4]),
    ([2], [1, 1, 2, 2, 3, 3, 3]),
    ([1, 2, 3, 4, 5, 6, 7, 8], [5, 6, 7, 8, 9, 10, 11, 12]),
    ([0, 0, 0, 1, 1, 1, 2, 2], [1, 1, 2, 2, 2, 3, 3, 3]),
]


def u_of(a, b):
    return sum(Fraction(1) if x > y else Fraction(1, 2) if x == y else 0
               for x in a for y in b)


def exact_p(a, b):
    pool = a + b
    mid = Fraction(len(a) * len(b), 2)
    far = abs(u_of(a, b) - mid)
    hits = total = 0
    for chosen in combinations(range(len(pool)), len(a)):
        picked = set(chosen)
        aa = [pool[i] for i in chosen]
        bb = [pool[i] for i in range(len(pool)) if i not in picked]
        total += 1
        hits += abs(u_of(aa, bb) - mid) >= far
    return Fraction(hits, total), u_of(a, b)


def words(values):
    return ",".join(repr(v) for v in values)


print("# a b U1 p (exact fraction); from tests/compare_u_table.py")
for a, b in CASES:
    p, u1 = exact_p(a, b)
    print(f"{words(a)} {words(b)} {float(u1)!r} {p.numerator}/{p.denominator}")
