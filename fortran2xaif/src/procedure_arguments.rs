//! Procedure dummy arguments: `subroutine rk4(rhs, u, t, dt, n)` whose
//! `rhs` an interface body or `external` declares, called as
//! `call rk4(lotka, u, t, 0.05d0, 40)`.
//!
//! The XAIF call graph names the routine every call reaches, so a call
//! through a dummy procedure has no place in it. Before the semantic model
//! is built, each call that passes named procedures to a routine's
//! procedure dummies calls instead a copy of the routine specialised to
//! them (`rk4_oad_lotka`): the dummies leave its argument list and every
//! reference to them names the actual procedure. A copy that passes the
//! procedure on (`call integrate(rhs, ...)`) is specialised in turn, until
//! no call passes a procedure. The copy lives where the routine does (in
//! its module, or as an external procedure); it reaches a module procedure
//! by a `use` of its module, an external one through the interface body
//! the routine declared for its dummy, renamed. The generic routines are
//! then dropped.
//!
//! Refused by name at the call: an internal procedure, an intrinsic or
//! anything else that is not a module or external procedure of the
//! program as an actual; a module procedure whose module comes after the
//! routine's (the copy could not `use` it); a routine with procedure
//! dummies that is still called some other way (through a generic name or
//! a rename).

use std::collections::HashMap;

use crate::ast::*;

/// Where a unit is: file, top-level unit, then `contains` indices.
type Path = Vec<usize>;

/// A procedure of the program that a call can pass.
#[derive(Debug, Clone)]
struct Procedure {
    path: Path,
    /// The module it belongs to (module procedures).
    module: Option<String>,
    /// An internal procedure: its host's scope only.
    internal: bool,
    /// Positions and names of its procedure dummies.
    dummies: Vec<(usize, String)>,
}

fn unit_at<'a>(files: &'a [SourceFile], path: &[usize]) -> &'a Unit {
    let mut u = &files[path[0]].units[path[1]];
    for &k in &path[2..] {
        u = &u.contains[k];
    }
    u
}

fn unit_at_mut<'a>(files: &'a mut [SourceFile], path: &[usize]) -> &'a mut Unit {
    let mut u = &mut files[path[0]].units[path[1]];
    for &k in &path[2..] {
        u = &mut u.contains[k];
    }
    u
}

/// The dummies of `u` that are procedures: named by an interface body
/// (not a generic interface) or declared `external`.
fn procedure_dummies(u: &Unit) -> Vec<(usize, String)> {
    let is_procedure = |name: &str| {
        u.spec.iter().any(|s| match s {
            SpecStmt::Interface {
                generic: None,
                bodies,
                ..
            } => bodies.iter().any(|b| b.name == name),
            SpecStmt::AttrStmt {
                attr: Attr::External,
                entities,
                ..
            } => entities.iter().any(|e| e.name == name),
            SpecStmt::TypeDecl {
                attrs, entities, ..
            } => attrs.contains(&Attr::External) && entities.iter().any(|e| e.name == name),
            _ => false,
        })
    };
    u.params
        .iter()
        .enumerate()
        .filter(|(_, p)| is_procedure(p))
        .map(|(k, p)| (k, p.clone()))
        .collect()
}

/// Every subroutine and function of the program by name.
fn procedures(files: &[SourceFile]) -> HashMap<String, Procedure> {
    fn visit(
        u: &Unit,
        path: Path,
        module: Option<&str>,
        internal: bool,
        out: &mut HashMap<String, Procedure>,
    ) {
        let is_procedure = matches!(u.kind, UnitKind::Subroutine | UnitKind::Function);
        if is_procedure {
            out.entry(u.name.clone()).or_insert(Procedure {
                path: path.clone(),
                module: module.map(str::to_string),
                internal,
                dummies: procedure_dummies(u),
            });
        }
        let inner_module = (u.kind == UnitKind::Module).then_some(u.name.as_str());
        for (k, c) in u.contains.iter().enumerate() {
            let mut p = path.clone();
            p.push(k);
            visit(c, p, inner_module, is_procedure, out);
        }
    }
    let mut out = HashMap::new();
    for (f, file) in files.iter().enumerate() {
        for (k, u) in file.units.iter().enumerate() {
            visit(u, vec![f, k], None, false, &mut out);
        }
    }
    out
}

/// The order of the top-level units (modules must come before their
/// users).
fn top_level_position(path: &[usize]) -> (usize, usize) {
    (path[0], path[1])
}

/// One call to specialise: callee, and the actual procedure of each of
/// its procedure dummies.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Binding {
    callee: String,
    actuals: Vec<(String, String)>,
}

struct Specialiser<'p> {
    table: &'p HashMap<String, Procedure>,
    clones: HashMap<Binding, String>,
    pending: Vec<(Binding, String)>,
    used_names: std::collections::HashSet<String>,
}

impl Specialiser<'_> {
    /// The name of the copy for `b`, planned on first request.
    fn clone_name(&mut self, b: &Binding) -> String {
        if let Some(n) = self.clones.get(b) {
            return n.clone();
        }
        let mut name = format!(
            "{}_oad_{}",
            b.callee,
            b.actuals
                .iter()
                .map(|(_, a)| a.as_str())
                .collect::<Vec<_>>()
                .join("_")
        );
        let mut k = 1;
        while name.len() > 63 || self.used_names.contains(&name) {
            name = format!("{}_oad_{k}", &b.callee[..b.callee.len().min(50)]);
            k += 1;
        }
        self.used_names.insert(name.clone());
        self.clones.insert(b.clone(), name.clone());
        self.pending.push((b.clone(), name.clone()));
        name
    }

    /// Rewrites a call of `name` with `args` made in a unit whose own
    /// procedure dummies are `own`: to its specialised copy when it passes
    /// procedures to procedure dummies. Returns the copy's name.
    fn call(
        &mut self,
        name: &str,
        args: &mut Vec<Arg>,
        own: &[String],
        span: Span,
    ) -> FrontResult<Option<String>> {
        let Some(callee) = self.table.get(name) else {
            return Ok(None);
        };
        if callee.dummies.is_empty() {
            return Ok(None);
        }
        // The actual of each procedure dummy, by position or keyword.
        let mut actuals = Vec::new();
        let mut drop = Vec::new();
        for (pos, dummy) in &callee.dummies {
            let at = args
                .iter()
                .position(|a| a.keyword.as_deref() == Some(dummy.as_str()))
                .or_else(|| (*pos < args.len() && args[*pos].keyword.is_none()).then_some(*pos));
            let Some(at) = at else {
                return Err(FrontError::unsupported(
                    span,
                    format!("unsupported construct: a call of '{name}' without its procedure argument '{dummy}'"),
                ));
            };
            let Expr::Name(actual, _) = &args[at].value else {
                return Err(FrontError::unsupported(
                    args[at].value.span(),
                    format!("unsupported construct: the actual of procedure argument '{dummy}' of '{name}' is not a procedure name"),
                ));
            };
            if own.contains(actual) {
                // Passed on from a dummy of the caller: its copy will bind it.
                return Ok(None);
            }
            match self.table.get(actual) {
                Some(p) if !p.internal => {}
                Some(_) => {
                    return Err(FrontError::unsupported(
                        args[at].value.span(),
                        format!("unsupported construct: internal procedure '{actual}' passed as procedure argument '{dummy}' of '{name}' (make it a module procedure)"),
                    ))
                }
                None => {
                    return Err(FrontError::unsupported(
                        args[at].value.span(),
                        format!("unsupported construct: '{actual}' passed as procedure argument '{dummy}' of '{name}' is not a subroutine or function of the program (intrinsics and procedures without source cannot be passed)"),
                    ))
                }
            }
            actuals.push((dummy.clone(), actual.clone()));
            drop.push(at);
        }
        let binding = Binding {
            callee: name.to_string(),
            actuals,
        };
        let clone = self.clone_name(&binding);
        drop.sort_unstable();
        for at in drop.into_iter().rev() {
            args.remove(at);
        }
        Ok(Some(clone))
    }
}

/// Rewrites the calls in `stmts` (and the function references in their
/// expressions); adds (generic routine, copy) to `called` for each.
fn rewrite_stmts(
    stmts: &mut [Stmt],
    own: &[String],
    s: &mut Specialiser,
    called: &mut Vec<(String, String)>,
) -> FrontResult<()> {
    Stmt::walk_mut(stmts, &mut |stmt| {
        stmt.own_exprs_mut(&mut |e| {
            e.walk_mut(&mut |x| {
                if let Expr::Apply { name, args, span } = x {
                    if let Some(c) = s.call(name, args, own, *span)? {
                        called.push((name.clone(), c.clone()));
                        *name = c;
                    }
                }
                Ok(())
            })
        })?;
        let span = stmt.span;
        if let StmtKind::Call { name, args } = &mut stmt.kind {
            if let Some(c) = s.call(name, args, own, span)? {
                called.push((name.clone(), c.clone()));
                *name = c;
            }
        }
        Ok(())
    })
}

/// Renames `from` to `to` in every name and call of `stmts`.
fn rename_in_stmts(stmts: &mut [Stmt], from: &str, to: &str) {
    let rename = |n: &mut String| {
        if n == from {
            *n = to.to_string();
        }
    };
    let _ = Stmt::walk_mut(stmts, &mut |stmt| {
        if let StmtKind::Call { name, .. } = &mut stmt.kind {
            rename(name);
        }
        stmt.own_exprs_mut(&mut |e| {
            e.walk_mut(&mut |x| {
                match x {
                    Expr::Name(n, _) | Expr::Apply { name: n, .. } => rename(n),
                    _ => {}
                }
                Ok(())
            })
        })
    });
}

/// The copy of `generic` with its procedure dummies bound as `b` says,
/// named `name`, for a unit inside module `home` (if any).
fn specialised_copy(
    generic: &Unit,
    b: &Binding,
    name: &str,
    home: Option<&str>,
    table: &HashMap<String, Procedure>,
) -> Unit {
    let mut u = generic.clone();
    u.name = name.to_string();
    if u.kind == UnitKind::Function && u.result.is_none() {
        u.result = Some(generic.name.clone());
    }
    for (dummy, actual) in &b.actuals {
        u.params.retain(|p| p != dummy);
        let module = table.get(actual).and_then(|p| p.module.clone());
        match module {
            // A module procedure: the module's `use`, no declaration.
            Some(m) => {
                u.spec.retain_mut(|s| match s {
                    SpecStmt::Interface {
                        generic: None,
                        bodies,
                        ..
                    } => {
                        bodies.retain(|body| body.name != *dummy);
                        !bodies.is_empty()
                    }
                    SpecStmt::AttrStmt {
                        attr: Attr::External,
                        entities,
                        ..
                    } => {
                        entities.retain(|e| e.name != *dummy);
                        !entities.is_empty()
                    }
                    SpecStmt::TypeDecl {
                        attrs, entities, ..
                    } if attrs.contains(&Attr::External) => {
                        entities.retain(|e| e.name != *dummy);
                        !entities.is_empty()
                    }
                    _ => true,
                });
                if home != Some(m.as_str()) {
                    let span = generic.span;
                    u.spec.insert(
                        0,
                        SpecStmt::Use {
                            module: m,
                            only: true,
                            items: vec![(actual.clone(), actual.clone())],
                            span,
                        },
                    );
                }
            }
            // An external procedure: the dummy's declaration, renamed.
            None => {
                for s in &mut u.spec {
                    match s {
                        SpecStmt::Interface {
                            generic: None,
                            bodies,
                            ..
                        } => {
                            for body in bodies.iter_mut().filter(|body| body.name == *dummy) {
                                body.name = actual.clone();
                                if body.result.as_deref() == Some(dummy.as_str()) {
                                    body.result = Some(actual.clone());
                                }
                            }
                        }
                        SpecStmt::AttrStmt { entities, .. }
                        | SpecStmt::TypeDecl { entities, .. } => {
                            for e in entities.iter_mut().filter(|e| e.name == *dummy) {
                                e.name = actual.clone();
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        rename_in_stmts(&mut u.body, dummy, actual);
        for inner in &mut u.contains {
            rename_in_stmts(&mut inner.body, dummy, actual);
        }
    }
    u
}

/// The module a unit at `path` is inside, if any.
fn home_module(files: &[SourceFile], path: &[usize]) -> Option<String> {
    let top = &files[path[0]].units[path[1]];
    (top.kind == UnitKind::Module).then(|| top.name.clone())
}

/// Makes a copy visible where a `use ..., only:` list names its generic
/// routine: in `path`'s unit and its hosts.
fn add_to_only_lists(files: &mut [SourceFile], path: &[usize], generic: &str, clone: &str) {
    for depth in (2..=path.len()).rev() {
        let u = unit_at_mut(files, &path[..depth]);
        for s in &mut u.spec {
            if let SpecStmt::Use {
                only: true, items, ..
            } = s
            {
                if items.iter().any(|(l, r)| l == generic && r == generic)
                    && !items.iter().any(|(l, _)| l == clone)
                {
                    items.push((clone.to_string(), clone.to_string()));
                }
            }
        }
    }
}

/// Every unit's path, hosts before what they contain.
fn all_paths(files: &[SourceFile]) -> Vec<Path> {
    fn visit(u: &Unit, path: Path, out: &mut Vec<Path>) {
        out.push(path.clone());
        for k in 0..u.contains.len() {
            let mut p = path.clone();
            p.push(k);
            visit(&u.contains[k], p, out);
        }
    }
    let mut out = Vec::new();
    for (f, file) in files.iter().enumerate() {
        for (k, u) in file.units.iter().enumerate() {
            visit(u, vec![f, k], &mut out);
        }
    }
    out
}

/// Specialises every routine with procedure dummies to the procedures its
/// calls pass (see the module documentation).
pub fn specialise(files: &mut [SourceFile]) -> FrontResult<()> {
    let mut table = procedures(files);
    if table.values().all(|p| p.dummies.is_empty()) {
        return Ok(());
    }
    let mut clones: HashMap<Binding, String> = HashMap::new();
    let mut used_names: std::collections::HashSet<String> = table.keys().cloned().collect();
    for _round in 0..64 {
        let mut pending = Vec::new();
        let mut sites: Vec<(Path, String, String)> = Vec::new();
        for path in all_paths(files) {
            let own: Vec<String> = procedure_dummies(unit_at(files, &path))
                .into_iter()
                .map(|(_, d)| d)
                .collect();
            let mut s = Specialiser {
                table: &table,
                clones: std::mem::take(&mut clones),
                pending: Vec::new(),
                used_names: std::mem::take(&mut used_names),
            };
            let mut called = Vec::new();
            let u = unit_at_mut(files, &path);
            rewrite_stmts(&mut u.body, &own, &mut s, &mut called)?;
            for (generic, clone) in called {
                sites.push((path.clone(), generic, clone));
            }
            clones = s.clones;
            used_names = s.used_names;
            pending.extend(s.pending);
        }
        for (path, generic, clone) in &sites {
            add_to_only_lists(files, path, generic, clone);
        }
        if pending.is_empty() {
            break;
        }
        for (b, name) in pending {
            let proc_ = table[&b.callee].clone();
            let home = home_module(files, &proc_.path);
            for (dummy, actual) in &b.actuals {
                let Some(m) = table.get(actual).and_then(|p| p.module.clone()) else {
                    continue;
                };
                let p = &table[actual];
                if home.as_deref() != Some(m.as_str())
                    && top_level_position(&p.path) > top_level_position(&proc_.path)
                {
                    let generic = unit_at(files, &proc_.path);
                    return Err(FrontError::unsupported(
                        generic.span,
                        format!("unsupported construct: module procedure '{actual}' passed as procedure argument '{dummy}' of '{}': its module '{m}' comes after the routine's, so the routine's copy for it cannot use it (define module '{m}' first)", b.callee),
                    ));
                }
            }
            let copy = specialised_copy(
                unit_at(files, &proc_.path),
                &b,
                &name,
                home.as_deref(),
                &table,
            );
            // Public where the generic routine is named public.
            if home.is_some() {
                let module = unit_at_mut(files, &proc_.path[..2]);
                for st in &mut module.spec {
                    if let SpecStmt::AttrStmt {
                        attr: Attr::Public,
                        entities,
                        ..
                    } = st
                    {
                        if let Some(e) = entities.iter().find(|e| e.name == b.callee) {
                            let mut e = e.clone();
                            e.name = name.clone();
                            entities.push(e);
                        }
                    }
                }
            }
            // Next to the generic routine: in the same `contains` list or
            // among the file's units.
            let (host, _) = proc_.path.split_at(proc_.path.len() - 1);
            let position = if host.len() == 1 {
                let units = &mut files[host[0]].units;
                units.push(copy);
                vec![host[0], units.len() - 1]
            } else {
                let h = unit_at_mut(files, host);
                h.contains.push(copy);
                let mut p = host.to_vec();
                p.push(h.contains.len() - 1);
                p
            };
            table.insert(
                name.clone(),
                Procedure {
                    path: position,
                    module: proc_.module.clone(),
                    internal: proc_.internal,
                    dummies: Vec::new(),
                },
            );
        }
    }
    drop_generic_routines(files, &table)
}

/// Removes the routines with procedure dummies once no call names them;
/// a call that still does could not be specialised.
fn drop_generic_routines(
    files: &mut [SourceFile],
    table: &HashMap<String, Procedure>,
) -> FrontResult<()> {
    let generics: Vec<&String> = table
        .iter()
        .filter(|(_, p)| !p.dummies.is_empty())
        .map(|(n, _)| n)
        .collect();
    for path in all_paths(files) {
        let u = unit_at(files, &path);
        if generics.contains(&&u.name) {
            continue;
        }
        let mut names = Vec::new();
        collect_called(&u.body, &mut names);
        // A copy of a function without `result` keeps the generic's name
        // as its result variable.
        let result = u.result.as_ref();
        if let Some((n, span)) = names
            .into_iter()
            .find(|(n, _)| generics.contains(&n) && Some(n) != result)
        {
            return Err(FrontError::unsupported(
                span,
                format!("unsupported construct: a call of '{n}', which has procedure dummy arguments, that passes no procedure name to them here (only direct calls passing module or external procedures by name are specialised)"),
            ));
        }
    }
    fn prune(units: &mut Vec<Unit>, generics: &[&String]) {
        units.retain(|u| {
            !(matches!(u.kind, UnitKind::Subroutine | UnitKind::Function)
                && generics.contains(&&u.name))
        });
        for u in units {
            // Nor do `only` lists and `public` statements name them.
            u.spec.retain(|s| {
                !matches!(s, SpecStmt::AttrStmt { attr: Attr::Public | Attr::Private, entities, .. }
                    if !entities.is_empty() && entities.iter().all(|e| generics.contains(&&e.name)))
            });
            for s in &mut u.spec {
                match s {
                    SpecStmt::Use { items, .. } => {
                        items.retain(|(_, r)| !generics.contains(&r));
                    }
                    SpecStmt::AttrStmt {
                        attr: Attr::Public | Attr::Private,
                        entities,
                        ..
                    } => entities.retain(|e| !generics.contains(&&e.name)),
                    _ => {}
                }
            }
            prune(&mut u.contains, generics);
        }
    }
    for file in files.iter_mut() {
        prune(&mut file.units, &generics);
    }
    Ok(())
}

/// Names of the subroutines and functions `stmts` call or reference.
fn collect_called(stmts: &[Stmt], out: &mut Vec<(String, Span)>) {
    fn expr(e: &Expr, span: Span, out: &mut Vec<(String, Span)>) {
        let mut names = Vec::new();
        e.collect_names(&mut names);
        out.extend(names.into_iter().map(|n| (n, span)));
    }
    for s in stmts {
        match &s.kind {
            StmtKind::Call { name, args } => {
                out.push((name.clone(), s.span));
                args.iter().for_each(|a| expr(&a.value, s.span, out));
            }
            StmtKind::Assign { lhs, rhs } => {
                expr(lhs, s.span, out);
                expr(rhs, s.span, out);
            }
            StmtKind::If { arms, otherwise } => {
                for (c, body) in arms {
                    expr(c, s.span, out);
                    collect_called(body, out);
                }
                if let Some(body) = otherwise {
                    collect_called(body, out);
                }
            }
            StmtKind::Do { body, .. } | StmtKind::DoWhile { body, .. } => collect_called(body, out),
            StmtKind::Select { cases, .. } => {
                cases.iter().for_each(|c| collect_called(&c.body, out))
            }
            StmtKind::Where { arms } => arms.iter().for_each(|(_, b)| collect_called(b, out)),
            StmtKind::Forall { body, .. } => collect_called(body, out),
            _ => {}
        }
    }
}
