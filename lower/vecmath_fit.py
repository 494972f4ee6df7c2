#!/usr/bin/python3
"""Fits the float32 polynomials of lower/math_vec.go and prints their coefficients.

Each function is fitted in float64 by Lawson's algorithm (iteratively reweighted least squares,
which converges to the minimax fit) on 4000 Chebyshev nodes of its interval, with the error
weighted as math_vec.go needs it (relative, or absolute for erfc), then rounded to float32.
Run with a Python that has numpy (Debian: /usr/bin/python3 with python3-numpy):

    /usr/bin/python3 lower/vecmath_fit.py
"""
import math

import numpy as np


def lawson(xs, basis, target, weight, iters=60):
    a = np.stack([b(xs) for b in basis], axis=1) * weight(xs)[:, None]
    y = target(xs) * weight(xs)
    w = np.ones_like(xs) / len(xs)
    for _ in range(iters):
        sw = np.sqrt(w)
        c, *_ = np.linalg.lstsq(a * sw[:, None], y * sw, rcond=None)
        e = np.abs(a @ c - y)
        w = w * e
        w = w / w.sum()
    return c, np.max(np.abs(a @ c - y))


def cheb(lo, hi, n=4000):
    k = np.arange(n)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / n)


def show(name, c, err):
    print(f"{name}: max weighted error {err:.3g}")
    print("  " + ", ".join(repr(float(np.float32(v))) for v in c))


verf = np.vectorize(math.erf)
verfc = np.vectorize(math.erfc)

# e^r = 1 + r + r^2 P(r), |r| <= ln2/2, P of degree 4, relative error
xs = cheb(-math.log(2) / 2, math.log(2) / 2)
show("vexpP", *lawson(xs, [lambda x, k=k: x ** (k + 2) for k in range(5)], lambda x: np.exp(x) - 1 - x, lambda x: np.exp(-x)))

# log(1+z) = z - z^2/2 + z^3 P(z), sqrt(1/2)-1 <= z < sqrt(2)-1, P of degree 7, relative error
xs = cheb(math.sqrt(0.5) - 1, math.sqrt(2) - 1)
show("vlogP", *lawson(xs, [lambda x, k=k: x ** (k + 3) for k in range(8)], lambda x: np.log1p(x) - x + x * x / 2,
                      lambda x: 1 / np.abs(np.log1p(x))))

# tanh(x) = x + x^3 P(x^2), 0 < x < 0.625, P of degree 4, relative error
xs = cheb(1e-6, 0.625)
show("vtanhP", *lawson(xs, [lambda x, k=k: x ** (2 * k + 3) for k in range(5)], lambda x: np.tanh(x) - x, lambda x: 1 / np.tanh(x)))

# erf(x) = x P(x^2), 0 < x <= 1, P of degree 6, relative error
xs = cheb(1e-6, 1.0)
show("verfP", *lawson(xs, [lambda x, k=k: x ** (2 * k + 1) for k in range(7)], verf, lambda x: 1 / verf(x)))

# erfc(x) e^(x^2) = Q(1/x), 1 <= x <= 4, Q of degree 7, absolute error of erfc
xs = cheb(1.0, 4.0)
show("verfcQ", *lawson(xs, [lambda x, k=k: (1 / x) ** k for k in range(8)], lambda x: verfc(x) * np.exp(x * x),
                       lambda x: np.exp(-x * x)))
