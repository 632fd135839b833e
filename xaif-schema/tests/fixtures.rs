//! The project's own fixtures: what the reader makes of them (values
//! checked by hand against the fixture text), round trips, and validity
//! of the writer's output against our schema and the reference schema.

use std::path::{Path, PathBuf};
use xaif_schema::read::{
    read_call_graph, read_call_graph_file, read_inlinable_intrinsics,
    read_inlinable_intrinsics_file, read_noninlinable_intrinsics,
    read_noninlinable_intrinsics_file,
};
use xaif_schema::validate::{SchemaKind, Validator};
use xaif_schema::write::{
    write_call_graph, write_inlinable_intrinsics, write_noninlinable_intrinsics,
};
use xaif_schema::*;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn reference_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/xaif-reference");
    dir.is_dir().then_some(dir)
}

/// Our schema always; the reference schema when it is there.
fn validators() -> Vec<(String, Validator)> {
    let mut v = vec![("ours".to_string(), Validator::new().unwrap())];
    if let Some(dir) = reference_dir() {
        v.push(("reference".to_string(), Validator::with_xsd_dir(&dir)));
    }
    v
}

fn assert_valid(text: &str, what: &str, kind: SchemaKind) {
    for (schema, mut v) in validators() {
        if let Err(errors) = v.validate_bytes(text.as_bytes(), what, kind) {
            let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            panic!(
                "{what} not valid against the {schema} schema:\n{}",
                shown.join("\n")
            );
        }
    }
}

fn cfg(cg: &CallGraph, i: usize) -> &ControlFlowGraph {
    match &cg.vertices[i] {
        CallGraphVertex::ControlFlowGraph(g) => g,
        other => panic!("vertex {i} is not a control flow graph: {other:?}"),
    }
}

fn symbol_name(v: &VariableReference) -> &str {
    match &v.vertices[0] {
        VariableReferenceVertex::SymbolReference(s) => &s.symbol_id,
        other => panic!("not a symbol reference: {other:?}"),
    }
}

#[test]
fn input_fixture_reads_with_defaults_filled_in() {
    let cg = read_call_graph_file(&fixture("input_all_elements.xaif")).unwrap();
    assert_eq!(cg.program_name.as_deref(), Some("fixture one"));
    assert_eq!(cg.prefix, DEFAULT_PREFIX);

    // Scopes and symbols.
    let h = &cg.scope_hierarchy;
    assert_eq!(h.scopes.len(), 3);
    assert_eq!(h.edges.len(), 2);
    assert_eq!(h.edges[1].annotation, "contained");
    let global = &h.scopes[0].symbol_tables[0].symbols;
    assert_eq!(global[0].kind, SymbolKind::Subroutine);
    assert_eq!(global[0].type_, SymbolType::Void);
    assert_eq!(global[2].fe_type, "real(8)");
    assert_eq!(
        global[2].dimension_bounds,
        vec![DimensionBounds {
            lower: 1,
            upper: 10
        }]
    );
    let local = &h.scopes[1].symbol_tables[0].symbols;
    // <Symbol symbol_id="x"/>: every default.
    assert_eq!(
        local[0],
        Symbol {
            symbol_id: "x".into(),
            kind: SymbolKind::Variable,
            type_: SymbolType::Real,
            fe_type: Default::default(),
            shape: SymbolShape::Scalar,
            active: true,
            temp: false,
            pointer: false,
            annotation: Default::default(),
            dimension_bounds: vec![],
        }
    );
    assert!(!local[1].active);
    assert_eq!(local[2].shape, SymbolShape::Matrix);
    assert_eq!(
        local[2].dimension_bounds[1],
        DimensionBounds {
            lower: -2,
            upper: 2
        }
    );
    assert!(local[2].temp && local[2].pointer);
    assert_eq!(local[3].kind, SymbolKind::Pointer);
    assert!(h.scopes[2].symbol_tables[0].symbols.is_empty());

    // Maps.
    assert_eq!(cg.alias_set_map.sets.len(), 2);
    assert!(cg.alias_set_map.sets[0].ranges[0].partial);
    assert_eq!(
        cg.alias_set_map.sets[1].ranges[0],
        AliasRange {
            from_virtual_address: 2,
            to_virtual_address: 11,
            partial: false
        }
    );
    assert_eq!(cg.duud_set_map.sets[1].key, 3);
    assert_eq!(
        cg.duud_set_map.sets[1].statement_ids,
        vec!["s1".to_string(), String::new()]
    );
    assert_eq!(cg.do_set_map.sets.len(), 1);

    // The first control flow graph.
    let g = cfg(&cg, 0);
    assert_eq!(
        (
            g.vertex_id.as_str(),
            g.scope_id,
            g.controlflowgraph_scope_id
        ),
        ("10", 1, 2)
    );
    assert!(g.active && g.structured);
    let args = g.argument_list.as_ref().unwrap();
    assert_eq!(args[0].intent, Intent::In);
    assert_eq!(args[1].intent, Intent::InOut);
    assert!(args[1].deriv);
    assert_eq!(g.mod_local.as_ref().unwrap().len(), 1);
    assert_eq!(g.mod_.as_ref().map(Vec::len), Some(0));
    assert_eq!(g.read.as_ref().unwrap()[0].active, ActiveUse::True);
    assert_eq!(g.read.as_ref().unwrap()[0].vertex_id, "4");
    let kinds: Vec<&str> = g.vertices.iter().map(|v| v.element_name()).collect();
    assert_eq!(
        kinds,
        [
            "Entry",
            "BasicBlock",
            "If",
            "Branch",
            "EndBranch",
            "ForLoop",
            "EndLoop",
            "PreLoop",
            "PostLoop",
            "EndLoop",
            "Label",
            "Goto",
            "Exit"
        ]
    );
    assert_eq!(g.edges.len(), 14);
    assert!(!g.edges[0].has_condition_value);
    assert_eq!(g.edges[0].condition_value, 1);
    assert_eq!(g.edges[4].condition_value, -3);

    // The basic block.
    let ControlFlowVertex::BasicBlock(bb) = &g.vertices[1] else {
        panic!("vertex 2 is not a basic block")
    };
    assert_eq!(bb.elements.len(), 3);
    let BasicBlockElement::Assignment(a) = &bb.elements[0] else {
        panic!("first statement is not an assignment")
    };
    assert_eq!((a.statement_id.as_str(), a.line_number), ("s1", 12));
    assert!(!a.lhs.live);
    assert_eq!((a.lhs.reference.alias, a.lhs.reference.du_ud), (7, 3));
    let VariableReferenceVertex::SymbolReference(sym) = &a.lhs.reference.vertices[0] else {
        panic!()
    };
    assert_eq!(sym.properties[0].value, "a & b <c>");
    let VariableReferenceVertex::ArrayElementReference(sub) = &a.lhs.reference.vertices[1] else {
        panic!()
    };
    assert_eq!(sub.index_triplets.len(), 2);
    assert!(sub.index_triplets[0].bound.is_none());
    assert!(sub.index_triplets[1].stride.is_some());
    assert_eq!(a.rhs.vertices.len(), 4);
    assert_eq!(a.rhs.edges[2].position, 2);
    let ExpressionVertex::Intrinsic(sin) = &a.rhs.vertices[1] else {
        panic!()
    };
    assert_eq!(sin.type_, "inlinable");
    assert_eq!(
        (sin.r_type, sin.r_shape),
        (SymbolType::Real, SymbolShape::Scalar)
    );
    let ExpressionVertex::FunctionCall(f) = &a.rhs.vertices[2] else {
        panic!()
    };
    assert_eq!(f.symbol_id.as_deref(), Some("g"));
    assert_eq!(symbol_name(&f.arguments[0]), "n");
    assert_eq!(
        xaif_schema::dot::statement_text(&bb.elements[0]),
        "a[n, 1:n:2] = mul_scal_scal(sin_scal(x), g(n))"
    );
    let BasicBlockElement::SubroutineCall(call) = &bb.elements[1] else {
        panic!()
    };
    assert_eq!(call.formal_arg_count, 3);
    assert_eq!(call.active, ActiveUse::True);
    assert_eq!(call.arguments[1].position, 3);
    let ArgumentValue::Constant(k) = &call.arguments[1].value else {
        panic!()
    };
    assert_eq!(
        (k.type_, k.value.as_str(), k.fe_type.as_str()),
        (ConstantType::Double, "1.5d0", "8")
    );
    let BasicBlockElement::Marker(m) = &bb.elements[2] else {
        panic!()
    };
    assert_eq!(m.annotation, "canon:7");

    // Loops and conditions.
    let ControlFlowVertex::ForLoop(fl) = &g.vertices[5] else {
        panic!()
    };
    assert_eq!(fl.reversal, ForLoopReversal::Explicit);
    assert_eq!(fl.line_number, 20);
    assert_eq!(fl.initialization.as_ref().unwrap().statement_id, "f1");
    assert_eq!(fl.update.as_ref().unwrap().rhs.vertices.len(), 3);
    let ControlFlowVertex::If(cond) = &g.vertices[2] else {
        panic!()
    };
    let ExpressionVertex::BooleanOperation(b) = &cond.condition.as_ref().unwrap().vertices[2]
    else {
        panic!()
    };
    assert_eq!(b.name, BooleanOp::GreaterThan);
    let ControlFlowVertex::PostLoop(post) = &g.vertices[8] else {
        panic!()
    };
    assert!(post.condition.is_none());

    // The second graph and the call edge.
    let g2 = cfg(&cg, 1);
    assert!(!g2.active && !g2.structured);
    assert_eq!(g2.vertices[0].vertex_id(), "1");
    assert_eq!(cg.edges[0].source, "10");
}

#[test]
fn output_fixture_reads_every_propagator_entry() {
    let cg = read_call_graph_file(&fixture("output_all_elements.xaif")).unwrap();
    assert_eq!(cg.prefix, "oad_");
    let g = cfg(&cg, 0);
    let ControlFlowVertex::BasicBlock(bb) = &g.vertices[1] else {
        panic!()
    };
    let BasicBlockElement::DerivativePropagator(p) = &bb.elements[1] else {
        panic!()
    };
    assert_eq!(p.entries.len(), 7);
    match &p.entries[0] {
        PropagatorEntry::SetDeriv { tgt, src } => {
            assert_eq!((symbol_name(tgt), symbol_name(src)), ("y", "x"))
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(p.entries[1], PropagatorEntry::SetNegDeriv { .. }));
    assert!(matches!(p.entries[2], PropagatorEntry::IncDeriv { .. }));
    assert!(matches!(p.entries[3], PropagatorEntry::DecDeriv { .. }));
    match &p.entries[4] {
        PropagatorEntry::Sax { ax, y } => {
            assert_eq!(ax.len(), 2);
            assert_eq!(symbol_name(&ax[1].x), "y");
            assert_eq!(symbol_name(y), "y");
        }
        other => panic!("{other:?}"),
    }
    match &p.entries[5] {
        PropagatorEntry::Saxpy { ax, .. } => {
            let ExpressionVertex::Constant(k) = &ax[0].a.vertices[0] else {
                panic!()
            };
            assert_eq!(k.value, "-1");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(&p.entries[6], PropagatorEntry::ZeroDeriv(x) if symbol_name(x) == "x"));
    let BasicBlockElement::InlinableSubroutineCall(push) = &bb.elements[2] else {
        panic!()
    };
    assert_eq!(push.subroutine_name, "push_s0");
    assert_eq!(push.arguments.len(), 1);
    let BasicBlockElement::InlinableSubroutineCall(pop) = &bb.elements[3] else {
        panic!()
    };
    assert!(pop.arguments.is_empty());
    let CallGraphVertex::ReplacementList(r) = &cg.vertices[1] else {
        panic!()
    };
    assert_eq!(r.template_name, "joint");
    assert_eq!(r.annotation, "unit:2");
    assert_eq!(r.argument_list.as_ref().unwrap()[0].symbol_id, "x");
    assert_eq!(r.replacements.len(), 2);
    assert_eq!(r.replacements[0].vertices.len(), 2);
    assert!(r.replacements[0].structured);
    assert!(!r.replacements[1].structured);
}

#[test]
fn catalogue_fixtures_read_with_defaults() {
    let ii = read_inlinable_intrinsics_file(&fixture("inlinable_small.xaif")).unwrap();
    assert_eq!(ii.language, "F90");
    assert_eq!(ii.intrinsics.len(), 3);
    let mul = &ii.intrinsics[0];
    assert_eq!((mul.name.as_str(), mul.nr_arguments), ("mul_scal_scal", 2));
    assert_eq!(mul.return_type, SymbolType::Real);
    assert_eq!(mul.shape_change, "no_change");
    assert_eq!(mul.function.type_, "builtin");
    assert_eq!(mul.function.builtin_name.as_deref(), Some("*"));
    assert_eq!(mul.partials[0].partial_type, "linear");
    let ExpressionVertex::ArgumentReference(r) = &mul.partials[0].expression.vertices[0] else {
        panic!()
    };
    assert_eq!((r.vertex_id.as_str(), r.argument), ("1", 2));
    let sqrt = &ii.intrinsics[1];
    assert!(sqrt.non_smooth);
    assert_eq!(sqrt.function.type_, "user_defined");
    assert_eq!(sqrt.partials[0].partial_type, "nonlinear");
    assert_eq!(sqrt.partials[0].expression.edges.len(), 2);
    let size = &ii.intrinsics[2];
    assert_eq!(size.return_type, SymbolType::Integer);
    assert!(size.partials[0].non_value_inquiry);

    let nii = read_noninlinable_intrinsics_file(&fixture("noninlinable_small.xaif")).unwrap();
    assert_eq!(
        nii.definitions,
        vec![
            NonInlinableIntrinsic::ExplicitJacobian {
                name: "hypot3".into(),
                non_smooth: true,
                jacobian: "hypot3_jac".into(),
                return_type: SymbolType::Real,
                partials: vec![
                    ExplicitPartial {
                        dep: 1,
                        indep: 1,
                        partial: 2
                    },
                    ExplicitPartial {
                        dep: 1,
                        indep: 3,
                        partial: 4
                    },
                ],
            },
            NonInlinableIntrinsic::DirectAction {
                name: "transpose_arr".into(),
                non_smooth: false,
                deriv_action: "transpose_arr".into(),
            },
        ]
    );
}

#[test]
fn fixtures_round_trip_and_the_output_is_valid() {
    for name in ["input_all_elements.xaif", "output_all_elements.xaif"] {
        let m = read_call_graph_file(&fixture(name)).unwrap();
        let text = write_call_graph(&m);
        assert_eq!(read_call_graph(&text, name).unwrap(), m, "{name}");
        assert_eq!(
            write_call_graph(&read_call_graph(&text, name).unwrap()),
            text
        );
        let kind = if name.starts_with("input") {
            SchemaKind::Input
        } else {
            SchemaKind::Output
        };
        assert_valid(&text, name, kind);
    }
    let ii = read_inlinable_intrinsics_file(&fixture("inlinable_small.xaif")).unwrap();
    let text = write_inlinable_intrinsics(&ii);
    assert_eq!(read_inlinable_intrinsics(&text, "ii").unwrap(), ii);
    assert_valid(&text, "ii", SchemaKind::Inlinable);
    let nii = read_noninlinable_intrinsics_file(&fixture("noninlinable_small.xaif")).unwrap();
    let text = write_noninlinable_intrinsics(&nii);
    assert_eq!(read_noninlinable_intrinsics(&text, "nii").unwrap(), nii);
    assert_valid(&text, "nii", SchemaKind::NonInlinable);
}

#[test]
fn fixtures_are_valid_and_the_input_schema_refuses_output_elements() {
    let mut ours = Validator::new().unwrap();
    let check = |v: &mut Validator, name: &str, kind| v.validate_file(&fixture(name), kind);
    assert!(check(&mut ours, "input_all_elements.xaif", SchemaKind::Input).is_ok());
    assert!(check(&mut ours, "output_all_elements.xaif", SchemaKind::Output).is_ok());
    assert!(check(&mut ours, "inlinable_small.xaif", SchemaKind::Inlinable).is_ok());
    assert!(check(
        &mut ours,
        "noninlinable_small.xaif",
        SchemaKind::NonInlinable
    )
    .is_ok());
    let errors = check(&mut ours, "output_all_elements.xaif", SchemaKind::Input).unwrap_err();
    assert!(
        errors[0].message.contains("DerivativePropagator"),
        "{errors:?}"
    );
    assert!(errors[0].line > 0);
}

#[test]
fn writer_output_is_indented_and_spells_out_defaults() {
    let m = read_call_graph_file(&fixture("output_all_elements.xaif")).unwrap();
    let text = write_call_graph(&m);
    assert!(text.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xaif:CallGraph xmlns:xaif=\"http://www.mcs.anl.gov/XAIF\" program_name=\"out\" prefix=\"oad_\">\n  <xaif:ScopeHierarchy>\n    <xaif:Scope vertex_id=\"1\" annotation=\"\">\n"));
    assert!(text.contains(
        "<xaif:Symbol symbol_id=\"x\" kind=\"variable\" type=\"real\" feType=\"\" shape=\"scalar\" active=\"true\" temp=\"false\" pointer=\"false\" annotation=\"\"/>"
    ));
    // Vertices before edges in the control flow graph.
    let exit = text.find("<xaif:Exit vertex_id=\"3\"").unwrap();
    let edge = text.find("<xaif:ControlFlowEdge edge_id=\"1\"").unwrap();
    assert!(exit < edge);
}

#[test]
fn namespaces_go_by_uri_not_by_prefix() {
    let text = std::fs::read_to_string(fixture("input_all_elements.xaif")).unwrap();
    let original = read_call_graph(&text, "prefixed").unwrap();
    // Default namespace, no prefixes at all.
    let unprefixed = text
        .replace("xmlns:xaif=", "xmlns=")
        .replace("<xaif:", "<")
        .replace("</xaif:", "</");
    assert_eq!(read_call_graph(&unprefixed, "default").unwrap(), original);
    // Another prefix, and the namespace declared again further down.
    let renamed = text
        .replace("xmlns:xaif=", "xmlns:x=")
        .replace("<xaif:", "<x:")
        .replace("</xaif:", "</x:")
        .replace(
            "<x:Entry vertex_id=\"1\"/>",
            "<q:Entry xmlns:q=\"http://www.mcs.anl.gov/XAIF\" vertex_id=\"1\"/>",
        );
    assert_eq!(read_call_graph(&renamed, "renamed").unwrap(), original);
    // The re-declaration is scoped to its element: q is unknown afterwards.
    let leaked = renamed.replace("<x:Exit vertex_id=\"13\"/>", "<q:Exit vertex_id=\"13\"/>");
    let e = read_call_graph(&leaked, "leaked").unwrap_err();
    assert!(
        e.message.contains("namespace prefix 'q' is not declared"),
        "{e}"
    );
    // The right names in the wrong namespace are unknown elements.
    let foreign = text.replace("http://www.mcs.anl.gov/XAIF\"", "urn:not-xaif\"");
    let e = read_call_graph(&foreign, "foreign").unwrap_err();
    assert!(e.message.contains("expected 'xaif:CallGraph'"), "{e}");
}
