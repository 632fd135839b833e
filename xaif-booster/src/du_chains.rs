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
    sets: HashMap<u64, Vec<xaif_schema::Name>>,
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

    /// Drops the dependents of a flattened run whose every read is a later
    /// statement of the same run (those reads are edges of its graph).
    pub fn prune_dependents(&self, seq: &mut crate::flatten::FlatSequence) {
        let ids: Vec<&str> = seq
            .statements
            .iter()
            .map(|s| s.assignment.statement_id.as_str())
            .collect();
        let needed: Vec<bool> = seq
            .dependent_statements
            .iter()
            .map(|&k| {
                let later: HashSet<&str> = ids[k + 1..].iter().copied().collect();
                self.value_needed_outside(&seq.statements[k].assignment, &later)
            })
            .collect();
        let mut needed = needed.into_iter();
        seq.retain_dependents(|_, _| needed.next().unwrap_or(true));
    }

    /// The statement-level accumulation of every statement of a run whose
    /// value someone reads (the others get no derivative code), computed
    /// on a scratch pool: what statement-level code of the run would cost.
    pub fn live_statement_accumulations(
        &self,
        seq: &crate::flatten::FlatSequence,
        scratch: &mut crate::temporaries::TempPool,
        symbols: &crate::symbols::SymbolIndex,
    ) -> Vec<crate::preaccumulate::Accumulation> {
        seq.statements
            .iter()
            .filter(|st| self.value_needed_outside(&st.assignment, &HashSet::new()))
            .map(|st| {
                scratch.reset();
                crate::preaccumulate::preaccumulate_statement(
                    &st.graph,
                    &st.assignment,
                    scratch,
                    symbols,
                )
            })
            .collect()
    }
}
