"""Schedules and tours against brute force on tiny instances."""

import itertools

import numpy as np
import pytest

import thicket_solve as thicket


def best_makespan(etc):
    tasks, machines = etc.shape
    best = np.inf
    for assignment in itertools.product(range(machines), repeat=tasks):
        loads = np.zeros(machines)
        for task, machine in enumerate(assignment):
            loads[machine] += etc[task, machine]
        best = min(best, loads.max())
    return best


def best_tour(distances):
    n = len(distances)
    return min(
        sum(distances[a, b] for a, b in zip((0,) + tour, tour + (0,)))
        for tour in itertools.permutations(range(1, n))
    )


@pytest.mark.parametrize("trial", range(4))
def test_schedule_matches_brute_force(rng, trial):
    etc = rng.uniform(1, 100, size=(6, 3)).round(1)
    answer = thicket.schedule(etc, time_limit=0.5, seed=trial + 1)
    optimum = best_makespan(etc)
    assert answer["makespan"] == pytest.approx(optimum, rel=1e-9)
    assert answer["lower_bound"] <= optimum + 1e-9
    assignment = answer["assignment"]
    assert assignment.shape == (6,)
    loads = np.bincount(assignment, weights=etc[np.arange(6), assignment], minlength=3)
    assert loads.max() == pytest.approx(answer["makespan"])
    # The gap is a fraction of the makespan, as the ATSP's is of the tour's cost.
    gap = (answer["makespan"] - answer["lower_bound"]) / answer["makespan"]
    assert answer["gap"] == pytest.approx(max(gap, 0.0), abs=1e-12)
    assert 0.0 <= answer["gap"] < 1.0 and answer["stopped"] is False


def test_heuristics_never_beat_the_optimum(rng):
    etc = rng.uniform(1, 10, size=(7, 2))
    optimum = best_makespan(etc)
    for method in ("min-min", "max-min", "sufferage", "mct"):
        assert thicket.schedule(etc, method=method)["makespan"] >= optimum - 1e-9


def test_schedule_errors_are_value_errors():
    with pytest.raises(ValueError, match="1 dimensions .* it must have 2"):
        thicket.schedule(np.ones(4))
    with pytest.raises(ValueError, match="invalid input"):
        thicket.schedule(-np.ones((3, 2)))
    with pytest.raises(ValueError, match="unknown method"):
        thicket.schedule(np.ones((3, 2)), method="random")


@pytest.mark.parametrize("trial", range(4))
def test_atsp_matches_brute_force(rng, trial):
    distances = rng.integers(1, 100, size=(7, 7))
    answer = thicket.atsp(distances)
    assert answer["cost"] == best_tour(distances)
    assert answer["proven_optimal"] and answer["lower_bound"] == answer["cost"]
    tour = answer["tour"]
    assert sorted(tour) == list(range(7)) and tour[0] == 0
    assert sum(distances[a, b] for a, b in zip(tour, np.roll(tour, -1))) == answer["cost"]


def test_atsp_errors_are_value_errors():
    with pytest.raises(ValueError, match="square"):
        thicket.atsp(np.ones((3, 4)))
    with pytest.raises(ValueError, match="invalid input"):
        thicket.atsp(np.full((4, 4), 1.5))
    with pytest.raises(ValueError, match="time_limit"):
        thicket.atsp(np.ones((4, 4)), time_limit=-1.0)
    with pytest.raises(ValueError, match="time_limit"):
        thicket.atsp(np.ones((4, 4)), time_limit="soon")


def test_atsp_within_a_time_limit_brackets_the_optimum_with_its_bound():
    rng = np.random.default_rng(7)
    distances = rng.integers(1, 1000, size=(9, 9)).astype(np.float64)
    exact = thicket.atsp(distances, backend="cpu")
    limited = thicket.atsp(distances, time_limit=30.0, backend="cpu")
    assert limited["cost"] == exact["cost"] and limited["proven_optimal"]
    assert limited["gap"] == 0.0 and limited["lower_bound"] == limited["cost"]
    # A limit too short to prove anything still answers: a tour and a bound below it.
    big = rng.integers(1, 1000, size=(120, 120)).astype(np.float64)
    early = thicket.atsp(big, time_limit=0.001, backend="cpu")
    assert sorted(early["tour"]) == list(range(120))
    assert early["lower_bound"] <= early["cost"]
    assert 0.0 <= early["gap"] <= 1.0
