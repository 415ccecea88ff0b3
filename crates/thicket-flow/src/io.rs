//! Files: networks in the DIMACS `.max` format and solutions in its flow format
//! ([`dimacs`]).

pub mod dimacs;
