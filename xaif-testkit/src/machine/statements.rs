//! Statements: assignments, derivative propagators, tape and checkpoint
//! calls, markers, subroutine calls (split and joint mode).

use std::collections::HashMap;
use xaif_schema::model::*;

use super::storage::is_scalar_subscript;
use super::{constant_value, Callee, Frame, Machine};

impl Machine {
    /// `lhs = rhs`, element-wise when the left-hand side is array-valued
    /// (every element's value computed before any is stored).
    pub(super) fn assign(&mut self, a: &Assignment) {
        let targets = match self.elements(&a.lhs.reference) {
            None => {
                let value = self.eval(&a.rhs);
                let target = self.location(&a.lhs.reference);
                vec![(target, value)]
            }
            Some(targets) => {
                let values: Vec<f64> = (0..targets.len())
                    .map(|k| self.eval_at(&a.rhs, Some(k)))
                    .collect();
                targets.into_iter().zip(values).collect()
            }
        };
        let active_real = self.inputs.is_some() && self.input_kind(&a.lhs.reference).1;
        for (t, x) in targets {
            if self.inputs.is_some() {
                self.written.insert(t.clone(), active_real);
            }
            self.v.insert(t, x);
        }
    }

    pub(super) fn set_deriv(&mut self, r: &VariableReference, value: f64) {
        let n = self.location(r);
        self.d.insert(n, value);
    }

    pub(super) fn propagate(&mut self, p: &DerivativePropagator) {
        for e in &p.entries {
            match e {
                PropagatorEntry::SetDeriv { tgt, src } => {
                    let x = self.deriv(src);
                    self.set_deriv(tgt, x)
                }
                PropagatorEntry::SetNegDeriv { tgt, src } => {
                    let x = -self.deriv(src);
                    self.set_deriv(tgt, x)
                }
                PropagatorEntry::IncDeriv { tgt, src } => {
                    let x = self.deriv(tgt) + self.deriv(src);
                    self.set_deriv(tgt, x)
                }
                PropagatorEntry::DecDeriv { tgt, src } => {
                    let x = self.deriv(tgt) - self.deriv(src);
                    self.set_deriv(tgt, x)
                }
                PropagatorEntry::Sax { ax, y } => {
                    let mut x = 0.0;
                    for t in ax {
                        x += self.eval(&t.a) * self.deriv(&t.x);
                    }
                    self.set_deriv(y, x)
                }
                PropagatorEntry::Saxpy { ax, y } => {
                    let mut x = self.deriv(y);
                    for t in ax {
                        x += self.eval(&t.a) * self.deriv(&t.x);
                    }
                    self.set_deriv(y, x)
                }
                PropagatorEntry::ZeroDeriv(y) => self.set_deriv(y, 0.0),
            }
        }
    }

    pub(super) fn inlinable_call(&mut self, c: &InlinableSubroutineCall) {
        if c.arguments.len() != 1 {
            crate::not_interpretable!(
                "inlinable call {} with {} arguments",
                c.subroutine_name,
                c.arguments.len()
            );
        }
        let arg = c.arguments[0].value.clone();
        let value = |m: &mut Machine| match &arg {
            ArgumentValue::Variable(r) => m.read(r),
            ArgumentValue::Constant(k) => constant_value(k),
        };
        let target = |m: &mut Machine| match &arg {
            ArgumentValue::Variable(r) => m.location(r),
            ArgumentValue::Constant(_) => panic!("pop into a constant"),
        };
        match c.subroutine_name.as_str() {
            name if name.starts_with("cp_store_") && name.ends_with("_array") => {
                let ArgumentValue::Variable(r) = &arg else {
                    panic!("checkpoint of a constant")
                };
                let elements = self
                    .elements(r)
                    .unwrap_or_else(|| panic!("{name} of a scalar"));
                for n in elements {
                    let x = self.read_location(&n, r);
                    self.checkpoints.push(x);
                }
            }
            name if name.starts_with("cp_restore_") && name.ends_with("_array") => {
                let ArgumentValue::Variable(r) = &arg else {
                    panic!("restore into a constant")
                };
                let elements = self
                    .elements(r)
                    .unwrap_or_else(|| panic!("{name} of a scalar"));
                for n in elements.into_iter().rev() {
                    let x = self.checkpoints.pop().expect("checkpoint underflow");
                    self.v.insert(n, x);
                }
            }
            name if name.starts_with("cp_store_") && name.ends_with("_scalar") => {
                let x = value(self);
                self.checkpoints.push(x)
            }
            name if name.starts_with("cp_restore_") && name.ends_with("_scalar") => {
                let x = self.checkpoints.pop().expect("checkpoint underflow");
                let n = target(self);
                self.v.insert(n, x);
            }
            "push_real" => {
                let x = value(self);
                self.real_tape.push(x)
            }
            "push_int" => {
                let x = value(self);
                assert_eq!(x.fract(), 0.0, "push_int of a non-integer");
                self.int_tape.push(x as i64)
            }
            "pop_real" => {
                let x = self.real_tape.pop().expect("real tape underflow");
                let n = target(self);
                self.v.insert(n, x);
            }
            "pop_int" => {
                let x = self.int_tape.pop().expect("integer tape underflow");
                let n = target(self);
                self.v.insert(n, x as f64);
            }
            // Array snapshots (the booster's `adjoint/array_snapshots.rs`):
            // every element of the array on a stack of their own (the order
            // of pushes and pops is checked against it), popped into the
            // copy's elements at the same subscripts.
            "oad_snap_push" => {
                let base = target(self);
                let prefix = format!("{base}(");
                let mut elements: Vec<(String, f64)> = self
                    .v
                    .iter()
                    .filter_map(|(k, x)| {
                        let rest = k.strip_prefix(&base)?;
                        (k.starts_with(&prefix) && rest.ends_with(')'))
                            .then(|| (rest.to_string(), *x))
                    })
                    .collect();
                elements.sort_by(|a, b| a.0.cmp(&b.0));
                assert!(!elements.is_empty(), "snapshot of unset array {base}");
                self.snapshots.push(elements)
            }
            "oad_snap_pop" => {
                let elements = self.snapshots.pop().expect("snapshot underflow");
                let base = target(self);
                for (subscripts, x) in elements {
                    self.v.insert(format!("{base}{subscripts}"), x);
                }
            }
            other => crate::not_interpretable!("inlinable call: {other}"),
        }
    }

    /// Runs one basic block element.
    pub fn element(&mut self, el: &BasicBlockElement) {
        match el {
            BasicBlockElement::Assignment(a) => self.assign(a),
            BasicBlockElement::DerivativePropagator(p) => self.propagate(p),
            BasicBlockElement::InlinableSubroutineCall(c) => self.inlinable_call(c),
            BasicBlockElement::Marker(m) => {
                if !self.markers.harmless(&m.annotation) {
                    crate::not_interpretable!(
                        "opaque statement whose effect on values the XAIF \
                         does not show: Marker '{}'",
                        m.annotation
                    );
                }
            }
            BasicBlockElement::SubroutineCall(c) => self.call(c),
        }
    }

    /// Runs the callee with its formals bound to the actual arguments.
    pub(super) fn call(&mut self, c: &SubroutineCall) {
        let name = c.symbol_id.clone().expect("callee name");
        if let Some(joint) = &self.joint {
            let [plain, tape, adjoint] = joint
                .get(name.as_str())
                .unwrap_or_else(|| crate::not_interpretable!("no code for subroutine: {name}"))
                .clone();
            let reverse = self.in_reverse;
            let actuals: Vec<String> = c
                .arguments
                .iter()
                .map(|a| match &a.value {
                    ArgumentValue::Variable(r) => self.location(r),
                    ArgumentValue::Constant(_) => panic!("constant actual in a joint test"),
                })
                .collect();
            if !reverse {
                for n in &actuals {
                    let x = self.v[n];
                    self.checkpoints.push(x);
                }
                self.invoke(c, &name, &plain);
            } else {
                for n in actuals.iter().rev() {
                    let x = self.checkpoints.pop().expect("argument checkpoint");
                    self.v.insert(n.clone(), x);
                }
                self.in_reverse = false;
                self.invoke(c, &name, &tape);
                self.in_reverse = true;
                self.invoke(c, &name, &adjoint);
            }
            self.in_reverse = reverse;
            return;
        }
        let callee = self
            .subroutines
            .get(name.as_str())
            .unwrap_or_else(|| crate::not_interpretable!("no code for subroutine: {name}"))
            .clone();
        self.invoke(c, &name, &callee);
    }

    /// Runs `callee` with its formals bound to the actual arguments of `c`:
    /// a whole array by its name, a scalar by its location.
    pub(super) fn invoke(&mut self, c: &SubroutineCall, name: &str, callee: &Callee) {
        self.calls += 1;
        let mut bindings = HashMap::new();
        let mut bounds = HashMap::new();
        let mut views = HashMap::new();
        // Whether the callee's formal is an array (sequence association).
        let formal_is_array = |m: &Machine, formal: &str| {
            let (Some(symbols), Some(scope)) = (&m.symbols, callee.scope) else {
                return false;
            };
            symbols
                .lookup(scope, formal)
                .is_some_and(|f| f.shape != SymbolShape::Scalar)
        };
        for arg in &c.arguments {
            let formal = callee
                .formals
                .get(arg.position as usize - 1)
                .unwrap_or_else(|| panic!("call of {name}: no formal at position {}", arg.position))
                .clone();
            let actual = match &arg.value {
                ArgumentValue::Variable(r) => {
                    let s = Self::symbol_reference(r);
                    match Self::subscripts(r) {
                        None if self.view(s).is_some() => {
                            // A formal passed on whole: the same elements.
                            views.insert(formal.clone(), self.view(s).unwrap().clone());
                            format!("view#{}:{formal}", self.calls)
                        }
                        None if self.symbols.is_some() && self.is_array_symbol(s) => {
                            if let Some(b) = self.known_bounds(s) {
                                let extents = b.into_iter().map(|(lo, hi)| (1, hi - lo + 1));
                                bounds.insert(formal.clone(), extents.collect());
                            }
                            self.base(s)
                        }
                        None => self.base(s),
                        Some(a) if !a.index_triplets.iter().all(is_scalar_subscript) => {
                            let elements = self.elements(r).expect("a section");
                            views.insert(formal.clone(), elements);
                            format!("view#{}:{formal}", self.calls)
                        }
                        Some(_) if formal_is_array(self, &formal) => {
                            // The element and those after it in the actual.
                            let element = self.location(r);
                            let mut whole = r.clone();
                            whole.vertices.retain(|v| {
                                matches!(v, VariableReferenceVertex::SymbolReference(_))
                            });
                            whole.edges.clear();
                            let all = self.elements(&whole).unwrap_or_else(|| {
                                crate::not_interpretable!("array element of a scalar as an actual")
                            });
                            let at = all
                                .iter()
                                .position(|n| *n == element)
                                .expect("element of its array");
                            views.insert(formal.clone(), all[at..].to_vec());
                            format!("view#{}:{formal}", self.calls)
                        }
                        Some(_) => self.location(r),
                    }
                }
                ArgumentValue::Constant(k) => {
                    let n = format!("const#{}", self.calls);
                    self.v.insert(n.clone(), constant_value(k));
                    n
                }
            };
            bindings.insert(formal, actual);
        }
        let frame = Frame {
            prefix: format!("{name}#{}:", self.calls),
            bindings,
            scope: callee.scope,
            bounds,
            views,
        };
        let saved = std::mem::replace(&mut self.frame, frame);
        self.run(&callee.vertices, &callee.edges);
        self.frame = saved;
    }
}
