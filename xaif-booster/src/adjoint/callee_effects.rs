//! What each routine with a control flow graph may do to its callers'
//! variables (the dummies it may modify, the module, common and host
//! variables it may modify and read), from the front end's side-effect
//! lists. Read by the block reversal (call-site checkpoints) and by the
//! checkpointed loops (a loop's live state).

use std::collections::{HashMap, HashSet};

use xaif_schema::model::{CallGraph, CallGraphVertex, Intent, VariableReference};

use crate::expr::base_symbol;

/// What a routine may do to its callers' variables, from the front end's
/// side-effect lists.
#[derive(Debug, Clone, Default)]
pub struct CalleeEffects {
    /// Positions of the dummies it may modify; `None`: not known (all).
    pub modified_positions: Option<HashSet<u64>>,
    /// Variables of other scopes (module, common, host) it may modify.
    pub globals_modified: Vec<(String, u64)>,
    /// Variables of other scopes it may read.
    pub globals_read: Vec<(String, u64)>,
}

/// The side effects of every routine with a control flow graph (active or
/// not: a passive callee may change the loop's integers).
pub fn callee_effects(cg: &CallGraph) -> HashMap<String, CalleeEffects> {
    let mut out = HashMap::new();
    for v in &cg.vertices {
        let CallGraphVertex::ControlFlowGraph(cfg) = v else {
            continue;
        };
        let own = cfg.controlflowgraph_scope_id;
        let formals: HashMap<&str, u64> = cfg
            .argument_list
            .iter()
            .flatten()
            .map(|a| (a.symbol_id.as_str(), a.position))
            .collect();
        let intent_in: HashSet<u64> = cfg
            .argument_list
            .iter()
            .flatten()
            .filter(|a| a.intent == Intent::In)
            .map(|a| a.position)
            .collect();
        let mut effects = CalleeEffects::default();
        let globals = |list: &Option<Vec<VariableReference>>, out: &mut Vec<(String, u64)>| {
            for r in list.iter().flatten() {
                if let Some((name, scope)) = base_symbol(r) {
                    if scope != own && !out.iter().any(|(n, s)| n == name && *s == scope) {
                        out.push((name.to_string(), scope));
                    }
                }
            }
        };
        globals(&cfg.mod_, &mut effects.globals_modified);
        globals(&cfg.read, &mut effects.globals_read);
        effects.modified_positions = cfg.mod_.as_ref().map(|list| {
            list.iter()
                .filter_map(base_symbol)
                .filter(|(_, scope)| *scope == own)
                .filter_map(|(name, _)| formals.get(name).copied())
                .filter(|p| !intent_in.contains(p))
                .collect()
        });
        out.insert(cfg.symbol_id.to_string(), effects);
    }
    out
}
