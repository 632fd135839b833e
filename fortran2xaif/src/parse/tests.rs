//! Unit tests of the parser: operator precedence and the grammar's quirks,
//! labelled `do` nesting, `forall`, statement function detection, syntax
//! error locations.

use super::*;

fn body_of(src: &str) -> Vec<Stmt> {
    let f = parse_file(src, 0).expect("parses");
    f.units[0].body.clone()
}

fn rhs(src: &str) -> Expr {
    match &body_of(src)[0].kind {
        StmtKind::Assign { rhs, .. } => rhs.clone(),
        k => panic!("not an assignment: {k:?}"),
    }
}

/// `state(i) = ...` opening a contained procedure assigns an element
/// of the host's array; with no such array it defines a statement
/// function.
#[test]
fn element_of_a_host_array_is_not_a_statement_function() {
    let src = "module m\n real(8) :: state(3)\ncontains\n subroutine bump(i)\n  integer :: i\n  state(i) = state(i) + 1\n end subroutine\nend module\n";
    let f = parse_file(src, 0).expect("parses");
    let bump = &f.units[0].contains[0];
    assert_eq!(bump.body.len(), 1, "{bump:?}");
    assert!(!bump
        .spec
        .iter()
        .any(|s| matches!(s, SpecStmt::StmtFunction { .. })));
    let host = "subroutine h\n real(8) :: y\n y = 1\ncontains\n subroutine g(i)\n  integer :: i\n  sq(i) = i * i\n  print *, sq(2)\n end subroutine\nend subroutine\n";
    let f = parse_file(host, 0).expect("parses");
    assert!(f.units[0].contains[0]
        .spec
        .iter()
        .any(|s| matches!(s, SpecStmt::StmtFunction { .. })));
}

#[test]
fn unary_minus_binds_looser_than_power() {
    let e = rhs("subroutine s\n z = -a**2\nend\n");
    match e {
        Expr::Unary(UnOp::Neg, inner, _) => {
            assert!(matches!(*inner, Expr::Binary(BinOp::Pow, ..)))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn power_is_right_associative() {
    let e = rhs("subroutine s\n z = a**b**c\nend\n");
    match e {
        Expr::Binary(BinOp::Pow, l, r, _) => {
            assert!(matches!(*l, Expr::Name(..)));
            assert!(matches!(*r, Expr::Binary(BinOp::Pow, ..)));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn signed_element_reference_is_negated_element() {
    let e = rhs("subroutine s\n z = -x(1)*3\nend\n");
    match e {
        Expr::Unary(UnOp::Neg, inner, _) => match *inner {
            Expr::Binary(BinOp::Mul, l, _, _) => assert!(matches!(*l, Expr::Apply { .. })),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

#[test]
fn labelled_do_loops_nest_with_shared_end() {
    let b = body_of("subroutine s\n do 10 i=1,3\n do 10 j=1,2\n x = 1\n10 continue\n y = 2\nend\n");
    assert_eq!(b.len(), 2);
    match &b[0].kind {
        StmtKind::Do { body, .. } => {
            assert_eq!(body.len(), 1);
            assert!(matches!(&body[0].kind, StmtKind::Do { body, .. } if body.len() == 2));
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn forall_and_implied_do_loops_are_read() {
    let b = body_of("subroutine s\n forall (i = 1:3, j = 1:2, i /= j) a(i, j) = b(j, i)\nend\n");
    match &b[0].kind {
        StmtKind::Forall {
            controls,
            mask: Some(_),
            body,
        } => {
            assert_eq!(controls.len(), 2);
            assert_eq!(body.len(), 1);
        }
        k => panic!("{k:?}"),
    }
    let b = body_of("subroutine s\n x = (/ (i*2, i = 1, 3), 7 /)\nend\n");
    match &b[0].kind {
        StmtKind::Assign {
            rhs: Expr::ArrayCtor(items, _),
            ..
        } => assert!(matches!(&items[0], Expr::ImpliedDo { control, .. } if control.var == "i")),
        k => panic!("{k:?}"),
    }
}

#[test]
fn syntax_error_is_located() {
    let e = parse_file("subroutine s\n x = (1 +\nend\n", 3).unwrap_err();
    assert_eq!(e.span.file, 3);
    assert!(e.message.contains("syntax error"), "{}", e.message);
}

#[test]
fn declarations_and_statement_functions() {
    let f = parse_file(
        "subroutine s(x)\n real*8 x(2,*)\n f(u) = u*2\n x(1) = f(x(2))\nend\n",
        0,
    )
    .unwrap();
    let u = &f.units[0];
    assert!(
        matches!(&u.spec[0], SpecStmt::TypeDecl { entities, .. } if entities[0].dims.as_ref().unwrap().len() == 2)
    );
    assert!(matches!(&u.spec[1], SpecStmt::StmtFunction { name, .. } if name == "f"));
    assert_eq!(u.body.len(), 1);
}

#[test]
fn element_assignments_to_module_arrays_are_not_statement_functions() {
    // `g` comes from the module: neither `g(1) = ...` (a literal
    // subscript) nor `h(i) = ...` (after a `use` without `only`) may be
    // taken for a statement function.
    let f = parse_file(
        "subroutine s(x)\n use m\n real(8) x(2)\n integer i\n g(1) = x(1)\n h(i) = x(2)\nend\n",
        0,
    )
    .unwrap();
    let u = &f.units[0];
    assert!(!u
        .spec
        .iter()
        .any(|st| matches!(st, SpecStmt::StmtFunction { .. })));
    assert_eq!(u.body.len(), 2);
}
#[test]
fn associate_names_become_their_selectors() {
    let src = "subroutine s(st, x, k)\nassociate (h => st%h, q => st%q(2:, k), d => x(2) - x(1))\nh = q(3) + d\nq(1:2) = 0\nend associate\nend\n";
    let f = parse_file(src, 0).expect("parses");
    let text: Vec<String> = f.units[0]
        .body
        .iter()
        .map(|s| format!("{:?}", s.kind))
        .collect();
    let body = &f.units[0].body;
    assert_eq!(body.len(), 3, "{text:?}");
    let StmtKind::Assign { lhs, rhs } = &body[1].kind else {
        panic!("{text:?}")
    };
    assert_eq!(crate::unparse::expr(lhs), "st%h");
    assert_eq!(crate::unparse::expr(rhs), "st%q(2 + (3 - 1), k) + oad_a1_d");
    let StmtKind::Assign { lhs, .. } = &body[2].kind else {
        panic!("{text:?}")
    };
    assert_eq!(
        crate::unparse::expr(lhs),
        "st%q(2 + (1 - 1):2 + (2 - 1), k)"
    );
    assert_eq!(f.units[0].construct_locals.associate_temps[0].0, "oad_a1_d");
}

#[test]
fn block_locals_are_hoisted_under_fresh_names() {
    let src = "subroutine s(y)\nreal :: y\nblock\nreal :: t\nt = 2\ny = t\nend block\nend\n";
    let f = parse_file(src, 0).expect("parses");
    let u = &f.units[0];
    assert!(u.spec.iter().any(
        |d| matches!(d, SpecStmt::TypeDecl { entities, .. } if entities[0].name == "oad_b1_t")
    ));
    let StmtKind::Assign { rhs, .. } = &u.body[1].kind else {
        panic!("{:?}", u.body)
    };
    assert_eq!(crate::unparse::expr(rhs), "oad_b1_t");
}

#[test]
fn do_concurrent_is_a_loop_nest_with_the_mask_inside() {
    let body = body_of("subroutine s(a)\nreal :: a(3, 4)\ndo concurrent (i = 1:3, j = 1:4:2, a(i, j) > 0)\na(i, j) = 0\nend do\nend\n");
    let StmtKind::Do {
        control: Some(c),
        body,
        ..
    } = &body[0].kind
    else {
        panic!("{body:?}")
    };
    assert_eq!(c.var, "i");
    let StmtKind::Do {
        control: Some(c),
        body,
        ..
    } = &body[0].kind
    else {
        panic!("{body:?}")
    };
    assert_eq!((c.var.as_str(), c.step.is_some()), ("j", true));
    assert!(matches!(body[0].kind, StmtKind::If { .. }), "{body:?}");
}

#[test]
fn pointer_block_local_is_a_named_error() {
    let e = parse_file(
        "subroutine s()\nblock\nreal, pointer :: w(:)\nend block\nend\n",
        0,
    )
    .unwrap_err();
    assert!(
        e.message.contains("pointer local of a block construct"),
        "{}",
        e.message
    );
}

#[test]
fn allocatable_block_local_is_released_on_entry_and_at_the_end() {
    let f = parse_file(
        "subroutine s(n)\ninteger :: n\nb: block\nreal, allocatable :: w(:)\nallocate(w(n))\nw = 1\nend block b\nend\n",
        0,
    )
    .expect("parses");
    let body = &f.units[0].body;
    assert_eq!(body.len(), 4, "{body:?}");
    for k in [0, 3] {
        let StmtKind::If { arms, .. } = &body[k].kind else {
            panic!("{:?}", body[k])
        };
        assert!(
            matches!(&arms[0].0, Expr::Apply { name, .. } if name == "allocated"),
            "{arms:?}"
        );
    }
    let StmtKind::Opaque { text, .. } = &body[1].kind else {
        panic!("{:?}", body[1])
    };
    assert!(text.contains("oad_b1_w"), "{text}");
}

#[test]
fn exit_from_a_named_block_is_a_named_error() {
    let e = parse_file(
        "subroutine s(x)\nreal :: x\nb: block\nif (x > 0) exit b\nx = 1\nend block b\nend\n",
        0,
    )
    .unwrap_err();
    assert!(
        e.message.contains("exit from the block construct 'b'"),
        "{}",
        e.message
    );
}

#[test]
fn value_dummy_is_copied_into_a_local_the_body_uses() {
    let f = parse_file(
        "subroutine s(a, y)\nreal(8), value :: a\nreal(8) :: y\na = 2 * a\ny = a\nend\n",
        0,
    )
    .expect("parses");
    let u = &f.units[0];
    let text: Vec<String> = u
        .body
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Assign { lhs, rhs } => format!(
                "{} = {}",
                crate::unparse::expr(lhs),
                crate::unparse::expr(rhs)
            ),
            k => format!("{k:?}"),
        })
        .collect();
    assert_eq!(
        text,
        ["oad_v1_a = a", "oad_v1_a = 2 * oad_v1_a", "y = oad_v1_a"]
    );
    assert!(u.spec.iter().any(|s| matches!(s, SpecStmt::TypeDecl { attrs, entities, .. }
        if entities[0].name == "a" && attrs.contains(&Attr::Intent(Intent::In)) && !attrs.contains(&Attr::Value))));
}

#[test]
fn optional_value_dummy_is_a_named_error() {
    let e = parse_file(
        "subroutine s(a)\nreal(8), value, optional :: a\na = 1\nend\n",
        0,
    )
    .unwrap_err();
    assert!(
        e.message.contains("optional value dummy argument 'a'"),
        "{}",
        e.message
    );
}

#[test]
fn nested_associate_composes_sections_and_reaches_block_bounds() {
    let src = "subroutine s(st, k)\nassociate (a => st%q(:, k))\nassociate (b => a(2:5))\nblock\nreal :: w(size(a))\nb(1) = w(1)\nend block\nend associate\nend associate\nend\n";
    let f = parse_file(src, 0).expect("parses");
    let u = &f.units[0];
    let StmtKind::Assign { lhs, .. } = &u.body[0].kind else {
        panic!("{:?}", u.body)
    };
    assert_eq!(
        crate::unparse::expr(lhs),
        "st%q(lbound(st%q, 1) + (2 + (1 - 1) - 1), k)"
    );
    let w = u
        .spec
        .iter()
        .find_map(|s| match s {
            SpecStmt::TypeDecl { entities, .. } if entities[0].name == "oad_b1_w" => {
                entities[0].dims.clone()
            }
            _ => None,
        })
        .expect("hoisted");
    let DimSpec::Explicit { hi, .. } = &w[0] else {
        panic!("{w:?}")
    };
    assert_eq!(crate::unparse::expr(hi), "size(st%q(:, k))");
}

#[test]
fn allocatable_result_allocated_from_the_arguments_is_read_as_explicit_shape() {
    let f = parse_file("module m\ncontains\nfunction f(u, c) result(r)\nreal(8), intent(in) :: u(:), c\nreal(8), allocatable :: r(:)\nreal(8) :: s\ns = 1 / c\nallocate(r(size(u)))\nr = s * u\nend function\nend module\n", 0).expect("parses");
    let u = &f.units[0].contains[0];
    assert_eq!(u.body.len(), 2, "{:?}", u.body);
    let decl = u
        .spec
        .iter()
        .find_map(|s| match s {
            SpecStmt::TypeDecl {
                attrs, entities, ..
            } if entities[0].name == "r" => Some((attrs.clone(), entities[0].dims.clone())),
            _ => None,
        })
        .expect("r declared");
    assert!(!decl.0.contains(&Attr::Allocatable), "{decl:?}");
    assert!(
        matches!(&decl.1.as_deref(), Some([DimSpec::Explicit { .. }])),
        "{decl:?}"
    );
}

#[test]
fn allocatable_result_sized_by_a_count_stays_allocatable() {
    let f = parse_file("module m\ncontains\nfunction f(u) result(r)\nreal(8), intent(in) :: u(:)\nreal(8), allocatable :: r(:)\ninteger :: n\nn = count(u > 0)\nallocate(r(n))\nr = 1\nend function\nend module\n", 0).expect("parses");
    let u = &f.units[0].contains[0];
    assert_eq!(u.body.len(), 3, "{:?}", u.body);
}

#[test]
fn allocatable_result_of_an_external_function_stays_allocatable() {
    // An interface block elsewhere would still declare it allocatable.
    let f = parse_file("function f(u) result(r)\nreal(8), intent(in) :: u(:)\nreal(8), allocatable :: r(:)\nallocate(r(size(u)))\nr = u\nend\n", 0).expect("parses");
    assert_eq!(f.units[0].body.len(), 2, "{:?}", f.units[0].body);
}
