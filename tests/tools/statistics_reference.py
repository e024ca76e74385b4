#!/usr/bin/python3
"""Prints the SciPy figures tests/engine/tst_statistics.cpp pins QuantLens' statistics to:
Wilson score intervals (binomtest(k, n).proportion_ci(method="wilson"), 95 %) and exact McNemar
p-values (binomtest(n01, n01 + n10, 0.5).pvalue; 1 without discordant pairs).
Developer tool (python3-scipy); the figures are copied into the test."""
from scipy.stats import binomtest

for k, n in [(8, 10), (0, 10), (10, 10), (55, 64), (1, 1), (500, 1000)]:
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    print(f"wilson {k}/{n}: {ci.low!r} {ci.high!r}")
for n01, n10 in [(0, 0), (1, 0), (3, 10), (5, 5), (2, 9), (20, 35), (100, 140), (0, 7)]:
    n = n01 + n10
    print(f"mcnemar {n01} {n10}: {binomtest(n01, n, 0.5).pvalue if n else 1.0!r}")
