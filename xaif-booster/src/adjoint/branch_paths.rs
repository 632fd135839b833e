//! One tape entry per path through nested branches.
//!
//! Paper 001 (Algorithm 3) pushes one marker per branch executed, so an
//! `if / else if / else` chain, which is a branch nested in the else arm
//! of another, pushes two integers when the inner branch runs (measured on
//! bench clip_loops: two pushes per element in the clipping loop, the
//! taping sweep 20 % slower than with one). When an arm of a taped branch
//! contains nothing that has an adjoint except exactly one taped branch,
//! the outer marker carries no information of its own: the arm's reversal
//! *is* the inner branch's reversal. The arm then takes the inner branch's
//! paths, numbered on from the outer branch's other arms, and only the
//! innermost branch executed pushes its path number; the reverse sweep pops
//! once and branches on the path to the reversal of that path's leaf arm.
//!
//! An arm holding any other adjoint work (an active assignment, a loop with
//! one, a second taped branch) keeps its own marker: its reversal must run
//! that work around the inner branch's, which a flat branch on the leaf
//! arms would leave out.

use super::structure::{Arm, Region};

/// The position in `body` of the one taped branch it holds when nothing
/// else in it has an adjoint, which makes the arm share that branch's paths.
pub fn nested_branch(body: &[Region], has_adjoint: &impl Fn(&Region) -> bool) -> Option<usize> {
    let mut taped = body.iter().enumerate().filter(|(_, r)| has_adjoint(r));
    let (k, region) = taped.next()?;
    if taped.next().is_some() || !matches!(region, Region::Branch { .. }) {
        return None;
    }
    Some(k)
}

/// The leaf arm bodies of a taped branch in path-number order: path p
/// (from 1) reverses the p-th body.
pub fn leaf_arms<'r>(arms: &'r [Arm], has_adjoint: &impl Fn(&Region) -> bool) -> Vec<&'r [Region]> {
    let mut leaves = Vec::new();
    for arm in arms {
        match nested_branch(&arm.body, has_adjoint) {
            Some(k) => {
                let Region::Branch { arms: inner, .. } = &arm.body[k] else {
                    unreachable!("nested_branch returns branches only");
                };
                leaves.extend(leaf_arms(inner, has_adjoint));
            }
            None => leaves.push(arm.body.as_slice()),
        }
    }
    leaves
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arm(body: Vec<Region>) -> Arm {
        Arm {
            edges: Vec::new(),
            body,
        }
    }

    fn branch(vertex: usize, arms: Vec<Arm>) -> Region {
        Region::Branch { vertex, arms }
    }

    fn block(v: usize) -> Region {
        Region::Block(v)
    }

    /// Blocks numbered 100 and up have an adjoint, others do not; a branch
    /// or loop has one when something inside has.
    fn has_adjoint(r: &Region) -> bool {
        match r {
            Region::Block(v) => *v >= 100,
            Region::Branch { arms, .. } => arms.iter().any(|a| a.body.iter().any(has_adjoint)),
            Region::Loop { body, .. } => body.iter().any(has_adjoint),
        }
    }

    fn leaves(arms: &[Arm]) -> Vec<Vec<usize>> {
        leaf_arms(arms, &has_adjoint)
            .into_iter()
            .map(|body| {
                body.iter()
                    .map(|r| match r {
                        Region::Block(v) => *v,
                        Region::Branch { vertex, .. } | Region::Loop { vertex, .. } => *vertex,
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn else_if_chain_has_one_path_per_leaf() {
        // if (a) then B101 else if (b) then B102 else B103
        let inner = branch(2, vec![arm(vec![block(102)]), arm(vec![block(103)])]);
        let outer = vec![arm(vec![block(101)]), arm(vec![block(1), inner, block(3)])];
        assert_eq!(leaves(&outer), vec![vec![101], vec![102], vec![103]]);
    }

    #[test]
    fn passive_work_around_the_inner_branch_still_flattens() {
        let inner = branch(2, vec![arm(vec![block(102)]), arm(vec![])]);
        let body = vec![block(4), inner, block(5)];
        assert_eq!(nested_branch(&body, &has_adjoint), Some(1));
    }

    #[test]
    fn active_work_next_to_the_inner_branch_keeps_its_marker() {
        // else; u(i) = 2*u(i) (B104); if (b) then B102 else B103
        let inner = branch(2, vec![arm(vec![block(102)]), arm(vec![block(103)])]);
        let body = vec![block(104), inner];
        assert_eq!(nested_branch(&body, &has_adjoint), None);
        let outer = vec![arm(vec![block(101)]), arm(body)];
        assert_eq!(leaves(&outer), vec![vec![101], vec![104, 2]]);
    }

    #[test]
    fn two_taped_branches_in_one_arm_keep_their_markers() {
        let first = branch(2, vec![arm(vec![block(102)]), arm(vec![])]);
        let second = branch(3, vec![arm(vec![block(103)]), arm(vec![])]);
        assert_eq!(nested_branch(&[first, second], &has_adjoint), None);
    }

    #[test]
    fn a_loop_is_not_a_branch() {
        let l = Region::Loop {
            vertex: 7,
            body_edge: 0,
            exit_edge: 1,
            body: vec![block(105)],
            leading_exit: None,
        };
        assert_eq!(nested_branch(&[l], &has_adjoint), None);
    }

    #[test]
    fn untaped_inner_branch_is_a_leaf() {
        // else; if (b) then passive else passive: no adjoint, one leaf.
        let inner = branch(2, vec![arm(vec![block(6)]), arm(vec![block(7)])]);
        let outer = vec![arm(vec![block(101)]), arm(vec![inner])];
        assert_eq!(leaves(&outer), vec![vec![101], vec![2]]);
    }

    #[test]
    fn three_levels_number_depth_first() {
        let deepest = branch(3, vec![arm(vec![block(103)]), arm(vec![block(104)])]);
        let middle = branch(2, vec![arm(vec![block(102)]), arm(vec![deepest])]);
        let outer = vec![arm(vec![middle]), arm(vec![block(101)])];
        assert_eq!(
            leaves(&outer),
            vec![vec![102], vec![103], vec![104], vec![101]]
        );
    }
}
