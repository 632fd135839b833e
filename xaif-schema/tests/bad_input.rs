//! Bad XAIF: each case gives one clear, positioned error through the
//! library, and `xaif validate` / `xaif fmt` exit 1 with `file:line:`
//! diagnostics, never a panic, and leave no output file behind.

use assert_cmd::Command;
use xaif_schema::read::{read_call_graph, read_inlinable_intrinsics};

/// Twelve lines: everything a call graph needs before its vertices.
const HEAD: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>
<xaif:CallGraph xmlns:xaif=\"http://www.mcs.anl.gov/XAIF\">
  <xaif:ScopeHierarchy>
    <xaif:Scope vertex_id=\"1\">
      <xaif:SymbolTable>
        <xaif:Symbol symbol_id=\"x\"/>
      </xaif:SymbolTable>
    </xaif:Scope>
  </xaif:ScopeHierarchy>
  <xaif:AliasSetMap><xaif:AliasSet key=\"0\"/></xaif:AliasSetMap>
  <xaif:DUUDSetMap><xaif:StmtIdSet key=\"0\"/></xaif:DUUDSetMap>
  <xaif:DOSetMap><xaif:StmtIdSet key=\"0\"/></xaif:DOSetMap>
";

const CFG_OPEN: &str = "  <xaif:ControlFlowGraph symbol_id=\"x\" scope_id=\"1\" controlflowgraph_scope_id=\"1\">\n    <xaif:Entry vertex_id=\"1\"/>\n";
const CFG_CLOSE: &str = "  </xaif:ControlFlowGraph>\n</xaif:CallGraph>\n";

/// A document whose line 15 is `line` (inside a control flow graph).
fn with_line_15(line: &str) -> String {
    format!("{HEAD}{CFG_OPEN}{line}\n{CFG_CLOSE}")
}

/// 1-based column of `needle` in `line`: the expected position is
/// computed from the test text, not taken from the tool.
fn column_of(line: &str, needle: &str) -> usize {
    line.find(needle).expect("needle in line") + 1
}

struct Case {
    name: &'static str,
    text: String,
    line: usize,
    column: usize,
    message: &'static str,
}

fn cases() -> Vec<Case> {
    let mut v = Vec::new();

    let l = "    <xaif:Frobnicate/>";
    v.push(Case {
        name: "unknown_element",
        text: with_line_15(l),
        line: 15,
        column: 5,
        message: "unexpected element 'xaif:Frobnicate' in 'xaif:ControlFlowGraph'",
    });

    let l = "    <foo:Bar xmlns:foo=\"urn:other\"/>";
    v.push(Case {
        name: "foreign_element",
        text: with_line_15(l),
        line: 15,
        column: 5,
        message: "unknown element 'foo:Bar'",
    });

    let l = "    <xaif:BasicBlock vertex_id=\"2\"/>";
    v.push(Case {
        name: "missing_attribute",
        text: with_line_15(l),
        line: 15,
        column: 5,
        message: "missing required attribute 'scope_id'",
    });

    let l = "    <xaif:BasicBlock vertex_id=\"2\" scope_id=\"abc\"/>";
    v.push(Case {
        name: "non_integer_scope_id",
        text: with_line_15(l),
        line: 15,
        column: column_of(l, "scope_id"),
        message: "attribute 'scope_id' has value \"abc\", expected a positive integer",
    });

    let l = "    <xaif:ControlFlowEdge edge_id=\"1\" source=\"1\" target=\"1\" has_condition_value=\"maybe\"/>";
    v.push(Case {
        name: "bad_boolean",
        text: with_line_15(l),
        line: 15,
        column: column_of(l, "has_condition_value"),
        message: "expected a boolean",
    });

    let l = "    <xaif:Exit vertex_id=\"2\" colour=\"red\"/>";
    v.push(Case {
        name: "unknown_attribute",
        text: with_line_15(l),
        line: 15,
        column: column_of(l, "colour"),
        message: "unknown attribute 'colour' on 'xaif:Exit'",
    });

    let l = "    <xaif:Exit vertex_id=\"2\" annotation=\"\" vertex_id=\"3\"/>";
    v.push(Case {
        name: "duplicate_attribute",
        text: with_line_15(l),
        line: 15,
        column: column_of(l, "vertex_id=\"3\""),
        message: "attribute 'vertex_id' appears twice on 'xaif:Exit'",
    });

    let l = "    <xaif:Exit vertex_id=\"2\" xaif:annotation=\"x\"/>";
    v.push(Case {
        name: "prefixed_attribute",
        text: with_line_15(l),
        line: 15,
        column: column_of(l, "xaif:annotation"),
        message: "attribute 'xaif:annotation' must be written without a prefix",
    });

    let l = "    <xaif:ControlFlowEdge edge_id=\"1\" source=\"1\" target=\"9\"/>";
    v.push(Case {
        name: "dangling_control_flow_edge",
        text: with_line_15(l),
        line: 15,
        column: column_of(l, "target"),
        message: "edge target \"9\" is not a vertex of this control flow graph",
    });

    let l = "    <xaif:If vertex_id=\"2\"><xaif:Condition><xaif:Constant vertex_id=\"1\" type=\"bool\" value=\".true.\"/><xaif:BooleanOperation vertex_id=\"2\" name=\"not\"/><xaif:ExpressionEdge edge_id=\"1\" source=\"7\" target=\"2\" position=\"1\"/></xaif:Condition></xaif:If>";
    v.push(Case {
        name: "dangling_expression_edge",
        text: with_line_15(l),
        line: 15,
        column: column_of(l, "source=\"7\""),
        message: "edge source \"7\" is not a vertex of this expression",
    });

    let l = "    <xaif:If vertex_id=\"2\"><xaif:Condition><xaif:VariableReference><xaif:SymbolReference vertex_id=\"1\" symbol_id=\"x\" scope_id=\"1\"/><xaif:VariableReferenceEdge edge_id=\"1\" source=\"1\" target=\"3\"/></xaif:VariableReference></xaif:Condition></xaif:If>";
    v.push(Case {
        name: "dangling_variable_reference_edge",
        text: with_line_15(l),
        line: 15,
        column: column_of(l, "target=\"3\""),
        message: "edge target \"3\" is not a vertex of this variable reference",
    });

    let l = "    <xaif:Exit vertex_id=\"1\"/>";
    v.push(Case {
        name: "duplicate_vertex_id",
        text: with_line_15(l),
        line: 15,
        column: 5,
        message: "duplicate vertex_id \"1\" in control flow graph",
    });

    let l = "  <xaif:CallGraphEdge edge_id=\"1\" source=\"1\" target=\"2\"/>";
    v.push(Case {
        name: "dangling_call_graph_edge",
        text: format!("{HEAD}{CFG_OPEN}  </xaif:ControlFlowGraph>\n{l}\n</xaif:CallGraph>\n"),
        line: 16,
        column: column_of(l, "target"),
        message: "edge target \"2\" is not a vertex of this call graph",
    });

    let scope_edge = "    <xaif:ScopeEdge edge_id=\"1\" source=\"1\" target=\"0\"/>";
    v.push(Case {
        name: "dangling_scope_edge",
        text: HEAD.replace(
            "    </xaif:Scope>\n",
            &format!("    </xaif:Scope>\n{scope_edge}\n"),
        ) + "</xaif:CallGraph>\n",
        line: 9,
        column: column_of(scope_edge, "target"),
        message: "edge target \"0\" is not a vertex of this scope hierarchy",
    });

    let l = "    </xaif:Exit>";
    v.push(Case {
        name: "mismatched_end_tag",
        text: with_line_15(l),
        line: 15,
        column: 5,
        message: "malformed XML",
    });

    // Cut after line 14: the control flow graph and the call graph never close.
    v.push(Case {
        name: "truncated",
        text: format!("{HEAD}{CFG_OPEN}"),
        line: 15,
        column: 1,
        message: "element 'xaif:ControlFlowGraph' opened at 13:3 is not closed",
    });

    v.push(Case {
        name: "entity_bomb",
        text: "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n <!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n <!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n <!ENTITY lol4 \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;\">\n]>\n<xaif:CallGraph xmlns:xaif=\"http://www.mcs.anl.gov/XAIF\" program_name=\"&lol4;\"/>\n".to_string(),
        line: 2,
        column: 1,
        message: "DOCTYPE",
    });

    v.push(Case {
        name: "not_xml",
        text: "this is not XAIF\n".to_string(),
        line: 1,
        column: 1,
        message: "unexpected content before the root element",
    });

    v
}

#[test]
fn each_bad_document_gives_one_positioned_error() {
    for case in cases() {
        let file = format!("{}.xaif", case.name);
        let result = std::panic::catch_unwind(|| read_call_graph(&case.text, &file));
        let result = result.unwrap_or_else(|_| panic!("{}: the reader panicked", case.name));
        let e = match result {
            Ok(_) => panic!("{}: accepted", case.name),
            Err(e) => e,
        };
        assert_eq!(e.file, file);
        assert_eq!(
            (e.line, e.column),
            (case.line, case.column),
            "{}: wrong position for: {e}",
            case.name
        );
        assert!(
            e.message.contains(case.message),
            "{}: message {:?} lacks {:?}",
            case.name,
            e.message,
            case.message
        );
        assert!(e
            .to_string()
            .starts_with(&format!("{file}:{}:{}: ", case.line, case.column)));
    }
}

#[test]
fn truncation_anywhere_is_an_error_not_a_panic() {
    let full = with_line_15("    <xaif:Exit vertex_id=\"2\"/>");
    assert!(read_call_graph(&full, "full").is_ok());
    // Every proper prefix that cuts into the root element is rejected.
    let root_start = full.find("<xaif:CallGraph").unwrap();
    for cut in root_start..full.len() - 1 {
        if !full.is_char_boundary(cut) {
            continue;
        }
        let e = read_call_graph(&full[..cut], "t").expect_err("prefix accepted");
        assert!(e.line >= 2, "cut {cut}: {e}");
    }
}

#[test]
fn attributes_of_other_vocabularies_are_ignored() {
    let doc = with_line_15(
        "    <xaif:Exit vertex_id=\"2\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:type=\"x\"/>",
    );
    let cg = read_call_graph(&doc, "ok.xaif").unwrap();
    let xaif_schema::CallGraphVertex::ControlFlowGraph(g) = &cg.vertices[0] else {
        panic!()
    };
    assert_eq!(g.vertices[1].vertex_id(), "2");
}

#[test]
fn attribute_values_are_normalised_as_xml_says() {
    // A literal line break in a value is a space; &#10; is a line break.
    let doc = with_line_15("    <xaif:Exit vertex_id=\"2\" annotation=\"a\r\nb\tc&#10;d\"/>");
    let cg = read_call_graph(&doc, "ws.xaif").unwrap();
    let xaif_schema::CallGraphVertex::ControlFlowGraph(g) = &cg.vertices[0] else {
        panic!()
    };
    assert_eq!(g.vertices[1].annotation(), "a b c\nd");
}

#[test]
fn a_catalogue_is_not_a_call_graph_and_vice_versa() {
    let e = read_inlinable_intrinsics(&with_line_15(""), "x.xaif").unwrap_err();
    assert_eq!((e.line, e.column), (2, 1));
    assert!(
        e.message
            .contains("expected 'xaifii:InlinableIntrinsicDefinitions'"),
        "{e}"
    );
    let cat = "<xaifii:InlinableIntrinsicDefinitions xmlns:xaifii=\"http://www.mcs.anl.gov/XAIFInlinableIntrinsics\" language=\"F90\"/>";
    let e = read_call_graph(cat, "c.xaif").unwrap_err();
    assert!(e.message.contains("expected 'xaif:CallGraph'"), "{e}");
}

fn xaif() -> Command {
    Command::cargo_bin("xaif").unwrap()
}

#[test]
fn the_command_rejects_each_case_with_exit_1_and_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    for case in cases() {
        let path = dir.path().join(format!("{}.xaif", case.name));
        std::fs::write(&path, &case.text).unwrap();
        let shown = path.display().to_string();

        let expected = format!("{shown}:{}:{}: error: ", case.line, case.column);
        let out = xaif().arg("validate").arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {stderr}", case.name);
        assert!(!stderr.contains("panicked"), "{}: {stderr}", case.name);
        assert!(stderr.starts_with(&expected), "{}: {stderr}", case.name);
        assert!(stderr.contains(case.message), "{}: {stderr}", case.name);
        assert_eq!(stderr.lines().count(), 1, "{}: {stderr}", case.name);

        let target = dir.path().join(format!("{}.out.xaif", case.name));
        let out = xaif()
            .arg("fmt")
            .arg(&path)
            .arg("-o")
            .arg(&target)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {stderr}", case.name);
        assert!(stderr.starts_with(&expected), "{}: {stderr}", case.name);
        assert!(stderr.contains(case.message), "{}: {stderr}", case.name);
        assert!(!target.exists(), "{}: output written", case.name);
    }
    // Nothing but the inputs is left in the directory (no temporary files).
    let left = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(left, cases().len());
}

#[test]
fn usage_errors_exit_2() {
    let out = xaif().arg("fmt").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = xaif().arg("frobnicate").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = xaif()
        .arg("validate")
        .arg("--schema")
        .arg("nonsense")
        .arg("x")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_missing_file_is_an_error_with_its_name() {
    let out = xaif()
        .arg("validate")
        .arg("/nonexistent/dir/f.xaif")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("/nonexistent/dir/f.xaif: error: cannot read file"),
        "{stderr}"
    );
}

/// `depth` subscripts nested inside each other in an If condition:
/// x(x(x(...))).
fn nested_subscripts(depth: usize, close: bool) -> String {
    let open = "<xaif:VariableReference><xaif:SymbolReference vertex_id=\"1\" symbol_id=\"x\" scope_id=\"1\"/><xaif:ArrayElementReference vertex_id=\"2\"><xaif:IndexTriplet><xaif:Index>";
    let shut = "</xaif:Index></xaif:IndexTriplet></xaif:ArrayElementReference><xaif:VariableReferenceEdge edge_id=\"1\" source=\"1\" target=\"2\"/></xaif:VariableReference>";
    let mut line = String::from("    <xaif:If vertex_id=\"2\"><xaif:Condition>");
    line.push_str(&open.repeat(depth));
    line.push_str("<xaif:Constant type=\"integer\" value=\"1\"/>");
    if close {
        line.push_str(&shut.repeat(depth));
        line.push_str("</xaif:Condition></xaif:If>");
    }
    with_line_15(&line)
}

#[test]
fn realistic_nesting_reads_and_hostile_nesting_is_refused() {
    // 40 nested subscripts: about 210 levels of elements.
    let cg = read_call_graph(&nested_subscripts(40, true), "deep.xaif").unwrap();
    assert_eq!(cg.vertices.len(), 1);
    // 100 000 levels would exhaust the stack of a recursive reader.
    let e = read_call_graph(&nested_subscripts(20_000, false), "hostile.xaif").unwrap_err();
    assert_eq!(e.line, 15);
    assert!(e.message.contains("nested more than 256 deep"), "{e}");
}

mod mutations {
    use super::*;
    use proptest::prelude::*;

    fn fixture_text(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name);
        std::fs::read_to_string(path).unwrap()
    }

    /// Applies (position, kind) edits: delete a byte, or put a
    /// markup-significant character there.
    fn mutate(text: &str, edits: &[(usize, u8)]) -> Vec<u8> {
        let mut bytes = text.as_bytes().to_vec();
        for &(at, kind) in edits {
            if bytes.is_empty() {
                break;
            }
            let at = at % bytes.len();
            match kind % 8 {
                0 => {
                    bytes.remove(at);
                }
                1 => bytes[at] = b'<',
                2 => bytes[at] = b'>',
                3 => bytes[at] = b'"',
                4 => bytes[at] = b'/',
                5 => bytes[at] = b'&',
                6 => bytes.insert(at, b'9'),
                _ => bytes.truncate(at),
            }
        }
        bytes
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        /// Whatever the damage, the reader answers (model or positioned
        /// error) and never panics.
        #[test]
        fn damaged_documents_never_panic(
            edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
            which in 0usize..4,
        ) {
            let name = [
                "input_all_elements.xaif",
                "output_all_elements.xaif",
                "inlinable_small.xaif",
                "noninlinable_small.xaif",
            ][which];
            let bytes = mutate(&fixture_text(name), &edits);
            let Ok(text) = xaif_schema::read::decode(&bytes, name) else {
                return Ok(());
            };
            let result = match which {
                0 | 1 => read_call_graph(&text, name).map(|_| ()),
                2 => read_inlinable_intrinsics(&text, name).map(|_| ()),
                _ => xaif_schema::read::read_noninlinable_intrinsics(&text, name).map(|_| ()),
            };
            if let Err(e) = result {
                prop_assert!(e.line >= 1, "{}", e);
                prop_assert!(!e.message.is_empty());
            }
        }
    }
}

/// The schema catches the same faults where XSD can express them; inside
/// expressions and variable references only the reader does (as with the
/// original schema, whose keys there never match qualified elements).
#[test]
fn our_schema_rejects_the_faults_it_can_express() {
    use xaif_schema::validate::{SchemaKind, Validator};
    let mut v = Validator::new().unwrap();
    let reader_only = [
        "dangling_expression_edge",
        "dangling_variable_reference_edge",
    ];
    for case in cases() {
        let verdict = v.validate_bytes(case.text.as_bytes(), case.name, SchemaKind::Output);
        if reader_only.contains(&case.name) {
            assert!(verdict.is_ok(), "{}: {verdict:?}", case.name);
        } else {
            let errors = verdict.expect_err(case.name);
            assert!(!errors.is_empty());
            assert_eq!(errors[0].file, case.name);
        }
    }
}

/// Front ends differ in where they put the alias, du-ud and do maps: any
/// order is read, a missing map is "no information", a second one is an
/// error at its position.
#[test]
fn call_graph_maps_in_any_order() {
    let head = r#"<?xml version="1.0"?>
<xaif:CallGraph xmlns:xaif="http://www.mcs.anl.gov/XAIF" program_name="p">
  <xaif:DOSetMap><xaif:StmtIdSet key="0"/></xaif:DOSetMap>
  <xaif:ScopeHierarchy>
    <xaif:Scope vertex_id="1"><xaif:SymbolTable/></xaif:Scope>
  </xaif:ScopeHierarchy>
"#;
    let tail = r#"  <xaif:DUUDSetMap><xaif:StmtIdSet key="0"/><xaif:StmtIdSet key="4"/></xaif:DUUDSetMap>
</xaif:CallGraph>
"#;
    let cg = xaif_schema::read::read_call_graph(&format!("{head}{tail}"), "m.xaif").unwrap();
    assert_eq!(cg.duud_set_map.sets.len(), 2);
    assert_eq!(cg.do_set_map.sets.len(), 1);
    assert!(cg.alias_set_map.sets.is_empty());
    let twice = format!("{head}  <xaif:DOSetMap/>\n{tail}");
    let e = xaif_schema::read::read_call_graph(&twice, "m.xaif").unwrap_err();
    assert_eq!(e.line, 7, "{e}");
    assert!(e.message.contains("a second 'xaif:DOSetMap'"), "{e}");
}
