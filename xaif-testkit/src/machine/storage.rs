//! Where references point: symbols through frames (formals bound to the
//! actual's storage, views of sections and sequence association, component
//! paths), array bounds and elements, and inputs drawn on first read.

use xaif_schema::model::*;

use super::{draw, Input, Machine};
use crate::builder::VECTOR_LEN;

/// One dimension of an array-valued reference: its subscripts in order.
type Extent = Vec<i64>;

impl Machine {
    pub(super) fn symbol(&self, s: &SymbolReference) -> Option<&Symbol> {
        self.symbols.as_ref()?.lookup(s.scope_id, &s.symbol_id)
    }

    pub(super) fn resolve(&self, name: &str) -> String {
        if let Some(actual) = self.frame.bindings.get(name) {
            return actual.clone();
        }
        // A component path (`p%pos`, `cells(1)%q`: docs/xaif.md) of a
        // derived-type formal is the same path of the actual.
        if let Some(at) = name.find(['%', '(']) {
            if let Some(actual) = self.frame.bindings.get(&name[..at]) {
                if actual.contains('(') {
                    crate::not_interpretable!("component of a derived-type array element actual");
                }
                return format!("{actual}{}", &name[at..]);
            }
        }
        format!("{}{name}", self.frame.prefix)
    }

    /// The storage of a symbol: the frame's own or bound to an actual
    /// argument, else the global storage of its scope.
    pub(super) fn base(&self, s: &SymbolReference) -> String {
        if s.scope_id == 1 && self.frame.scope != Some(1) {
            return s.symbol_id.to_string();
        }
        match self.frame.scope {
            Some(scope) if scope != s.scope_id => format!("{}@{}", s.symbol_id, s.scope_id),
            _ => self.resolve(&s.symbol_id),
        }
    }

    pub(super) fn symbol_reference(r: &VariableReference) -> &SymbolReference {
        let mut symbol = None;
        for v in &r.vertices {
            match v {
                VariableReferenceVertex::SymbolReference(s) => {
                    if symbol.is_some() {
                        crate::not_interpretable!(
                            "reference with several symbols (derived-type component)"
                        );
                    }
                    symbol = Some(s)
                }
                VariableReferenceVertex::ArrayElementReference(_) => {}
            }
        }
        symbol.expect("reference without symbol")
    }

    pub(super) fn subscripts(r: &VariableReference) -> Option<&ArrayElementReference> {
        let mut found = None;
        for v in &r.vertices {
            if let VariableReferenceVertex::ArrayElementReference(a) = v {
                if found.is_some() {
                    crate::not_interpretable!("reference with several subscript lists");
                }
                found = Some(a);
            }
        }
        found
    }

    /// The bounds of every dimension of the array `s`.
    pub(super) fn bounds(&self, s: &SymbolReference) -> Vec<(i64, i64)> {
        self.known_bounds(s).unwrap_or_else(|| {
            crate::not_interpretable!("array without constant DimensionBounds: {}", s.symbol_id)
        })
    }

    /// The bounds of every dimension of the array `s`: declared, else
    /// those of the whole array bound to it.
    pub(super) fn known_bounds(&self, s: &SymbolReference) -> Option<Vec<(i64, i64)>> {
        if self.symbols.is_none() {
            return Some(vec![(1, VECTOR_LEN)]);
        }
        let sym = self
            .symbol(s)
            .unwrap_or_else(|| crate::not_interpretable!("unknown symbol: {}", s.symbol_id));
        if !sym.dimension_bounds.is_empty() {
            return Some(
                sym.dimension_bounds
                    .iter()
                    .map(|b| (b.lower, b.upper))
                    .collect(),
            );
        }
        if let Some(view) = self.view(s) {
            return (sym.shape.rank() == 1).then(|| vec![(1, view.len() as i64)]);
        }
        let local = self.frame.scope.is_none_or(|f| f == s.scope_id);
        if local {
            return self.frame.bounds.get(s.symbol_id.as_str()).cloned();
        }
        None
    }

    /// The elements a formal bound to a section or an element stands for.
    pub(super) fn view(&self, s: &SymbolReference) -> Option<&Vec<String>> {
        let local = self.frame.scope.is_none_or(|f| f == s.scope_id) && s.scope_id != 1;
        if local {
            self.frame.views.get(s.symbol_id.as_str())
        } else {
            None
        }
    }

    /// The storage of element `idx` of the array `s`.
    pub(super) fn element_location(&self, s: &SymbolReference, idx: &[i64]) -> String {
        let Some(view) = self.view(s) else {
            let bound_to_element = self
                .frame
                .bindings
                .get(s.symbol_id.as_str())
                .is_some_and(|b| b.contains('('));
            if bound_to_element {
                crate::not_interpretable!("subscripted scalar formal");
            }
            return element_name(&self.base(s), idx);
        };
        // The linear position in array element order.
        let bounds = self.bounds(s);
        let mut linear = 0i64;
        let mut stride = 1i64;
        for (i, (lo, hi)) in idx.iter().zip(&bounds) {
            linear += (i - lo) * stride;
            stride *= hi - lo + 1;
        }
        view.get(linear as usize)
            .unwrap_or_else(|| {
                // Drawn integers (a parameter XAIF shows as a variable)
                // need not agree with the actual's extent.
                crate::not_interpretable!("subscript beyond the actual argument: {}", s.symbol_id)
            })
            .clone()
    }

    pub(super) fn is_array_symbol(&self, s: &SymbolReference) -> bool {
        self.symbol(s)
            .is_some_and(|sym| sym.shape != SymbolShape::Scalar)
    }

    /// The elements an array-valued reference denotes (whole array or
    /// section), in array element order; `None` for a scalar reference.
    pub fn elements(&mut self, r: &VariableReference) -> Option<Vec<String>> {
        let s = Self::symbol_reference(r);
        let extents: Vec<Extent> = match Self::subscripts(r) {
            None if self.is_array_symbol(s) => self
                .bounds(s)
                .into_iter()
                .map(|(lo, hi)| (lo..=hi).collect())
                .collect(),
            None => return None,
            Some(a) if a.index_triplets.iter().all(is_scalar_subscript) => return None,
            Some(a) => {
                let declared = self.bounds(s);
                a.index_triplets
                    .iter()
                    .enumerate()
                    .map(|(k, t)| {
                        let (lo, hi) = declared.get(k).copied().unwrap_or((1, 0));
                        let start = t.index.as_ref().map_or(lo, |e| self.eval_int(e));
                        match &t.bound {
                            None if is_scalar_subscript(t) => vec![start],
                            bound => {
                                let end = bound.as_ref().map_or(hi, |e| self.eval_int(e));
                                let step = t.stride.as_ref().map_or(1, |e| self.eval_int(e));
                                assert!(step != 0, "zero stride");
                                let mut out = Vec::new();
                                let mut i = start;
                                while (step > 0 && i <= end) || (step < 0 && i >= end) {
                                    out.push(i);
                                    i += step;
                                }
                                out
                            }
                        }
                    })
                    .collect()
            }
        };
        // Array element order: the first subscript varies fastest.
        let mut out = Vec::new();
        if extents.iter().any(|e| e.is_empty()) {
            return Some(out);
        }
        let mut pos = vec![0usize; extents.len()];
        loop {
            let idx: Vec<i64> = pos.iter().zip(&extents).map(|(&p, e)| e[p]).collect();
            out.push(self.element_location(s, &idx));
            let mut k = 0;
            loop {
                if k == pos.len() {
                    return Some(out);
                }
                pos[k] += 1;
                if pos[k] < extents[k].len() {
                    break;
                }
                pos[k] = 0;
                k += 1;
            }
        }
    }

    /// Gives the current frame's array formals that declare no bounds
    /// (`x(n)`, `x(:)` of a routine run at the top, with no actual to take
    /// them from) the bounds `1:extent` in every dimension. The interpreter
    /// then runs them as arrays of that shape whatever integer `n` it
    /// draws: one fixed semantics for input, tangent and adjoint alike.
    pub fn assume_bounds_of_formals(&mut self, extent: i64) {
        let (Some(symbols), Some(scope)) = (&self.symbols, self.frame.scope) else {
            return;
        };
        for formal in self.frame.bindings.keys() {
            if let Some(sym) = symbols.lookup(scope, formal) {
                let rank = sym.shape.rank();
                if rank > 0 && sym.dimension_bounds.is_empty() {
                    self.frame
                        .bounds
                        .insert(formal.clone(), vec![(1, extent); rank]);
                }
            }
        }
    }

    /// The storage a scalar reference denotes: `x`, `v(2)`, `a(1,3)`.
    pub fn location(&mut self, r: &VariableReference) -> String {
        let s = Self::symbol_reference(r);
        match Self::subscripts(r) {
            None if self.view(s).is_some() => {
                crate::not_interpretable!("whole array formal in a scalar context")
            }
            None => self.base(s),
            Some(a) => {
                if !a.index_triplets.iter().all(is_scalar_subscript) {
                    crate::not_interpretable!("array section in a scalar context: {}", s.symbol_id);
                }
                let idx: Vec<i64> = a
                    .index_triplets
                    .iter()
                    .map(|t| self.eval_int(t.index.as_ref().expect("subscript")))
                    .collect();
                self.element_location(s, &idx)
            }
        }
    }

    /// Type and activity of what a reference reads, for drawn inputs.
    pub(super) fn input_kind(&self, r: &VariableReference) -> (SymbolType, bool) {
        let s = Self::symbol_reference(r);
        match self.symbol(s) {
            Some(sym) => {
                let active = match r.active {
                    ActiveUse::True => true,
                    ActiveUse::False => false,
                    ActiveUse::Undefined => sym.active,
                };
                (sym.type_, active && sym.type_ == SymbolType::Real)
            }
            None => (SymbolType::Real, true),
        }
    }

    pub(super) fn read_location(&mut self, n: &str, r: &VariableReference) -> f64 {
        if let Some(x) = self.v.get(n) {
            return *x;
        }
        let (type_, active_real) = self.input_kind(r);
        let Some(inputs) = &mut self.inputs else {
            panic!("read of unset variable {n}");
        };
        let value = draw(inputs.seed, &routine_level_name(n), type_);
        inputs
            .drawn
            .insert(n.to_string(), Input { value, active_real });
        self.v.insert(n.to_string(), value);
        value
    }

    pub fn read(&mut self, r: &VariableReference) -> f64 {
        let n = self.location(r);
        self.read_location(&n, r)
    }

    pub(super) fn deriv(&mut self, r: &VariableReference) -> f64 {
        let n = self.location(r);
        *self.d.get(&n).unwrap_or(&0.0)
    }
}

/// A subscript that selects one position (`i`; not `:` or `i:j`).
pub(super) fn is_scalar_subscript(t: &IndexTriplet) -> bool {
    t.index.is_some() && t.bound.is_none() && t.stride.is_none()
}

fn element_name(base: &str, idx: &[i64]) -> String {
    let list: Vec<String> = idx.iter().map(|i| i.to_string()).collect();
    format!("{base}({})", list.join(","))
}

/// The name a drawn value is hashed by: a local of a called routine
/// (`step#13:friction`, the 13th call) drawn by its routine's name
/// (`step:friction`). A local read before any write is a `parameter` or
/// `save` value (the XAIF does not give it), the same in every call; drawn
/// per call, the reverse sweep's re-run of a routine (its own call number)
/// would read another value than the forward sweep's.
fn routine_level_name(n: &str) -> std::borrow::Cow<'_, str> {
    let Some((frame, rest)) = n.split_once(':') else {
        return n.into();
    };
    match frame.split_once('#') {
        Some((routine, call)) if call.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{routine}:{rest}").into()
        }
        _ => n.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::routine_level_name;

    #[test]
    fn locals_of_every_call_of_a_routine_draw_alike() {
        assert_eq!(routine_level_name("step#13:friction"), "step:friction");
        assert_eq!(routine_level_name("step#1:a(3)"), "step:a(3)");
        assert_eq!(routine_level_name("local:x"), "local:x");
        assert_eq!(routine_level_name("g@2"), "g@2");
    }
}
