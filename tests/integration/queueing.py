# SPDX-License-Identifier: MIT
"""Queueing answers the sim tests hold the product to (M/M/c, Erlang C)."""
import math


def erlang_c_mean(c, lam, mu):
    """Mean time in an M/M/c system: arrivals lam/s, c servers of rate mu/s each."""
    a = lam / mu
    top = a ** c / math.factorial(c) / (1 - a / c)
    pw = top / (sum(a ** k / math.factorial(k) for k in range(c)) + top)
    return pw / (c * mu - lam) + 1 / mu


def crossing(c, mu, slo_s):
    """The arrival rate at which the M/M/c mean reaches slo_s (bisection)."""
    lo, hi = 1.0, c * mu - 1e-6
    for _ in range(200):
        m = (lo + hi) / 2
        lo, hi = (m, hi) if erlang_c_mean(c, m, mu) < slo_s else (lo, m)
    return lo
