"""Lattice pricing against Hull's published example and Black-Scholes at large N."""

import math
import re

import numpy as np
import pytest

import thicket_solve as thicket
from conftest import needs_gpu


def black_scholes(spot, strike, maturity, volatility, rate, call):
    """The closed form of a European vanilla, written here from its definition."""
    d1 = (math.log(spot / strike) + (rate + volatility**2 / 2) * maturity) / (
        volatility * math.sqrt(maturity)
    )
    d2 = d1 - volatility * math.sqrt(maturity)
    cdf = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))  # noqa: E731
    discounted = strike * math.exp(-rate * maturity)
    if call:
        return spot * cdf(d1) - discounted * cdf(d2)
    return discounted * cdf(-d2) - spot * cdf(-d1)


def test_hulls_lookback_put():
    # Hull, Technical Note 13: S = 50, T = 0.25, sigma = 0.4, r = 0.1, 3 steps: 5.47.
    answer = thicket.lookback(50, 0.25, 0.4, 0.1, 3, backend="cpu")
    assert answer["price"] == pytest.approx(5.4702, abs=1e-4)
    assert {"price", "delta", "gamma", "seconds", "backend"} <= set(answer)


def test_vega_and_rho_only_when_asked():
    basic = thicket.lookback(50, 0.25, 0.4, 0.1, 50, backend="cpu")
    assert math.isnan(basic["vega"]) and math.isnan(basic["rho"])
    assert not math.isnan(basic["theta"])
    every = thicket.lookback(50, 0.25, 0.4, 0.1, 50, greeks="all", backend="cpu")
    assert every["price"] == basic["price"] and every["vega"] > 0
    with pytest.raises(ValueError, match="greeks"):
        thicket.binomial(100, 100, 1, 0.2, 0.05, 50, greeks="some")


def test_european_vanillas_approach_black_scholes(rng):
    for _ in range(6):
        spot, strike = rng.uniform(60, 140), rng.uniform(60, 140)
        maturity, volatility, rate = rng.uniform(0.2, 2), rng.uniform(0.1, 0.5), rng.uniform(0, 0.08)
        for call in (False, True):
            answer = thicket.binomial(
                spot, strike, maturity, volatility, rate, 4000, call=call, european=True
            )
            reference = black_scholes(spot, strike, maturity, volatility, rate, call)
            assert answer["price"] == pytest.approx(reference, abs=2e-3 * spot / 100 + 1e-3)


def test_dividends_and_greeks_approach_black_scholes_merton(rng):
    for _ in range(4):
        spot, strike = rng.uniform(70, 130), rng.uniform(70, 130)
        maturity, volatility = rng.uniform(0.3, 2), rng.uniform(0.15, 0.45)
        rate, dividend = rng.uniform(0, 0.08), rng.uniform(0, 0.06)
        for call in (False, True):
            answer = thicket.binomial(
                spot, strike, maturity, volatility, rate, 2000,
                call=call, european=True, dividend_yield=dividend, greeks="all", backend="cpu",
            )
            # Black-Scholes-Merton: the spot carries its dividends away, e^(-qT).
            forward_spot = spot * math.exp(-dividend * maturity)
            reference = black_scholes(forward_spot, strike, maturity, volatility, rate, call)
            assert answer["price"] == pytest.approx(reference, abs=3e-3 * spot / 100 + 1e-3)
            d1 = (
                math.log(spot / strike) + (rate - dividend + volatility**2 / 2) * maturity
            ) / (volatility * math.sqrt(maturity))
            vega = forward_spot * math.exp(-d1 * d1 / 2) / math.sqrt(2 * math.pi) * math.sqrt(maturity)
            # The lattice's vega wobbles with N where the option is far from the money.
            assert answer["vega"] == pytest.approx(vega, rel=0.02, abs=0.005 * spot * math.sqrt(maturity))
            assert {"theta", "rho"} <= set(answer)


def test_american_put_is_worth_at_least_the_european():
    american = thicket.binomial(100, 110, 1, 0.2, 0.06, 500)["price"]
    european = thicket.binomial(100, 110, 1, 0.2, 0.06, 500, european=True)["price"]
    assert american > european


def test_book_broadcasts_and_matches_single_prices(rng):
    spot = rng.uniform(80, 120, size=16)
    prices = thicket.price_book("put", "american", spot, 100.0, 1.0, 0.25, 0.05, 300)
    assert prices.shape == (16,) and prices.dtype == np.float64
    for s, p in zip(spot, prices):
        assert p == pytest.approx(thicket.binomial(s, 100, 1, 0.25, 0.05, 300)["price"], rel=1e-12)


def test_book_of_mixed_payoffs_with_greeks():
    book = thicket.price_book(
        ["lookback-put", "lookback-call", "put", "call"],
        ["american", "european", "european", "american"],
        50.0,
        [np.nan, np.nan, 50.0, 50.0],
        0.25,
        0.4,
        0.1,
        [3, 3, 200, 200],
        greeks=True,
    )
    assert {"price", "delta", "gamma"} <= set(book)
    assert book["price"][0] == pytest.approx(5.4702, abs=1e-4)
    assert book["delta"][2] < 0 < book["delta"][3]
    single = thicket.lookback(50, 0.25, 0.4, 0.1, 3, call=True, european=True)
    assert book["price"][1] == pytest.approx(single["price"], rel=1e-12)


def test_bad_options_are_value_errors():
    with pytest.raises(ValueError, match="volatility is -0.2"):
        thicket.binomial(100, 100, 1, -0.2, 0.05, 100)
    with pytest.raises(ValueError, match="option 2 of 3"):
        thicket.price_book("put", "american", [100, -1, 100], 100, 1, 0.2, 0.05, 100)
    with pytest.raises(ValueError, match="unknown payoff"):
        thicket.price_book("straddle", "american", 100, 100, 1, 0.2, 0.05, 100)
    with pytest.raises(ValueError, match="broadcast"):
        thicket.price_book("put", "american", [1.0, 2.0], 100, 1, [0.2, 0.3, 0.4], 0.05, 100)
    with pytest.raises(ValueError, match="dtype"):
        thicket.price_book("put", "american", ["a"], 100, 1, 0.2, 0.05, 100)


@needs_gpu
def test_book_on_the_gpu_matches_the_cpu():
    spot = np.linspace(80, 120, 64)
    cpu = thicket.price_book("put", "american", spot, 100.0, 1.0, 0.25, 0.05, 1000, backend="cpu")
    gpu = thicket.price_book("put", "american", spot, 100.0, 1.0, 0.25, 0.05, 1000, backend="cuda")
    np.testing.assert_allclose(gpu, cpu, rtol=1e-9)


def test_payoffs_and_styles_as_names_arrays_or_codes():
    names = thicket.price_book(
        ["lookback-put", "lookback-call", "put", "call"], ["american", "european"] * 2,
        50.0, 50.0, 0.25, 0.4, 0.1, 60,
    )
    as_array = thicket.price_book(
        np.array(["lookback-put", "lookback-call", "put", "call"]), np.array(["american", "european"] * 2),
        50.0, 50.0, 0.25, 0.4, 0.1, 60,
    )
    codes = thicket.price_book(
        np.arange(4, dtype=np.uint8), np.array([0, 1, 0, 1]), 50.0, 50.0, 0.25, 0.4, 0.1, 60
    )
    np.testing.assert_array_equal(names, as_array)
    np.testing.assert_array_equal(names, codes)
    european_call = thicket.binomial(50, 50, 0.25, 0.4, 0.1, 60, call=True, european=True)
    assert names[3] == pytest.approx(european_call["price"], rel=1e-12)


def test_one_element_columns_broadcast_and_lengths_must_agree():
    spot = np.linspace(90, 110, 5)
    prices = thicket.price_book("put", ["american"], spot, [100.0], 1.0, np.array([0.2]), 0.05, [50])
    assert prices.shape == (5,)
    np.testing.assert_array_equal(prices, thicket.price_book("put", "american", spot, 100.0, 1.0, 0.2, 0.05, 50))
    assert thicket.price_book("put", "american", 100.0, 100.0, 1.0, 0.2, 0.05, 50).shape == (1,)
    with pytest.raises(ValueError, match="do not broadcast"):
        thicket.price_book(["put", "call"], "american", spot, 100.0, 1.0, 0.2, 0.05, 50)


def test_bad_names_and_codes_are_value_errors():
    with pytest.raises(ValueError, match="option 3 of 3: unknown style 'bermudan'"):
        thicket.price_book("put", ["american", "european", "bermudan"], 100, 100, 1, 0.2, 0.05, 10)
    with pytest.raises(ValueError, match="payoff codes must be 0..=3"):
        thicket.price_book(np.array([0, 4]), "american", 100, 100, 1, 0.2, 0.05, 10)
    with pytest.raises(ValueError, match="dtype"):
        thicket.price_book(np.array([0.5]), "american", 100, 100, 1, 0.2, 0.05, 10)
    with pytest.raises(ValueError, match="dimensions"):
        thicket.price_book("put", "american", np.ones((2, 2)), 100, 1, 0.2, 0.05, 10)
    with pytest.raises(ValueError, match="payoff codes must be 0..=3.*option 2 of 2 has 7"):
        thicket.price_book(np.array([0, 7], np.uint8), "american", 100, 100, 1, 0.2, 0.05, 10)
    with pytest.raises(ValueError, match="steps is -1; it must be at least 0"):
        thicket.price_book("put", "american", 100, 100, 1, 0.2, 0.05, -1)
    with pytest.raises(ValueError, match=r"steps\[1\] is -2"):
        thicket.price_book("put", "american", 100, 100, 1, 0.2, 0.05, [1, -2])
    for steps in (True, 1.5):
        with pytest.raises(ValueError, match="steps"):
            thicket.price_book("put", "american", 100, 100, 1, 0.2, 0.05, steps)


def test_a_lattice_outside_its_range_is_a_value_error_with_the_clis_message():
    # Every tree's step must keep u > 1 > d > 0 and 0 <= p <= 1; CRR (the lattice of
    # thicket.binomial and of thicket.lookback, Hull's) leaves it where the drift of a step
    # outgrows the volatility. The same parameters as the CLI's tests
    # (crates/thicket-cli/tests/cli/lattice.rs, lattice_trees.rs), the same one-line message.
    in_range = re.escape("of the crr tree leave the valid range u > 1 > d > 0, 0 <= p <= 1")
    with pytest.raises(ValueError, match="^invalid input: the up probability p = .*" + in_range) as refused:
        thicket.lookback(50, 0.25, 0.4, 50, 3, backend="cpu")
    assert "rate 50" in str(refused.value) and "steps 3" in str(refused.value)
    with pytest.raises(ValueError, match=in_range):
        thicket.lookback(50, 0.25, 0.4, -50, 3, backend="cpu")
    with pytest.raises(ValueError, match=in_range + r".*strike 100, volatility 0\.346, rate 0\.6"):
        thicket.binomial(100, 100, 1, 0.3460, 0.6, 3, backend="cpu")
    with pytest.raises(ValueError, match=in_range):
        thicket.price_book("put", "american", 100, 100, 1, 0.3460, 0.6, 3)
    # Just inside the range the same lattices price, and are worth something.
    assert thicket.lookback(50, 0.25, 0.4, 1.3855, 3, backend="cpu")["price"] > 0
    assert thicket.binomial(100, 100, 1, 0.3468, 0.6, 3, backend="cpu")["price"] > 0
