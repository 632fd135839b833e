//! Every symbol reference a piece of a control flow graph makes: in
//! assignments, calls, conditions, loop headers, derivative propagators and
//! subscripts. For consumers that need to know which variables a unit
//! names (e.g. which host variables an internal procedure reads).

use crate::model::*;

/// Calls `f` on every symbol reference in `vertices`.
pub fn symbol_references<'a>(
    vertices: &'a [ControlFlowVertex],
    f: &mut dyn FnMut(&'a SymbolReference),
) {
    for v in vertices {
        match v {
            ControlFlowVertex::BasicBlock(b) => {
                for e in &b.elements {
                    element(e, f);
                }
            }
            ControlFlowVertex::If(c)
            | ControlFlowVertex::Branch(c)
            | ControlFlowVertex::PreLoop(c)
            | ControlFlowVertex::PostLoop(c) => {
                if let Some(e) = &c.condition {
                    expression(e, f);
                }
            }
            ControlFlowVertex::ForLoop(l) => {
                for a in l.initialization.iter().chain(&l.update) {
                    assignment(a, f);
                }
                if let Some(e) = &l.condition {
                    expression(e, f);
                }
            }
            ControlFlowVertex::Entry(_)
            | ControlFlowVertex::Exit(_)
            | ControlFlowVertex::EndBranch(_)
            | ControlFlowVertex::EndLoop(_)
            | ControlFlowVertex::Label(_)
            | ControlFlowVertex::Goto(_) => {}
        }
    }
}

fn element<'a>(e: &'a BasicBlockElement, f: &mut dyn FnMut(&'a SymbolReference)) {
    match e {
        BasicBlockElement::Assignment(a) => assignment(a, f),
        BasicBlockElement::SubroutineCall(c) => arguments(&c.arguments, f),
        BasicBlockElement::InlinableSubroutineCall(c) => arguments(&c.arguments, f),
        BasicBlockElement::Marker(_) => {}
        BasicBlockElement::DerivativePropagator(p) => {
            for entry in &p.entries {
                match entry {
                    PropagatorEntry::SetDeriv { tgt, src }
                    | PropagatorEntry::SetNegDeriv { tgt, src }
                    | PropagatorEntry::IncDeriv { tgt, src }
                    | PropagatorEntry::DecDeriv { tgt, src } => {
                        reference(tgt, f);
                        reference(src, f);
                    }
                    PropagatorEntry::Sax { ax, y } | PropagatorEntry::Saxpy { ax, y } => {
                        for term in ax {
                            expression(&term.a, f);
                            reference(&term.x, f);
                        }
                        reference(y, f);
                    }
                    PropagatorEntry::ZeroDeriv(r) => reference(r, f),
                }
            }
        }
    }
}

fn assignment<'a>(a: &'a Assignment, f: &mut dyn FnMut(&'a SymbolReference)) {
    reference(&a.lhs.reference, f);
    expression(&a.rhs, f);
}

fn arguments<'a>(args: &'a [Argument], f: &mut dyn FnMut(&'a SymbolReference)) {
    for a in args {
        if let ArgumentValue::Variable(r) = &a.value {
            reference(r, f);
        }
    }
}

fn expression<'a>(e: &'a Expression, f: &mut dyn FnMut(&'a SymbolReference)) {
    for v in &e.vertices {
        match v {
            ExpressionVertex::VariableReference(r) => reference(r, f),
            ExpressionVertex::FunctionCall(c) => {
                for r in &c.arguments {
                    reference(r, f);
                }
            }
            ExpressionVertex::Constant(_)
            | ExpressionVertex::Intrinsic(_)
            | ExpressionVertex::BooleanOperation(_)
            | ExpressionVertex::ArgumentReference(_) => {}
        }
    }
}

fn reference<'a>(r: &'a VariableReference, f: &mut dyn FnMut(&'a SymbolReference)) {
    for v in &r.vertices {
        match v {
            VariableReferenceVertex::SymbolReference(s) => f(s),
            VariableReferenceVertex::ArrayElementReference(a) => {
                for t in &a.index_triplets {
                    for e in t.index.iter().chain(&t.bound).chain(&t.stride) {
                        expression(e, f);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symbol(name: &str, scope: u64) -> VariableReferenceVertex {
        VariableReferenceVertex::SymbolReference(SymbolReference {
            symbol_id: name.into(),
            scope_id: scope,
            ..SymbolReference::default()
        })
    }

    #[test]
    fn finds_references_in_subscripts_and_loop_headers() {
        let i = Expression {
            vertices: vec![ExpressionVertex::VariableReference(VariableReference {
                vertices: vec![symbol("i", 3)],
                ..VariableReference::default()
            })],
            edges: Vec::new(),
        };
        let element = VariableReference {
            vertices: vec![
                symbol("h", 2),
                VariableReferenceVertex::ArrayElementReference(ArrayElementReference {
                    index_triplets: vec![IndexTriplet {
                        index: Some(i.clone()),
                        ..IndexTriplet::default()
                    }],
                    ..ArrayElementReference::default()
                }),
            ],
            ..VariableReference::default()
        };
        let graph = vec![
            ControlFlowVertex::ForLoop(Box::new(ForLoop {
                condition: Some(i),
                ..ForLoop::default()
            })),
            ControlFlowVertex::BasicBlock(BasicBlock {
                elements: vec![BasicBlockElement::Assignment(Assignment {
                    lhs: AssignmentLhs {
                        reference: element,
                        live: true,
                    },
                    ..Assignment::default()
                })],
                ..BasicBlock::default()
            }),
        ];
        let mut seen = Vec::new();
        symbol_references(&graph, &mut |s| {
            seen.push((s.symbol_id.clone(), s.scope_id))
        });
        assert_eq!(
            seen,
            [("i".into(), 3), ("h".into(), 2), ("i".into(), 3)] as [(Name, u64); 3]
        );
    }
}
