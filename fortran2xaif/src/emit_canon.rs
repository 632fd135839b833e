//! The canonical source: free-form Fortran the back end rebuilds from, with
//! the `!$oad` tag lines of docs/ARCHITECTURE.md. Declarations are one
//! entity per statement, user functions are subroutines, the executable
//! part is the canonical statement list the XAIF describes.

use crate::ast::*;
use crate::sema::{Binding, Program, Symbol, UnitInfo};
use crate::unparse::{self, args_text, dims, type_spec};
use std::fmt::Write;
use xaif_schema::declarations::UseStatement;

/// Ends the line of an assignment or call while it is emitted: followed by
/// the statement's id, it lets [`emit`] find which lines each statement
/// ended up on after long lines are wrapped. Never in the output.
const STATEMENT_MARK: char = '\u{1f}';

/// Ends the line of a `common` statement while it is emitted: followed by
/// the unit's index, it lets [`emit`] say which lines each `common`
/// statement ended up on (`P.decl`). Never in the output.
const COMMON_MARK: char = '\u{1e}';

/// The canonical source of the whole program.
pub fn emit(prog: &Program) -> String {
    emit_with_lines(prog).text
}

/// The canonical source and where some of its statements are.
pub struct CanonText {
    pub text: String,
    /// For each assignment and call: the statement id and the 1-based
    /// first and last line it occupies.
    pub statement_lines: Vec<(usize, usize, usize)>,
    /// For each `common` statement, in file order: the unit's index and
    /// the 1-based first and last line. The k-th of a unit writes the
    /// k-th block of [`common_statements`].
    pub common_lines: Vec<(usize, usize, usize)>,
}

/// The canonical source and, for each assignment and call it writes, the
/// statement id and the 1-based first and last line it occupies.
pub fn emit_with_statement_lines(prog: &Program) -> (String, Vec<(usize, usize, usize)>) {
    let c = emit_with_lines(prog);
    (c.text, c.statement_lines)
}

/// The canonical source with the lines of its statements.
pub fn emit_with_lines(prog: &Program) -> CanonText {
    let mut out = String::new();
    for (i, u) in prog.units.iter().enumerate() {
        if u.parent.is_none() && u.interface_of.is_none() {
            // Interface blocks go to modules of their own, before the unit:
            // tagged units nest only through `contains`.
            let mut subtree = vec![i];
            let mut k = 0;
            while k < subtree.len() {
                subtree.extend(prog.units[subtree[k]].contained.iter().copied());
                k += 1;
            }
            for &j in &subtree {
                emit_interface_module(prog, j, &mut out);
            }
            emit_unit(prog, i, 0, &mut out);
            out.push('\n');
        }
    }
    let mut text = String::with_capacity(out.len());
    let mut statements = Vec::new();
    let mut commons = Vec::new();
    let mut line_no = 0;
    for line in out.lines() {
        let (line, common_unit) = match line.split_once(COMMON_MARK) {
            Some((l, unit)) => (l, unit.parse::<usize>().ok()),
            None => (line, None),
        };
        let (line, id) = match line.split_once(STATEMENT_MARK) {
            Some((l, id)) => (l, id.parse::<usize>().ok()),
            None => (line, None),
        };
        let wrapped = match line {
            "" => "\n".to_string(),
            _ => wrap_long_lines(line),
        };
        let first = line_no + 1;
        line_no += wrapped.lines().count();
        if let Some(id) = id {
            statements.push((id, first, line_no));
        }
        if let Some(unit) = common_unit {
            commons.push((unit, first, line_no));
        }
        text.push_str(&wrapped);
    }
    CanonText {
        text,
        statement_lines: statements,
        common_lines: commons,
    }
}

/// The module holding the interface blocks of unit `i`.
pub fn interface_module_name(prog: &Program, i: usize) -> String {
    format!("oad_if_{}", prog.units[i].tag.replace('.', "_"))
}

fn emit_interface_module(prog: &Program, i: usize, out: &mut String) {
    let bodies = prog.interfaces_of(i);
    if bodies.is_empty() {
        return;
    }
    let name = interface_module_name(prog, i);
    let generic = prog.units[i].ast.spec.iter().find_map(|s| match s {
        SpecStmt::Interface {
            generic, bodies, ..
        } if !bodies.is_empty() => Some(generic.clone()),
        _ => None,
    });
    let _ = writeln!(out, "!$oad unit {name}");
    let _ = writeln!(out, "module {name}");
    let _ = match generic.flatten() {
        Some(g) => writeln!(out, "  interface {g}"),
        None => writeln!(out, "  interface"),
    };
    for b in bodies {
        emit_unit(prog, b, 2, out);
    }
    let _ = writeln!(out, "  end interface");
    let _ = writeln!(out, "end module {name}\n");
}

/// Free-form lines may hold 132 characters: longer statements are split
/// after a comma or blank outside character literals, with `&`.
pub fn wrap_long_lines(text: &str) -> String {
    const MAX: usize = 100;
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if line.len() <= MAX || line.trim_start().starts_with('!') || line.contains('&') {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let mut rest = line;
        let mut first = true;
        while rest.len() > MAX {
            // Last break point before MAX outside quotes.
            let mut quote: Option<char> = None;
            let mut cut = None;
            for (k, c) in rest.char_indices() {
                if k >= MAX {
                    break;
                }
                match quote {
                    Some(q) if c == q => quote = None,
                    Some(_) => {}
                    None if c == '\'' || c == '"' => quote = Some(c),
                    None if c == ',' || c == ' ' => cut = Some(k + 1),
                    None => {}
                }
            }
            let Some(k) = cut.filter(|&k| k > 20) else {
                break;
            };
            if !first {
                out.push_str("    & ");
            }
            out.push_str(&rest[..k]);
            out.push_str(" &\n");
            rest = &rest[k..];
            first = false;
        }
        if !first {
            out.push_str("    & ");
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

fn ind(level: usize) -> String {
    "  ".repeat(level)
}

/// Header keyword and name as the unit appears in the canonical source.
pub fn header(u: &UnitInfo) -> (String, String) {
    let kw = match u.ast.kind {
        UnitKind::Program => "program",
        UnitKind::Module => "module",
        UnitKind::BlockData => "block data",
        UnitKind::Subroutine | UnitKind::Function => "subroutine",
    };
    (kw.to_string(), u.canon_name.clone())
}

/// Dummy argument names in order (function results last).
pub fn dummies(u: &UnitInfo) -> Vec<String> {
    let mut d: Vec<(usize, String)> = u
        .symbols
        .iter()
        .filter_map(|s| s.dummy.map(|p| (p, s.name.clone())))
        .collect();
    d.sort();
    d.into_iter().map(|(_, n)| n).collect()
}

fn emit_unit(prog: &Program, i: usize, level: usize, out: &mut String) {
    let u = &prog.units[i];
    let (kw, name) = header(u);
    let pad = ind(level);
    let _ = writeln!(out, "!$oad unit {}", u.tag);
    // `pure` and `elemental` go: derivative code pushes to the tape, and
    // every elemental reference on arrays is a loop of scalar calls here.
    let prefixes: String = u
        .ast
        .prefixes
        .iter()
        .filter(|p| {
            !matches!(
                p.to_ascii_lowercase().as_str(),
                "pure" | "elemental" | "impure"
            )
        })
        .map(|p| format!("{p} "))
        .collect();
    match u.ast.kind {
        UnitKind::Program | UnitKind::Module | UnitKind::BlockData => {
            let _ = writeln!(out, "{pad}{kw} {name}");
        }
        _ => {
            let _ = writeln!(out, "{pad}{prefixes}{kw} {name}({})", dummies(u).join(", "));
        }
    }

    emit_spec(prog, i, level + 1, out);
    let has_body =
        matches!(u.ast.kind, UnitKind::Subroutine | UnitKind::Function) && u.interface_of.is_none();
    if has_body {
        out.push_str("!$oad body\n");
    }
    if u.ast.kind != UnitKind::Module && u.interface_of.is_none() {
        stmts(prog, &u.ast.body, level + 1, has_body, out);
    }
    if has_body {
        out.push_str("!$oad end-body\n");
    }
    if !u.contained.is_empty() {
        let _ = writeln!(out, "{pad}contains");
        for &c in &u.contained {
            emit_unit(prog, c, level + 1, out);
        }
    }

    let _ = writeln!(out, "{pad}end {kw} {name}");
}

fn emit_spec(prog: &Program, i: usize, level: usize, out: &mut String) {
    let u = &prog.units[i];
    let pad = ind(level);
    let tagged = u.ast.kind != UnitKind::Program;
    for use_stmt in use_statements(prog, i) {
        let list: Vec<String> = use_stmt
            .items
            .iter()
            .map(|(l, r)| {
                if l == r {
                    l.clone()
                } else {
                    format!("{l} => {r}")
                }
            })
            .collect();
        let module = &use_stmt.module;
        if use_stmt.only {
            let _ = writeln!(out, "{pad}use {module}, only: {}", list.join(", "));
        } else if list.is_empty() {
            let _ = writeln!(out, "{pad}use {module}");
        } else {
            let _ = writeln!(out, "{pad}use {module}, {}", list.join(", "));
        }
    }
    if u.implicit_none
        || u.ast
            .spec
            .iter()
            .any(|s| matches!(s, SpecStmt::ImplicitNone(_)))
    {
        let _ = writeln!(out, "{pad}implicit none");
    }
    for s in &u.ast.spec {
        if let SpecStmt::DefaultAccess(public, _) = s {
            let _ = writeln!(out, "{pad}{}", if *public { "public" } else { "private" });
        }
    }
    // `public :: f` / `private :: f` for module procedures (under their
    // canonical names: a function is now the subroutine oad_s_f).
    if u.ast.kind == UnitKind::Module {
        for access in [true, false] {
            let names: Vec<String> = u
                .symbols
                .iter()
                .filter(|s| s.access == Some(access))
                .filter_map(|s| {
                    u.contained
                        .iter()
                        .find(|&&c| prog.units[c].ast.name == s.name)
                        .map(|&c| prog.units[c].canon_name.clone())
                })
                .collect();
            if !names.is_empty() {
                let kw = if access { "public" } else { "private" };
                let _ = writeln!(out, "{pad}{kw} :: {}", names.join(", "));
            }
        }
    }
    // Interface blocks (functions inside become subroutines) live in a
    // module of their own, emitted before the program unit.
    // Declarations of other types first (type definitions may use their
    // parameters), then the type definitions, then the variables of
    // derived type.
    let order = decl_order(prog, i);
    // An entity whose bounds read a derived-type variable
    // (`flux(col%n + 1)`) follows it (`order` has dependencies first).
    let mut after_derived = vec![false; u.symbols.len()];
    for &k in &order {
        after_derived[k] = matches!(u.symbols[k].ty.base, BaseType::Derived(_))
            || decl_deps(u, &u.symbols[k])
                .iter()
                .any(|&d| after_derived[d]);
    }
    let derived = |k: &usize| after_derived[*k];
    let first: Vec<usize> = order.iter().copied().filter(|k| !derived(k)).collect();
    let second: Vec<usize> = order.iter().copied().filter(derived).collect();
    for (pass, list) in [first, second].into_iter().enumerate() {
        if pass == 1 {
            for s in &u.ast.spec {
                if let SpecStmt::DerivedType { name, text, .. } = s {
                    emit_type_definition(prog, name, text, &pad, out);
                    let access = u.lookup_local(name).and_then(|k| u.symbols[k].access);
                    if let Some(public) = access {
                        let kw = if public { "public" } else { "private" };
                        let _ = writeln!(out, "{pad}{kw} :: {name}");
                    }
                }
            }
        }
        for k in list {
            if u.symbols[k].from_mpi {
                continue;
            }
            let mut sym = u.symbols[k].clone();
            // Common block members get constant bounds where they are known:
            // the back end may move the block into a module that cannot see
            // this unit's parameters.
            if sym.common.is_some() {
                if let Some(dims) = sym.dims.as_mut() {
                    for d in dims.iter_mut() {
                        if let DimSpec::Explicit { lo, hi } = d {
                            if let Some(v) = prog.const_int(i, hi) {
                                *hi = Expr::int(v, hi.span());
                            }
                            if let Some(l) = lo.as_mut() {
                                if let Some(v) = prog.const_int(i, l) {
                                    *l = Expr::int(v, l.span());
                                }
                            }
                        }
                    }
                }
            }
            if tagged {
                let _ = writeln!(out, "!$oad decl {}", sym.name);
            }
            let _ = writeln!(out, "{pad}{}", decl_text(&sym));
        }
    }
    for (b, names) in common_statements(u) {
        let _ = writeln!(
            out,
            "{pad}common /{b}/ {}{COMMON_MARK}{i}",
            names.join(", ")
        );
    }
    for s in &u.ast.spec {
        match s {
            SpecStmt::SaveAll(_) => {
                let _ = writeln!(out, "{pad}save");
            }
            SpecStmt::Verbatim(t, _) => {
                let _ = writeln!(out, "{}", t.trim());
            }
            SpecStmt::Namelist { text, .. } => {
                let _ = writeln!(out, "{pad}{}", text.trim());
            }
            _ => {}
        }
    }
}

/// The `use` statements the canonical source writes for unit `i`, in
/// order: the unit's own (a module function under the name of its
/// subroutine, generic names left out: calls name their specifics), then
/// the module of its interface blocks.
pub fn use_statements(prog: &Program, i: usize) -> Vec<UseStatement> {
    let u = &prog.units[i];
    let mut out = Vec::new();
    for s in &u.ast.spec {
        let SpecStmt::Use {
            module,
            only,
            items,
            ..
        } = s
        else {
            continue;
        };
        let m = prog.globals.get(module).copied();
        let item = |(l, r): &(String, String)| -> (String, String) {
            // A module function is now the subroutine oad_s_<name>.
            if let Some(m) = m {
                if let Some(&p) = prog.units[m]
                    .contained
                    .iter()
                    .find(|&&c| prog.units[c].ast.name == *r)
                {
                    let name = prog.units[p].canon_name.clone();
                    return (name.clone(), name);
                }
            }
            (l.clone(), r.clone())
        };
        let items = items
            .iter()
            .filter(|(_, r)| m.is_none_or(|m| prog.generic_specifics(m, r).is_none()))
            .map(item)
            .collect();
        out.push(UseStatement {
            module: module.clone(),
            only: *only,
            items,
        });
    }
    if !prog.interfaces_of(i).is_empty() {
        out.push(UseStatement {
            module: interface_module_name(prog, i),
            only: false,
            items: Vec::new(),
        });
    }
    out
}

/// The `common` statements of a unit: each block with its members in
/// storage order, blocks in the order of their first member's symbol.
pub fn common_statements(u: &UnitInfo) -> Vec<(String, Vec<String>)> {
    let mut blocks: Vec<(String, Vec<(usize, String)>)> = Vec::new();
    for s in &u.symbols {
        if let Some((b, pos)) = &s.common {
            match blocks.iter_mut().find(|(n, _)| n == b) {
                Some((_, m)) => m.push((*pos, s.name.clone())),
                None => blocks.push((b.clone(), vec![(*pos, s.name.clone())])),
            }
        }
    }
    blocks
        .into_iter()
        .map(|(b, mut members)| {
            members.sort();
            (b, members.into_iter().map(|(_, n)| n).collect())
        })
        .collect()
}

/// Does this symbol get a declaration (variables and parameters, not
/// procedure names)?
fn is_declared_entity(prog: &Program, i: usize, k: usize) -> bool {
    let u = &prog.units[i];
    let s = &u.symbols[k];
    // Component paths are references into a derived-type variable.
    if s.component.is_some() || prog.is_type_access_symbol(i, k) {
        return false;
    }
    if s.dummy.is_some()
        || s.parameter
        || s.dims.is_some()
        || s.common.is_some()
        || s.temp
        || s.init.is_some()
    {
        return true;
    }
    if s.intrinsic_attr || s.external {
        return false;
    }
    // A generic name in an access statement (its specifics are emitted).
    if prog.is_generic_name_symbol(i, k) {
        return false;
    }
    // `real f` naming a function defined elsewhere, or a statement function.
    if u.ast
        .spec
        .iter()
        .any(|x| matches!(x, SpecStmt::StmtFunction { name, .. } if *name == s.name))
    {
        return false;
    }
    !matches!(
        prog.resolve(i, &s.name),
        Some(Binding::Proc(_)) | Some(Binding::Intrinsic)
    )
}

/// The entities of the unit the declaration of `s` refers to (kind,
/// length, bounds, initial value).
fn decl_deps(u: &UnitInfo, s: &Symbol) -> Vec<usize> {
    let mut names = Vec::new();
    let mut collect = |e: &Expr| {
        e.walk(&mut |x| {
            if let Expr::Name(nm, _) | Expr::Apply { name: nm, .. } = x {
                names.push(nm.clone());
            }
        })
    };
    if let Some(k) = &s.ty.kind {
        collect(k);
    }
    if let Some(l) = &s.ty.len {
        collect(l);
    }
    if let Some(l) = &s.char_len {
        collect(l);
    }
    if let Some(init) = &s.init {
        collect(init);
    }
    for d in s.dims.iter().flatten() {
        match d {
            DimSpec::Explicit { lo, hi } => {
                if let Some(l) = lo {
                    collect(l);
                }
                collect(hi);
            }
            DimSpec::Colon { lo: Some(l) } | DimSpec::AssumedSize { lo: Some(l) } => collect(l),
            _ => {}
        }
    }
    names
        .iter()
        .filter_map(|nm| u.lookup_local(nm))
        .filter(|&k| u.symbols[k].name != s.name)
        .collect()
}

/// Declaration order: every entity after the ones its kind, length, bounds
/// and initial value refer to; otherwise the order of the symbol table.
pub fn decl_order(prog: &Program, i: usize) -> Vec<usize> {
    let u = &prog.units[i];
    let n = u.symbols.len();
    let mut state = vec![0u8; n];
    let mut order = Vec::new();
    fn visit(u: &UnitInfo, k: usize, state: &mut [u8], order: &mut Vec<usize>) {
        if state[k] != 0 {
            return;
        }
        state[k] = 1;
        for d in decl_deps(u, &u.symbols[k]) {
            visit(u, d, state, order);
        }
        state[k] = 2;
        order.push(k);
    }
    // Implicitly typed scalars first, then the declared ones in order.
    let mut roots: Vec<usize> = (0..n).filter(|&k| !u.symbols[k].explicit_type).collect();
    roots.extend((0..n).filter(|&k| u.symbols[k].explicit_type));
    for k in roots {
        visit(u, k, &mut state, &mut order);
    }
    order
        .into_iter()
        .filter(|&k| is_declared_entity(prog, i, k))
        .collect()
}

/// Whether derived type `name` has, directly or in a nested component,
/// allocatable or pointer components. Unknown types count as having them.
fn type_is_dynamic(prog: &Program, name: &str, depth: usize) -> bool {
    let Some((_, comps)) = prog.derived_type(name).filter(|_| depth < 16) else {
        return true;
    };
    comps.iter().any(|c| {
        c.allocatable
            || c.pointer
            || matches!(&c.ty.base, BaseType::Derived(inner) if type_is_dynamic(prog, inner, depth + 1))
    })
}

/// The `!$oad type-parts` summary of a derived type (docs/xaif.md): what
/// the back end must know to checkpoint a value of it in joint mode.
/// `dynamic`: allocatable or pointer parts, here or nested (its bits then
/// hold descriptors); `dynamic-nonreal`: such a part that is not real;
/// `nonreal=a,b`: the other components that are not real data (integer,
/// logical, character, complex); `nested=c`: components of derived type.
fn type_parts_tag(
    prog: &Program,
    name: &str,
    tu: usize,
    comps: &[crate::components::Component],
) -> String {
    let mut words = Vec::new();
    if type_is_dynamic(prog, name, 0) {
        words.push("dynamic".to_string());
    }
    let mut nonreal = Vec::new();
    let mut nested = Vec::new();
    let mut dynamic_nonreal = false;
    for c in comps {
        if matches!(c.ty.base, BaseType::Derived(_)) {
            nested.push(c.name.clone());
        } else if !prog.cat_of(tu, &c.ty).is_real() {
            if c.allocatable || c.pointer {
                dynamic_nonreal = true;
            } else {
                nonreal.push(c.name.clone());
            }
        }
    }
    if dynamic_nonreal {
        words.push("dynamic-nonreal".to_string());
    }
    if !nonreal.is_empty() {
        words.push(format!("nonreal={}", nonreal.join(",")));
    }
    if !nested.is_empty() {
        words.push(format!("nested={}", nested.join(",")));
    }
    format!("!$oad type-parts {name} {}", words.join(" "))
}

/// A derived type definition, one component per statement; each real
/// component is tagged `!$oad component TYPE%NAME` so that the back end
/// can make it `type(active)` (docs/xaif.md, "Derived types").
fn emit_type_definition(prog: &Program, name: &str, text: &str, pad: &str, out: &mut String) {
    let Some((tu, comps)) = prog.derived_type(name) else {
        let _ = writeln!(out, "{pad}{}", text.trim());
        return;
    };
    let header = text.trim().lines().next().unwrap_or("").trim();
    if header.ends_with('&') {
        // A continued header: keep the definition as written.
        let _ = writeln!(out, "{pad}{}", text.trim());
        return;
    }
    let _ = writeln!(out, "{pad}{header}");
    for line in text.lines().skip(1) {
        let l = line.trim().to_ascii_lowercase();
        if l == "private" || l == "sequence" {
            let _ = writeln!(out, "{pad}  {l}");
        }
    }
    for c in &comps {
        let decl = decl_text(&component_symbol(c));
        if !c.pointer && prog.cat_of(tu, &c.ty).is_real() {
            let _ = writeln!(out, "!$oad component {name}%{}", c.name);
        }
        let _ = writeln!(out, "{pad}  {decl}");
    }
    // What the back end must know to checkpoint a value of the type.
    let _ = writeln!(out, "{}", type_parts_tag(prog, name, tu, &comps));
    let _ = writeln!(out, "{pad}end type {name}");
}

/// The type spec of `s`'s declaration (with its character length).
pub fn declared_type(s: &Symbol) -> String {
    let mut ty = s.ty.clone();
    if let Some(l) = &s.char_len {
        ty.len = Some(l.clone());
        ty.len_star = false;
    }
    type_spec(&ty)
}

/// The declaration of component `c` as a symbol (what its line says).
pub fn component_symbol(c: &crate::components::Component) -> Symbol {
    let mut sym = Symbol::new(&c.name, c.ty.clone(), c.span);
    sym.dims = c.dims.clone();
    sym.allocatable = c.allocatable;
    sym.pointer = c.pointer;
    sym.char_len = c.char_len.clone();
    sym.init = c.init.clone();
    sym.access = c.access;
    sym
}

/// `type-spec[, attributes] :: NAME[(dims)][ = init]`.
pub fn decl_text(s: &Symbol) -> String {
    let mut t = declared_type(s);
    let mut attrs = Vec::new();
    if s.parameter {
        attrs.push("parameter".to_string());
    }
    if let Some(i) = &s.intent {
        attrs.push(
            match i {
                Intent::In => "intent(in)",
                Intent::Out => "intent(out)",
                Intent::InOut => "intent(inout)",
            }
            .to_string(),
        );
    }
    if s.optional {
        attrs.push("optional".into());
    }
    if s.allocatable {
        attrs.push("allocatable".into());
    }
    if s.pointer {
        attrs.push("pointer".into());
    }
    if s.target {
        attrs.push("target".into());
    }
    if s.save && !s.parameter && s.dummy.is_none() && s.common.is_none() {
        attrs.push("save".into());
    }
    match s.access {
        Some(true) => attrs.push("public".into()),
        Some(false) => attrs.push("private".into()),
        None => {}
    }
    for a in attrs {
        t.push_str(", ");
        t.push_str(&a);
    }
    t.push_str(" :: ");
    t.push_str(&s.name);
    if let Some(d) = &s.dims {
        let _ = write!(t, "({})", dims(d));
    }
    if let Some(init) = &s.init {
        let op = if s.pointer { "=>" } else { "=" };
        let _ = write!(t, " {op} {}", unparse::expr(init));
    }
    t
}

fn stmts(prog: &Program, body: &[Stmt], level: usize, tags: bool, out: &mut String) {
    for s in body {
        stmt(prog, s, level, tags, out);
    }
}

fn stmt(prog: &Program, s: &Stmt, level: usize, tags: bool, out: &mut String) {
    let pad = ind(level);
    let label = s
        .label
        .as_ref()
        .map(|l| format!("{l} "))
        .unwrap_or_default();
    match &s.kind {
        StmtKind::Assign { lhs, rhs } => {
            let _ = writeln!(
                out,
                "{pad}{label}{} = {}{STATEMENT_MARK}{}",
                unparse::expr(lhs),
                unparse::expr(rhs),
                s.id
            );
        }
        StmtKind::Call { name, args } => {
            let _ = writeln!(
                out,
                "{pad}{label}call {name}({}){STATEMENT_MARK}{}",
                args_text(args),
                s.id
            );
        }
        StmtKind::If { arms, otherwise } => {
            for (k, (c, b)) in arms.iter().enumerate() {
                if k == 0 {
                    let _ = writeln!(out, "{pad}{label}if ({}) then", unparse::expr(c));
                } else {
                    let _ = writeln!(out, "{pad}else if ({}) then", unparse::expr(c));
                }
                stmts(prog, b, level + 1, tags, out);
            }
            if let Some(b) = otherwise {
                let _ = writeln!(out, "{pad}else");
                stmts(prog, b, level + 1, tags, out);
            }
            let _ = writeln!(out, "{pad}end if");
        }
        StmtKind::Do {
            construct,
            control,
            body,
        } => {
            let cn = construct
                .as_ref()
                .map(|c| format!("{c}: "))
                .unwrap_or_default();
            match control {
                Some(c) => {
                    let step = c
                        .step
                        .as_ref()
                        .map(|s| format!(", {}", unparse::expr(s)))
                        .unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "{pad}{label}{cn}do {} = {}, {}{step}",
                        c.var,
                        unparse::expr(&c.lo),
                        unparse::expr(&c.hi)
                    );
                }
                None => {
                    let _ = writeln!(out, "{pad}{label}{cn}do");
                }
            }
            stmts(prog, body, level + 1, tags, out);
            let _ = writeln!(
                out,
                "{pad}end do{}",
                construct
                    .as_ref()
                    .map(|c| format!(" {c}"))
                    .unwrap_or_default()
            );
        }
        StmtKind::DoWhile {
            construct,
            cond,
            body,
        } => {
            let cn = construct
                .as_ref()
                .map(|c| format!("{c}: "))
                .unwrap_or_default();
            let _ = writeln!(out, "{pad}{label}{cn}do while ({})", unparse::expr(cond));
            stmts(prog, body, level + 1, tags, out);
            let _ = writeln!(
                out,
                "{pad}end do{}",
                construct
                    .as_ref()
                    .map(|c| format!(" {c}"))
                    .unwrap_or_default()
            );
        }
        StmtKind::Select { selector, cases } => {
            let _ = writeln!(out, "{pad}{label}select case ({})", unparse::expr(selector));
            for c in cases {
                match &c.values {
                    None => {
                        let _ = writeln!(out, "{pad}case default");
                    }
                    Some(v) => {
                        let _ = writeln!(
                            out,
                            "{pad}case ({})",
                            v.iter().map(unparse::expr).collect::<Vec<_>>().join(", ")
                        );
                    }
                }
                stmts(prog, &c.body, level + 1, tags, out);
            }
            let _ = writeln!(out, "{pad}end select");
        }
        StmtKind::Where { .. } | StmtKind::Forall { .. } => {
            // Canonicalised into loops before emission.
            let _ = writeln!(out, "{pad}! where (canonicalised away)");
        }
        StmtKind::Exit(n) => {
            let _ = writeln!(
                out,
                "{pad}{label}exit{}",
                n.as_ref().map(|c| format!(" {c}")).unwrap_or_default()
            );
        }
        StmtKind::Cycle(n) => {
            let _ = writeln!(
                out,
                "{pad}{label}cycle{}",
                n.as_ref().map(|c| format!(" {c}")).unwrap_or_default()
            );
        }
        StmtKind::Goto(l) => {
            let _ = writeln!(out, "{pad}{label}goto {l}");
        }
        StmtKind::Continue => {
            let _ = writeln!(out, "{pad}{label}continue");
        }
        StmtKind::Return => {
            let _ = writeln!(out, "{pad}{label}return");
        }
        StmtKind::Opaque { text, .. } => {
            // A main program has no CFG: its statements stay untagged.
            if tags {
                let _ = writeln!(out, "!$oad stmt {}", s.id);
            }
            let _ = writeln!(out, "{pad}{label}{}", text.trim());
        }
    }
}
