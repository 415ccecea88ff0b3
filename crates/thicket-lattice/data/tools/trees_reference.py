#!/usr/bin/env python3
"""Reference prices of vanilla options on four binomial trees, written for thicket's tests
and sharing no code with it: numpy in float64, values kept in money (not thicket's
normalised units), each tree from its paper's formulas.

    dt = T/N, M = exp((r - q)*dt), disc = exp(-r*dt)
    crr:           u = exp(sigma*sqrt(dt)), d = 1/u,                  p = (M - d)/(u - d)
    jarrow-rudd:   u, d = exp((r - q - sigma^2/2)*dt +- sigma*sqrt(dt)), p = (M - d)/(u - d)
                   (the risk-neutral "JR-RN" form; Jarrow and Rudd's own p is 1/2)
    tian:          V = exp(sigma^2*dt), u, d = M*V/2*(V + 1 +- sqrt(V^2 + 2V - 3)),
                   p = (M - d)/(u - d)
    leisen-reimer: d1, d2 of Black-Scholes-Merton with the strike, h the Peizer-Pratt
                   inversion (method 2) for N (odd) steps:
                   p = h(d2), u = M*h(d1)/h(d2), d = (M - p*u)/(1 - p)

Node k of layer i has the stock at S*u^k*d^(i-k); value = disc*(p*up + (1-p)*down),
maximised with the payoff if American.

Usage: python3 trees_reference.py > ../trees-reference.csv
"""

import math

import numpy as np


def peizer_pratt(z, n):
    t = z / (n + 1.0 / 3.0 + 0.1 / (n + 1.0))
    root = math.sqrt(1.0 - math.exp(-t * t * (n + 1.0 / 6.0)))
    return 0.5 + math.copysign(0.5 * root, z)


def tree(name, s, k, t, sigma, r, q, n):
    dt = t / n
    m = math.exp((r - q) * dt)
    if name == "crr":
        u = math.exp(sigma * math.sqrt(dt))
        d = 1.0 / u
    elif name == "jarrow-rudd":
        nu = (r - q - 0.5 * sigma * sigma) * dt
        u = math.exp(nu + sigma * math.sqrt(dt))
        d = math.exp(nu - sigma * math.sqrt(dt))
    elif name == "tian":
        v = math.exp(sigma * sigma * dt)
        root = math.sqrt(v * v + 2.0 * v - 3.0)
        u = 0.5 * m * v * (v + 1.0 + root)
        d = 0.5 * m * v * (v + 1.0 - root)
    else:
        sd = sigma * math.sqrt(t)
        d1 = (math.log(s / k) + (r - q + 0.5 * sigma * sigma) * t) / sd
        d2 = d1 - sd
        p = peizer_pratt(d2, n)
        u = m * peizer_pratt(d1, n) / p
        d = (m - p * u) / (1.0 - p)
        return u, d, p
    return u, d, (m - d) / (u - d)


def price(name, payoff, style, s, k, t, sigma, r, q, n):
    u, d, p = tree(name, s, k, t, sigma, r, q, n)
    disc = math.exp(-r * t / n)

    def exercise(i):
        j = np.arange(i + 1, dtype=np.float64)
        stock = s * u**j * d ** (i - j)
        return np.maximum(stock - k, 0.0) if payoff == "call" else np.maximum(k - stock, 0.0)

    values = exercise(n)
    for i in range(n - 1, -1, -1):
        values = disc * (p * values[1:] + (1.0 - p) * values[:-1])
        if style == "american":
            values = np.maximum(values, exercise(i))
    return float(values[0])


MARKETS = [
    # spot, strike, maturity, volatility, rate, dividend yield
    (100.0, 95.0, 1.0, 0.2, 0.05, 0.0),
    (42.0, 40.0, 0.5, 0.25, 0.1, 0.03),
    (50.0, 60.0, 2.0, 0.35, 0.02, 0.05),
]


def main():
    print("tree,payoff,style,spot,strike,maturity,volatility,rate,dividend_yield,steps,price")
    for name in ["crr", "jarrow-rudd", "tian", "leisen-reimer"]:
        for payoff in ["call", "put"]:
            for style in ["american", "european"]:
                for s, k, t, sigma, r, q in MARKETS:
                    for n in [25, 101, 501]:
                        v = price(name, payoff, style, s, k, t, sigma, r, q, n)
                        print(f"{name},{payoff},{style},{s!r},{k!r},{t!r},{sigma!r},{r!r},{q!r},{n},{v!r}")


if __name__ == "__main__":
    main()
