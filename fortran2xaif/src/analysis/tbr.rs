//! To-be-recorded analysis (paper 003, §5.2): placeholder, filled in below.

use super::activity::Activity;
use super::alias::Alias;
use super::call_graph::CallGraph;
use super::ir::{Program, Seeds};
use super::side_effects::SideEffects;

/// To-be-recorded results.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tbr {}

impl Tbr {
    pub fn compute(
        _program: &Program,
        _seeds: &Seeds,
        _call_graph: &CallGraph,
        _side_effects: &SideEffects,
        _alias: &Alias,
        _activity: &Activity,
    ) -> Tbr {
        Tbr {}
    }
}
