//! Random well-formed models survive write → read unchanged, the writer
//! is deterministic, and what it writes is valid against our schema (and
//! the reference schema when it is present).

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use xaif_schema::read::{read_call_graph, read_inlinable_intrinsics, read_noninlinable_intrinsics};
use xaif_schema::validate::{SchemaKind, Validator};
use xaif_schema::write::{
    write_call_graph, write_inlinable_intrinsics, write_noninlinable_intrinsics,
};
use xaif_schema::*;

/// Free text with the characters that need escaping, multi-byte ones and
/// whitespace that attribute normalisation would otherwise eat.
fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 _<>&\"'\t\n\r%;:=\u{e9}\u{4e2d}\u{1F600}-]{0,8}"
}

/// A unique id: the index, then arbitrary text.
fn id(i: usize, t: &str) -> String {
    format!("{i}:{t}")
}

fn positive() -> impl Strategy<Value = u64> {
    prop_oneof![1u64..20, Just(u64::MAX)]
}

fn active_use() -> impl Strategy<Value = ActiveUse> {
    select(vec![
        ActiveUse::Undefined,
        ActiveUse::True,
        ActiveUse::False,
    ])
}

fn symbol_type() -> impl Strategy<Value = SymbolType> {
    select(vec![
        SymbolType::Void,
        SymbolType::Integer,
        SymbolType::Real,
        SymbolType::Complex,
        SymbolType::Bool,
        SymbolType::Char,
        SymbolType::String,
        SymbolType::Opaque,
    ])
}

fn symbol_shape() -> impl Strategy<Value = SymbolShape> {
    (0usize..9).prop_map(|r| match r {
        8 => SymbolShape::Void,
        r => SymbolShape::from_rank(r).unwrap(),
    })
}

fn constant_type() -> impl Strategy<Value = ConstantType> {
    select(vec![
        ConstantType::Real,
        ConstantType::Double,
        ConstantType::Integer,
        ConstantType::Bool,
        ConstantType::Char,
        ConstantType::String,
    ])
}

fn boolean_op() -> impl Strategy<Value = BooleanOp> {
    select(vec![
        BooleanOp::LessThan,
        BooleanOp::LessOrEqual,
        BooleanOp::GreaterThan,
        BooleanOp::GreaterOrEqual,
        BooleanOp::Equal,
        BooleanOp::NotEqual,
        BooleanOp::And,
        BooleanOp::Or,
        BooleanOp::Not,
        BooleanOp::Xor,
    ])
}

fn constant(vertex_id: String) -> impl Strategy<Value = Constant> {
    (text(), constant_type(), text(), text()).prop_map(
        move |(annotation, type_, fe_type, value)| Constant {
            vertex_id: vertex_id.clone().into(),
            annotation: annotation.into(),
            type_,
            fe_type: fe_type.into(),
            value: value.into(),
        },
    )
}

/// Edges between the given ids (none if there are no ids).
fn edges_between(n: usize) -> impl Strategy<Value = Vec<(usize, usize, String, i64)>> {
    if n == 0 {
        Just(Vec::new()).boxed()
    } else {
        vec((0..n, 0..n, text(), any::<i64>()), 0..4).boxed()
    }
}

/// A variable reference; `depth` bounds nesting through subscripts.
fn variable_reference(depth: u32) -> BoxedStrategy<VariableReference> {
    let vertex = if depth == 0 {
        symbol_reference().boxed()
    } else {
        prop_oneof![
            3 => symbol_reference(),
            1 => (text(), vec(index_triplet(depth - 1), 1..3)).prop_map(|(annotation, index_triplets)| {
                VariableReferenceVertex::ArrayElementReference(ArrayElementReference {
                    vertex_id: Default::default(),
                    annotation: annotation.into(),
                    index_triplets,
                })
            }),
        ]
        .boxed()
    };
    (
        text(),
        text(),
        active_use(),
        any::<i64>(),
        any::<i64>(),
        any::<bool>(),
        any::<bool>(),
        vec(vertex, 1..3),
    )
        .prop_flat_map(
            |(vid, annotation, active, alias, du_ud, deriv, constant, vertices)| {
                let n = vertices.len();
                edges_between(n).prop_map(move |edges| {
                    let mut vertices = vertices.clone();
                    for (i, v) in vertices.iter_mut().enumerate() {
                        let new_id = id(i, &vid);
                        match v {
                            VariableReferenceVertex::SymbolReference(s) => {
                                s.vertex_id = new_id.into()
                            }
                            VariableReferenceVertex::ArrayElementReference(a) => {
                                a.vertex_id = new_id.into()
                            }
                        }
                    }
                    let edges = edges
                        .into_iter()
                        .enumerate()
                        .map(|(k, (s, t, annotation, _))| Edge {
                            edge_id: k.to_string().into(),
                            source: vertices[s].vertex_id().to_string().into(),
                            target: vertices[t].vertex_id().to_string().into(),
                            annotation: annotation.into(),
                        })
                        .collect();
                    VariableReference {
                        vertex_id: vid.clone().into(),
                        annotation: annotation.clone().into(),
                        active,
                        alias,
                        du_ud,
                        deriv,
                        constant,
                        vertices,
                        edges,
                    }
                })
            },
        )
        .boxed()
}

fn symbol_reference() -> impl Strategy<Value = VariableReferenceVertex> {
    (text(), text(), positive(), vec((text(), text()), 0..2)).prop_map(
        |(annotation, symbol_id, scope_id, props)| {
            VariableReferenceVertex::SymbolReference(SymbolReference {
                vertex_id: Default::default(),
                annotation: annotation.into(),
                symbol_id: symbol_id.into(),
                scope_id,
                properties: props
                    .into_iter()
                    .map(|(name, value)| SymbolReferenceProperty {
                        name: name.into(),
                        value: value.into(),
                    })
                    .collect(),
            })
        },
    )
}

fn index_triplet(depth: u32) -> impl Strategy<Value = IndexTriplet> {
    let part = || proptest::option::of(expression(depth));
    (part(), part(), part()).prop_map(|(index, bound, stride)| IndexTriplet {
        index,
        bound,
        stride,
    })
}

/// An expression graph; `depth` bounds nesting through variable references.
fn expression(depth: u32) -> BoxedStrategy<Expression> {
    let vertex = prop_oneof![
        variable_reference(depth).prop_map(ExpressionVertex::VariableReference),
        constant(String::new()).prop_map(ExpressionVertex::Constant),
        (text(), text(), text(), symbol_type(), symbol_shape()).prop_map(
            |(annotation, name, type_, r_type, r_shape)| {
                ExpressionVertex::Intrinsic(Intrinsic {
                    vertex_id: Default::default(),
                    annotation: annotation.into(),
                    name: name.into(),
                    type_: type_.into(),
                    r_type,
                    r_shape,
                })
            }
        ),
        (
            text(),
            proptest::option::of(text()),
            proptest::option::of(positive()),
            vec(variable_reference(0), 0..2)
        )
            .prop_map(|(annotation, symbol_id, scope_id, arguments)| {
                ExpressionVertex::FunctionCall(FunctionCall {
                    vertex_id: Default::default(),
                    annotation: annotation.into(),
                    symbol_id: symbol_id.map(Into::into),
                    scope_id,
                    arguments,
                })
            }),
        (text(), boolean_op()).prop_map(|(annotation, name)| {
            ExpressionVertex::BooleanOperation(BooleanOperation {
                vertex_id: Default::default(),
                annotation: annotation.into(),
                name,
            })
        }),
    ];
    (text(), vec(vertex, 0..4))
        .prop_flat_map(|(prefix, vertices)| {
            let n = vertices.len();
            edges_between(n).prop_map(move |edges| {
                let mut vertices = vertices.clone();
                for (i, v) in vertices.iter_mut().enumerate() {
                    set_expression_vertex_id(v, id(i, &prefix));
                }
                let edges = edges
                    .into_iter()
                    .enumerate()
                    .map(|(k, (s, t, annotation, position))| ExpressionEdge {
                        edge_id: k.to_string().into(),
                        source: vertices[s].vertex_id().to_string().into(),
                        target: vertices[t].vertex_id().to_string().into(),
                        position,
                        annotation: annotation.into(),
                    })
                    .collect();
                Expression { vertices, edges }
            })
        })
        .boxed()
}

fn set_expression_vertex_id(v: &mut ExpressionVertex, new_id: String) {
    match v {
        ExpressionVertex::VariableReference(x) => x.vertex_id = new_id.into(),
        ExpressionVertex::Constant(x) => x.vertex_id = new_id.into(),
        ExpressionVertex::Intrinsic(x) => x.vertex_id = new_id.into(),
        ExpressionVertex::FunctionCall(x) => x.vertex_id = new_id.into(),
        ExpressionVertex::BooleanOperation(x) => x.vertex_id = new_id.into(),
        ExpressionVertex::ArgumentReference(x) => x.vertex_id = new_id.into(),
    }
}

fn argument() -> impl Strategy<Value = Argument> {
    (
        positive(),
        text(),
        prop_oneof![
            variable_reference(1).prop_map(ArgumentValue::Variable),
            constant("1".into()).prop_map(ArgumentValue::Constant),
        ],
    )
        .prop_map(|(position, annotation, value)| Argument {
            position,
            annotation: annotation.into(),
            value,
        })
}

/// An assignment whose alias / du-ud / do keys (left-hand side and
/// right-hand side variables) are 0 (present in every
/// generated map, as the schema's key references require).
fn assignment() -> impl Strategy<Value = Assignment> {
    (
        any::<u64>(),
        variable_reference(1),
        any::<bool>(),
        expression(1),
    )
        .prop_map(|(line_number, mut reference, live, mut rhs)| {
            reference.alias = 0;
            reference.du_ud = 0;
            for v in &mut rhs.vertices {
                if let ExpressionVertex::VariableReference(r) = v {
                    r.alias = 0;
                    r.du_ud = 0;
                }
            }
            Assignment {
                statement_id: Default::default(),
                do_chain: 0,
                line_number,
                lhs: AssignmentLhs { reference, live },
                rhs,
            }
        })
}

fn propagator_entry() -> impl Strategy<Value = PropagatorEntry> {
    let vr = || variable_reference(1);
    let ax = || vec((expression(1), vr()).prop_map(|(a, x)| Ax { a, x }), 1..3);
    prop_oneof![
        (vr(), vr()).prop_map(|(tgt, src)| PropagatorEntry::SetDeriv { tgt, src }),
        (vr(), vr()).prop_map(|(tgt, src)| PropagatorEntry::SetNegDeriv { tgt, src }),
        (vr(), vr()).prop_map(|(tgt, src)| PropagatorEntry::IncDeriv { tgt, src }),
        (vr(), vr()).prop_map(|(tgt, src)| PropagatorEntry::DecDeriv { tgt, src }),
        (ax(), vr()).prop_map(|(ax, y)| PropagatorEntry::Sax { ax, y }),
        (ax(), vr()).prop_map(|(ax, y)| PropagatorEntry::Saxpy { ax, y }),
        vr().prop_map(PropagatorEntry::ZeroDeriv),
    ]
}

fn statement() -> impl Strategy<Value = BasicBlockElement> {
    prop_oneof![
        3 => assignment().prop_map(BasicBlockElement::Assignment),
        1 => (
            proptest::option::of(text()),
            proptest::option::of(positive()),
            active_use(),
            any::<u64>(),
            any::<u64>(),
            vec(argument(), 0..3)
        )
            .prop_map(|(symbol_id, scope_id, active, line_number, formal_arg_count, arguments)| {
                BasicBlockElement::SubroutineCall(SubroutineCall {
                    statement_id: Default::default(),
                    symbol_id: symbol_id.map(Into::into),
                    scope_id,
                    active,
                    line_number,
                    formal_arg_count,
                    arguments,
                })
            }),
        1 => text().prop_map(|annotation| BasicBlockElement::Marker(Marker {
            statement_id: Default::default(),
            annotation: annotation.into(),
        })),
        1 => vec(propagator_entry(), 0..4).prop_map(|entries| {
            BasicBlockElement::DerivativePropagator(DerivativePropagator { entries })
        }),
        1 => (text(), vec(argument(), 0..2)).prop_map(|(subroutine_name, arguments)| {
            BasicBlockElement::InlinableSubroutineCall(InlinableSubroutineCall {
                subroutine_name: subroutine_name.into(),
                statement_id: Default::default(),
                arguments,
            })
        }),
    ]
}

fn control_flow_vertex() -> impl Strategy<Value = ControlFlowVertex> {
    let plain = || {
        text().prop_map(|annotation| PlainVertex {
            vertex_id: Default::default(),
            annotation: annotation.into(),
        })
    };
    let cond = || {
        (text(), any::<u64>(), proptest::option::of(expression(1))).prop_map(
            |(annotation, line_number, condition)| ConditionVertex {
                vertex_id: Default::default(),
                annotation: annotation.into(),
                line_number,
                condition,
            },
        )
    };
    let for_assignment = || {
        proptest::option::of(assignment().prop_map(|mut a| {
            // Initialization and Update have no line number in the format.
            a.line_number = 0;
            a
        }))
    };
    prop_oneof![
        1 => plain().prop_map(ControlFlowVertex::Entry),
        1 => plain().prop_map(ControlFlowVertex::Exit),
        1 => plain().prop_map(ControlFlowVertex::EndBranch),
        1 => plain().prop_map(ControlFlowVertex::EndLoop),
        1 => plain().prop_map(ControlFlowVertex::Label),
        1 => plain().prop_map(ControlFlowVertex::Goto),
        1 => cond().prop_map(ControlFlowVertex::If),
        1 => cond().prop_map(ControlFlowVertex::Branch),
        1 => cond().prop_map(ControlFlowVertex::PreLoop),
        1 => cond().prop_map(ControlFlowVertex::PostLoop),
        1 => (
            text(),
            any::<u64>(),
            any::<bool>(),
            for_assignment(),
            proptest::option::of(expression(1)),
            for_assignment()
        )
            .prop_map(|(annotation, line_number, explicit, initialization, condition, update)| {
                ControlFlowVertex::ForLoop(Box::new(ForLoop {
                    vertex_id: Default::default(),
                    annotation: annotation.into(),
                    line_number,
                    reversal: if explicit {
                        ForLoopReversal::Explicit
                    } else {
                        ForLoopReversal::Anonymous
                    },
                    initialization,
                    condition,
                    update,
                }))
            }),
        3 => (text(), positive(), vec(statement(), 0..4)).prop_map(|(annotation, scope_id, elements)| {
            ControlFlowVertex::BasicBlock(BasicBlock {
                vertex_id: Default::default(),
                annotation: annotation.into(),
                scope_id,
                elements,
            })
        }),
    ]
}

/// Vertices with unique ids and unique statement ids, and edges between them.
fn flow_graph() -> impl Strategy<Value = (Vec<ControlFlowVertex>, Vec<ControlFlowEdge>)> {
    (text(), vec(control_flow_vertex(), 0..5)).prop_flat_map(|(prefix, vertices)| {
        let n = vertices.len();
        (edges_between(n), vec(any::<bool>(), 4)).prop_map(move |(edges, flags)| {
            let mut vertices = vertices.clone();
            let mut statement = 0;
            let mut next_statement = || {
                statement += 1;
                format!("s{statement}")
            };
            for (i, v) in vertices.iter_mut().enumerate() {
                let new_id = id(i, &prefix);
                match v {
                    ControlFlowVertex::Entry(p)
                    | ControlFlowVertex::Exit(p)
                    | ControlFlowVertex::EndBranch(p)
                    | ControlFlowVertex::EndLoop(p)
                    | ControlFlowVertex::Label(p)
                    | ControlFlowVertex::Goto(p) => p.vertex_id = new_id.into(),
                    ControlFlowVertex::If(c)
                    | ControlFlowVertex::Branch(c)
                    | ControlFlowVertex::PreLoop(c)
                    | ControlFlowVertex::PostLoop(c) => c.vertex_id = new_id.into(),
                    ControlFlowVertex::ForLoop(f) => {
                        f.vertex_id = new_id.into();
                        for a in [&mut f.initialization, &mut f.update].into_iter().flatten() {
                            a.statement_id = next_statement().into();
                        }
                    }
                    ControlFlowVertex::BasicBlock(b) => {
                        b.vertex_id = new_id.into();
                        for s in &mut b.elements {
                            match s {
                                BasicBlockElement::Assignment(a) => {
                                    a.statement_id = next_statement().into()
                                }
                                BasicBlockElement::SubroutineCall(c) => {
                                    c.statement_id = next_statement().into()
                                }
                                BasicBlockElement::Marker(m) => {
                                    m.statement_id = next_statement().into()
                                }
                                BasicBlockElement::InlinableSubroutineCall(c) => {
                                    c.statement_id = next_statement().into()
                                }
                                BasicBlockElement::DerivativePropagator(_) => {}
                            }
                        }
                    }
                }
            }
            let edges = edges
                .into_iter()
                .enumerate()
                .map(|(k, (s, t, annotation, value))| ControlFlowEdge {
                    edge_id: k.to_string().into(),
                    source: vertices[s].vertex_id().to_string().into(),
                    target: vertices[t].vertex_id().to_string().into(),
                    annotation: annotation.into(),
                    has_condition_value: flags[k % flags.len()],
                    condition_value: value,
                })
                .collect();
            (vertices, edges)
        })
    })
}

fn argument_list() -> impl Strategy<Value = Option<Vec<ArgumentSymbolReference>>> {
    proptest::option::of(vec(
        (
            positive(),
            text(),
            positive(),
            any::<bool>(),
            select(vec![Intent::In, Intent::Out, Intent::InOut]),
            text(),
        )
            .prop_map(
                |(position, symbol_id, scope_id, deriv, intent, annotation)| {
                    ArgumentSymbolReference {
                        position,
                        symbol_id: symbol_id.into(),
                        scope_id,
                        deriv,
                        intent,
                        annotation: annotation.into(),
                    }
                },
            ),
        0..3,
    ))
}

fn side_effects() -> impl Strategy<Value = Option<Vec<VariableReference>>> {
    proptest::option::of(vec(variable_reference(1), 0..2))
}

fn call_graph_vertex() -> impl Strategy<Value = CallGraphVertex> {
    let cfg = (
        (
            text(),
            text(),
            positive(),
            positive(),
            any::<bool>(),
            any::<bool>(),
        ),
        (
            argument_list(),
            side_effects(),
            side_effects(),
            side_effects(),
            side_effects(),
            side_effects(),
        ),
        flow_graph(),
    )
        .prop_map(
            |(
                (annotation, symbol_id, scope_id, cfg_scope, active, structured),
                lists,
                (vertices, edges),
            )| {
                let (argument_list, mod_local, mod_, read_local, read, on_entry) = lists;
                CallGraphVertex::ControlFlowGraph(ControlFlowGraph {
                    vertex_id: Default::default(),
                    annotation: annotation.into(),
                    symbol_id: symbol_id.into(),
                    scope_id,
                    controlflowgraph_scope_id: cfg_scope,
                    active,
                    structured,
                    argument_list,
                    mod_local,
                    mod_,
                    read_local,
                    read,
                    on_entry,
                    vertices,
                    edges,
                })
            },
        );
    let replacement = (text(), any::<bool>(), flow_graph()).prop_map(
        |(placeholder, structured, (vertices, edges))| Replacement {
            placeholder: placeholder.into(),
            structured,
            vertices,
            edges,
        },
    );
    let list = (
        (text(), text(), text(), positive(), positive()),
        argument_list(),
        vec(replacement, 0..3),
    )
        .prop_map(
            |(
                (annotation, template_name, symbol_id, scope_id, cfg_scope),
                argument_list,
                replacements,
            )| {
                CallGraphVertex::ReplacementList(ReplacementList {
                    vertex_id: Default::default(),
                    annotation: annotation.into(),
                    template_name: template_name.into(),
                    symbol_id: symbol_id.into(),
                    scope_id,
                    controlflowgraph_scope_id: cfg_scope,
                    argument_list,
                    replacements,
                })
            },
        );
    prop_oneof![3 => cfg, 1 => list]
}

fn symbol() -> impl Strategy<Value = Symbol> {
    (
        (
            select(vec![
                SymbolKind::Subroutine,
                SymbolKind::Variable,
                SymbolKind::Pointer,
            ]),
            symbol_type(),
            text(),
            symbol_shape(),
        ),
        (any::<bool>(), any::<bool>(), any::<bool>(), text()),
        vec(
            (any::<i64>(), any::<i64>())
                .prop_map(|(lower, upper)| DimensionBounds { lower, upper }),
            0..8,
        ),
    )
        .prop_map(
            |(
                (kind, type_, fe_type, shape),
                (active, temp, pointer, annotation),
                dimension_bounds,
            )| Symbol {
                symbol_id: Default::default(),
                kind,
                type_,
                fe_type: fe_type.into(),
                shape,
                active,
                temp,
                pointer,
                annotation: annotation.into(),
                dimension_bounds,
            },
        )
}

fn scope_hierarchy() -> impl Strategy<Value = ScopeHierarchy> {
    let scope = (text(), vec(vec(symbol(), 0..3), 1..3)).prop_map(|(annotation, tables)| Scope {
        vertex_id: Default::default(),
        annotation: annotation.into(),
        symbol_tables: tables
            .into_iter()
            .map(|symbols| SymbolTable {
                symbols: symbols
                    .into_iter()
                    .enumerate()
                    .map(|(i, mut s)| {
                        s.symbol_id = format!("v{i}").into();
                        s
                    })
                    .collect(),
            })
            .collect(),
    });
    (text(), vec(scope, 0..3)).prop_flat_map(|(prefix, scopes)| {
        let n = scopes.len();
        edges_between(n).prop_map(move |edges| {
            let mut scopes = scopes.clone();
            for (i, s) in scopes.iter_mut().enumerate() {
                s.vertex_id = id(i, &prefix).into();
            }
            let edges = edges
                .into_iter()
                .enumerate()
                .map(|(k, (s, t, annotation, _))| Edge {
                    edge_id: k.to_string().into(),
                    source: scopes[s].vertex_id.clone(),
                    target: scopes[t].vertex_id.clone(),
                    annotation: annotation.into(),
                })
                .collect();
            ScopeHierarchy { scopes, edges }
        })
    })
}

/// A map always holds key 0; other keys are distinct.
fn stmt_id_set_map() -> impl Strategy<Value = StmtIdSetMap> {
    vec(vec(text(), 0..3), 1..3).prop_map(|sets| StmtIdSetMap {
        sets: sets
            .into_iter()
            .enumerate()
            .map(|(k, statement_ids)| StmtIdSet {
                key: k as u64,
                statement_ids: statement_ids.into_iter().map(Into::into).collect(),
            })
            .collect(),
    })
}

fn call_graph() -> impl Strategy<Value = CallGraph> {
    let alias = vec(
        vec(
            (positive(), positive(), any::<bool>()).prop_map(|(f, t, partial)| AliasRange {
                from_virtual_address: f,
                to_virtual_address: t,
                partial,
            }),
            0..3,
        ),
        1..3,
    )
    .prop_map(|sets| AliasSetMap {
        sets: sets
            .into_iter()
            .enumerate()
            .map(|(k, ranges)| AliasSet {
                key: k as u64,
                ranges,
            })
            .collect(),
    });
    (
        (proptest::option::of(text()), text(), text()),
        scope_hierarchy(),
        alias,
        stmt_id_set_map(),
        stmt_id_set_map(),
        vec(call_graph_vertex(), 0..3),
    )
        .prop_flat_map(|((program_name, prefix, ids), h, a, duud, dos, vertices)| {
            let n = vertices.len();
            edges_between(n).prop_map(move |edges| {
                let mut vertices = vertices.clone();
                for (i, v) in vertices.iter_mut().enumerate() {
                    match v {
                        CallGraphVertex::ControlFlowGraph(g) => g.vertex_id = id(i, &ids).into(),
                        CallGraphVertex::ReplacementList(r) => r.vertex_id = id(i, &ids).into(),
                    }
                }
                let vid = |v: &CallGraphVertex| match v {
                    CallGraphVertex::ControlFlowGraph(g) => g.vertex_id.clone(),
                    CallGraphVertex::ReplacementList(r) => r.vertex_id.clone(),
                };
                let edges = edges
                    .into_iter()
                    .enumerate()
                    .map(|(k, (s, t, annotation, _))| Edge {
                        edge_id: k.to_string().into(),
                        source: vid(&vertices[s]),
                        target: vid(&vertices[t]),
                        annotation: annotation.into(),
                    })
                    .collect();
                CallGraph {
                    program_name: program_name.clone().map(Into::into),
                    prefix: prefix.clone().into(),
                    scope_hierarchy: h.clone(),
                    alias_set_map: a.clone(),
                    duud_set_map: duud.clone(),
                    do_set_map: dos.clone(),
                    vertices,
                    edges,
                }
            })
        })
}

fn inlinable_catalogue() -> impl Strategy<Value = InlinableIntrinsicDefinitions> {
    let with_argument_references = |x: Expression, k: u64| {
        let mut x = x;
        x.vertices
            .push(ExpressionVertex::ArgumentReference(ArgumentReference {
                vertex_id: "argref".into(),
                annotation: Default::default(),
                argument: k,
            }));
        x
    };
    let partial = (
        positive(),
        select(vec![
            "passive",
            "linear_one",
            "linear_minus_one",
            "linear",
            "nonlinear",
        ]),
        any::<bool>(),
        expression(0),
        0u64..4,
    )
        .prop_map(
            move |(partial_id, t, non_value_inquiry, x, k)| IntrinsicPartial {
                partial_id,
                partial_type: t.to_string(),
                non_value_inquiry,
                expression: with_argument_references(x, k),
            },
        );
    let intrinsic = (
        (
            text(),
            positive(),
            symbol_type(),
            any::<bool>(),
            select(vec!["no_change", "scalar", "rank"]),
        ),
        (
            select(vec!["builtin", "user_defined"]),
            proptest::option::of(text()),
            expression(0),
        ),
        vec(partial, 1..3),
    )
        .prop_map(
            |(
                (name, nr_arguments, return_type, non_smooth, shape),
                (t, builtin_name, expression),
                partials,
            )| {
                InlinableIntrinsic {
                    name,
                    nr_arguments,
                    return_type,
                    non_smooth,
                    shape_change: shape.to_string(),
                    function: IntrinsicFunction {
                        type_: t.to_string(),
                        builtin_name,
                        expression,
                    },
                    partials,
                }
            },
        );
    (
        select(vec!["C", "CPP", "F77", "F90", "F95"]),
        vec(intrinsic, 1..3),
    )
        .prop_map(|(language, intrinsics)| InlinableIntrinsicDefinitions {
            language: language.to_string(),
            intrinsics: intrinsics
                .into_iter()
                .enumerate()
                .map(|(i, mut x)| {
                    x.name = format!("{i}{}", x.name);
                    x
                })
                .collect(),
        })
}

fn noninlinable_catalogue() -> impl Strategy<Value = NonInlinableIntrinsicDefinitions> {
    let def = prop_oneof![
        (
            text(),
            any::<bool>(),
            text(),
            symbol_type(),
            vec((positive(), positive(), positive()), 1..3)
        )
            .prop_map(|(name, non_smooth, jacobian, return_type, ps)| {
                NonInlinableIntrinsic::ExplicitJacobian {
                    name,
                    non_smooth,
                    jacobian,
                    return_type,
                    partials: ps
                        .into_iter()
                        .map(|(dep, indep, partial)| ExplicitPartial {
                            dep,
                            indep,
                            partial,
                        })
                        .collect(),
                }
            }),
        (text(), any::<bool>(), text()).prop_map(|(name, non_smooth, deriv_action)| {
            NonInlinableIntrinsic::DirectAction {
                name,
                non_smooth,
                deriv_action,
            }
        }),
    ];
    vec(def, 0..4).prop_map(|defs| NonInlinableIntrinsicDefinitions {
        definitions: defs
            .into_iter()
            .enumerate()
            .map(|(i, mut d)| {
                match &mut d {
                    NonInlinableIntrinsic::ExplicitJacobian { name, .. }
                    | NonInlinableIntrinsic::DirectAction { name, .. } => {
                        *name = format!("{i}{name}")
                    }
                }
                d
            })
            .collect(),
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn call_graphs_round_trip(cg in call_graph()) {
        let text = write_call_graph(&cg);
        prop_assert_eq!(&text, &write_call_graph(&cg));
        let back = read_call_graph(&text, "generated.xaif");
        prop_assert!(back.is_ok(), "{}\n{}", back.unwrap_err(), text);
        prop_assert_eq!(back.unwrap(), cg);
    }

    #[test]
    fn catalogues_round_trip(ii in inlinable_catalogue(), nii in noninlinable_catalogue()) {
        let text = write_inlinable_intrinsics(&ii);
        let back = read_inlinable_intrinsics(&text, "ii.xaif");
        prop_assert!(back.is_ok(), "{}\n{}", back.unwrap_err(), text);
        prop_assert_eq!(back.unwrap(), ii);
        let text = write_noninlinable_intrinsics(&nii);
        let back = read_noninlinable_intrinsics(&text, "nii.xaif");
        prop_assert!(back.is_ok(), "{}\n{}", back.unwrap_err(), text);
        prop_assert_eq!(back.unwrap(), nii);
    }
}

proptest! {
    // Schema validation goes through libxml2: fewer cases.
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn written_documents_are_valid(cg in call_graph(), ii in inlinable_catalogue(), nii in noninlinable_catalogue()) {
        let mut validators = vec![Validator::new().unwrap()];
        let reference = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/xaif-reference");
        if reference.is_dir() {
            validators.push(Validator::with_xsd_dir(&reference));
        }
        for v in &mut validators {
            for (text, kind) in [
                (write_call_graph(&cg), SchemaKind::Output),
                (write_inlinable_intrinsics(&ii), SchemaKind::Inlinable),
                (write_noninlinable_intrinsics(&nii), SchemaKind::NonInlinable),
            ] {
                let r = v.validate_bytes(text.as_bytes(), "generated", kind);
                prop_assert!(r.is_ok(), "{:?}\n{}", r, text);
            }
        }
    }
}
