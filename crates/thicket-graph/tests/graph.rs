//! thicket-graph's integration tests, in one binary: every reader against hostile input,
//! and the searches through the front door.

#[path = "graph/hostile_inputs.rs"]
mod hostile_inputs;
#[path = "graph/search.rs"]
mod search;
