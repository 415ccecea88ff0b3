//! Reading an option's price and greeks off the first layers of its finished induction
//! (the greeks of the [`crate::scheme`] docs), from the CPU's lattices and the GPU's alike.

use crate::contract::{Seasoning, ValidContract};
use crate::scheme::{Kind, Priced, Real, Scheme};

impl<T: Real> Scheme<T> {
    /// An empty record of the layers the price and greeks are read off (today's and the
    /// next two, at the nodes around today's state).
    pub(crate) fn top(&self) -> Top {
        Top {
            first: self.today,
            lo: self.seasoning.state.saturating_sub(2),
            ..Top::default()
        }
    }

    /// The price and greeks from layers 0, 1 and 2 (in `f64`; no layer 2 with one step).
    /// Vega and rho need other lattices: `None` here.
    pub(crate) fn read_out(&self, top: &Top) -> Priced {
        if self.today > 0 {
            return self.read_out_seasoned(top);
        }
        let (s, u, d, k) = (self.spot, self.u, self.d, self.strike);
        // The stock two steps on after one up and one down move: S on CRR (taken as exactly S),
        // S·u·d on a drifted tree.
        let middle = if self.drift.is_some() { s * u * d } else { s };
        // The factor from the lattice's bond units back to today's money at layer i.
        let bond = |i: f64| (-self.growth * (self.steps as f64 - i)).exp();
        let [l0, l1, l2] = &top.layers;
        let (d0, d1, d2) = (bond(0.0), bond(1.0), bond(2.0));
        // Values at layer 0, 1 (down, up) and 2 (down-down, middle, up-up).
        let (f, fd, fu) = match self.kind {
            Kind::LookbackPut => (s * l0[0] * d0, s * l1[1] * d1, s * u * l1[0] * d1),
            Kind::LookbackCall | Kind::Call => {
                (s * l0[0] * d0, s * d * l1[0] * d1, s * u * l1[1] * d1)
            }
            Kind::Put => (k * l0[0] * d0, k * l1[0] * d1, k * l1[1] * d1),
        };
        let delta = (fu - fd) / (s * u - s * d);
        let (gamma, theta) = if self.steps < 2 {
            (0.0, 0.0)
        } else {
            let (fdd, fud, fuu) = match self.kind {
                Kind::LookbackPut => (
                    s * l2[2] * d2,
                    0.5 * (s * u * l2[1] + s * l2[0]) * d2,
                    s * u * u * l2[0] * d2,
                ),
                Kind::LookbackCall => (
                    s * d * d * l2[0] * d2,
                    0.5 * s * (l2[0] + l2[1]) * d2,
                    s * u * u * l2[2] * d2,
                ),
                Kind::Call => (
                    s * d * d * l2[0] * d2,
                    middle * l2[1] * d2,
                    s * u * u * l2[2] * d2,
                ),
                Kind::Put => (k * l2[0] * d2, k * l2[1] * d2, k * l2[2] * d2),
            };
            let (suu, sdd) = (s * u * u, s * d * d);
            let gamma =
                ((fuu - fud) / (suu - middle) - (fud - fdd) / (middle - sdd)) / (0.5 * (suu - sdd));
            // Two steps later with the stock back at S: for a lookback, the path whose running
            // extreme is still S (j = 0), the state the option is in today; on a drifted tree
            // the middle node moved back to S along layer 2's slope.
            let later = match self.kind {
                Kind::LookbackPut | Kind::LookbackCall => s * l2[0] * d2,
                Kind::Call | Kind::Put if self.drift.is_some() => {
                    fud + (s - middle) * (fuu - fdd) / (suu - sdd)
                }
                Kind::Call | Kind::Put => fud,
            };
            (gamma, (later - f) / (2.0 * self.dt))
        };
        Priced {
            price: f,
            delta,
            gamma,
            theta,
            vega: None,
            rho: None,
        }
    }

    /// The price and greeks of a seasoned lookback: its state's, or interpolated linearly in
    /// the log of the extreme between the two states around it (greeks as the price).
    fn read_out_seasoned(&self, top: &Top) -> Priced {
        let Seasoning { state, weight } = self.seasoning;
        let below = self.read_out_state(top, state);
        if weight == 0.0 {
            return below;
        }
        let above = self.read_out_state(top, state + 1);
        let mix = |a: f64, b: f64| a + weight * (b - a);
        Priced {
            price: mix(below.price, above.price),
            delta: mix(below.delta, above.delta),
            gamma: mix(below.gamma, above.gamma),
            theta: mix(below.theta, above.theta),
            vega: None,
            rho: None,
        }
    }

    /// The price and greeks of a lookback in state `j` today (j steps of u between the stock
    /// and its extreme), from today's layer and the next two; as [`Scheme::read_out`] reads a
    /// lookback in state 0, but with the moves' states written out.
    fn read_out_state(&self, top: &Top, j: usize) -> Priced {
        let (s, u, d) = (self.spot, self.u, self.d);
        // An up move takes the put one step nearer its maximum (a new maximum at 0) and the
        // call one step further from its minimum; a down move the other way.
        let put = self.kind == Kind::LookbackPut;
        let up = |j: usize| if put { j.saturating_sub(1) } else { j + 1 };
        let down = |j: usize| if put { j + 1 } else { j.saturating_sub(1) };
        // The value in money k layers after today, `ups` net up moves on, in state `state`:
        // the put's units are its maximum S_node·u^state, the call's the stock; both grown
        // to a bond or a dividend-reinvested stock at maturity.
        let value = |k: usize, ups: i32, state: usize| {
            let level = if put { ups + state as i32 } else { ups };
            let bond = (-self.growth * (self.steps - self.today - k) as f64).exp();
            s * (f64::from(level) * self.log_u).exp() * top.node(k, state) * bond
        };
        let f = value(0, 0, j);
        let (fu, fd) = (value(1, 1, up(j)), value(1, -1, down(j)));
        let delta = (fu - fd) / (s * u - s * d);
        if self.steps - self.today < 2 {
            return Priced {
                price: f,
                delta,
                gamma: 0.0,
                theta: 0.0,
                vega: None,
                rho: None,
            };
        }
        let (fuu, fdd) = (value(2, 2, up(up(j))), value(2, -2, down(down(j))));
        // Up-down and down-up differ only where one of them sets a new extreme (state 0).
        let fud = 0.5 * (value(2, 0, down(up(j))) + value(2, 0, up(down(j))));
        let (suu, sdd) = (s * u * u, s * d * d);
        let gamma = ((fuu - fud) / (suu - s) - (fud - fdd) / (s - sdd)) / (0.5 * (suu - sdd));
        // Two steps later, the stock back at S and its extreme still today's: state j.
        let theta = (value(2, 0, j) - f) / (2.0 * self.dt);
        Priced {
            price: f,
            delta,
            gamma,
            theta,
            vega: None,
            rho: None,
        }
    }
}

/// The nodes of each layer [`Top`] keeps: a seasoned lookback reads states j − 2 … j + 3
/// around today's state j.
const TOP_NODES: usize = 6;

/// Today's layer and the next two of a finished induction, in `f64`: node `lo + n` of layer
/// `first + k` at `layers[k][n]` (layers 0, 1 and 2 from node 0 for every option that starts
/// today; no allocation, so that reading out a book of prices costs no more than its
/// arithmetic).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct Top {
    pub(crate) layers: [[f64; TOP_NODES]; 3],
    /// The layer that is today.
    first: usize,
    /// The lowest node kept.
    lo: usize,
}

impl Top {
    /// Keeps layer `i`'s values (nodes 0 … i in `layer`) if it is today's or one of the next
    /// two.
    pub(crate) fn capture<T: Real>(&mut self, i: usize, layer: &[T]) {
        if (self.first..=self.first + 2).contains(&i) {
            let hi = (self.lo + TOP_NODES).min(i + 1);
            let kept = &mut self.layers[i - self.first];
            for (kept, value) in kept.iter_mut().zip(&layer[self.lo..hi]) {
                *kept = value.get();
            }
        }
    }

    /// Node `node` of layer `first + k`.
    fn node(&self, k: usize, node: usize) -> f64 {
        self.layers[k][node - self.lo]
    }
}

/// The price and greeks of `valid` from its layers 0, 1 and 2 (node values in the CPU
/// lattice's units, as the GPU kernels report them).
pub(crate) fn read_out_layers(valid: &ValidContract, top: &Top) -> Priced {
    Scheme::<f64>::weights(valid).read_out(top)
}

/// The price and greeks of the induction `run` makes on `scheme`.
pub(crate) fn priced<T: Real>(scheme: &Scheme<T>, run: impl FnOnce(&Scheme<T>) -> Top) -> Priced {
    scheme.read_out(&run(scheme))
}
