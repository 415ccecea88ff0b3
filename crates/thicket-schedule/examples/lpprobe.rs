//! probe
use std::time::{Duration, Instant};
use thicket_schedule::{etc::Etc, lp, search};
fn main() {
    for path in std::env::args().skip(1) {
        let etc = Etc::read(std::path::Path::new(&path)).unwrap();
        let s = Instant::now();
        let r = lp::start(&etc).unwrap();
        let (_, ms) = thicket_schedule::assignment::loads(&etc, &r.start);
        let t0 = s.elapsed().as_secs_f64();
        let run = search::search(&etc, r.start.clone(), 1, 1, search::Limits { time: Duration::from_secs(3), epochs: Some(1), bound: r.bound }, |_| {});
        println!("{path}: bound {:.3} start {ms:.3} (+{:.2}%) in {t0:.3}s; after 1 epoch {:.3} (+{:.2}%) at {:.3}s", r.bound, 100.0*(ms/r.bound-1.0), run.makespan, 100.0*(run.makespan/r.bound-1.0), s.elapsed().as_secs_f64());
    }
}
