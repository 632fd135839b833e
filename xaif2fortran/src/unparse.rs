//! Puts the differentiated program together: the canonical source copied
//! unit by unit, `use OAD_active` after each unit header, active
//! declarations rewritten, booster temporaries declared, and each
//! executable part regenerated from its control flow graph (or, in the
//! adjoint modes, from the unit's replacement list through a template).

use std::collections::HashMap;
use std::path::Path;

use xaif_schema::{CallGraph, CallGraphVertex, SymbolKind};

use crate::active_layout::ActiveLayout;
use crate::canon::{join_statement, CanonItem, CanonSource};
use crate::codegen::UnitGen;
use crate::decl::{declaration, rewrite_active_decl, temp_declaration};
use crate::error::{error_at, Result, XaifLocator};
use crate::expr::Env;
use crate::fortran_text::add_value_suffix_with;
use crate::inline::InlineDefs;
use crate::line_origins::from_canon;
use crate::symbols::XaifIndex;
use crate::template::{
    Section, Template, TemplateLine, DEFAULT_JOINT, DEFAULT_JOINT_LEAF, DEFAULT_JOINT_LOOP_FREE,
    DEFAULT_SPLIT,
};
use crate::Mode;

/// The text of the differentiated program and the origin of its lines.
pub fn unparse_program(
    cg: &CallGraph,
    xaif: &XaifLocator,
    canon: &CanonSource,
    mode: Mode,
    template: Option<&Template>,
    layout: ActiveLayout,
) -> Result<(String, xaif_schema::line_map::LineMap)> {
    let index = XaifIndex::new(cg, xaif)?;
    let uses_mpi = canon.uses_mpi();
    let mut referenced: Vec<&str> = index.units().tags().collect();
    referenced.sort_unstable();
    referenced.dedup();
    for tag in referenced {
        if !canon.units.iter().any(|u| u == tag) {
            return Err(xaif.error(
                &format!("unit:{tag}"),
                format!(
                    "XAIF refers to unit '{tag}', which is not in {}",
                    canon.file
                ),
            ));
        }
    }
    let template_given = template.is_some();
    let default_template;
    let template = match (mode, template) {
        (Mode::AdjointSplit | Mode::AdjointJoint, Some(t)) => Some(t),
        (Mode::AdjointSplit, None) => {
            default_template = Template::parse("split.f90", DEFAULT_SPLIT)?;
            Some(&default_template)
        }
        (Mode::AdjointJoint, None) => {
            default_template = Template::parse("joint.f90", DEFAULT_JOINT)?;
            Some(&default_template)
        }
        _ => None,
    };
    // Templates a subroutine asks for by name (`template_name`), looked up
    // next to the canonical source, then in the working directory.
    let mut named_templates: HashMap<String, Template> = HashMap::new();
    if template.is_some() {
        for v in &cg.vertices {
            if let CallGraphVertex::ReplacementList(rl) = v {
                let name = rl.template_name.trim();
                let Some(tag) = crate::symbols::unit_tag(&rl.annotation) else {
                    continue;
                };
                if name.is_empty() || name == "template" {
                    continue;
                }
                named_templates.insert(tag.to_string(), load_named_template(name, canon, xaif)?);
            }
        }
    }
    // Joint mode with the built-in templates: leaves of the call tree get
    // the leaf template (taped in their caller's sweeps, not re-run).
    let (leaf_template, loop_free_template) = match (mode, template_given) {
        (Mode::AdjointJoint, false) => (
            Some(Template::parse("joint_leaf.f90", DEFAULT_JOINT_LEAF)?),
            Some(Template::parse(
                "joint_loop_free.f90",
                DEFAULT_JOINT_LOOP_FREE,
            )?),
        ),
        _ => (None, None),
    };
    let called = called_symbols(cg);
    let (mut leaves, mut leaf_symbols, callers) = match leaf_template {
        Some(_) => leaf_units(cg, Some(&index)),
        None => Default::default(),
    };
    // A unit that names its own template keeps it (and may be re-run).
    for v in &cg.vertices {
        if let CallGraphVertex::ReplacementList(rl) = v {
            if let Some(tag) = crate::symbols::unit_tag(&rl.annotation) {
                if named_templates.contains_key(tag) {
                    leaves.remove(tag);
                    leaf_symbols.remove(rl.symbol_id.as_str());
                }
            }
        }
    }
    let template_of = |tag: &str| {
        named_templates.get(tag).or_else(|| {
            if leaves.contains(tag) && callers.contains(tag) {
                loop_free_template.as_ref()
            } else if leaves.contains(tag) {
                leaf_template.as_ref()
            } else {
                template
            }
        })
    };
    let mut env = Env::new(&index, xaif, mode);
    let leaf_pairs: Vec<(String, String)> = cg
        .vertices
        .iter()
        .filter_map(|v| match v {
            CallGraphVertex::ReplacementList(rl)
                if leaf_symbols.contains(rl.symbol_id.as_str()) =>
            {
                crate::symbols::unit_tag(&rl.annotation)
                    .map(|t| (t.to_string(), rl.symbol_id.to_string()))
            }
            _ => None,
        })
        .collect();
    env.plain_clones = match (mode, template_given) {
        // Joint mode: plain copies, and sweep copies of the leaves, which
        // are taped in their caller's forward sweep and adjoined in its
        // reverse sweep like split mode's (`plain_clones.rs`).
        (Mode::AdjointJoint, false) => crate::plain_clones::plan(
            canon,
            &leaf_pairs,
            &[Section::Plain, Section::Tape, Section::Adjoint],
        ),
        // Split mode: sweep copies of the loop-free units that keep the
        // default split template (`plain_clones.rs`).
        (Mode::AdjointSplit, false) => {
            let (_, split_leaves, _) = leaf_units(cg, None);
            let pairs: Vec<(String, String)> = cg
                .vertices
                .iter()
                .filter_map(|v| match v {
                    CallGraphVertex::ReplacementList(rl)
                        if split_leaves.contains(rl.symbol_id.as_str()) =>
                    {
                        crate::symbols::unit_tag(&rl.annotation)
                            .filter(|t| !named_templates.contains_key(*t))
                            .map(|t| (t.to_string(), rl.symbol_id.to_string()))
                    }
                    _ => None,
                })
                .collect();
            crate::plain_clones::plan(canon, &pairs, &[Section::Tape, Section::Adjoint])
        }
        _ => Default::default(),
    };
    env.not_rerun = leaf_symbols;
    let mut local_names = crate::uses::local_names(&index, canon);
    // Indentation level of each unit's statements (nested units deeper).
    let mut unit_level: HashMap<String, usize> = HashMap::new();
    let inline = InlineDefs::builtin();
    // Globals the joint template's argument checkpoints cover. The root of
    // the call tree (called by no unit, only by the user's driver) never
    // stores or restores a checkpoint: nothing re-runs it.
    let checkpointing: std::collections::HashSet<String> = canon
        .units
        .iter()
        .filter(|u| {
            index
                .replacements_of_unit(u)
                .is_some_and(|rl| called.contains(rl.symbol_id.as_str()))
        })
        .filter(|u| template_of(u).is_some_and(Template::has_checkpoints))
        .cloned()
        .collect();
    let global_ckpt =
        crate::global_checkpoint::plan(&index, canon, &local_names, &checkpointing, xaif)?;
    // Names for the module and common variables checkpointed loops store.
    let state_names = crate::state_names::plan(cg, &index, canon, &mut local_names, xaif)?;
    let convert_blocks: std::collections::HashSet<String> = global_ckpt
        .convert_blocks
        .union(&state_names.convert_blocks)
        .cloned()
        .collect();
    let commons = crate::commons::plan(&index, canon, &convert_blocks)?;
    let interfaces = crate::interfaces::interface_activity(&index, canon);
    let mut out: Vec<String> = Vec::new();
    let mut modules_placed = commons.modules.is_empty();
    // Where in `out` the current unit's header starts, and a plain copy
    // waiting for the unit's `end` line (`plain_clones.rs`).
    let mut header_at = 0;
    let mut pending_clone: Option<Vec<(Vec<String>, usize, String)>> = None;
    // The units the split layout rewrites (`split_interface.rs`), once the
    // whole program is there.
    let split_on = layout != ActiveLayout::Aos && mode != Mode::VectorTangent;
    let mut layout_units: Vec<crate::split_interface::UnitText> = Vec::new();
    for item in &canon.items {
        match item {
            CanonItem::Line(i) if commons.dropped_lines.contains(i) => {}
            CanonItem::Line(i) => {
                out.push(from_canon(canon.lines[*i].clone(), *i));
                let ends_unit = canon.lines[*i]
                    .trim_start()
                    .to_ascii_lowercase()
                    .starts_with("end");
                if ends_unit {
                    for (clone, body_at, unit) in pending_clone.take().unwrap_or_default() {
                        let start = out.len();
                        out.extend(clone);
                        if split_on {
                            layout_units.push(layout_unit(
                                canon,
                                &unit,
                                start,
                                start + body_at,
                                out.len(),
                            ));
                        }
                    }
                }
            }
            CanonItem::UnitHeader { tag, lines } => {
                header_at = out.len();
                // Modules replacing common blocks go before the first unit.
                if !modules_placed {
                    for m in &commons.modules {
                        out.extend(m.lines().map(str::to_string));
                    }
                    modules_placed = true;
                }
                out.extend(lines.iter().map(|&i| from_canon(canon.lines[i].clone(), i)));
                let header = &canon.lines[lines[0]];
                let header_indent = header.len() - header.trim_start().len();
                unit_level.insert(tag.clone(), header_indent / 2 + 1);
                let pad = " ".repeat(header_indent + 2);
                out.push(format!("{pad}use OAD_active"));
                if uses_mpi {
                    out.push(format!("{pad}use OAD_mpi"));
                }
                if let Some(uses) = commons.uses.get(tag) {
                    out.extend(uses.iter().map(|u| format!("{pad}{u}")));
                }
                if let Some(uses) = global_ckpt.uses.get(tag) {
                    out.extend(uses.iter().map(|u| format!("{pad}{u}")));
                }
                if let Some(uses) = state_names.uses.get(tag) {
                    out.extend(uses.iter().map(|u| format!("{pad}{u}")));
                }
                if let Some(t) =
                    template_of(tag).filter(|_| index.replacements_of_unit(tag).is_some())
                {
                    // Inlined push/pop need OAD_tape whatever the template uses.
                    let mut uses = vec!["use OAD_tape".to_string(), "use OAD_rev".to_string()];
                    // Pointer association stacks (`pointers.rs`).
                    if matches!(mode, Mode::AdjointSplit | Mode::AdjointJoint) {
                        uses.push("use OAD_ptr".to_string());
                    }
                    // Checkpointed loops: their state type and actions.
                    let checkpoints_loops = index.unit_scope(tag).is_some_and(|s| {
                        index
                            .symbols_of(s)
                            .iter()
                            .any(|sym| sym.temp && sym.fe_type == crate::decl::SNAPSHOT_LOOP_TYPE)
                    });
                    if checkpoints_loops {
                        uses.push("use OAD_snapshots".to_string());
                    }
                    for u in &t.uses {
                        if !uses.iter().any(|k| k.eq_ignore_ascii_case(u)) {
                            uses.push(u.clone());
                        }
                    }
                    out.extend(uses.iter().map(|u| format!("{pad}{u}")));
                }
            }
            CanonItem::Decl { unit, name, .. }
                if commons
                    .dropped_decls
                    .contains(&(unit.clone(), name.clone())) => {}
            CanonItem::Component {
                type_name,
                name,
                lines,
            } => {
                let texts: Vec<&str> = lines.iter().map(|&i| canon.lines[i].as_str()).collect();
                let first = texts[0];
                let indent = first.len() - first.trim_start().len();
                if index.is_active_component(type_name, name) {
                    let joined = join_statement(&texts);
                    match rewrite_active_decl(&joined, name) {
                        Ok(d) => out.push(format!("{}{d}", " ".repeat(indent))),
                        Err(e) => {
                            return Err(error_at(&canon.file, lines[0] + 1, indent + 1, e.message)
                                .with_kind(e.kind))
                        }
                    }
                } else {
                    out.extend(texts.iter().map(|t| t.to_string()));
                }
            }
            CanonItem::Decl { unit, name, lines } => {
                let interface = interfaces.get(&(unit.clone(), name.clone())).copied();
                out.extend(declaration(&index, canon, unit, name, lines, interface)?);
            }
            CanonItem::Body { unit, lines, .. } => {
                let scope = index.unit_scope(unit);
                *env.local_names.borrow_mut() = local_names.get(unit).cloned().unwrap_or_default();
                match (
                    scope,
                    template_of(unit),
                    index.replacements_of_unit(unit),
                    index.cfg_of_unit(unit),
                ) {
                    (Some(scope), Some(t), Some(rl), _) => {
                        let mut gen = UnitGen::new(&env, canon, &inline, unit, scope);
                        // A `return` would skip the template's epilogue.
                        gen.allow_return = false;
                        gen.sections_apart |= leaves.contains(unit.as_str());
                        gen.call_tree_root = !called.contains(rl.symbol_id.as_str());
                        let mut body = Vec::new();
                        for tl in &t.body {
                            match tl {
                                TemplateLine::Text(s) => body.push(s.clone()),
                                TemplateLine::Placeholder { id, .. }
                                    if (id == "arg_store" || id == "arg_restore")
                                        && gen.call_tree_root => {}
                                TemplateLine::Placeholder { id, indent }
                                    if id == "arg_store" || id == "arg_restore" =>
                                {
                                    gen.indent = *indent;
                                    let args = rl.argument_list.as_deref().unwrap_or(&[]);
                                    let globals = global_ckpt
                                        .saved
                                        .get(unit)
                                        .map(Vec::as_slice)
                                        .unwrap_or(&[]);
                                    // The booster's element checkpoints
                                    // (arguments it marked) go first on
                                    // the stacks, so they come back last.
                                    let elements =
                                        rl.replacements.iter().find(|r| r.placeholder.trim() == id);
                                    let what = format!("placeholder=\"{id}\"");
                                    if let (Some(r), true) = (elements, id == "arg_store") {
                                        gen.section_code(Section::Other, r, &what)?;
                                    }
                                    gen.argument_checkpoints(
                                        args,
                                        globals,
                                        rl.controlflowgraph_scope_id,
                                        id == "arg_store",
                                    )?;
                                    if let (Some(r), false) = (elements, id == "arg_store") {
                                        gen.section_code(Section::Other, r, &what)?;
                                    }
                                    body.append(&mut gen.lines);
                                }
                                TemplateLine::Placeholder { id, indent } => {
                                    let Some(r) =
                                        rl.replacements.iter().find(|r| r.placeholder.trim() == id)
                                    else {
                                        continue;
                                    };
                                    gen.indent = *indent;
                                    let what = format!("placeholder=\"{}\"", r.placeholder);
                                    let section = Section::of_placeholder(id);
                                    gen.section_code(section, r, &what)?;
                                    body.append(&mut gen.lines);
                                }
                            }
                        }
                        let clone = match env.plain_clones.get(rl.symbol_id.as_str()) {
                            Some(c) => {
                                let mut lines = Vec::new();
                                for (section, name) in &c.copies {
                                    lines.push(plain_clone(
                                        &env,
                                        canon,
                                        &inline,
                                        unit,
                                        scope,
                                        rl,
                                        &out[header_at..],
                                        temporaries(&index, canon, unit, scope, xaif, "  ")?,
                                        *section,
                                        name,
                                    )?);
                                }
                                Some(lines)
                            }
                            None => None,
                        };
                        out.extend(temporaries(&index, canon, unit, scope, xaif, "  ")?);
                        out.extend(gen.extra_decls.iter().map(|d| format!("  {d}")));
                        let body_at = out.len();
                        out.extend(body);
                        // A template of the user's may declare in its body.
                        if !named_templates.contains_key(unit.as_str())
                            && !template_given
                            && split_on
                        {
                            layout_units.push(layout_unit(
                                canon,
                                unit,
                                header_at,
                                body_at,
                                out.len(),
                            ));
                        }
                        if clone.is_some() {
                            pending_clone = clone;
                        }
                    }
                    (Some(scope), _, _, Some(cfg)) => {
                        let mut gen = UnitGen::new(&env, canon, &inline, unit, scope);
                        let level = unit_level.get(unit).copied().unwrap_or(1);
                        gen.indent = level;
                        let pad = "  ".repeat(level);
                        let what = format!("unit:{unit}");
                        gen.control_flow(&cfg.vertices, &cfg.edges, cfg.structured, &what)?;
                        out.extend(temporaries(&index, canon, unit, scope, xaif, &pad)?);
                        out.extend(gen.extra_decls.iter().map(|d| format!("{pad}{d}")));
                        let body_at = out.len();
                        out.append(&mut gen.lines);
                        if split_on {
                            layout_units.push(layout_unit(
                                canon,
                                unit,
                                header_at,
                                body_at,
                                out.len(),
                            ));
                        }
                    }
                    // No XAIF for this unit: its statements as they are, with
                    // %v on active variables it can see.
                    (scope, _, _, _) => {
                        for &i in lines {
                            let l = &canon.lines[i];
                            if l.trim_start().to_ascii_lowercase().starts_with("!$oad") {
                                continue;
                            }
                            let copy = match scope {
                                Some(s) => {
                                    add_value_suffix_with(l, &|n| index.is_active(s, n), &|chain| {
                                        index.is_active_chain(s, chain)
                                    })
                                }
                                None => l.clone(),
                            };
                            out.push(from_canon(copy, i));
                        }
                    }
                }
            }
        }
    }
    let split_dummies = layout == ActiveLayout::Split;
    crate::split_interface::apply(&mut out, &layout_units, split_dummies);
    // Private module variables outside routines checkpoint: the module's
    // own store and restore routines (`module_access.rs`).
    let module_names = crate::global_checkpoint::module_names(&index, canon);
    for (module_unit, vars) in &global_ckpt.module_access {
        *env.local_names.borrow_mut() = local_names.get(module_unit).cloned().unwrap_or_default();
        let (routines, public) =
            crate::module_access::routines(&env, canon, &inline, module_unit, vars)?;
        let module = vars
            .first()
            .and_then(|(scope, _)| module_names.get(scope))
            .cloned()
            .unwrap_or_default();
        if !crate::module_access::insert(&mut out, &module, routines, &public) {
            return Err(xaif
                .error(
                    &format!("annotation=\"unit:{module_unit}\""),
                    format!("internal error: the checkpoint routines of module '{module}' have no place in its generated text"),
                )
                .with_kind(crate::error::Kind::Internal));
        }
    }
    Ok(crate::line_origins::assemble(out))
}

/// Declarations of booster temporaries of a unit that the canonical
/// source does not declare.
fn temporaries(
    index: &XaifIndex,
    canon: &CanonSource,
    unit: &str,
    scope: u64,
    xaif: &XaifLocator,
    pad: &str,
) -> Result<Vec<String>> {
    let declared = canon.declared.get(unit);
    let mut temps: Vec<_> = index
        .symbols_of(scope)
        .into_iter()
        .filter(|s| s.temp && s.kind == SymbolKind::Variable)
        .filter(|s| {
            !declared.is_some_and(|d| d.contains(&s.symbol_id.as_str().to_ascii_lowercase()))
        })
        .collect();
    temps.sort_by(|a, b| a.symbol_id.cmp(&b.symbol_id));
    temps
        .into_iter()
        .map(|s| {
            temp_declaration(s)
                .map(|d| format!("{pad}{d}"))
                .map_err(|e| {
                    xaif.error(&format!("symbol_id=\"{}\"", s.symbol_id), e.message)
                        .with_kind(e.kind)
                })
        })
        .collect()
}

/// A template named by a replacement list: the file `name` (or
/// `name.f90`) next to the canonical source or in the working directory.
fn load_named_template(name: &str, canon: &CanonSource, xaif: &XaifLocator) -> Result<Template> {
    let dir = Path::new(&canon.file).parent().unwrap_or(Path::new(""));
    let candidates = [
        dir.join(name),
        dir.join(format!("{name}.f90")),
        Path::new(name).to_path_buf(),
        Path::new(&format!("{name}.f90")).to_path_buf(),
    ];
    for c in &candidates {
        if let Ok(text) = std::fs::read_to_string(c) {
            return Template::parse(&c.display().to_string(), &text);
        }
    }
    Err(xaif.error(
        &format!("template_name=\"{name}\""),
        format!(
            "template '{name}' not found next to {} nor in the working directory",
            canon.file
        ),
    ))
}

/// Tags and symbols of the units whose call tree has no loop: no loop
/// vertex (and structured control flow) in the unit, and only such units
/// among the routines with an adjoint it calls (recursion excluded). They
/// get the joint leaf template, or the loop-free one (third set: tags of
/// those that call routines with an adjoint). With `taped_index` (joint
/// mode), a unit with loops that calls no routine with an adjoint counts
/// as loop-free when its tape per call is bounded by its checkpoint
/// (`taped_in_caller.rs`).
fn leaf_units(
    cg: &CallGraph,
    taped_index: Option<&XaifIndex>,
) -> (
    std::collections::HashSet<String>,
    std::collections::HashSet<String>,
    std::collections::HashSet<String>,
) {
    use std::collections::{HashMap, HashSet};
    use xaif_schema::ControlFlowVertex;
    let lists: Vec<&xaif_schema::ReplacementList> = cg
        .vertices
        .iter()
        .filter_map(|v| match v {
            CallGraphVertex::ReplacementList(rl) => Some(rl),
            _ => None,
        })
        .collect();
    let with_adjoint: HashSet<&str> = lists.iter().map(|rl| rl.symbol_id.as_str()).collect();
    // Per unit: whether its own code is loop-free, and its callees.
    let mut callees: HashMap<&str, HashSet<&str>> = HashMap::new();
    let mut candidates: HashSet<&str> = HashSet::new();
    for rl in &lists {
        let Some(plain) = rl.replacements.iter().find(|r| r.placeholder.trim() == "1") else {
            continue;
        };
        let looping = !plain.structured
            || plain.vertices.iter().any(|v| {
                matches!(
                    v,
                    ControlFlowVertex::ForLoop(_)
                        | ControlFlowVertex::PreLoop(_)
                        | ControlFlowVertex::PostLoop(_)
                        | ControlFlowVertex::Goto(_)
                )
            });
        let called: HashSet<&str> = subroutines_called(&plain.vertices)
            .filter(|s| with_adjoint.contains(s))
            .collect();
        let taped = || {
            called.is_empty()
                && taped_index
                    .is_some_and(|ix| crate::taped_in_caller::tape_within_checkpoint(rl, ix))
        };
        if (!looping || taped()) && !called.contains(rl.symbol_id.as_str()) {
            candidates.insert(rl.symbol_id.as_str());
        }
        callees.insert(rl.symbol_id.as_str(), called);
    }
    // Drop units calling a non-candidate until nothing changes (mutual
    // recursion never becomes loop-free: each waits for the other).
    let mut changed = true;
    while changed {
        changed = false;
        let dropped: Vec<&str> = candidates
            .iter()
            .filter(|s| {
                callees[*s]
                    .iter()
                    .any(|c| !candidates.contains(c) || c == *s)
            })
            .copied()
            .collect();
        for s in dropped {
            changed |= candidates.remove(s);
        }
    }
    // Mutual recursion among loop-free units: a cycle in which every unit
    // calls only candidates survives the loop above; remove cycles.
    let state: HashMap<&str, u8> = HashMap::new();
    fn on_cycle<'a>(
        s: &'a str,
        callees: &HashMap<&'a str, HashSet<&'a str>>,
        state: &mut HashMap<&'a str, u8>,
    ) -> bool {
        match state.get(s) {
            Some(1) => return true,
            Some(2) => return false,
            _ => {}
        }
        state.insert(s, 1);
        let cyclic = callees
            .get(s)
            .is_some_and(|cs| cs.iter().any(|c| on_cycle(c, callees, state)));
        state.insert(s, 2);
        cyclic
    }
    let cyclic: Vec<&str> = candidates
        .iter()
        .filter(|s| on_cycle(s, &callees, &mut state.clone()))
        .copied()
        .collect();
    for s in cyclic {
        candidates.remove(s);
    }
    let mut leaves = HashSet::new();
    let mut symbols = HashSet::new();
    let mut callers = HashSet::new();
    for rl in &lists {
        if !candidates.contains(rl.symbol_id.as_str()) {
            continue;
        }
        if let Some(tag) = crate::symbols::unit_tag(&rl.annotation) {
            leaves.insert(tag.to_string());
            symbols.insert(rl.symbol_id.to_string());
            if callees
                .get(rl.symbol_id.as_str())
                .is_some_and(|c| !c.is_empty())
            {
                callers.insert(tag.to_string());
            }
        }
    }
    (leaves, symbols, callers)
}

/// The symbols of every routine some unit of the program calls (the
/// canonicaliser turns function references into subroutine calls).
fn called_symbols(cg: &CallGraph) -> std::collections::HashSet<String> {
    let mut called = std::collections::HashSet::new();
    for v in &cg.vertices {
        match v {
            CallGraphVertex::ReplacementList(rl) => {
                for r in &rl.replacements {
                    called.extend(subroutines_called(&r.vertices).map(str::to_string));
                }
            }
            CallGraphVertex::ControlFlowGraph(c) => {
                called.extend(subroutines_called(&c.vertices).map(str::to_string));
            }
        }
    }
    called
}

/// The symbols of the subroutines the basic blocks of a graph call.
fn subroutines_called(vertices: &[xaif_schema::ControlFlowVertex]) -> impl Iterator<Item = &str> {
    use xaif_schema::{BasicBlockElement, ControlFlowVertex};
    vertices
        .iter()
        .filter_map(|v| match v {
            ControlFlowVertex::BasicBlock(b) => Some(b.elements.iter()),
            _ => None,
        })
        .flatten()
        .filter_map(|e| match e {
            BasicBlockElement::SubroutineCall(c) => c.symbol_id.as_deref(),
            _ => None,
        })
}

/// Number of lines of a unit's header in the canonical source.
fn header_lines(canon: &CanonSource, unit: &str) -> usize {
    canon
        .items
        .iter()
        .find_map(|i| match i {
            CanonItem::UnitHeader { tag, lines } if tag == unit => Some(lines.len()),
            _ => None,
        })
        .unwrap_or(1)
}

/// A copy of a loop-free module procedure (`plain_clones.rs`): its
/// header renamed, its use lines and declarations as emitted for the
/// unit (`emitted`, from the header on), the booster temporaries'
/// declarations `temps`, the code of one template section (the original
/// computation, the tape or the adjoint section), and an `end`.
#[allow(clippy::too_many_arguments)]
fn plain_clone(
    env: &Env,
    canon: &CanonSource,
    inline: &InlineDefs,
    unit: &str,
    scope: u64,
    rl: &xaif_schema::ReplacementList,
    emitted: &[String],
    temps: Vec<String>,
    section: Section,
    clone: &str,
) -> Result<(Vec<String>, usize, String)> {
    let id = crate::plain_clones::placeholder_of(section);
    let Some(code) = rl.replacements.iter().find(|r| r.placeholder.trim() == id) else {
        return Err(env.xaif.error(
            "ReplacementList",
            format!("unit '{unit}' has no placeholder {id}"),
        ));
    };
    let name = rl.symbol_id.as_str().to_ascii_lowercase();
    let n = header_lines(canon, unit).min(emitted.len());
    let mut lines = crate::plain_clones::renamed_header(&emitted[..n], &name, clone);
    let header_indent = lines[0].len() - lines[0].trim_start().len();
    let mut gen = UnitGen::new(env, canon, inline, unit, scope);
    gen.indent = header_indent / 2 + 1;
    gen.keeps_storage = false;
    gen.section_code(section, code, &format!("unit:{unit} (copy {clone})"))?;
    let pad = " ".repeat(header_indent + 2);
    let mut rest: Vec<String> = emitted[n..].to_vec();
    rest.extend(temps);
    rest.extend(gen.extra_decls.iter().map(|d| format!("{pad}{d}")));
    let body_at = lines.len() + rest.len();
    rest.append(&mut gen.lines);
    lines.extend(rest);
    lines.push(format!(
        "{}end subroutine {clone}",
        " ".repeat(header_indent)
    ));
    Ok((lines, body_at, unit.to_string()))
}

/// A unit whose generated text `out[start..end]` (executable part from
/// `body_at`) the split layout rewrites (`active_layout.rs`,
/// `split_interface.rs`).
fn layout_unit(
    canon: &CanonSource,
    unit: &str,
    start: usize,
    body_at: usize,
    end: usize,
) -> crate::split_interface::UnitText {
    let has_internal = canon
        .unit_parent
        .values()
        .any(|p| p.as_deref() == Some(unit));
    crate::split_interface::UnitText {
        start,
        body_at,
        end,
        header_len: header_lines(canon, unit).min(end - start),
        has_internal,
    }
}
