//! Private module variables in joint-mode checkpoints.
//!
//! The joint reverse sweep re-runs a routine from a checkpoint that must
//! hold every global its call tree reads (`global_checkpoint.rs`). A
//! routine outside a module cannot name the module's private variables,
//! which encapsulated models keep their state in (`private` by default,
//! accessors public). So the module itself gets two public routines per
//! such variable, `oad_cps_NAME` and `oad_cpr_NAME`, holding the store and
//! the restore code the outside routine would have emitted; the outside
//! routine `use`s them under fresh names and calls them where the entry
//! would have been, so the stacks keep their order.

use std::collections::BTreeSet;

use crate::canon::CanonSource;
use crate::codegen::UnitGen;
use crate::error::Result;
use crate::expr::Env;
use crate::fortran_text::code_part;
use crate::global_checkpoint::{access_routine, SavedGlobal};
use crate::inline::InlineDefs;

/// The store and restore routines of module `module_unit` (XAIF scope
/// `scope`) for its variables `vars`, and the names to make public.
pub fn routines(
    env: &Env,
    canon: &CanonSource,
    inline: &InlineDefs,
    module_unit: &str,
    vars: &BTreeSet<(u64, String)>,
) -> Result<(Vec<String>, Vec<String>)> {
    let mut lines = Vec::new();
    let mut public = Vec::new();
    for (scope, name) in vars {
        let global = SavedGlobal {
            local: name.clone(),
            scope: *scope,
            name: name.clone(),
            decl_unit: module_unit.to_string(),
            through: None,
        };
        for store in [true, false] {
            let routine = access_routine(name, store);
            let mut gen = UnitGen::new(env, canon, inline, module_unit, *scope);
            gen.indent = 2;
            gen.module_access_body(&global, store)?;
            lines.push(format!("  subroutine {routine}()"));
            for u in ["OAD_tape", "OAD_rev", "OAD_ptr"] {
                lines.push(format!("    use {u}"));
            }
            lines.extend(gen.extra_decls.iter().map(|d| format!("    {d}")));
            lines.append(&mut gen.lines);
            lines.push(format!("  end subroutine {routine}"));
            public.push(routine);
        }
    }
    Ok((lines, public))
}

/// Puts `routines` at the end of module `module`'s `contains` part (adding
/// one if it has none) and declares `public` names in its specification
/// part. `false` if the module's text was not found.
pub fn insert(
    program: &mut Vec<String>,
    module: &str,
    routines: Vec<String>,
    public: &[String],
) -> bool {
    let words = |l: &str| -> Vec<String> {
        code_part(crate::line_origins::split(l).0)
            .to_ascii_lowercase()
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let Some(header) = program.iter().position(|l| {
        let w = words(l);
        w.len() == 2 && w[0] == "module" && w[1] == module
    }) else {
        return false;
    };
    let Some(end) = (header + 1..program.len()).find(|&i| {
        let w = words(&program[i]);
        (w.len() >= 2 && w[0] == "end" && w[1] == "module")
            || (w.len() >= 2 && w[0] == "endmodule")
            || (w.len() == 1 && w[0] == "endmodule")
    }) else {
        return false;
    };
    // The module's own `contains` (not one of a type definition).
    let mut in_type = false;
    let mut contains = None;
    for (i, line) in program.iter().enumerate().take(end).skip(header + 1) {
        let w = words(line);
        let code = code_part(crate::line_origins::split(line).0)
            .trim_start()
            .to_ascii_lowercase();
        // `type :: t`, `type, public :: t`, `type t`; not `type(t) :: x`.
        let defines_type = code.strip_prefix("type").is_some_and(|rest| {
            !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                && !rest.trim_start().starts_with('(')
        });
        match w.first().map(String::as_str) {
            Some("type") if defines_type => in_type = true,
            Some("end") if w.get(1).is_some_and(|n| n == "type") => in_type = false,
            Some("endtype") => in_type = false,
            Some("contains") if !in_type && w.len() == 1 => {
                contains = Some(i);
                break;
            }
            _ => {}
        }
    }
    let public_line = format!("  public :: {}", public.join(", "));
    let mut tail = routines;
    if contains.is_none() {
        tail.insert(0, "contains".to_string());
    }
    program.splice(end..end, tail);
    let spec_end = contains.unwrap_or(end);
    program.insert(spec_end, public_line);
    true
}
