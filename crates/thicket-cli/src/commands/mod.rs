//! One file per command: each turns parsed arguments into a library call and prints the
//! answer.

pub mod devices;
pub mod ledger;
pub mod queens;
