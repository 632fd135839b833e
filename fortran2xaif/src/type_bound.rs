//! Type-bound procedures, devirtualised before the semantic model.
//!
//! `call col%relax(dt)` becomes `call column_relax(col, dt)` (the object
//! where the binding passes it: first, at its `pass(name)` dummy, or not
//! at all for `nopass`), a function reference `col%flux(i)` becomes
//! `column_flux(col, i)`, and a `generic :: update => a, b` binding a
//! generic interface of the type's module over the bound procedures, which
//! the generic resolution (`generics.rs`) then picks from by the argument
//! types. A unit outside the type's module reaches the procedure (or the
//! generic) by a `use` of that module added to it; the procedure is made
//! public there. The parser already read `class(t)` as `type(t)` and
//! dropped the binding part from the type's text.
//!
//! This is exact when the dynamic type of every object is its declared
//! type: refused by name are `class(t)` declarations of a type some type
//! extends, extensions overriding a binding of their parent, calls of a
//! binding an extension inherits, types with bindings outside a module,
//! bindings to procedures that are not module procedures of the type's
//! module, operator and assignment bindings, generic bindings whose
//! specifics pass the object in different places, and function bindings
//! referenced in declarations (which are not rewritten). (`final`, `deferred`,
//! `select type`, `class(*)` and procedure pointers are refused by the
//! parser.)

use std::collections::HashMap;

use crate::ast::*;

/// A use chain is followed this deep to find a variable's type.
const MAX_USE_DEPTH: usize = 20;

/// A derived type of the program.
struct TypeInfo {
    /// The module defining it (types outside modules have no bindings).
    module: Option<String>,
    extends: Option<String>,
    bindings: Vec<TypeBinding>,
    /// Component name and its derived type, if any.
    components: Vec<(String, Option<String>)>,
    span: Span,
}

/// Everything the rewrite looks up: types, modules, procedures of modules.
struct Tables {
    types: HashMap<String, TypeInfo>,
    /// Module name to its top-level position (file, unit).
    modules: HashMap<String, (usize, usize)>,
}

impl Tables {
    fn build(files: &[SourceFile]) -> Tables {
        let mut types = HashMap::new();
        let mut modules = HashMap::new();
        fn visit(u: &Unit, module: Option<&str>, types: &mut HashMap<String, TypeInfo>) {
            for s in &u.spec {
                if let SpecStmt::DerivedType {
                    name,
                    components,
                    extends,
                    bindings,
                    span,
                    ..
                } = s
                {
                    let mut comps = Vec::new();
                    for c in components {
                        if let SpecStmt::TypeDecl { ty, entities, .. } = c {
                            let t = match &ty.base {
                                BaseType::Derived(t) => Some(t.clone()),
                                _ => None,
                            };
                            comps.extend(entities.iter().map(|e| (e.name.clone(), t.clone())));
                        }
                    }
                    types.entry(name.clone()).or_insert(TypeInfo {
                        module: module.map(str::to_string),
                        extends: extends.clone(),
                        bindings: bindings.clone(),
                        components: comps,
                        span: *span,
                    });
                }
            }
            for c in &u.contains {
                visit(c, None, types);
            }
        }
        for (f, file) in files.iter().enumerate() {
            for (k, u) in file.units.iter().enumerate() {
                let module = (u.kind == UnitKind::Module).then_some(u.name.as_str());
                if let Some(m) = module {
                    modules.insert(m.to_string(), (f, k));
                }
                visit(u, module, &mut types);
            }
        }
        Tables { types, modules }
    }

    /// The types `t` extends, nearest first.
    fn ancestors(&self, t: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut at = self.types.get(t).and_then(|i| i.extends.as_deref());
        while let Some(p) = at {
            if out.contains(&p) || out.len() > 64 {
                break;
            }
            out.push(p);
            at = self.types.get(p).and_then(|i| i.extends.as_deref());
        }
        out
    }

    /// The derived type of component `field` of type `t` (or of a parent).
    fn component_type(&self, t: &str, field: &str) -> Option<String> {
        std::iter::once(t)
            .chain(self.ancestors(t))
            .filter_map(|t| self.types.get(t))
            .find_map(|i| i.components.iter().find(|(c, _)| c == field))
            .and_then(|(_, ty)| ty.clone())
    }
}

/// The refusals that make every object's dynamic type its declared type.
fn check_static_types(files: &[SourceFile], tables: &Tables) -> FrontResult<()> {
    for (name, info) in &tables.types {
        if !info.bindings.is_empty() && info.module.is_none() {
            return Err(FrontError::unsupported(
                info.span,
                format!("unsupported construct: type-bound procedures of type '{name}' defined outside a module"),
            ));
        }
        for b in &info.bindings {
            if b.name().starts_with("operator(") || b.name().starts_with("assignment(") {
                return Err(FrontError::unsupported(
                    b.span(),
                    format!("unsupported construct: type-bound {} of type '{name}' (write a generic interface instead)", b.name()),
                ));
            }
            for parent in tables.ancestors(name) {
                if tables.types[parent]
                    .bindings
                    .iter()
                    .any(|p| p.name() == b.name())
                {
                    return Err(FrontError::unsupported(
                        b.span(),
                        format!("unsupported construct: binding '{}' of type '{name}' overrides the binding of its parent type '{parent}' (type extension with overriding bindings needs run-time dispatch)", b.name()),
                    ));
                }
            }
        }
    }
    fn visit(u: &Unit, tables: &Tables) -> FrontResult<()> {
        for (t, span) in &u.polymorphic {
            if let Some((child, _)) = tables
                .types
                .iter()
                .find(|(_, i)| i.extends.as_deref() == Some(t.as_str()))
            {
                return Err(FrontError::unsupported(
                    *span,
                    format!("unsupported construct: class({t}) of a type that type '{child}' extends (its dynamic type is not known before run time)"),
                ));
            }
        }
        u.contains.iter().try_for_each(|c| visit(c, tables))
    }
    files
        .iter()
        .flat_map(|f| &f.units)
        .try_for_each(|u| visit(u, tables))
}

/// The scopes a unit sees: its own specification part and its hosts'.
struct Scope<'a> {
    files: &'a [SourceFile],
    tables: &'a Tables,
    specs: Vec<&'a [SpecStmt]>,
}

impl Scope<'_> {
    /// The derived type of variable `name`.
    fn var_type(&self, name: &str) -> Option<String> {
        self.specs
            .iter()
            .rev()
            .find_map(|spec| self.type_in(spec, name, 0))
    }

    fn type_in(&self, spec: &[SpecStmt], name: &str, depth: usize) -> Option<String> {
        for s in spec {
            if let SpecStmt::TypeDecl {
                ty:
                    TypeSpec {
                        base: BaseType::Derived(t),
                        ..
                    },
                entities,
                ..
            } = s
            {
                if entities.iter().any(|e| e.name == name) {
                    return Some(t.clone());
                }
            }
        }
        if depth > MAX_USE_DEPTH {
            return None;
        }
        for s in spec {
            let SpecStmt::Use {
                module,
                only,
                items,
                ..
            } = s
            else {
                continue;
            };
            let remote = match items.iter().find(|(l, _)| l == name) {
                Some((_, r)) => r.as_str(),
                None if *only => continue,
                None => name,
            };
            let Some(&(f, k)) = self.tables.modules.get(module) else {
                continue;
            };
            if let Some(t) = self.type_in(&self.files[f].units[k].spec, remote, depth + 1) {
                return Some(t);
            }
        }
        None
    }

    /// Is `object%field` a binding of the object's type (or of a parent)?
    fn is_binding(&self, object: &Expr, field: &str) -> bool {
        self.type_of(object).is_some_and(|t| {
            std::iter::once(t.as_str())
                .chain(self.tables.ancestors(&t))
                .filter_map(|t| self.tables.types.get(t))
                .any(|i| i.bindings.iter().any(|b| b.name() == field))
        })
    }

    /// The derived type of an object designator.
    fn type_of(&self, e: &Expr) -> Option<String> {
        match e {
            Expr::Name(n, _) | Expr::Apply { name: n, .. } => self.var_type(n),
            Expr::Member { base, field, .. } => {
                self.tables.component_type(&self.type_of(base)?, field)
            }
            Expr::Paren(e, _) => self.type_of(e),
            _ => None,
        }
    }
}

/// What a type-bound reference calls.
struct Target {
    /// The procedure, or the generic interface made for a generic binding.
    name: String,
    passed: PassedObject,
    /// The module of the type (where `name` lives).
    module: String,
    /// The bound procedures, to be made public.
    procedures: Vec<String>,
    /// A generic binding: its name in the module and the procedures.
    generic: Option<(String, Vec<String>)>,
}

fn binding_target(
    tables: &Tables,
    t: &str,
    binding: &str,
    object: &str,
    span: Span,
) -> FrontResult<Target> {
    let info = &tables.types[t];
    let find = |b: &str| info.bindings.iter().find(|x| x.name() == b);
    let Some(found) = find(binding) else {
        if let Some(parent) = tables.ancestors(t).into_iter().find(|p| {
            tables.types[*p]
                .bindings
                .iter()
                .any(|x| x.name() == binding)
        }) {
            return Err(FrontError::unsupported(
                span,
                format!("unsupported construct: '{object}%{binding}' calls a binding that type '{t}' inherits from type '{parent}' (type extension with type-bound procedures)"),
            ));
        }
        return Err(FrontError::new(
            span,
            format!("type '{t}' of '{object}' has no type-bound procedure '{binding}'"),
        ));
    };
    let module = info.module.clone().unwrap_or_default();
    match found {
        TypeBinding::Specific {
            procedure, passed, ..
        } => Ok(Target {
            name: procedure.clone(),
            passed: passed.clone(),
            module,
            procedures: vec![procedure.clone()],
            generic: None,
        }),
        TypeBinding::Generic {
            specifics,
            span: at,
            ..
        } => {
            let mut procedures = Vec::new();
            let mut passed: Option<PassedObject> = None;
            for s in specifics {
                let Some(TypeBinding::Specific {
                    procedure,
                    passed: p,
                    ..
                }) = find(s)
                else {
                    return Err(FrontError::new(
                        *at,
                        format!("generic binding '{binding}' of type '{t}' names '{s}', which is not a specific binding of the type"),
                    ));
                };
                if passed.as_ref().is_some_and(|q| q != p) {
                    return Err(FrontError::unsupported(
                        *at,
                        format!("unsupported construct: the specifics of generic binding '{binding}' of type '{t}' pass the object in different places"),
                    ));
                }
                passed = Some(p.clone());
                procedures.push(procedure.clone());
            }
            let name = format!("{binding}_oad_{t}");
            Ok(Target {
                name: name.clone(),
                passed: passed.unwrap_or(PassedObject::First),
                module,
                procedures: procedures.clone(),
                generic: Some((name, procedures)),
            })
        }
    }
}

/// The dummy arguments of module procedure `name` of `module`.
fn params_of(
    files: &[SourceFile],
    tables: &Tables,
    module: &str,
    name: &str,
) -> Option<Vec<String>> {
    let &(f, k) = tables.modules.get(module)?;
    files[f].units[k]
        .contains
        .iter()
        .find(|c| c.name == name)
        .map(|c| c.params.clone())
}

/// `args` with the object inserted where `passed` says.
fn with_object(
    mut args: Vec<Arg>,
    object: Expr,
    passed: &PassedObject,
    params: Option<&[String]>,
    span: Span,
) -> FrontResult<Vec<Arg>> {
    match passed {
        PassedObject::None => {}
        PassedObject::First => args.insert(
            0,
            Arg {
                keyword: None,
                value: object,
            },
        ),
        PassedObject::Named(p) => {
            let Some(k) = params.and_then(|ps| ps.iter().position(|x| x == p)) else {
                return Err(FrontError::new(
                    span,
                    format!("the bound procedure has no dummy argument '{p}' named by pass({p})"),
                ));
            };
            let positional = args.iter().take_while(|a| a.keyword.is_none()).count();
            if k <= positional {
                args.insert(
                    k,
                    Arg {
                        keyword: None,
                        value: object,
                    },
                );
            } else {
                args.push(Arg {
                    keyword: Some(p.clone()),
                    value: object,
                });
            }
        }
    }
    Ok(args)
}

/// What the rewrite of one unit needs made visible: (module, name).
type Needs = Vec<(String, String)>;

/// What the rewrite made: per module, generic interfaces to add.
#[derive(Default)]
struct Made {
    generics: Vec<(String, String, Vec<String>)>,
    public: Vec<(String, String)>,
}

/// The expressions of the declarations in `spec` (bounds, lengths,
/// kinds, initial values).
fn declaration_exprs(spec: &[SpecStmt]) -> Vec<&Expr> {
    fn dims<'a>(d: &'a [DimSpec], out: &mut Vec<&'a Expr>) {
        for d in d {
            match d {
                DimSpec::Explicit { lo, hi } => out.extend(lo.iter().chain([hi])),
                DimSpec::Colon { lo } | DimSpec::AssumedSize { lo } => out.extend(lo.iter()),
            }
        }
    }
    let mut out = Vec::new();
    for s in spec {
        let (attrs, entities) = match s {
            SpecStmt::TypeDecl {
                ty,
                attrs,
                entities,
                ..
            } => {
                out.extend(ty.kind.iter().chain(ty.len.iter()));
                (attrs.as_slice(), entities)
            }
            SpecStmt::AttrStmt { attr, entities, .. } => (std::slice::from_ref(attr), entities),
            _ => continue,
        };
        for a in attrs {
            if let Attr::Dimension(d) = a {
                dims(d, &mut out);
            }
        }
        for e in entities {
            if let Some(d) = &e.dims {
                dims(d, &mut out);
            }
            out.extend(e.char_len.iter().chain(e.init.iter()));
        }
    }
    out
}

/// A type-bound function referenced in a declaration is refused: the
/// declarations are not rewritten, and the bound procedure is no function
/// of the generated code.
fn check_declarations(spec: &[SpecStmt], scope: &Scope) -> FrontResult<()> {
    for top in declaration_exprs(spec) {
        let mut found = None;
        top.walk(&mut |e| {
            if let Expr::Member {
                base,
                field,
                args: Some(_),
                span,
            } = e
            {
                if scope.is_binding(base, field) && found.is_none() {
                    found = Some((object_text(base), field.clone(), *span));
                }
            }
        });
        if let Some((object, field, span)) = found {
            return Err(FrontError::unsupported(
                span,
                format!("unsupported construct: type-bound function '{object}%{field}' in a declaration (compute the value into a variable the declaration can use, or use a component)"),
            ));
        }
    }
    Ok(())
}

fn object_text(e: &Expr) -> String {
    crate::unparse::expr(e)
}

fn rewrite_body(
    body: &mut [Stmt],
    scope: &Scope,
    needs: &mut Needs,
    made: &mut Made,
) -> FrontResult<()> {
    let mut resolve = |object: &Expr,
                       binding: &str,
                       args: Vec<Arg>,
                       span: Span|
     -> FrontResult<Option<(String, Vec<Arg>)>> {
        let Some(t) = scope.type_of(object) else {
            return Ok(None);
        };
        if !scope.tables.types.contains_key(&t) {
            return Ok(None);
        }
        let target = binding_target(scope.tables, &t, binding, &object_text(object), span)?;
        let params = match &target.passed {
            PassedObject::Named(_) => params_of(
                scope.files,
                scope.tables,
                &target.module,
                &target.procedures[0],
            ),
            _ => None,
        };
        for p in &target.procedures {
            if params_of(scope.files, scope.tables, &target.module, p).is_none() {
                return Err(FrontError::unsupported(
                    span,
                    format!("unsupported construct: binding '{binding}' of type '{t}' names '{p}', which is not a module procedure of the type's module '{}'", target.module),
                ));
            }
            made.public.push((target.module.clone(), p.clone()));
        }
        if let Some((g, procs)) = target.generic.clone() {
            if !made
                .generics
                .iter()
                .any(|(m, n, _)| *m == target.module && *n == g)
            {
                made.generics.push((target.module.clone(), g, procs));
            }
        }
        needs.push((target.module.clone(), target.name.clone()));
        let args = with_object(
            args,
            object.clone(),
            &target.passed,
            params.as_deref(),
            span,
        )?;
        Ok(Some((target.name, args)))
    };
    Stmt::walk_mut(body, &mut |stmt| {
        stmt.own_exprs_mut(&mut |e| {
            e.walk_mut(&mut |x| {
                if let Expr::Member {
                    base,
                    field,
                    args: Some(args),
                    span,
                } = x
                {
                    if !scope.is_binding(base, field) {
                        return Ok(());
                    }
                    if let Some((name, args)) = resolve(base, field, std::mem::take(args), *span)? {
                        *x = Expr::Apply {
                            name,
                            args,
                            span: *span,
                        };
                    }
                }
                Ok(())
            })
        })?;
        let span = stmt.span;
        if let StmtKind::Call { name, args } = &mut stmt.kind {
            if let Some(binding) = name.strip_prefix(TYPE_BOUND_CALL) {
                let binding = binding.to_string();
                let mut rest = std::mem::take(args);
                let object = rest.remove(0).value;
                match resolve(&object, &binding, rest, span)? {
                    Some((callee, new_args)) => {
                        *name = callee;
                        *args = new_args;
                    }
                    None => {
                        return Err(FrontError::unsupported(
                            span,
                            format!("unsupported construct: type-bound call '{}%{binding}' on an object whose derived type is not known here", object_text(&object)),
                        ))
                    }
                }
            }
        }
        Ok(())
    })
}

/// Every unit's path (file, top-level unit, `contains` indices).
fn all_paths(files: &[SourceFile]) -> Vec<Vec<usize>> {
    fn visit(u: &Unit, path: Vec<usize>, out: &mut Vec<Vec<usize>>) {
        for (k, c) in u.contains.iter().enumerate() {
            let mut p = path.clone();
            p.push(k);
            visit(c, p, out);
        }
        out.push(path);
    }
    let mut out = Vec::new();
    for (f, file) in files.iter().enumerate() {
        for k in 0..file.units.len() {
            visit(&file.units[k], vec![f, k], &mut out);
        }
    }
    out
}

/// The units along `path`, outermost first.
fn units_along<'a>(files: &'a [SourceFile], path: &[usize]) -> Vec<&'a Unit> {
    let mut u = &files[path[0]].units[path[1]];
    let mut out = vec![u];
    for &k in &path[2..] {
        u = &u.contains[k];
        out.push(u);
    }
    out
}

fn unit_at_mut<'a>(files: &'a mut [SourceFile], path: &[usize]) -> &'a mut Unit {
    let mut u = &mut files[path[0]].units[path[1]];
    for &k in &path[2..] {
        u = &mut u.contains[k];
    }
    u
}

/// Makes `name` public in `module` where a `private` would hide it.
fn make_public(module: &mut Unit, name: &str) {
    let mut named_public = false;
    module.spec.retain_mut(|s| match s {
        SpecStmt::AttrStmt {
            attr: Attr::Private,
            entities,
            ..
        } => {
            entities.retain(|e| e.name != name);
            !entities.is_empty()
        }
        SpecStmt::AttrStmt {
            attr: Attr::Public,
            entities,
            ..
        } => {
            named_public |= entities.iter().any(|e| e.name == name);
            true
        }
        _ => true,
    });
    let default_private = module
        .spec
        .iter()
        .any(|s| matches!(s, SpecStmt::DefaultAccess(false, _)));
    if default_private && !named_public {
        let span = module.span;
        module.spec.push(SpecStmt::AttrStmt {
            attr: Attr::Public,
            entities: vec![EntityDecl {
                name: name.to_string(),
                dims: None,
                char_len: None,
                init: None,
                span,
            }],
            span,
        });
    }
}

/// Devirtualises every type-bound reference of the program (see the
/// module documentation).
pub fn devirtualise(files: &mut [SourceFile]) -> FrontResult<()> {
    let tables = Tables::build(files);
    let any_polymorphic = |u: &Unit| {
        fn has(u: &Unit) -> bool {
            !u.polymorphic.is_empty() || u.contains.iter().any(has)
        }
        has(u)
    };
    let any_bindings = tables.types.values().any(|t| !t.bindings.is_empty());
    if !any_bindings && !files.iter().flat_map(|f| &f.units).any(any_polymorphic) {
        return Ok(());
    }
    check_static_types(files, &tables)?;
    let mut made = Made::default();
    let mut rewritten = Vec::new();
    for path in all_paths(files) {
        let along = units_along(files, &path);
        let scope = Scope {
            files,
            tables: &tables,
            specs: along.iter().map(|u| u.spec.as_slice()).collect(),
        };
        check_declarations(&along[along.len() - 1].spec, &scope)?;
        let mut body = along[along.len() - 1].body.clone();
        let mut needs = Vec::new();
        rewrite_body(&mut body, &scope, &mut needs, &mut made)?;
        rewritten.push((path, body, needs));
    }
    for (path, body, needs) in rewritten {
        let top = &files[path[0]].units[path[1]];
        let home = (top.kind == UnitKind::Module).then(|| top.name.clone());
        let u = unit_at_mut(files, &path);
        u.body = body;
        let span = u.span;
        for (module, name) in needs {
            if home.as_deref() == Some(module.as_str()) {
                continue;
            }
            let present = u.spec.iter().any(|s| {
                matches!(s, SpecStmt::Use { module: m, only: true, items, .. }
                    if *m == module && items.iter().any(|(l, r)| *l == name && *r == name))
            });
            if !present {
                u.spec.insert(
                    0,
                    SpecStmt::Use {
                        module,
                        only: true,
                        items: vec![(name.clone(), name)],
                        span,
                    },
                );
            }
        }
    }
    for (module, name) in &made.public {
        let &(f, k) = &tables.modules[module];
        make_public(&mut files[f].units[k], name);
    }
    for (module, name, procedures) in made.generics {
        let (f, k) = tables.modules[&module];
        let m = &mut files[f].units[k];
        let span = m.span;
        m.spec.push(SpecStmt::Interface {
            generic: Some(name),
            bodies: Vec::new(),
            procedures,
            text: String::new(),
            span,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_file;

    const MODULE: &str = "module cols\n  implicit none\n  private\n  public :: column\n  type :: column\n    real(8) :: h\n  contains\n    procedure :: relax => column_relax\n    procedure :: depth\n    procedure, pass(self) :: nudge\n    procedure, nopass :: scale\n    procedure :: by_one, by_all\n    generic :: push => by_one, by_all\n  end type column\ncontains\n  subroutine column_relax(self, w)\n    class(column), intent(inout) :: self\n    real(8), intent(in) :: w\n    self%h = w * self%h\n  end subroutine\n  real(8) function depth(self, k)\n    class(column), intent(in) :: self\n    integer, intent(in) :: k\n    depth = k * self%h\n  end function\n  subroutine nudge(target, rate, self)\n    real(8), intent(in) :: target, rate\n    class(column), intent(inout) :: self\n    self%h = self%h + rate * (target - self%h)\n  end subroutine\n  real(8) function scale(a)\n    real(8), intent(in) :: a\n    scale = 2 * a\n  end function\n  subroutine by_one(self, a)\n    class(column), intent(inout) :: self\n    real(8), intent(in) :: a\n    self%h = self%h + a\n  end subroutine\n  subroutine by_all(self, a)\n    class(column), intent(inout) :: self\n    real(8), intent(in) :: a(:)\n    self%h = self%h + sum(a)\n  end subroutine\nend module cols\n";

    /// The statements of `head` after devirtualisation, as text.
    fn head_after(statements: &str) -> (Vec<String>, Unit) {
        let src = format!("{MODULE}subroutine head(x, y)\n  use cols, only: column\n  real(8) :: x(2), y\n  type(column) :: c\n{statements}\nend subroutine head\n");
        let mut files = vec![parse_file(&src, 0).unwrap()];
        devirtualise(&mut files).unwrap();
        let head = files[0].units[1].clone();
        let text = head
            .body
            .iter()
            .map(|s| match &s.kind {
                StmtKind::Call { name, args } => {
                    format!("call {name}({})", crate::unparse::args_text(args))
                }
                StmtKind::Assign { lhs, rhs } => format!(
                    "{} = {}",
                    crate::unparse::expr(lhs),
                    crate::unparse::expr(rhs)
                ),
                other => format!("{other:?}"),
            })
            .collect();
        (text, head)
    }

    #[test]
    fn calls_and_function_references_name_the_bound_procedure() {
        let (text, head) = head_after("  call c%relax(x(1))\n  y = c%depth(3) + c%scale(x(2)) + c%h\n  call c%nudge(x(1), rate=0.5d0)\n  call c%nudge(x(1), 0.5d0)\n");
        assert_eq!(
            text,
            [
                "call column_relax(c, x(1))",
                "y = depth(c, 3) + scale(x(2)) + c%h",
                "call nudge(x(1), rate=0.5d0, self=c)",
                "call nudge(x(1), 0.5d0, c)",
            ]
        );
        // Visible in head by a `use` of the type's module each.
        let used: Vec<&String> = head
            .spec
            .iter()
            .filter_map(|s| match s {
                SpecStmt::Use { items, .. } => Some(&items[0].0),
                _ => None,
            })
            .collect();
        for p in ["column_relax", "depth", "scale", "nudge"] {
            assert!(used.iter().any(|u| *u == p), "{used:?}");
        }
    }

    #[test]
    fn a_generic_binding_becomes_a_generic_interface_of_the_module() {
        let src = format!("{MODULE}subroutine head(x, y)\n  use cols, only: column\n  real(8) :: x(2), y\n  type(column) :: c\n  call c%push(x)\n  call c%push(y)\nend subroutine head\n");
        let mut files = vec![parse_file(&src, 0).unwrap()];
        devirtualise(&mut files).unwrap();
        let module = &files[0].units[0];
        let generic = module.spec.iter().find_map(|s| match s {
            SpecStmt::Interface {
                generic: Some(g),
                procedures,
                ..
            } => Some((g.clone(), procedures.clone())),
            _ => None,
        });
        assert_eq!(
            generic,
            Some((
                "push_oad_column".to_string(),
                vec!["by_one".to_string(), "by_all".to_string()]
            ))
        );
        // The bound procedures are public now (the module is private).
        let public: Vec<&String> = module
            .spec
            .iter()
            .filter_map(|s| match s {
                SpecStmt::AttrStmt {
                    attr: Attr::Public,
                    entities,
                    ..
                } => Some(&entities[0].name),
                _ => None,
            })
            .collect();
        assert!(public.iter().any(|p| *p == "by_one") && public.iter().any(|p| *p == "by_all"));
        // And the whole program builds: generic resolution picks by rank.
        crate::sema::Program::build(files).unwrap();
    }

    #[test]
    fn a_function_binding_in_a_declaration_is_refused() {
        let src = format!("{MODULE}subroutine head(c, k)\n  use cols, only: column\n  type(column) :: c\n  integer :: k\n  real(8) :: w(c%depth(k))\n  w = 0\nend subroutine head\n");
        let mut files = vec![parse_file(&src, 0).unwrap()];
        let e = devirtualise(&mut files).unwrap_err();
        assert!(
            e.message
                .contains("type-bound function 'c%depth' in a declaration"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_class_of_an_extended_type_is_refused() {
        let src = MODULE.replace(
            "contains\n  subroutine column_relax",
            "  type, extends(column) :: deep\n  end type deep\ncontains\n  subroutine column_relax",
        );
        let mut files = vec![parse_file(&src, 0).unwrap()];
        let e = devirtualise(&mut files).unwrap_err();
        assert!(
            e.message
                .contains("class(column) of a type that type 'deep' extends"),
            "{}",
            e.message
        );
    }
}
