//! Expressions and variable references from XAIF to Fortran text, with
//! the precedence rules of Fortran (parentheses only where needed).

use std::collections::{HashMap, HashSet};

use xaif_schema::{
    BooleanOp, Constant, ConstantType, Expression, ExpressionVertex, IndexTriplet, Symbol,
    SymbolType, VariableReference, VariableReferenceVertex,
};

use crate::error::{Result, XaifLocator};
use crate::symbols::XaifIndex;
use crate::Mode;

/// What a variable reference stands for in the generated code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefCtx {
    /// The value: `x%v` for active variables, `x` otherwise.
    Value,
    /// The derivative: `x%d` (active variables only).
    Deriv,
    /// The variable itself (`type(active)` if active): actual arguments,
    /// inquiry intrinsics, loop variables.
    Bare,
}

/// Precedence levels, loosest first.
const P_EQV: u8 = 1;
const P_OR: u8 = 2;
const P_AND: u8 = 3;
const P_NOT: u8 = 4;
const P_REL: u8 = 5;
const P_ADD: u8 = 6;
const P_MUL: u8 = 7;
const P_POW: u8 = 8;
const P_PRIMARY: u8 = 10;

/// How an intrinsic of docs/ARCHITECTURE.md's table is written.
#[derive(Debug, Clone, Copy)]
enum Form {
    Infix(&'static str, u8),
    Negate,
    Call(&'static str, usize),
    /// `real(a, 8)`.
    RealKind8,
    /// `size(a[, dim])`, `lbound`, `ubound`: the array argument bare.
    Inquiry(&'static str),
}

fn intrinsic_form(name: &str) -> Option<Form> {
    use Form::*;
    Some(match name {
        "add_scal_scal" => Infix("+", P_ADD),
        "sub_scal_scal" => Infix("-", P_ADD),
        "mul_scal_scal" => Infix("*", P_MUL),
        "div_scal_scal" => Infix("/", P_MUL),
        "pow_scal_scal" => Infix("**", P_POW),
        "minus_scal" => Negate,
        "sin_scal" => Call("sin", 1),
        "cos_scal" => Call("cos", 1),
        "tan_scal" => Call("tan", 1),
        "arcsin_scal" => Call("asin", 1),
        "arccos_scal" => Call("acos", 1),
        "arctan_scal" => Call("atan", 1),
        "arctan2_scal_scal" => Call("atan2", 2),
        "sinh_scal" => Call("sinh", 1),
        "cosh_scal" => Call("cosh", 1),
        "tanh_scal" => Call("tanh", 1),
        "exp_scal" => Call("exp", 1),
        "ln_scal" => Call("log", 1),
        "log10_scal" => Call("log10", 1),
        "sqrt_scal" => Call("sqrt", 1),
        "abs_scal" => Call("abs", 1),
        "sign_scal_scal" => Call("sign", 2),
        "min_scal_scal" => Call("min", 2),
        "max_scal_scal" => Call("max", 2),
        "mod_scal_scal" => Call("mod", 2),
        "dim_scal_scal" => Call("dim", 2),
        "modulo_scal_scal" => Call("modulo", 2),
        "hypot_scal_scal" => Call("hypot", 2),
        "erf_scal" => Call("erf", 1),
        "erfc_scal" => Call("erfc", 1),
        "int_scal" => Call("int", 1),
        "nint_scal" => Call("nint", 1),
        "aint_scal" => Call("aint", 1),
        "anint_scal" => Call("anint", 1),
        "floor_scal" => Call("floor", 1),
        "ceiling_scal" => Call("ceiling", 1),
        "real_scal" => RealKind8,
        "size" => Inquiry("size"),
        "lbound" => Inquiry("lbound"),
        "ubound" => Inquiry("ubound"),
        _ => return None,
    })
}

fn boolean_form(op: BooleanOp) -> (&'static str, u8) {
    match op {
        BooleanOp::LessThan => ("<", P_REL),
        BooleanOp::LessOrEqual => ("<=", P_REL),
        BooleanOp::GreaterThan => (">", P_REL),
        BooleanOp::GreaterOrEqual => (">=", P_REL),
        BooleanOp::Equal => ("==", P_REL),
        BooleanOp::NotEqual => ("/=", P_REL),
        BooleanOp::And => (".and.", P_AND),
        BooleanOp::Or => (".or.", P_OR),
        BooleanOp::Not => (".not.", P_NOT),
        BooleanOp::Xor => (".neqv.", P_EQV),
    }
}

/// Everything expression unparsing needs to know about the program.
pub struct Env<'a> {
    pub index: &'a XaifIndex<'a>,
    pub xaif: &'a XaifLocator,
    pub mode: Mode,
    /// Use-associated names of the unit being generated.
    pub local_names: std::cell::RefCell<crate::uses::LocalNames>,
    /// Subroutines (symbol ids) the reverse sweep never re-runs from a
    /// checkpoint (joint leaf template): checkpoints of their call sites
    /// are dropped.
    pub not_rerun: std::collections::HashSet<String>,
    /// Plain copies of loop-free module procedures, by symbol
    /// (`plain_clones.rs`): plain sections call them.
    pub plain_clones: HashMap<String, crate::plain_clones::PlainClone>,
    /// Passive scalar components read into locals before a loop that
    /// cannot change them, by (scope, symbol id) (`loop_invariants.rs`).
    pub invariant_locals: std::cell::RefCell<HashMap<(u64, String), String>>,
}

impl<'a> Env<'a> {
    pub fn new(index: &'a XaifIndex<'a>, xaif: &'a XaifLocator, mode: Mode) -> Self {
        Env {
            index,
            xaif,
            mode,
            local_names: Default::default(),
            not_rerun: Default::default(),
            plain_clones: Default::default(),
            invariant_locals: Default::default(),
        }
    }
}

/// Wraps `text` in parentheses when its precedence is below `min`.
fn paren_if(text: String, prec: u8, min: u8) -> String {
    if prec < min {
        format!("({text})")
    } else {
        text
    }
}

/// Parts of a variable reference in access order, with the symbol.
struct RefParts<'r, 'a> {
    steps: Vec<&'r VariableReferenceVertex>,
    symbol: &'a Symbol,
    name: String,
}

impl<'a> Env<'a> {
    /// The text of an expression.
    pub fn expression(&self, e: &Expression) -> Result<String> {
        Ok(self.expression_prec(e)?.0)
    }

    /// The text of an expression and the precedence of its top operator.
    pub fn expression_prec(&self, e: &Expression) -> Result<(String, u8)> {
        let g = self.graph(e)?;
        let sources: HashSet<&str> = e.edges.iter().map(|ed| ed.source.as_str()).collect();
        let roots: Vec<&ExpressionVertex> = e
            .vertices
            .iter()
            .filter(|v| !sources.contains(v.vertex_id()))
            .collect();
        let [root] = roots.as_slice() else {
            let what = e.vertices.first().map(|v| v.vertex_id()).unwrap_or("");
            return Err(self.xaif.error(
                &format!("vertex_id=\"{what}\""),
                format!("expression has {} roots, expected one", roots.len()),
            ));
        };
        self.vertex(&g, root, 0)
    }

    /// The text of the sub-expression rooted at vertex `id`.
    pub fn subexpression(&self, e: &Expression, id: &str) -> Result<String> {
        let g = self.graph(e)?;
        let v = g.by_id.get(id).copied().ok_or_else(|| {
            self.xaif.error(
                &format!("vertex_id=\"{id}\""),
                format!("no expression vertex '{id}'"),
            )
        })?;
        Ok(self.vertex(&g, v, 0)?.0)
    }

    fn graph<'e>(&self, e: &'e Expression) -> Result<ExprGraph<'e>> {
        let mut by_id: HashMap<&str, &ExpressionVertex> = HashMap::new();
        for v in &e.vertices {
            by_id.insert(v.vertex_id(), v);
        }
        let mut args: HashMap<&str, Vec<(i64, &str)>> = HashMap::new();
        for edge in &e.edges {
            if !by_id.contains_key(edge.source.as_str())
                || !by_id.contains_key(edge.target.as_str())
            {
                return Err(self.xaif.error(
                    &format!("edge_id=\"{}\"", edge.edge_id),
                    format!("expression edge '{}' joins unknown vertices", edge.edge_id),
                ));
            }
            args.entry(edge.target.as_str())
                .or_default()
                .push((edge.position, edge.source.as_str()));
        }
        for list in args.values_mut() {
            list.sort();
        }
        Ok(ExprGraph { by_id, args })
    }

    fn vertex(&self, g: &ExprGraph, v: &ExpressionVertex, depth: usize) -> Result<(String, u8)> {
        if depth > 1_000 {
            return Err(self.xaif.error(
                &format!("vertex_id=\"{}\"", v.vertex_id()),
                "expression graph has a cycle",
            ));
        }
        let id = v.vertex_id();
        let args: Vec<&ExpressionVertex> = g
            .args
            .get(id)
            .map(|l| l.iter().map(|(_, s)| g.by_id[s]).collect())
            .unwrap_or_default();
        let arity_error = |what: &str, n: usize| {
            self.xaif.error(
                &format!("name=\"{what}\""),
                format!("'{what}' takes {n} argument(s), has {}", args.len()),
            )
        };
        match v {
            ExpressionVertex::VariableReference(r) => {
                Ok((self.var_ref(r, RefCtx::Value)?, P_PRIMARY))
            }
            ExpressionVertex::Constant(c) => Ok(constant(c)),
            ExpressionVertex::Intrinsic(i) => {
                let form = intrinsic_form(&i.name).ok_or_else(|| {
                    self.xaif.error(
                        &format!("name=\"{}\"", i.name),
                        format!("unknown intrinsic '{}'", i.name),
                    )
                })?;
                match form {
                    Form::Infix(op, p) => {
                        if args.len() != 2 {
                            return Err(arity_error(&i.name, 2));
                        }
                        let (l, lp) = self.vertex(g, args[0], depth + 1)?;
                        let (r, rp) = self.vertex(g, args[1], depth + 1)?;
                        let (lmin, rmin) = if p == P_POW { (p + 1, p) } else { (p, p + 1) };
                        // Spaces around + and - only, so terms stand out.
                        let sep = if p == P_ADD {
                            format!(" {op} ")
                        } else {
                            op.to_string()
                        };
                        Ok((
                            format!("{}{sep}{}", paren_if(l, lp, lmin), paren_if(r, rp, rmin)),
                            p,
                        ))
                    }
                    Form::Negate => {
                        if args.len() != 1 {
                            return Err(arity_error(&i.name, 1));
                        }
                        let (a, ap) = self.vertex(g, args[0], depth + 1)?;
                        Ok((format!("-{}", paren_if(a, ap, P_ADD + 1)), P_ADD))
                    }
                    Form::Call(f, n) => {
                        if args.len() != n {
                            return Err(arity_error(&i.name, n));
                        }
                        let texts = args
                            .iter()
                            .map(|a| self.vertex(g, a, depth + 1).map(|t| t.0))
                            .collect::<Result<Vec<_>>>()?;
                        Ok((format!("{f}({})", texts.join(", ")), P_PRIMARY))
                    }
                    Form::RealKind8 => {
                        if args.len() != 1 {
                            return Err(arity_error(&i.name, 1));
                        }
                        let (a, _) = self.vertex(g, args[0], depth + 1)?;
                        Ok((format!("real({a}, 8)"), P_PRIMARY))
                    }
                    Form::Inquiry(f) => {
                        if args.is_empty() || args.len() > 2 {
                            return Err(arity_error(&i.name, 1));
                        }
                        let mut texts = Vec::new();
                        for (k, a) in args.iter().enumerate() {
                            texts.push(match (k, a) {
                                (0, ExpressionVertex::VariableReference(r)) => {
                                    self.var_ref(r, RefCtx::Bare)?
                                }
                                _ => self.vertex(g, a, depth + 1)?.0,
                            });
                        }
                        Ok((format!("{f}({})", texts.join(", ")), P_PRIMARY))
                    }
                }
            }
            ExpressionVertex::BooleanOperation(b) => {
                let (mut op, mut p) = boolean_form(b.name);
                // Equality of logical operands is .eqv. / .neqv. in Fortran.
                if matches!(b.name, BooleanOp::Equal | BooleanOp::NotEqual)
                    && args.iter().any(|a| self.is_logical(a))
                {
                    op = if b.name == BooleanOp::Equal {
                        ".eqv."
                    } else {
                        ".neqv."
                    };
                    p = P_EQV;
                }
                if b.name == BooleanOp::Not {
                    if args.len() != 1 {
                        return Err(arity_error(op, 1));
                    }
                    let (a, ap) = self.vertex(g, args[0], depth + 1)?;
                    return Ok((format!(".not. {}", paren_if(a, ap, p + 1)), p));
                }
                if args.len() != 2 {
                    return Err(arity_error(op, 2));
                }
                let (l, lp) = self.vertex(g, args[0], depth + 1)?;
                let (r, rp) = self.vertex(g, args[1], depth + 1)?;
                // Relations do not associate; logical operators associate left.
                let lmin = if p == P_REL { p + 1 } else { p };
                Ok((
                    format!("{} {op} {}", paren_if(l, lp, lmin), paren_if(r, rp, p + 1)),
                    p,
                ))
            }
            ExpressionVertex::FunctionCall(f) => {
                let name = f.symbol_id.clone().unwrap_or_default();
                let texts = f
                    .arguments
                    .iter()
                    .map(|a| self.var_ref(a, RefCtx::Value))
                    .collect::<Result<Vec<_>>>()?;
                Ok((format!("{name}({})", texts.join(", ")), P_PRIMARY))
            }
            ExpressionVertex::ArgumentReference(_) => Err(self.xaif.error(
                "ArgumentReference",
                "argument reference outside an intrinsic catalogue",
            )),
        }
    }

    /// Whether an expression vertex has a logical value.
    fn is_logical(&self, v: &ExpressionVertex) -> bool {
        match v {
            ExpressionVertex::BooleanOperation(_) => true,
            ExpressionVertex::Constant(c) => c.type_ == ConstantType::Bool,
            ExpressionVertex::Intrinsic(i) => i.r_type == SymbolType::Bool,
            ExpressionVertex::VariableReference(r) => self
                .ref_parts(r)
                .is_ok_and(|p| p.symbol.type_ == SymbolType::Bool),
            _ => false,
        }
    }

    /// The symbol a reference names (its last symbol step).
    pub(crate) fn reference_symbol(&self, r: &VariableReference) -> Result<&'a Symbol> {
        Ok(self.ref_parts(r)?.symbol)
    }

    fn ref_parts<'r>(&self, r: &'r VariableReference) -> Result<RefParts<'r, 'a>> {
        let ordered = order_ref_vertices(r);
        let Some(steps) = ordered else {
            return Err(self.xaif.error(
                &format!("vertex_id=\"{}\"", r.vertex_id),
                "variable reference is not a simple access path",
            ));
        };
        let mut symbol = None;
        let mut name = String::new();
        for s in &steps {
            if let VariableReferenceVertex::SymbolReference(sr) = s {
                let found = self
                    .index
                    .symbol(sr.scope_id, &sr.symbol_id)
                    .or_else(|| self.index.resolve(sr.scope_id, &sr.symbol_id));
                let Some(sym) = found else {
                    return Err(self.xaif.error(
                        &format!("symbol_id=\"{}\"", sr.symbol_id),
                        format!("unknown symbol '{}' in scope {}", sr.symbol_id, sr.scope_id),
                    ));
                };
                symbol = Some(sym);
                name = sr.symbol_id.as_str().to_ascii_lowercase().to_string();
            }
        }
        let Some(symbol) = symbol else {
            return Err(self.xaif.error(
                &format!("vertex_id=\"{}\"", r.vertex_id),
                "variable reference without a symbol",
            ));
        };
        Ok(RefParts {
            steps,
            symbol,
            name,
        })
    }

    /// The symbol a variable reference names.
    pub fn ref_symbol(&self, r: &VariableReference) -> Result<&'a Symbol> {
        Ok(self.ref_parts(r)?.symbol)
    }

    /// Whether the reference denotes more than one element: a whole array
    /// or an array section.
    pub fn ref_is_array_valued(&self, r: &VariableReference) -> Result<bool> {
        let parts = self.ref_parts(r)?;
        let mut subscripted = false;
        for s in &parts.steps {
            if let VariableReferenceVertex::ArrayElementReference(a) = s {
                subscripted = true;
                if a.index_triplets
                    .iter()
                    .any(|t| t.bound.is_some() || t.index.is_none())
                {
                    return Ok(true);
                }
            }
        }
        Ok(!subscripted && parts.symbol.shape.rank() > 0)
    }

    /// The text of a variable reference in the given context.
    pub fn var_ref(&self, r: &VariableReference, ctx: RefCtx) -> Result<String> {
        let parts = self.ref_parts(r)?;
        let path = crate::components::is_component_path(&parts.name);
        if path && !parts.symbol.active {
            if let [VariableReferenceVertex::SymbolReference(sr)] = parts.steps.as_slice() {
                let key = (sr.scope_id, parts.name.clone());
                if let Some(local) = self.invariant_locals.borrow().get(&key) {
                    return Ok(local.clone());
                }
            }
        }
        let mut text = if path {
            self.component_path_ref(&parts)?
        } else {
            String::new()
        };
        for s in parts.steps.iter().filter(|_| !path) {
            match s {
                VariableReferenceVertex::SymbolReference(sr) => {
                    if !text.is_empty() {
                        text.push('%');
                    }
                    let remote = sr.symbol_id.as_str().to_ascii_lowercase();
                    let local = self
                        .local_names
                        .borrow()
                        .by_remote
                        .get(&(sr.scope_id, remote.to_string()))
                        .cloned();
                    text.push_str(&local.unwrap_or(remote.to_string()));
                }
                VariableReferenceVertex::ArrayElementReference(a) => {
                    let subs = a
                        .index_triplets
                        .iter()
                        .map(|t| self.triplet(t))
                        .collect::<Result<Vec<_>>>()?;
                    text.push('(');
                    text.push_str(&subs.join(", "));
                    text.push(')');
                }
            }
        }
        let active = parts.symbol.active;
        match ctx {
            RefCtx::Value if active => text.push_str("%v"),
            RefCtx::Deriv if active => text.push_str("%d"),
            RefCtx::Deriv => {
                return Err(self.xaif.error(
                    &format!("symbol_id=\"{}\"", parts.name),
                    format!("derivative of passive variable '{}'", parts.name),
                ))
            }
            _ => {}
        }
        Ok(text)
    }

    /// A component-path reference (`components.rs`): its symbol, then at
    /// most one subscript list, distributed over the parts.
    fn component_path_ref(&self, parts: &RefParts) -> Result<String> {
        let mut subs: Option<Vec<String>> = None;
        for s in &parts.steps {
            match s {
                VariableReferenceVertex::SymbolReference(_) => {}
                VariableReferenceVertex::ArrayElementReference(a) => {
                    if subs.is_some() {
                        return Err(self.xaif.error(
                            &format!("symbol_id=\"{}\"", parts.name),
                            "component path with two subscript lists",
                        ));
                    }
                    subs = Some(
                        a.index_triplets
                            .iter()
                            .map(|t| self.triplet(t))
                            .collect::<Result<Vec<_>>>()?,
                    );
                }
            }
        }
        Ok(crate::components::path_text(&parts.name, subs.as_deref()))
    }

    fn triplet(&self, t: &IndexTriplet) -> Result<String> {
        let part = |e: &Option<Expression>| -> Result<String> {
            match e {
                Some(e) => self.expression(e),
                None => Ok(String::new()),
            }
        };
        let index = part(&t.index)?;
        if t.bound.is_none() && t.stride.is_none() {
            return Ok(if index.is_empty() { ":".into() } else { index });
        }
        let mut s = format!("{index}:{}", part(&t.bound)?);
        if t.stride.is_some() {
            s.push(':');
            s.push_str(&part(&t.stride)?);
        }
        Ok(s)
    }
}

struct ExprGraph<'e> {
    by_id: HashMap<&'e str, &'e ExpressionVertex>,
    args: HashMap<&'e str, Vec<(i64, &'e str)>>,
}

/// The vertices of a variable reference in access order (symbol first,
/// then subscripts / components along the edges), or `None` if the graph
/// is not a simple path.
fn order_ref_vertices(r: &VariableReference) -> Option<Vec<&VariableReferenceVertex>> {
    if r.vertices.is_empty() {
        return None;
    }
    if r.edges.is_empty() {
        return (r.vertices.len() == 1).then(|| vec![&r.vertices[0]]);
    }
    let by_id: HashMap<&str, &VariableReferenceVertex> =
        r.vertices.iter().map(|v| (v.vertex_id(), v)).collect();
    let start = r
        .vertices
        .iter()
        .find(|v| !r.edges.iter().any(|e| e.target == v.vertex_id()))?;
    let mut out = vec![start];
    let mut cur = start.vertex_id();
    while let Some(e) = r.edges.iter().find(|e| e.source == cur) {
        let next = by_id.get(e.target.as_str())?;
        if out.len() > r.vertices.len() {
            return None;
        }
        out.push(next);
        cur = next.vertex_id();
    }
    (out.len() == r.vertices.len()).then_some(out)
}

/// A constant verbatim (logical constants spelled `true`/`false` in XAIF
/// style become `.true.`/`.false.`).
fn constant(c: &Constant) -> (String, u8) {
    let v = c.value.trim();
    let text = match (c.type_, v.to_ascii_lowercase().as_str()) {
        (ConstantType::Bool, "true" | "1") => ".true.".to_string(),
        (ConstantType::Bool, "false" | "0") => ".false.".to_string(),
        _ => v.to_string(),
    };
    let prec = if text.starts_with('-') || text.starts_with('+') {
        P_ADD
    } else {
        P_PRIMARY
    };
    (text, prec)
}

/// Precedence of a product's operand: factors of `a*x%d` are wrapped
/// below this.
pub const MUL_OPERAND: u8 = P_MUL;
/// Wraps a factor for use as the left operand of `*`.
pub fn as_factor(text: String, prec: u8) -> String {
    paren_if(text, prec, MUL_OPERAND)
}

/// The root of an expression and its arguments in position order.
pub fn root_and_args(e: &Expression) -> Option<(&ExpressionVertex, Vec<&ExpressionVertex>)> {
    let sources: HashSet<&str> = e.edges.iter().map(|ed| ed.source.as_str()).collect();
    let mut roots = e
        .vertices
        .iter()
        .filter(|v| !sources.contains(v.vertex_id()));
    let root = roots.next()?;
    if roots.next().is_some() {
        return None;
    }
    let mut args: Vec<(i64, &ExpressionVertex)> = e
        .edges
        .iter()
        .filter(|ed| ed.target == root.vertex_id())
        .filter_map(|ed| {
            e.vertices
                .iter()
                .find(|v| v.vertex_id() == ed.source)
                .map(|v| (ed.position, v))
        })
        .collect();
    args.sort_by_key(|(p, _)| *p);
    Some((root, args.into_iter().map(|(_, v)| v).collect()))
}

/// The symbol name of a plain (unsubscripted) variable reference.
pub fn plain_symbol_name(r: &VariableReference) -> Option<String> {
    match r.vertices.as_slice() {
        [VariableReferenceVertex::SymbolReference(s)] => {
            Some(s.symbol_id.as_str().to_ascii_lowercase().to_string())
        }
        _ => None,
    }
}
