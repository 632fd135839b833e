use super::*;

fn fixture() -> CallGraph {
    crate::read::read_call_graph(
        include_str!("../../tests/fixtures/input_all_elements.xaif"),
        "input_all_elements.xaif",
    )
    .unwrap()
}

#[test]
fn resolves_names_up_the_scope_chain_ignoring_case() {
    let cg = fixture();
    let index = XaifIndex::new(&cg).unwrap();
    let scopes = index.scopes();
    assert_eq!(scopes.resolve_scope(2, "g"), Some(1));
    assert_eq!(scopes.resolve_scope(2, "X"), Some(2));
    assert_eq!(scopes.resolve_scope(3, "x"), None, "x is not in 3's chain");
    assert!(scopes.symbol(1, "x").is_none());
    assert_eq!(
        scopes.resolve(3, "G").map(|s| s.symbol_id.as_str()),
        Some("g")
    );
    assert_eq!(scopes.chain(2).collect::<Vec<_>>(), [2, 1]);
    let names: Vec<&str> = scopes
        .scope_symbols(2)
        .map(|s| s.symbol_id.as_str())
        .collect();
    assert_eq!(names, ["x", "n", "a", "p"], "declaration order");
    assert!(scopes.is_declared_anywhere("Helper"));
    assert!(!scopes.is_declared_anywhere("nowhere"));
}

#[test]
fn finds_units_by_tag_name_and_scope() {
    let cg = fixture();
    let index = XaifIndex::new(&cg).unwrap();
    assert_eq!(index.unit_scope("1"), Some(2));
    assert_eq!(index.unit_scope("2"), Some(3));
    assert_eq!(index.unit_of_scope(3), Some("2"));
    assert_eq!(
        index.cfg_of_unit("1").map(|c| c.symbol_id.as_str()),
        Some("head")
    );
    assert_eq!(
        index.cfg_named("HEAD").map(|c| c.vertex_id.as_str()),
        Some("10")
    );
    assert!(index.replacements_of_unit("1").is_none());
}

#[test]
fn a_unit_names_what_its_graph_references_and_calls() {
    let cg = fixture();
    let index = XaifIndex::new(&cg).unwrap();
    let head = index.units().graphs().find(|g| g.tag == Some("1")).unwrap();
    let refs = unit_references(&head);
    assert!(refs.names_variable(2, "X"));
    assert!(refs.names_variable(2, "a"));
    assert!(
        !refs.names_variable(1, "g"),
        "only in the side-effect lists"
    );
    assert!(!refs.names_variable(2, "p"), "declared, never referenced");
    assert!(!refs.names_variable(1, "g2"));
    assert_eq!(refs.calls.len(), 1);
    assert_eq!(refs.calls[0].symbol_id.as_deref(), Some("helper"));
    assert!(refs.opaque, "the graph has a Marker");
}

#[test]
fn a_scope_id_that_is_no_number_is_an_error_naming_it() {
    let mut cg = fixture();
    cg.scope_hierarchy.scopes[0].vertex_id = "one".into();
    let Err(e) = XaifIndex::new(&cg) else {
        panic!("accepted a scope id that is not a number");
    };
    assert_eq!(e.attribute(), "vertex_id=\"one\"");
    let mut cg = fixture();
    cg.scope_hierarchy.edges[0].target = "x".into();
    assert!(matches!(
        XaifIndex::new(&cg).err(),
        Some(IndexError::ScopeEdge { .. })
    ));
}
