use super::*;
use crate::parse::parse_file;

fn build(src: &str) -> Program {
    Program::build(vec![parse_file(src, 0).unwrap()]).unwrap()
}

#[test]
fn implicit_typing_and_kinds() {
    let p = build("subroutine s(x, n)\n double precision x\n y = x * n\n k = 1\nend\n");
    let u = 0;
    assert_eq!(
        p.type_of(u, &Expr::Name("x".into(), Span::default())).cat,
        Cat::Real(8)
    );
    assert_eq!(
        p.type_of(u, &Expr::Name("n".into(), Span::default())).cat,
        Cat::Int
    );
    assert_eq!(
        p.type_of(u, &Expr::Name("y".into(), Span::default())).cat,
        Cat::Real(4)
    );
    assert_eq!(
        p.type_of(u, &Expr::Name("k".into(), Span::default())).cat,
        Cat::Int
    );
}

#[test]
fn use_rename_and_module_kind_parameter() {
    let p = build(
        "module m\n integer, parameter :: wp = kind(1.0d0)\n real(wp) :: g\ncontains\n subroutine t\n end subroutine\nend module\nsubroutine s\n use m, only: h => g, wp\n real(kind=wp) :: z\n z = h\nend\n",
    );
    let s = *p.globals.get("s").unwrap();
    assert!(matches!(p.resolve(s, "h"), Some(Binding::Var { .. })));
    assert!(p.resolve(s, "g").is_none());
    assert_eq!(
        p.type_of(s, &Expr::Name("z".into(), Span::default())).cat,
        Cat::Real(8)
    );
    assert_eq!(
        p.type_of(s, &Expr::Name("h".into(), Span::default())).cat,
        Cat::Real(8)
    );
}

#[test]
fn implicit_none_rejects_undeclared() {
    let f = parse_file("subroutine s\n implicit none\n y = 1\nend\n", 0).unwrap();
    let e = Program::build(vec![f]).unwrap_err();
    assert!(e.message.contains("'y'"), "{}", e.message);
}

#[test]
fn common_blocks_must_agree() {
    let ok = "subroutine a\n common /c/ x, y(3)\nend\nsubroutine b\n common /c/ p, q(3)\nend\n";
    assert!(Program::build(vec![parse_file(ok, 0).unwrap()]).is_ok());
    let bad = "subroutine a\n common /c/ x, y(3)\nend\nsubroutine b\n common /c/ p(4)\nend\n";
    let e = Program::build(vec![parse_file(bad, 0).unwrap()]).unwrap_err();
    assert!(e.message.contains("/c/"), "{}", e.message);
}

#[test]
fn unknown_function_is_rejected() {
    let f = parse_file("subroutine s\n y = g(1.0)\nend\n", 0).unwrap();
    assert!(Program::build(vec![f]).is_err());
}
