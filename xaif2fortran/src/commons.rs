//! Common blocks with active members. A variable of `type(active)`
//! cannot live in a common block (the type has a default initialiser),
//! so such a block becomes a module, `oad_common_<name>`, declared from
//! the block's first occurrence; every unit that had the `common`
//! statement uses the module instead, renaming the members to its own
//! names (members correspond by position, as in storage association).

use std::collections::{HashMap, HashSet};

use crate::canon::{CanonItem, CanonSource};
use crate::decl::declaration;
use crate::error::{error_at, Result};
use crate::symbols::XaifIndex;

/// What the unparser must change for converted common blocks.
#[derive(Debug, Default)]
pub struct CommonPlan {
    /// Module definitions, placed before the first unit.
    pub modules: Vec<String>,
    /// `common` lines to drop.
    pub dropped_lines: HashSet<usize>,
    /// Member declarations to drop (unit tag, name): the module declares them.
    pub dropped_decls: HashSet<(String, String)>,
    /// `use` statements to add after a unit header.
    pub uses: HashMap<String, Vec<String>>,
}

/// One `common` statement of one unit.
struct Occurrence {
    unit: String,
    /// Its lines in the canonical source (0-based, inclusive).
    line: usize,
    last_line: usize,
    members: Vec<String>,
}

/// Finds the common blocks with an active member, and those in `also`
/// (passive blocks a joint-mode checkpoint must name where they are not
/// declared, `global_checkpoint.rs`), and plans their conversion to
/// modules.
pub fn plan(index: &XaifIndex, canon: &CanonSource, also: &HashSet<String>) -> Result<CommonPlan> {
    let mut blocks: Vec<(String, Vec<Occurrence>)> = Vec::new();
    let mut decl_lines: HashMap<(String, String), Vec<usize>> = HashMap::new();
    for item in &canon.items {
        if let CanonItem::Decl { unit, name, lines } = item {
            decl_lines.insert((unit.clone(), name.clone()), lines.clone());
        }
    }
    // The layout of every block, from `P.decl` (never from the Fortran of
    // the `common` statements).
    for c in canon.declarations.commons() {
        let occ = Occurrence {
            unit: c.unit.clone(),
            line: c.first_line - 1,
            last_line: c.last_line - 1,
            members: c.members.clone(),
        };
        match blocks.iter_mut().find(|(b, _)| *b == c.block) {
            Some((_, list)) => list.push(occ),
            None => blocks.push((c.block.clone(), vec![occ])),
        }
    }
    let mut plan = CommonPlan::default();
    for (block, occs) in blocks {
        let active = occs.iter().any(|o| {
            index
                .unit_scope(&o.unit)
                .is_some_and(|s| o.members.iter().any(|m| index.is_active(s, m)))
        });
        if !active && !also.contains(&block) {
            continue;
        }
        let module = format!("oad_common_{block}");
        let first = &occs[0];
        let mut text = format!("module {module}\n  use OAD_active\n  implicit none\n");
        // Named constants the member declarations need (array bounds,
        // kinds), copied from the first occurrence's unit.
        let mut constants: Vec<String> = Vec::new();
        for m in &first.members {
            if let Some(lines) = decl_lines.get(&(first.unit.clone(), m.clone())) {
                needed_constants(canon, &decl_lines, &first.unit, lines, &mut constants, 0);
            }
        }
        for c in &constants {
            if let Some(lines) = decl_lines.get(&(first.unit.clone(), c.clone())) {
                for &l in lines {
                    text.push_str(&format!("  {}\n", canon.lines[l].trim()));
                }
            }
        }
        text.push_str("  save\n");
        for m in &first.members {
            let Some(lines) = decl_lines.get(&(first.unit.clone(), m.clone())) else {
                return Err(error_at(
                    &canon.file,
                    first.line + 1,
                    1,
                    format!("member '{m}' of common block /{block}/ has no '!$oad decl' line"),
                ));
            };
            for l in declaration(index, canon, &first.unit, m, lines, None)? {
                text.push_str(&format!("  {}\n", l.trim()));
            }
        }
        text.push_str(&format!("end module {module}\n"));
        plan.modules.push(text);
        for o in &occs {
            if o.members.len() != first.members.len() {
                return Err(error_at(
                    &canon.file,
                    o.line + 1,
                    1,
                    format!(
                        "common block /{block}/ has {} members here and {} in its first occurrence (line {}); a common block turned into a module (active, or checkpointed where it is not declared) must have one layout",
                        o.members.len(),
                        first.members.len(),
                        first.line + 1
                    ),
                ));
            }
            plan.dropped_lines.extend(o.line..=o.last_line);
            let renames: Vec<String> = o
                .members
                .iter()
                .zip(&first.members)
                .map(|(local, canonical)| {
                    if local == canonical {
                        local.clone()
                    } else {
                        format!("{local} => {canonical}")
                    }
                })
                .collect();
            for m in &o.members {
                plan.dropped_decls.insert((o.unit.clone(), m.clone()));
            }
            plan.uses
                .entry(o.unit.clone())
                .or_default()
                .push(format!("use {module}, only: {}", renames.join(", ")));
        }
    }
    Ok(plan)
}

/// Names of `parameter` constants declared in `unit` that the declaration
/// on `lines` refers to, dependencies first, each once: the names the
/// copied text mentions, constants by what `P.decl` says of them.
fn needed_constants(
    canon: &CanonSource,
    decl_lines: &HashMap<(String, String), Vec<usize>>,
    unit: &str,
    lines: &[usize],
    out: &mut Vec<String>,
    depth: usize,
) {
    if depth > 50 {
        return;
    }
    let texts: Vec<&str> = lines.iter().map(|&l| canon.lines[l].as_str()).collect();
    let stmt = crate::canon::join_statement(&texts);
    for t in crate::fortran_text::tokenize(&stmt) {
        if t.kind != crate::fortran_text::TokKind::Ident {
            continue;
        }
        let name = stmt[t.start..t.end].to_ascii_lowercase();
        if out.contains(&name) {
            continue;
        }
        let Some(dl) = decl_lines.get(&(unit.to_string(), name.clone())) else {
            continue;
        };
        if std::ptr::eq(dl.as_slice(), lines) {
            continue;
        }
        if canon.attributes(unit, &name).is_some_and(|a| a.parameter) {
            needed_constants(canon, decl_lines, unit, dl, out, depth + 1);
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
}
