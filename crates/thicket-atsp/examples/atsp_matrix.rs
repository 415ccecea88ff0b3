//! Writes a generated ATSP instance (`CLASS:N:SEED`, as `thicket atsp --generate` takes it)
//! to stdout as a TSPLIB `FULL_MATRIX` file, so that outside solvers (LKH-3 in
//! `scripts/atsp-vs-lkh.py`) solve the very instance thicket does.
//!
//! `cargo run --release -p thicket-atsp --example atsp_matrix -- tsmat:316:1 > tsmat-316-1.atsp`

use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spec = std::env::args()
        .nth(1)
        .ok_or("usage: atsp_matrix CLASS:N:SEED")?;
    let instance = thicket_atsp::parse_generator_spec(&spec)?.generate()?;
    let n = instance.n;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    writeln!(out, "NAME: {}\nTYPE: ATSP\nDIMENSION: {n}", instance.name)?;
    writeln!(
        out,
        "EDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: FULL_MATRIX"
    )?;
    writeln!(out, "EDGE_WEIGHT_SECTION")?;
    for i in 0..n {
        let row: Vec<String> = (0..n).map(|j| instance.cost(i, j).to_string()).collect();
        writeln!(out, "{}", row.join(" "))?;
    }
    writeln!(out, "EOF")?;
    Ok(())
}
