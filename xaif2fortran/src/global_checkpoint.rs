//! Which module and common-block variables a subroutine's argument
//! checkpoint (`!$placeholder arg_store` / `arg_restore`, joint template)
//! must cover, and how the subroutine names them.
//!
//! In the joint adjoint the reverse sweep re-runs a callee's forward sweep
//! from its checkpoint; everything the callee *and its callees* read must
//! then hold the values it had at the original call. Only the subroutine
//! called from a taping caller stores a checkpoint (its own callees run
//! plain), so the set is transitive: the global variables read by any
//! unit reachable from it in the call graph. What a unit reads comes from
//! the XAIF (`xaif_schema::index::unit_references`): every variable its
//! graphs reference, in any replacement (assignments on either side, call
//! arguments, conditions, loop bounds, subscripts). A variable that is
//! written and never read is kept too ("read anywhere", not "read before
//! written on every path": proving the latter needs the paths). Two kinds
//! of unit keep the old, conservative set, every global *visible* in it:
//! one with a statement the XAIF leaves opaque (a `Marker`: input/output,
//! allocation, black-box and MPI calls name variables the XAIF does not
//! show), for itself; and one that references a pointer, for the whole
//! checkpoint (a pointer reads a target it does not name, anywhere in the
//! call tree). A common block is saved whole when any unit reads one of
//! its members under the names that unit declares.
//!
//! A global the subroutine cannot name itself (a module it does not use,
//! a common block it does not declare) is made visible by a renaming
//! `use` added after its header; a passive common block needed that way
//! is turned into a module like an active one (`commons.rs`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use xaif_schema::index::{unit_references, UnitReferences};
use xaif_schema::SymbolKind;

use xaif_schema::declarations::DeclaredIntent;

use crate::canon::CanonSource;
use crate::error::{Kind, Result, XaifLocator};
use crate::symbols::XaifIndex;
use crate::uses::LocalNames;

/// One global variable a unit checkpoints.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedGlobal {
    /// The name the unit uses for it.
    pub local: String,
    /// Scope and name of its XAIF symbol.
    pub scope: u64,
    pub name: String,
    /// Unit whose `!$oad decl` line declares it (attributes, shape).
    pub decl_unit: String,
    /// A private module variable: the unit calls the module's own store
    /// and restore routines (`module_access`), under these local names.
    pub through: Option<(String, String)>,
}

/// The checkpoint plan of every unit that gets one.
#[derive(Debug, Default)]
pub struct GlobalCheckpoints {
    /// Unit tag → globals to checkpoint, in a fixed order.
    pub saved: HashMap<String, Vec<SavedGlobal>>,
    /// Unit tag → `use` lines to add after its header.
    pub uses: HashMap<String, Vec<String>>,
    /// Passive common blocks that must become modules.
    pub convert_blocks: HashSet<String>,
    /// Module unit tag → its private variables (scope, name) that units
    /// outside it checkpoint: the module gets public routines
    /// `oad_cps_NAME` / `oad_cpr_NAME` storing and restoring each.
    pub module_access: BTreeMap<String, BTreeSet<(u64, String)>>,
}

/// The module routine that stores (`store`) or restores a private
/// module variable for the checkpoints of units outside the module.
pub fn access_routine(name: &str, store: bool) -> String {
    let op = if store { "cps" } else { "cpr" };
    format!("oad_{op}_{name}")
}

/// A global variable independent of the unit that names it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Global {
    /// (module scope, name in the module)
    Module(u64, String),
    /// A whole common block, by name.
    Common(String),
    /// A variable of an enclosing procedure (host association) an
    /// internal procedure names: (host scope, name).
    Host(u64, String),
}

/// `common /name/ ...` occurrences: block → (unit, members) in file order.
pub(crate) type Blocks = Vec<(String, Vec<(String, Vec<String>)>)>;

/// The `common` statements `P.decl` lists, grouped by block.
pub(crate) fn common_blocks(canon: &CanonSource) -> Blocks {
    let mut blocks: Blocks = Vec::new();
    for c in canon.declarations.commons() {
        let occurrence = (c.unit.clone(), c.members.clone());
        match blocks.iter_mut().find(|(b, _)| *b == c.block) {
            Some((_, occ)) => occ.push(occurrence),
            None => blocks.push((c.block.clone(), vec![occurrence])),
        }
    }
    blocks
}

/// Module scope → module name (`P.decl`'s `unit` records).
pub(crate) fn module_names(index: &XaifIndex, canon: &CanonSource) -> HashMap<u64, String> {
    crate::uses::module_scopes(index, canon)
        .into_iter()
        .map(|(name, scope)| (scope, name))
        .collect()
}

/// One call statement of a unit.
struct CallSite {
    statement_id: String,
    /// Line in the user's source (`lineNumber`).
    line: u64,
    name: String,
    /// The units of that name (every one: internal procedures may share
    /// a name).
    targets: Vec<String>,
}

/// What the code of each unit references (every part of a replacement
/// list), by unit tag.
fn references<'a>(index: &XaifIndex<'a>) -> HashMap<&'a str, UnitReferences<'a>> {
    let mut out: HashMap<&str, UnitReferences> = HashMap::new();
    for graph in index.units().graphs() {
        let Some(tag) = graph.tag else {
            continue;
        };
        let refs = unit_references(&graph);
        let entry = out.entry(tag).or_default();
        entry.symbols.extend(refs.symbols);
        entry.calls.extend(refs.calls);
        entry.opaque |= refs.opaque;
    }
    out
}

/// The calls of each unit (of every part for replacement lists).
fn call_sites(
    index: &XaifIndex,
    references: &HashMap<&str, UnitReferences>,
) -> HashMap<String, Vec<CallSite>> {
    let mut units_named: HashMap<String, Vec<String>> = HashMap::new();
    for graph in index.units().graphs() {
        if let Some(tag) = graph.tag {
            units_named
                .entry(graph.name.to_ascii_lowercase())
                .or_default()
                .push(tag.to_string());
        }
    }
    let mut out: HashMap<String, Vec<CallSite>> = HashMap::new();
    for (tag, refs) in references {
        let sites = refs.calls.iter().filter_map(|c| {
            let name = c.symbol_id.as_ref()?.as_str().to_ascii_lowercase();
            Some(CallSite {
                statement_id: c.statement_id.to_string(),
                line: c.line_number,
                targets: units_named.get(&name).cloned().unwrap_or_default(),
                name,
            })
        });
        out.entry(tag.to_string()).or_default().extend(sites);
    }
    out
}

/// The variables of enclosing procedures each internal procedure names
/// (host association), by unit tag: those references carry a host
/// procedure's scope.
fn host_references(
    index: &XaifIndex,
    canon: &CanonSource,
    references: &HashMap<&str, UnitReferences>,
) -> HashMap<String, BTreeSet<Global>> {
    let mut out: HashMap<String, BTreeSet<Global>> = HashMap::new();
    for (tag, refs) in references {
        let mut host_scopes = HashSet::new();
        let mut host = canon.unit_parent.get(*tag).cloned().flatten();
        while let Some(h) = host {
            // Procedures have a graph; modules do not.
            if references.contains_key(h.as_str()) {
                host_scopes.extend(index.unit_scope(&h));
            }
            host = canon.unit_parent.get(&h).cloned().flatten();
        }
        if host_scopes.is_empty() {
            continue;
        }
        let found = out.entry(tag.to_string()).or_default();
        for &(scope, symbol) in &refs.symbols {
            if host_scopes.contains(&scope) {
                // A component path is saved with its base variable
                // (whole: its non-real parts have no symbols).
                let name = symbol.to_ascii_lowercase();
                let base = match name.split(['%', '(']).next() {
                    Some(b) if crate::components::is_component_path(&name) => b.to_string(),
                    _ => name.to_string(),
                };
                found.insert(Global::Host(scope, base));
            }
        }
    }
    out
}

/// Whether a unit's code references a pointer (whose target it reads or
/// writes without naming it).
fn references_pointer(index: &XaifIndex, refs: &UnitReferences) -> bool {
    refs.symbols.iter().any(|&(scope, name)| {
        index
            .symbol(scope, name)
            .is_some_and(|s| s.pointer || s.kind == SymbolKind::Pointer)
    })
}

/// Whether unit `unit` (scope `scope`) reads global `g`: always when its
/// code is unknown or has opaque statements.
fn reads_global(
    refs: Option<&UnitReferences>,
    scope: Option<u64>,
    blocks: &Blocks,
    unit: &str,
    g: &Global,
) -> bool {
    let Some(refs) = refs.filter(|r| !r.opaque) else {
        return true;
    };
    match g {
        Global::Module(s, name) | Global::Host(s, name) => refs.names_variable(*s, name),
        Global::Common(block) => blocks
            .iter()
            .filter(|(b, _)| b == block)
            .flat_map(|(_, occs)| occs)
            .filter(|(u, _)| u == unit)
            .flat_map(|(_, members)| members)
            .any(|m| scope.is_some_and(|s| refs.names_variable(s, m))),
    }
}

/// The module variables and common-block members one unit can see.
fn direct_globals(
    index: &XaifIndex,
    canon: &CanonSource,
    names: &LocalNames,
    blocks: &Blocks,
    unit: &str,
) -> BTreeSet<Global> {
    let mut out = BTreeSet::new();
    for (scope, remote) in names.by_local.values() {
        out.insert(Global::Module(*scope, remote.clone()));
    }
    for &scope in &names.whole {
        for sym in index.symbols_of(scope) {
            out.insert(Global::Module(
                scope,
                sym.symbol_id.as_str().to_ascii_lowercase().to_string(),
            ));
        }
    }
    let mut host = canon.unit_parent.get(unit).cloned().flatten();
    while let Some(tag) = host {
        if let Some((&scope, _)) = names.module_units.iter().find(|(_, t)| **t == tag) {
            for sym in index.symbols_of(scope) {
                out.insert(Global::Module(
                    scope,
                    sym.symbol_id.as_str().to_ascii_lowercase().to_string(),
                ));
            }
        }
        host = canon.unit_parent.get(&tag).cloned().flatten();
    }
    for (block, occs) in blocks {
        if occs.iter().any(|(u, _)| u == unit) {
            out.insert(Global::Common(block.clone()));
        }
    }
    out
}

/// Plans the global checkpoints of the units in `units` (those whose
/// template stores and restores argument checkpoints).
pub fn plan(
    index: &XaifIndex,
    canon: &CanonSource,
    local_names: &HashMap<String, LocalNames>,
    units: &HashSet<String>,
    xaif: &XaifLocator,
) -> Result<GlobalCheckpoints> {
    let blocks = common_blocks(canon);
    let modules = module_names(index, canon);
    let references = references(index);
    let calls = call_sites(index, &references);
    let empty = LocalNames::default();
    let names_of = |u: &str| local_names.get(u).unwrap_or(&empty);
    let mut hosts = host_references(index, canon, &references);
    // Per unit: the globals it can see, and those of them it reads.
    let mut visible: HashMap<&String, BTreeSet<Global>> = HashMap::new();
    let mut read: HashMap<&String, BTreeSet<Global>> = HashMap::new();
    for u in &canon.units {
        let mut seen = direct_globals(index, canon, names_of(u), &blocks, u);
        seen.extend(hosts.remove(u).unwrap_or_default());
        let refs = references.get(u.as_str());
        let scope = index.unit_scope(u);
        let reads = seen
            .iter()
            .filter(|g| reads_global(refs, scope, &blocks, u, g))
            .cloned()
            .collect();
        read.insert(u, reads);
        visible.insert(u, seen);
    }
    let pointer_units: HashSet<&str> = references
        .iter()
        .filter(|(_, r)| references_pointer(index, r))
        .map(|(t, _)| *t)
        .collect();
    let is_ancestor = |outer: &str, inner: &str| {
        let mut h = canon.unit_parent.get(inner).cloned().flatten();
        while let Some(t) = h {
            if t == outer {
                return true;
            }
            h = canon.unit_parent.get(&t).cloned().flatten();
        }
        false
    };
    let position = |u: &str| canon.units.iter().position(|t| t == u);
    // The globals read by everything reachable from `start` (recursion:
    // cycles end at a unit already seen); those visible when a reachable
    // unit references a pointer.
    let reach = |start: &[&str]| {
        let mut seen: HashSet<String> = HashSet::new();
        let mut queue: VecDeque<String> = start.iter().map(|s| s.to_string()).collect();
        while let Some(u) = queue.pop_front() {
            if seen.contains(&u) {
                continue;
            }
            for site in calls.get(&u).into_iter().flatten() {
                queue.extend(site.targets.iter().cloned());
            }
            seen.insert(u);
        }
        let direct = if seen.iter().any(|u| pointer_units.contains(u.as_str())) {
            &visible
        } else {
            &read
        };
        let mut needed: BTreeSet<Global> = BTreeSet::new();
        for u in &seen {
            if let Some(d) = direct.get(u) {
                needed.extend(d.iter().cloned());
            }
        }
        needed
    };
    let mut plan = GlobalCheckpoints::default();
    let mut sorted: Vec<&String> = units.iter().collect();
    sorted.sort();
    for unit in sorted {
        let needed = reach(&[unit.as_str()]);
        let names = names_of(unit);
        let own_scope = index.unit_scope(unit);
        let shadowed = |n: &str| own_scope.is_some_and(|s| index.symbol(s, n).is_some());
        let mut saved = Vec::new();
        let mut uses = Vec::new();
        let mut fresh = 0usize;
        let mut fresh_name = || {
            fresh += 1;
            format!("oad_cpg_{fresh}")
        };
        for g in needed {
            match g {
                Global::Module(scope, remote) => {
                    let Some(sym) = index.symbol(scope, &remote) else {
                        continue;
                    };
                    // Component paths are saved with their base variable.
                    if sym.kind != xaif_schema::SymbolKind::Variable
                        || crate::components::is_component_path(&remote)
                    {
                        continue;
                    }
                    let Some(module_unit) = names.module_units.get(&scope).cloned() else {
                        continue;
                    };
                    // A named constant never changes: nothing to save (and
                    // a local of the same name shadowing it is harmless).
                    if canon
                        .attributes(&module_unit, &remote)
                        .is_some_and(|a| a.parameter)
                    {
                        continue;
                    }
                    let in_host = {
                        let mut h = canon.unit_parent.get(unit.as_str()).cloned().flatten();
                        let mut found = false;
                        while let Some(t) = h {
                            found |= t == module_unit;
                            h = canon.unit_parent.get(&t).cloned().flatten();
                        }
                        found
                    };
                    let local = if let Some(l) = names.by_remote.get(&(scope, remote.clone())) {
                        Some(l.clone())
                    } else if (in_host
                        || (names.whole.contains(&scope)
                            && !canon.is_private(&module_unit, &remote)))
                        && !shadowed(&remote)
                    {
                        Some(remote.clone())
                    } else {
                        None
                    };
                    let local = match local {
                        Some(l) => l,
                        None => {
                            let module = modules.get(&scope).cloned().unwrap_or_default();
                            // Private to a module defined before the unit:
                            // the module stores and restores it itself.
                            if !in_host
                                && position(&module_unit) <= position(unit)
                                && canon.is_private(&module_unit, &remote)
                                && access_routine(&remote, true).len() <= 63
                            {
                                let (s, r) = (fresh_name(), fresh_name());
                                uses.push(format!(
                                    "use {module}, only: {s} => {}, {r} => {}",
                                    access_routine(&remote, true),
                                    access_routine(&remote, false)
                                ));
                                plan.module_access
                                    .entry(module_unit.clone())
                                    .or_default()
                                    .insert((scope, remote.clone()));
                                saved.push(SavedGlobal {
                                    local: remote.clone(),
                                    scope,
                                    name: remote,
                                    decl_unit: module_unit,
                                    through: Some((s, r)),
                                });
                                continue;
                            }
                            let why = if in_host {
                                Some("it is shadowed there by a local name".to_string())
                            } else if position(&module_unit) > position(unit) {
                                Some(format!("module '{module}' is defined after it"))
                            } else if canon.is_private(&module_unit, &remote) {
                                Some(format!("it is private to module '{module}'"))
                            } else {
                                None
                            };
                            if let Some(why) = why {
                                let message = format!(
                                    "unsupported construct in joint adjoint mode: module variable '{remote}' (module '{module}') is visible to '{unit}' and the code it calls; the joint reverse sweep re-runs '{unit}' from a checkpoint that must save the variable, but {why}"
                                );
                                // Shadowed: point at the local that hides it.
                                if in_host {
                                    if let Some(d) =
                                        own_scope.and_then(|s| xaif.at_symbol(s, &remote, &message))
                                    {
                                        return Err(d.with_kind(Kind::Unsupported));
                                    }
                                }
                                // Point at the call through which it is reached.
                                let global = Global::Module(scope, remote.clone());
                                let site =
                                    calls.get(unit.as_str()).into_iter().flatten().find(|c| {
                                        let t: Vec<&str> =
                                            c.targets.iter().map(String::as_str).collect();
                                        reach(&t).contains(&global)
                                    });
                                let (needle, via) = match site {
                                    Some(c) => (
                                        format!("statement_id=\"{}\"", c.statement_id),
                                        format!(
                                            "the call of '{}' at source line {}",
                                            c.name, c.line
                                        ),
                                    ),
                                    None => (
                                        format!("annotation=\"unit:{unit}\""),
                                        "its own code".to_string(),
                                    ),
                                };
                                let message = format!("{message} (reached through {via})");
                                if site.is_none() {
                                    if let Some(d) = xaif.at_unit(unit, &message) {
                                        return Err(d.with_kind(Kind::Unsupported));
                                    }
                                }
                                return Err(xaif.unsupported(&needle, message));
                            }
                            let l = fresh_name();
                            uses.push(format!("use {module}, only: {l} => {remote}"));
                            l
                        }
                    };
                    saved.push(SavedGlobal {
                        local,
                        scope,
                        name: remote,
                        decl_unit: module_unit,
                        through: None,
                    });
                }
                Global::Host(scope, name) => {
                    // Only a unit inside the host sees the host's variables
                    // as they were at its call; from the host itself or
                    // outside it they are fresh locals or the host's
                    // (checkpointed) arguments.
                    let Some(host) = index.unit_of_scope(scope).map(str::to_string) else {
                        continue;
                    };
                    if !is_ancestor(&host, unit) {
                        continue;
                    }
                    let decl = canon.attributes(&host, &name);
                    // Constants and intent(in) dummies cannot change (nor
                    // be assigned) while the host runs.
                    if decl.is_some_and(|a| a.parameter || a.intent == Some(DeclaredIntent::In)) {
                        continue;
                    }
                    if shadowed(&name) {
                        let message = format!(
                            "unsupported construct in joint adjoint mode: '{name}' of '{host}' is read by internal procedures '{unit}' calls; the joint reverse sweep re-runs '{unit}' from a checkpoint that must save it, but a local of '{unit}' has the same name"
                        );
                        if let Some(d) = own_scope.and_then(|s| xaif.at_symbol(s, &name, &message))
                        {
                            return Err(d.with_kind(Kind::Unsupported));
                        }
                        return Err(
                            xaif.unsupported(&format!("annotation=\"unit:{unit}\""), message)
                        );
                    }
                    saved.push(SavedGlobal {
                        local: name.clone(),
                        scope,
                        name,
                        decl_unit: host,
                        through: None,
                    });
                }
                Global::Common(block) => {
                    let Some((_, occs)) = blocks.iter().find(|(b, _)| *b == block) else {
                        continue;
                    };
                    // The unit's own layout if it declares the block (its
                    // members under its names), else the first
                    // occurrence's through the module the block becomes.
                    match occs.iter().find(|(u, _)| u == unit) {
                        Some((_, members)) => {
                            // The storage is what the first occurrence
                            // declares (a block turned into a module is
                            // declared from it): its type and activity,
                            // which the unit's own symbol may not share
                            // (a member active in one unit, passive where
                            // the unit never uses it actively).
                            let (first_unit, first_members) = &occs[0];
                            let Some(scope) = index.unit_scope(first_unit) else {
                                continue;
                            };
                            for (m, first) in members.iter().zip(first_members) {
                                saved.push(SavedGlobal {
                                    local: m.clone(),
                                    scope,
                                    name: first.clone(),
                                    decl_unit: first_unit.clone(),
                                    through: None,
                                });
                            }
                        }
                        None => {
                            let (first_unit, first_members) = &occs[0];
                            let Some(scope) = index.unit_scope(first_unit) else {
                                continue;
                            };
                            plan.convert_blocks.insert(block.clone());
                            for m in first_members {
                                let l = fresh_name();
                                uses.push(format!("use oad_common_{block}, only: {l} => {m}"));
                                saved.push(SavedGlobal {
                                    local: l,
                                    scope,
                                    name: m.clone(),
                                    decl_unit: first_unit.clone(),
                                    through: None,
                                });
                            }
                        }
                    }
                }
            }
        }
        plan.saved.insert(unit.clone(), saved);
        if !uses.is_empty() {
            plan.uses.insert(unit.clone(), uses);
        }
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_blocks_in_file_order_with_their_units() {
        let declarations = xaif_schema::declarations::Declarations::parse(
            "# openad declarations 2\ncommon 13 13 g blk q r\ncommon 5 5 f blk p\ncommon 7 8 f other s\n",
            "t.decl",
        )
        .unwrap();
        let mut c = CanonSource::parse("t.canon.f90", "").unwrap();
        c.declarations = declarations;
        let blocks = common_blocks(&c);
        let names: Vec<&str> = blocks.iter().map(|(b, _)| b.as_str()).collect();
        assert_eq!(names, ["blk", "other"]);
        assert_eq!(
            blocks[0].1,
            vec![
                ("f".to_string(), vec!["p".to_string()]),
                ("g".to_string(), vec!["q".to_string(), "r".to_string()])
            ]
        );
    }
}
