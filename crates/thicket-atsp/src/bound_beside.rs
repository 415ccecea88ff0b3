//! The lower bound that ascends on a thread of its own while a time-limited run's local
//! search improves the tour: the Held–Karp 1-tree bound ([`one_tree`]), and where that stays
//! below the plain assignment bound (strongly asymmetric costs: stilt, crane, coin), the
//! exact search's subtour-cut multipliers ([`subtour_lagrangian`]) going on from where its
//! ascent stopped. The exact search gives its ascent a share of its own time, a tenth of the
//! run's, which leaves stilt's multipliers far from converged at LKH-3's time (at n = 316,
//! 138 steps in 2 s against about 1,300 to converge). The caller hands the multipliers over
//! only where the thread is a small part of the machine (docs/atsp.md).

use std::sync::OnceLock;
use std::time::Instant;

use thicket_core::StopFlag;

use crate::instance::Instance;
use crate::one_tree::{self, NodePrices, OneTree};
use crate::subtour_lagrangian::{self, Relaxed};
use crate::subtour_search::FORBIDDEN;

/// The bounds of `inst` ascending until `deadline` (or `stop`), aiming at `upper` (the cost
/// of a tour): the 1-tree, whose prices go to `prices` where it ended at or above `plain`
/// (the plain assignment bound), else the multipliers `relaxed` from where they stopped, on
/// one thread. Returns the 1-tree and the multipliers (as they came where they did not
/// ascend).
pub(crate) fn ascend(
    inst: &Instance,
    plain: Option<i64>,
    upper: i64,
    deadline: Instant,
    stop: Option<&StopFlag>,
    relaxed: Option<Relaxed>,
    prices: &OnceLock<NodePrices>,
) -> (Option<OneTree>, Option<Relaxed>) {
    let ascended = one_tree::ascend(inst, upper, plain, deadline, stop.map(StopFlag::as_atomic));
    let tree = match ascended {
        Some((tree, priced)) if plain.is_some_and(|plain| tree.bound >= plain) => {
            let _ = prices.set(priced);
            Some(tree)
        }
        other => other.map(|(tree, _)| tree),
    };
    let below = |plain: i64| tree.is_none_or(|tree| tree.bound < plain);
    let go_on = relaxed.as_ref().is_some_and(|r| !r.is_plain()) && plain.is_some_and(below);
    let relaxed = match (go_on, thicket_core::pool(1)) {
        (true, Ok(one)) => one.install(|| {
            let deadline = Some(deadline);
            Some(subtour_lagrangian::ascend(
                inst, upper, plain, FORBIDDEN, deadline, stop, relaxed,
            ))
        }),
        _ => relaxed,
    };
    (tree, relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::parse_generator_spec;
    use crate::policy::RootBounds;
    use std::time::Duration;

    /// `spec`, its plain assignment bound, a tour's cost and multipliers after the first
    /// few steps of their ascent (from 10 ms on, doubled until a step fits: a debug build is
    /// slower).
    fn started(spec: &str) -> (Instance, i64, i64, Relaxed) {
        let inst = parse_generator_spec(spec).unwrap().generate().unwrap();
        let (root, (upper, _)) = RootBounds::of(&inst);
        let plain = Some(root.lower_bound());
        let mut first = Duration::from_millis(10);
        loop {
            let deadline = Some(Instant::now() + first);
            let relaxed =
                subtour_lagrangian::ascend(&inst, upper, plain, FORBIDDEN, deadline, None, None);
            if relaxed.steps > 0 || first > Duration::from_secs(5) {
                return (inst, root.lower_bound(), upper, relaxed);
            }
            first *= 2;
        }
    }

    /// [`ascend`] for a second from `relaxed`, and the prices it handed over.
    fn ascended_for_a_second(
        inst: &Instance,
        plain: i64,
        upper: i64,
        relaxed: Relaxed,
    ) -> (Option<OneTree>, Option<Relaxed>, Option<NodePrices>) {
        let deadline = Instant::now() + Duration::from_secs(1);
        let prices = OnceLock::new();
        let (tree, after) = ascend(
            inst,
            Some(plain),
            upper,
            deadline,
            None,
            Some(relaxed),
            &prices,
        );
        (tree, after, prices.into_inner())
    }

    /// On crane's costs the 1-tree gives up below the plain bound and the multipliers go on:
    /// more steps and a bound at least as high, never above a tour's cost.
    #[test]
    fn on_crane_costs_the_multipliers_go_on_where_the_1_tree_gives_up() {
        let (inst, plain, upper, relaxed) = started("crane:150:2");
        assert!(!relaxed.is_plain());
        let before = (relaxed.steps, relaxed.root_bound);
        let (tree, after, prices) = ascended_for_a_second(&inst, plain, upper, relaxed);
        let (tree, after) = (tree.unwrap(), after.unwrap());
        assert!(tree.bound < plain, "{tree:?} against {plain}");
        assert!(
            prices.is_none(),
            "a 1-tree below the plain bound prices nothing"
        );
        assert!(after.steps > before.0, "{} against {before:?}", after.steps);
        assert!(after.root_bound >= before.1 && after.root_bound <= upper);
    }

    /// On symmetric costs the 1-tree passes the plain bound, its prices are handed over and
    /// the multipliers stay as they were.
    #[test]
    fn on_symmetric_costs_the_1_tree_keeps_the_thread() {
        let (inst, plain, upper, relaxed) = started("tsmat:150:2");
        let before = (relaxed.steps, relaxed.root_bound);
        let (tree, after, prices) = ascended_for_a_second(&inst, plain, upper, relaxed);
        assert!(tree.unwrap().bound > plain);
        assert_eq!(prices.map(|p| p.out.len()), Some(inst.n));
        let after = after.unwrap();
        assert_eq!((after.steps, after.root_bound), before);
    }
}
