"""The trees of binomial (against the library's independent numpy table), seasoned lookbacks
(against a lattice written here from Hull's Technical Note 13) and implied volatility
(against Black-Scholes and scipy's root finder), with the CLI's refusals."""

import csv
import math
import os

import numpy as np
import pytest

import thicket_solve as thicket

REFERENCE = os.path.join(
    os.path.dirname(__file__), "..", "..", "crates", "thicket-lattice", "data",
    "trees-reference.csv",
)


def reference_rows():
    with open(REFERENCE) as table:
        return list(csv.DictReader(table))


def test_every_tree_prices_as_the_reference_table():
    # trees-reference.csv: an independent numpy pricer of the four trees
    # (crates/thicket-lattice/data/tools/trees_reference.py); the library's own test holds it
    # to 1e-10 as well.
    rows = reference_rows()
    assert len(rows) == 144 and {row["tree"] for row in rows} == {
        "crr", "jarrow-rudd", "tian", "leisen-reimer",
    }
    for row in rows:
        answer = thicket.binomial(
            float(row["spot"]), float(row["strike"]), float(row["maturity"]),
            float(row["volatility"]), float(row["rate"]), int(row["steps"]),
            call=row["payoff"] == "call", european=row["style"] == "european",
            dividend_yield=float(row["dividend_yield"]), tree=row["tree"], backend="cpu",
        )
        want = float(row["price"])
        assert abs(answer["price"] - want) <= 1e-10 * max(want, 1.0), row


def test_the_default_tree_is_crr_and_bad_trees_are_refused():
    default = thicket.binomial(100, 95, 1, 0.2, 0.05, 101, backend="cpu")["price"]
    assert thicket.binomial(100, 95, 1, 0.2, 0.05, 101, tree="crr")["price"] == default
    # As `thicket binomial --tree leisen-reimer --steps 100`: the odd neighbours named.
    with pytest.raises(ValueError, match=r"odd.*99.*101"):
        thicket.binomial(100, 95, 1, 0.2, 0.05, 100, tree="leisen-reimer")
    with pytest.raises(ValueError, match="unknown tree 'boyle'|boyle"):
        thicket.binomial(100, 95, 1, 0.2, 0.05, 101, tree="boyle")


def seasoned_lookback(spot, maturity, volatility, rate, steps, state, call, american=True):
    """Hull's Technical Note 13 lattice (crates/thicket-lattice/data/README.md) started
    `state` steps of u from a new extreme: the put's running maximum spot * u**state, the
    call's minimum spot / u**state. Values are in units of the stock; j counts the steps of
    u between the stock and its extreme, a move toward the extreme lowers j (floored at 0,
    a new extreme)."""
    dt = maturity / steps
    u = math.exp(volatility * math.sqrt(dt))
    d = 1 / u
    p = (math.exp(rate * dt) - d) / (u - d)
    discount = math.exp(-rate * dt)
    j = np.arange(state + steps + 1)

    def exercise(j):
        return 1 - u ** -j.astype(float) if call else u ** j.astype(float) - 1

    value = exercise(j)
    for layer in range(steps - 1, -1, -1):
        j = np.arange(state + layer + 1)
        toward = value[np.maximum(j - 1, 0)]  # the put's up move, the call's down move
        away = value[j + 1]
        if call:
            held = discount * (p * u * away + (1 - p) * d * toward)
        else:
            held = discount * ((1 - p) * d * away + p * u * toward)
        value = np.maximum(exercise(j), held) if american else held
    return spot * value[state]


@pytest.mark.parametrize("american", [True, False])
def test_seasoned_lookbacks_price_as_the_lattice_started_at_their_extreme(american):
    spot, maturity, volatility, rate, steps = 50.0, 0.5, 0.3, 0.06, 60
    u = math.exp(volatility * math.sqrt(maturity / steps))
    for state in (0, 1, 4, 11):
        put = thicket.lookback(
            spot, maturity, volatility, rate, steps, european=not american,
            observed_max=spot * u**state, backend="cpu",
        )
        want = seasoned_lookback(spot, maturity, volatility, rate, steps, state, False, american)
        assert put["price"] == pytest.approx(want, rel=1e-11), state
        call = thicket.lookback(
            spot, maturity, volatility, rate, steps, call=True, european=not american,
            observed_min=spot / u**state, backend="cpu",
        )
        want = seasoned_lookback(spot, maturity, volatility, rate, steps, state, True, american)
        assert call["price"] == pytest.approx(want, rel=1e-11), state
    # Between two states the price is interpolated linearly in log extreme.
    between = thicket.lookback(
        spot, maturity, volatility, rate, steps, european=not american,
        observed_max=spot * u**4.3, backend="cpu",
    )["price"]
    low, high = (
        seasoned_lookback(spot, maturity, volatility, rate, steps, k, False, american)
        for k in (4, 5)
    )
    assert between == pytest.approx(0.7 * low + 0.3 * high, rel=1e-9)


def test_a_fresh_lookback_is_one_seasoned_at_the_spot_and_worth_less():
    fresh = thicket.lookback(50, 0.5, 0.3, 0.06, 200, backend="cpu")["price"]
    assert thicket.lookback(50, 0.5, 0.3, 0.06, 200, observed_max=50, backend="cpu")[
        "price"
    ] == fresh
    assert thicket.lookback(50, 0.5, 0.3, 0.06, 200, observed_max=57.5)["price"] > fresh


def test_the_answer_names_its_tree_and_observed_extreme_as_the_cli_does():
    # The keys of `thicket lookback/binomial --json`: the extreme priced from (the spot where
    # none was given), None for a vanilla; the tree by its name.
    seasoned = thicket.lookback(50, 0.5, 0.3, 0.06, 50, observed_max=57.5, backend="cpu")
    assert seasoned["observed_extreme"] == 57.5 and seasoned["tree"] == "crr"
    fresh_call = thicket.lookback(50, 0.5, 0.3, 0.06, 50, call=True, backend="cpu")
    assert fresh_call["observed_extreme"] == 50.0
    call = thicket.lookback(50, 0.5, 0.3, 0.06, 50, call=True, observed_min=45, backend="cpu")
    assert call["observed_extreme"] == 45.0
    vanilla = thicket.binomial(100, 95, 1.0, 0.2, 0.05, 101, tree="leisen-reimer", backend="cpu")
    assert vanilla["observed_extreme"] is None and vanilla["tree"] == "leisen-reimer"


def test_an_extreme_on_the_wrong_side_or_of_the_other_option_is_refused():
    # As `thicket lookback --observed-max 45` (below the spot of 50) and the flags swapped.
    with pytest.raises(ValueError, match=r"maximum.*45.*below the spot"):
        thicket.lookback(50, 0.5, 0.3, 0.06, 50, observed_max=45)
    with pytest.raises(ValueError, match=r"^invalid input: observed_min 45 does not fit a "
                       r"lookback-put: observed_max is a lookback-put's"):
        thicket.lookback(50, 0.5, 0.3, 0.06, 50, observed_min=45)
    with pytest.raises(ValueError, match="observed_max 55 does not fit a lookback-call"):
        thicket.lookback(50, 0.5, 0.3, 0.06, 50, call=True, observed_max=55)


def black_scholes(spot, strike, maturity, volatility, rate, call):
    d1 = (math.log(spot / strike) + (rate + volatility**2 / 2) * maturity) / (
        volatility * math.sqrt(maturity)
    )
    d2 = d1 - volatility * math.sqrt(maturity)
    cdf = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))  # noqa: E731
    if call:
        return spot * cdf(d1) - strike * math.exp(-rate * maturity) * cdf(d2)
    return strike * math.exp(-rate * maturity) * cdf(-d2) - spot * cdf(-d1)


def test_implied_volatility_of_a_black_scholes_price(rng):
    # A European on 4,001 steps is within about 1e-3 of Black-Scholes: the volatility its
    # closed-form price implies is the one that priced it, to about 1e-3.
    for _ in range(4):
        spot, strike = rng.uniform(80, 120), rng.uniform(80, 120)
        maturity, volatility = rng.uniform(0.3, 2), rng.uniform(0.15, 0.5)
        rate = rng.uniform(0, 0.06)
        for payoff in ("put", "call"):
            quote = black_scholes(spot, strike, maturity, volatility, rate, payoff == "call")
            implied = thicket.implied_volatility(
                quote, spot, maturity, rate, 4001, payoff=payoff, strike=strike, european=True,
                tree="leisen-reimer",
            )
            assert implied == pytest.approx(volatility, abs=1e-4)


def test_implied_volatility_is_scipys_root_of_the_lattice_price():
    optimize = pytest.importorskip("scipy.optimize")
    cases = [
        dict(payoff="put", strike=52.0),
        dict(payoff="call", strike=47.0, tree="tian", dividend_yield=0.03),
        dict(payoff="lookback-call", dividend_yield=0.03),
    ]
    spot, maturity, rate, steps, quote = 50.0, 0.5, 0.06, 151, 4.5
    for asked in cases:
        payoff = asked["payoff"]
        tree = asked.get("tree", "crr")
        q = asked.get("dividend_yield", 0.0)

        def priced(volatility):
            if payoff.startswith("lookback"):
                return thicket.lookback(
                    spot, maturity, volatility, rate, steps, call=True, dividend_yield=q,
                    backend="cpu",
                )["price"]
            return thicket.binomial(
                spot, asked["strike"], maturity, volatility, rate, steps,
                call=payoff == "call", dividend_yield=q, tree=tree, backend="cpu",
            )["price"]

        want = optimize.brentq(lambda v: priced(v) - quote, 0.05, 2.0, xtol=1e-13)
        got = thicket.implied_volatility(quote, spot, maturity, rate, steps, **asked)
        assert got == pytest.approx(want, abs=1e-10), asked


def test_implied_volatility_takes_the_tree_and_the_observed_extreme():
    # As the CLI's test: price at 0.27, ask for the volatility back.
    market = dict(spot=50, maturity=0.5, rate=0.06, steps=151)
    quote = thicket.binomial(strike=52, volatility=0.27, tree="leisen-reimer", **market)["price"]
    implied = thicket.implied_volatility(
        quote, **market, payoff="put", strike=52, tree="leisen-reimer"
    )
    assert implied == pytest.approx(0.27, abs=1e-9)
    quote = thicket.lookback(volatility=0.27, observed_max=57.5, **market)["price"]
    implied = thicket.implied_volatility(quote, **market, payoff="lookback-put", observed_max=57.5)
    assert implied == pytest.approx(0.27, abs=1e-9)


def refused(words, *args, **kwargs):
    """The ValueError of implied_volatility(*args, **kwargs), one line naming every word."""
    with pytest.raises(ValueError) as error:
        thicket.implied_volatility(*args, **kwargs)
    message = str(error.value)
    assert message.startswith("invalid input: ") and "\n" not in message, message
    for word in words:
        assert word in message, (word, message)


def test_unattainable_prices_are_refused_in_the_clis_words():
    market = dict(spot=42, maturity=0.5, rate=0.1, steps=100)
    # The cases of the CLI's implied_vol_refuses_a_price_at_or_past_a_no_arbitrage_bound.
    refused(
        ["price 0 is at or below the lowest price no arbitrage allows",
         "european put, 0 = max(0, K·e^(−rT) − S·e^(−qT))"],
        0, **market, payoff="put", strike=40, european=True,
    )
    refused(
        ["american put, 2 = max(0, K − S, K·e^(−rT) − S·e^(−qT))"],
        1.5, **market, payoff="put", strike=44,
    )
    refused(
        ["at or above the highest price no arbitrage allows", "42 = S·max(1, e^(−qT))"],
        42, **market, payoff="call", strike=40,
    )
    # Below the lowest volatility's price (the CLI's "implied-vol below intrinsic").
    refused(["price 1", "below"], 1, 50, 1, 0.05, 50, payoff="put", strike=60)
    refused(["price is -1", "finite number >= 0"], -1, **market, payoff="put", strike=40)


def test_the_options_terms_are_checked_as_the_cli_checks_them():
    market = dict(spot=50, maturity=0.5, rate=0.06, steps=51)
    refused(["strike is required for a put"], 3.0, **market)
    refused(["strike 50 given for a lookback-put, whose strike floats"], 3.0, **market,
            payoff="lookback-put", strike=50)
    refused(["observed_max 55 does not fit a put"], 3.0, **market, strike=50, observed_max=55)
    refused(["observed_min 45 does not fit a lookback-put"], 3.0, **market,
            payoff="lookback-put", observed_min=45)
    refused(["unknown payoff", "lookback-put, lookback-call, put, call"], 3.0, **market,
            payoff="straddle", strike=50)
    refused(["spot"], 3.0, -50, 0.5, 0.06, 51, strike=50)
    refused(["odd"], 3.0, **{**market, "steps": 50}, strike=50, tree="leisen-reimer")
