#!/usr/bin/env python3
"""Writes a book of random options as CSV (`thicket lookback --batch`): an id column, the
contract columns and a dividend yield, reproducible from the seed. For measuring books at
scale, e.g. a million options:

    scripts/gen-book.py 1000000 --seed 1 --steps 64:256 > book-1m.csv
    thicket lookback --batch book-1m.csv --ledger book-1m.db --output priced-1m.csv

Payoffs cycle through call, put, lookback-put and lookback-call; styles alternate; spot 50,
strikes 30-70, maturities 0.1-2 years, volatilities 5-90%, rates 0-8%, dividends 0-5%,
steps uniform in the range given (or one number for every option)."""

import argparse
import random
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("options", type=int, help="how many options")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--steps", default="64:256", help="N or LOW:HIGH (inclusive)")
    args = parser.parse_args()
    low, _, high = args.steps.partition(":")
    low, high = int(low), int(high or low)
    rng = random.Random(args.seed)
    out = sys.stdout
    out.write("id,payoff,style,spot,strike,maturity,volatility,rate,dividend_yield,steps\n")
    payoffs = ["call", "put", "lookback-put", "lookback-call"]
    for k in range(args.options):
        payoff = payoffs[k % 4]
        strike = f"{rng.uniform(30, 70):.4f}" if k % 4 < 2 else ""
        style = "american" if k % 8 < 4 else "european"
        out.write(
            f"opt-{k},{payoff},{style},50,{strike},{rng.uniform(0.1, 2):.4f},"
            f"{rng.uniform(0.05, 0.9):.4f},{rng.uniform(0, 0.08):.4f},"
            f"{rng.uniform(0, 0.05):.4f},{rng.randint(low, high)}\n"
        )


if __name__ == "__main__":
    main()
