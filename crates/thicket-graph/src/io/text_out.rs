//! Text graph files written fast: the arcs cut into slices of about a million, each slice
//! formatted on its own thread, the slices written in order, so that a large graph is written
//! at the speed of the disk rather than of one core's formatting.

use std::io::Write;

use rayon::prelude::*;

use crate::graph::{vertex_ranges, Graph};

/// Arcs per slice: a few MB of text each (a vertex of more arcs is a slice alone).
const SLICE_ARCS: u64 = 1 << 20;

/// Appends the decimal digits of `x`.
pub(super) fn push_number(buf: &mut Vec<u8>, mut x: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[at..]);
}

/// Writes one line per arc of `g`, in CSR order, as `line(buffer, tail, head, weight)`
/// formats it.
pub(super) fn write_arcs(
    out: &mut dyn Write,
    g: &Graph,
    line: impl Fn(&mut Vec<u8>, u32, u32, u32) + Sync,
) -> std::io::Result<()> {
    let offsets = g.offsets();
    let ranges = vertex_ranges(offsets, SLICE_ARCS);
    // A few slices per thread at a time: the text in memory stays small.
    let batch = rayon::current_num_threads().max(1) * 2;
    for group in ranges.chunks(batch) {
        let texts: Vec<Vec<u8>> = group
            .par_iter()
            .map(|&(from, to)| {
                let arcs = (offsets[to] - offsets[from]) as usize;
                let mut buf = Vec::with_capacity(arcs * 16);
                for u in from as u32..to as u32 {
                    for at in g.arc_range(u) {
                        line(&mut buf, u, g.targets()[at], g.weight(at));
                    }
                }
                buf
            })
            .collect();
        for text in texts {
            out.write_all(&text)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_lines_come_out_in_order() {
        let mut buf = Vec::new();
        for x in [0, 7, 10, 18_446_744_073_709_551_615] {
            push_number(&mut buf, x);
            buf.push(b' ');
        }
        assert_eq!(buf, b"0 7 10 18446744073709551615 ");
        let g = Graph::from_arcs(3, &[(2, 0, 5), (0, 1, 4), (0, 2, 3)], true).unwrap();
        let mut out = Vec::new();
        write_arcs(&mut out, &g, |b, u, v, w| {
            for x in [u, v, w] {
                push_number(b, u64::from(x));
                b.push(b' ');
            }
            b.push(b'\n');
        })
        .unwrap();
        assert_eq!(out, b"0 1 4 \n0 2 3 \n2 0 5 \n");
    }
}
