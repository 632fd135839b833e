//! Which derivatives are needed: a definition's du chain (the reads it
//! reaches, from the front end's `DUUDSetMap` through the left-hand side's
//! `du_ud` key) tells whether anyone outside a flattened run reads the
//! value. If every read it reaches is a later statement of the same run,
//! those reads are edges of the run's graph and the variable needs no
//! derivative update of its own (paper 002, §5.2: dependents are the
//! values read after the run). Key 0, an unknown key, or an "outside" entry
//! (empty statement id) mean "needed".

use std::collections::{HashMap, HashSet};
use xaif_schema::model::{Assignment, StmtIdSetMap};

/// du/ud chains by key.
#[derive(Debug, Clone, Default)]
pub struct DuChains {
    sets: HashMap<u64, Vec<String>>,
}

impl DuChains {
    pub fn new(map: &StmtIdSetMap) -> DuChains {
        DuChains {
            sets: map
                .sets
                .iter()
                .filter(|s| s.key != 0)
                .map(|s| (s.key, s.statement_ids.clone()))
                .collect(),
        }
    }

    /// Whether the value `a` assigns may be read by a statement not in
    /// `later_in_run` (or outside the subroutine).
    pub fn value_needed_outside(&self, a: &Assignment, later_in_run: &HashSet<&str>) -> bool {
        let key = a.lhs.reference.du_ud;
        if key <= 0 {
            return true;
        }
        match self.sets.get(&(key as u64)) {
            None => true,
            Some(reads) => reads
                .iter()
                .any(|id| id.is_empty() || !later_in_run.contains(id.as_str())),
        }
    }
}
