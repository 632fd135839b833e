//! How a unit names the variables of its checkpointed loops' states.
//!
//! The booster's `oad_state_store(x)` / `oad_state_restore(x)` name a
//! module variable by its module's scope, and a common-block member that
//! only a callee declares by the scope of its first declaration: the
//! callees' `Mod` and `Read` lists say a loop's call tree changes or reads
//! them, even where the loop's own unit does not see them. Each such
//! variable gets a name in the unit:
//!
//! - the name it already has there (a `use` rename, a module used whole,
//!   a host module, the unit's own common block), else
//! - a renaming `use MODULE, only: oad_ckv_N => NAME` after the unit's
//!   header (a common block the unit does not declare: through the module
//!   `oad_common_BLOCK` that replaces the block, `commons.rs`).
//!
//! A variable that cannot be named that way (private to its module, a
//! module defined after the unit, a name shadowed by a local) is a named
//! error at the store.

use std::collections::{HashMap, HashSet};

use xaif_schema::{
    ArgumentValue, BasicBlockElement, CallGraph, CallGraphVertex, ControlFlowVertex,
    VariableReferenceVertex,
};

use crate::canon::CanonSource;
use crate::error::{Result, XaifLocator};
use crate::global_checkpoint::{common_blocks, module_names};
use crate::markers::{STATE_RESTORE, STATE_STORE};
use crate::symbols::{unit_tag, XaifIndex};
use crate::uses::LocalNames;

/// What the units with checkpointed loops need.
#[derive(Debug, Default)]
pub struct StateNames {
    /// Unit tag → `use` lines to add after its header.
    pub uses: HashMap<String, Vec<String>>,
    /// Passive common blocks that must become modules.
    pub convert_blocks: HashSet<String>,
}

/// Gives every state variable of every unit's checkpointed loops a name
/// in that unit: new names go into `local_names` (so references print
/// them) and `use` lines into the result.
pub fn plan(
    cg: &CallGraph,
    index: &XaifIndex,
    canon: &CanonSource,
    local_names: &mut HashMap<String, LocalNames>,
    xaif: &XaifLocator,
) -> Result<StateNames> {
    let mut out = StateNames::default();
    let modules = module_names(index, canon);
    let blocks = common_blocks(canon);
    let position = |u: &str| canon.units.iter().position(|t| t == u);
    for v in &cg.vertices {
        let CallGraphVertex::ReplacementList(rl) = v else {
            continue;
        };
        let Some(unit) = unit_tag(&rl.annotation) else {
            continue;
        };
        let Some(own_scope) = index.unit_scope(unit) else {
            continue;
        };
        let mut wanted: Vec<(u64, String, String)> = Vec::new();
        for r in &rl.replacements {
            for vertex in &r.vertices {
                let ControlFlowVertex::BasicBlock(b) = vertex else {
                    continue;
                };
                for e in &b.elements {
                    let BasicBlockElement::InlinableSubroutineCall(c) = e else {
                        continue;
                    };
                    if c.subroutine_name != STATE_STORE && c.subroutine_name != STATE_RESTORE {
                        continue;
                    }
                    let Some(ArgumentValue::Variable(r)) = c.arguments.first().map(|a| &a.value)
                    else {
                        continue;
                    };
                    let Some(s) = r.vertices.iter().find_map(|v| match v {
                        VariableReferenceVertex::SymbolReference(s) => Some(s),
                        _ => None,
                    }) else {
                        continue;
                    };
                    let key = (
                        s.scope_id,
                        s.symbol_id.as_str().to_ascii_lowercase(),
                        c.statement_id.to_string(),
                    );
                    if s.scope_id != own_scope
                        && !wanted.iter().any(|(k, n, _)| *k == key.0 && *n == key.1)
                    {
                        wanted.push(key);
                    }
                }
            }
        }
        if wanted.is_empty() {
            continue;
        }
        // Modules whose variables the unit sees under their own names:
        // used whole by it or its hosts, and, transitively, used whole by
        // those modules.
        let mut seen: Vec<u64> = local_names
            .get(unit)
            .map(|n| n.whole.clone())
            .unwrap_or_default();
        let mut k = 0;
        while k < seen.len() {
            let further = index
                .unit_of_scope(seen[k])
                .and_then(|m| local_names.get(m))
                .map(|n| n.whole.clone())
                .unwrap_or_default();
            for s in further {
                if !seen.contains(&s) {
                    seen.push(s);
                }
            }
            k += 1;
        }
        let names = local_names.entry(unit.to_string()).or_default();
        let shadowed = |n: &str| index.symbol(own_scope, n).is_some();
        let mut hosts = Vec::new();
        let mut h = canon.unit_parent.get(unit).cloned().flatten();
        while let Some(t) = h {
            h = canon.unit_parent.get(&t).cloned().flatten();
            hosts.push(t);
        }
        let mut uses = Vec::new();
        let mut fresh = 0usize;
        for (scope, name, statement) in wanted {
            if names.by_remote.contains_key(&(scope, name.clone())) {
                continue;
            }
            let error = |why: String| {
                xaif.unsupported(
                    &format!("statement_id=\"{statement}\""),
                    format!("unsupported construct in a CHECKPOINT BINOMIAL loop: its state includes '{name}', {why}"),
                )
            };
            let Some(owner) = index.unit_of_scope(scope).map(str::to_string) else {
                // A scope of no unit (global): nothing to name.
                continue;
            };
            if let Some(module) = modules.get(&scope) {
                let visible = hosts.contains(&owner) || seen.contains(&scope);
                if visible && !shadowed(&name) {
                    continue;
                }
                if hosts.contains(&owner) {
                    return Err(error(format!(
                        "a variable of the host module '{module}' that a local name shadows in this routine"
                    )));
                }
                if canon.is_private(&owner, &name) {
                    return Err(error(format!(
                        "which is private to module '{module}': this routine cannot save it"
                    )));
                }
                if position(&owner) > position(unit) {
                    return Err(error(format!(
                        "of module '{module}', which is defined after this routine"
                    )));
                }
                fresh += 1;
                let local = format!("oad_ckv_{fresh}");
                uses.push(format!("use {module}, only: {local} => {name}"));
                names.by_remote.insert((scope, name.clone()), local);
                continue;
            }
            // A common-block member named in another unit's scope.
            let Some((block, occurrences)) = blocks.iter().find(|(_, occs)| {
                occs.iter()
                    .any(|(u, members)| *u == owner && members.contains(&name))
            }) else {
                return Err(error(format!(
                    "a variable of '{owner}' this routine cannot name"
                )));
            };
            let Some(k) = occurrences
                .iter()
                .find(|(u, _)| *u == owner)
                .and_then(|(_, members)| members.iter().position(|m| *m == name))
            else {
                continue;
            };
            match occurrences.iter().find(|(u, _)| u == unit) {
                Some((_, members)) => {
                    let Some(local) = members.get(k) else {
                        return Err(error(format!(
                            "member {} of common block /{block}/, which has fewer members here",
                            k + 1
                        )));
                    };
                    names.by_remote.insert((scope, name.clone()), local.clone());
                }
                None => {
                    let first = &occurrences[0].1;
                    let Some(member) = first.get(k) else {
                        return Err(error(format!(
                            "member {} of common block /{block}/, which has fewer members in its first declaration",
                            k + 1
                        )));
                    };
                    out.convert_blocks.insert(block.clone());
                    fresh += 1;
                    let local = format!("oad_ckv_{fresh}");
                    uses.push(format!("use oad_common_{block}, only: {local} => {member}"));
                    names.by_remote.insert((scope, name.clone()), local);
                }
            }
        }
        if !uses.is_empty() {
            out.uses.insert(unit.to_string(), uses);
        }
    }
    Ok(out)
}
