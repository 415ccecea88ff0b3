//! The GPU checks: every GPU path of the `thicket` binary against an outside reference (OEIS,
//! Carneiro's Table 1, the lattice's reference prices, the max-flow and shortest-path
//! references) or against the CPU's answer. They were `scripts/gpu-check.sh`'s checks; the
//! script now runs them.
//!
//! Without a usable GPU each test prints a NOTE and passes, so `cargo test` stays green on
//! machines without one (CI). On a GPU machine, from the repository root:
//!
//! ```text
//! cargo test --release -p thicket-cli --test cli gpu:: -- --include-ignored --nocapture --test-threads 1
//! ```
//!
//! `#[ignore]` holds the larger sizes (minutes in all); `--nocapture` shows each check's table.
//! On a GPU machine without cargo, build the test binary elsewhere (`cargo test --release -p
//! thicket-cli --test cli --no-run` prints its path), copy it and `target/release/thicket` there
//! and run the test binary with the filter `gpu::`, `THICKET_BIN` naming the `thicket` binary
//! and `THICKET_REPO` the repository checkout (for the data files);
//! `scripts/gpu-check.sh --test-binary FILE` does so. `THICKET_GPU_DEVICES=0,1` passes
//! `--devices 0,1` to the N-Queens runs.
//!
//! One module per problem, each holding its checks and the helpers only they use; `support`
//! holds what several share. The test names are `gpu::<problem>::<check>`
//! (`gpu::queens::queens_on_the_gpu_match_oeis`), which `scripts/gpu-check.sh`'s name filters
//! select.

mod atsp;
mod flow;
mod graph;
mod lattice;
mod lattice_trees;
mod perm;
mod queens;
mod schedule;
mod support;
