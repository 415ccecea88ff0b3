//! The asymmetric travelling salesman problem: see issue 5 (in progress).
