//! The thesis's search node (Carneiro 2017, sec. 3.2): a partial permutation, the set of
//! elements it uses as a bitset, and its cost. Depth is the number of elements placed.

/// The largest permutation size a node holds.
pub const MAX_N: usize = 64;

/// A partial permutation `perm[0..depth]` with its used-element bitset and cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    /// The elements placed so far, in order (`perm[i]` for `i < depth`).
    pub perm: [u8; MAX_N],
    /// How many elements are placed.
    pub depth: usize,
    /// Bit `e` set when element `e` is placed.
    pub used: u64,
    /// The cost of the partial permutation (problem-specific; 0 where there is none).
    pub cost: i64,
}

impl Node {
    /// The empty permutation.
    pub fn root() -> Node {
        Node {
            perm: [0; MAX_N],
            depth: 0,
            used: 0,
            cost: 0,
        }
    }

    /// Whether element `e` is placed.
    #[inline(always)]
    pub fn uses(&self, e: usize) -> bool {
        self.used >> e & 1 == 1
    }

    /// The node with element `e` appended at cost `cost` (the new total).
    #[inline(always)]
    pub fn child(&self, e: usize, cost: i64) -> Node {
        let mut child = *self;
        child.perm[self.depth] = e as u8;
        child.depth += 1;
        child.used |= 1 << e;
        child.cost = cost;
        child
    }

    /// The placed elements.
    pub fn placed(&self) -> &[u8] {
        &self.perm[..self.depth]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_extend_the_permutation_and_the_bitset() {
        let node = Node::root().child(3, 5).child(1, 9);
        assert_eq!(node.placed(), &[3, 1]);
        assert!(node.uses(3) && node.uses(1) && !node.uses(0));
        assert_eq!(node.cost, 9);
    }
}
