#!/usr/bin/env python3
"""Reference prices of CRR binomial lattices with a continuous dividend yield, written for
thicket's tests and sharing no code with it: mpmath at 40 significant digits, values kept in
money (not thicket's normalised units).

    dt = T/N, u = exp(sigma*sqrt(dt)), d = 1/u, p = (exp((r - q)*dt) - d)/(u - d),
    disc = exp(-r*dt)

Vanilla call/put: node k of layer i has the stock at S*u^k*d^(i-k); value = disc*(p*up +
(1-p)*down), maximised with the payoff if American.

Floating-strike lookbacks, in Hull's (Technical Note 13) state j = steps between the stock
and its running extreme, values in units of the current stock price:
  put  (payoff max - S):  C[N][j] = u^j - 1,
        C[i][j] = disc*(p*u*C[i+1][j-1 or 0] + (1-p)*d*C[i+1][j+1])
  call (payoff S - min):  C[N][j] = 1 - d^j,
        C[i][j] = disc*(p*u*C[i+1][j+1] + (1-p)*d*C[i+1][j-1 or 0])
maximised with the exercise value if American; price = S*C[0][0].

Usage: python3 crr_dividends.py > ../crr-dividends.csv
"""

from mpmath import mp, mpf, exp, sqrt

mp.dps = 40


def params(s, t, sigma, r, q, n):
    dt = mpf(t) / n
    u = exp(mpf(sigma) * sqrt(dt))
    d = 1 / u
    p = (exp((mpf(r) - mpf(q)) * dt) - d) / (u - d)
    assert 0 <= p <= 1
    return u, d, p, exp(-mpf(r) * dt)


def vanilla(call, american, s, k, t, sigma, r, q, n):
    u, d, p, disc = params(s, t, sigma, r, q, n)
    s, k = mpf(s), mpf(k)

    def payoff(i, m):
        stock = s * u**m * d ** (i - m)
        return max(stock - k, 0) if call else max(k - stock, 0)

    values = [payoff(n, m) for m in range(n + 1)]
    for i in range(n - 1, -1, -1):
        values = [disc * (p * values[m + 1] + (1 - p) * values[m]) for m in range(i + 1)]
        if american:
            values = [max(v, payoff(i, m)) for m, v in enumerate(values)]
    return values[0]


def lookback(call, american, s, t, sigma, r, q, n):
    u, d, p, disc = params(s, t, sigma, r, q, n)

    def exercise(j):
        return 1 - d**j if call else u**j - 1

    c = [exercise(j) for j in range(n + 1)]
    for i in range(n - 1, -1, -1):
        new = []
        for j in range(i + 1):
            lower = c[max(j - 1, 0)]
            if call:
                held = disc * (p * u * c[j + 1] + (1 - p) * d * lower)
            else:
                held = disc * (p * u * lower + (1 - p) * d * c[j + 1])
            new.append(max(held, exercise(j)) if american else held)
        c = new
    return mpf(s) * c[0]


MARKETS = [
    # spot, strike, maturity, volatility, rate, dividend yield
    (42.0, 40.0, 0.5, 0.2, 0.1, 0.03),
    (50.0, 52.0, 1.0, 0.3, 0.05, 0.08),
    (100.0, 95.0, 2.0, 0.25, 0.02, 0.04),
    (30.0, 30.0, 0.75, 0.45, 0.0, 0.12),
    (50.0, 48.0, 0.35, 0.3, 0.1, -0.02),
]
STEPS = [1, 7, 64, 400]


def main():
    print("payoff,style,spot,strike,maturity,volatility,rate,dividend_yield,steps,price")
    for s, k, t, sigma, r, q in MARKETS:
        for n in STEPS:
            for style in ("american", "european"):
                american = style == "american"
                rows = [
                    ("call", k, vanilla(True, american, s, k, t, sigma, r, q, n)),
                    ("put", k, vanilla(False, american, s, k, t, sigma, r, q, n)),
                    ("lookback-put", "", lookback(False, american, s, t, sigma, r, q, n)),
                    ("lookback-call", "", lookback(True, american, s, t, sigma, r, q, n)),
                ]
                for payoff, strike, price in rows:
                    strike = "" if strike == "" else repr(strike)
                    print(
                        f"{payoff},{style},{s!r},{strike},{t!r},"
                        f"{sigma!r},{r!r},{q!r},{n},{mp.nstr(price, 20)}"
                    )


if __name__ == "__main__":
    main()
