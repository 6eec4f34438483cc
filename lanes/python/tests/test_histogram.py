"""histogram.json (SPEC.md section 7)."""

import pytest

from crossrun_python import histogram
from helpers import load_cases

CASES = load_cases("histogram.json")
BUCKETS = [c for c in CASES if c["kind"] == "bucket"]
HISTOGRAMS = [c for c in CASES if c["kind"] == "histogram"]


@pytest.mark.parametrize("c", BUCKETS, ids=lambda c: c["value"])
def test_bucket(c):
    v = int(c["value"])
    i = histogram.index(v)
    assert i == c["index"]
    assert histogram.lower(i) == int(c["lower"])
    assert histogram.width(i) == int(c["width"])
    assert histogram.lower(i) <= v < histogram.lower(i) + histogram.width(i)


def check(h, want):
    got = h.to_result()
    assert got["count"] == int(want["count"])
    assert got["buckets"] == [[i, int(n)] for i, n in want["buckets"]]
    for f in ("min", "max", "p50", "p90", "p99", "p99_9"):
        assert got[f] == (None if want[f] is None else int(want[f])), f


def build(values):
    h = histogram.Histogram()
    for v in values:
        h.record(int(v))
    return h


@pytest.mark.parametrize("c", HISTOGRAMS, ids=lambda c: c["name"])
def test_histogram(c):
    a, b = build(c["a_values"]), build(c["b_values"])
    check(a, c["a"])
    check(b, c["b"])
    check(build(c["a_values"] + c["b_values"]), c["merged"])
    a.merge(b)
    check(a, c["merged"])


def test_record_times_counts_like_repeats():
    a, b = histogram.Histogram(), histogram.Histogram()
    for v, n in ((300, 5), (7, 2), (10**9, 3)):
        a.record(v, n)
        for _ in range(n):
            b.record(v)
    assert a.to_result() == b.to_result()


def test_empty():
    r = histogram.Histogram().to_result()
    assert r == {"count": 0, "min": None, "max": None, "p50": None, "p90": None, "p99": None,
                 "p99_9": None, "buckets": []}
