//! Canonicalisation tests: Fortran text in, canonical body text out.

use super::*;
use crate::parse::parse_file;

/// The canonical source of a small program.
fn canon_text(src: &str) -> String {
    let mut prog = Program::build(vec![parse_file(src, 0).unwrap()]).unwrap();
    canonicalise(&mut prog).unwrap();
    crate::emit_canon::emit(&prog)
}

fn body(text: &str, unit: &str) -> String {
    let start = text.find(&format!("!$oad unit {unit}\n")).expect("unit");
    let rest = &text[start..];
    let b = rest.find("!$oad body\n").expect("body") + "!$oad body\n".len();
    let e = rest.find("!$oad end-body").expect("end-body");
    rest[b..e]
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("\n")
}

fn canon_err(src: &str) -> String {
    let mut prog = Program::build(vec![parse_file(src, 0).unwrap()]).unwrap();
    canonicalise(&mut prog).unwrap_err().message
}

#[test]
fn function_becomes_subroutine_with_result_temporary() {
    let t =
        canon_text("real function f(a)\n f = a * a\nend\nsubroutine s(x, y)\n y = f(x) * 2\nend\n");
    assert!(t.contains("subroutine oad_s_f(a, f)"), "{t}");
    assert_eq!(body(&t, "s"), "call oad_s_f(x, oad_t1)\ny = oad_t1 * 2");
}

#[test]
fn function_result_goes_by_keyword_when_an_optional_argument_is_absent() {
    // Passed by position it would land on the absent `b`.
    let t = canon_text(
        "module m\ncontains\nfunction f(a, b) result(r)\nreal :: a, r\nreal, optional :: b\nr = a\nif (present(b)) r = a * b\nend function\nend module\nsubroutine s(x, y)\nuse m\n y = f(x) * 2\nend\n",
    );
    assert_eq!(body(&t, "s"), "call oad_s_f(x, r=oad_t1)\ny = oad_t1 * 2");
}

#[test]
fn expression_arguments_go_through_temporaries() {
    let t = canon_text("subroutine g(a, b, c)\n c = a + b\nend\nsubroutine s(x, y)\n call g(x + 1.0, 2.0, y)\nend\n");
    assert_eq!(body(&t, "s"), "oad_t1 = x + 1.0\ncall g(oad_t1, 2.0, y)");
}

#[test]
fn statement_functions_are_expanded() {
    let t = canon_text("subroutine s(x, y)\n sq(u) = u * u\n y = sq(x + 1.0)\nend\n");
    assert_eq!(body(&t, "s"), "y = ((x + 1.0) * (x + 1.0))");
    assert!(!t.contains("sq"), "{t}");
}

#[test]
fn nary_max_is_nested() {
    let t = canon_text("subroutine s(a, b, c, y)\n y = max(a, b, c)\nend\n");
    assert_eq!(body(&t, "s"), "y = max(max(a, b), c)");
}

#[test]
fn whole_array_assignment_is_a_loop_nest() {
    let t = canon_text("subroutine s(a, b)\n real a(3, 4), b(3, 4)\n a = 2 * b\nend\n");
    assert_eq!(
        body(&t, "s"),
        "do oad_i2 = 1, 4\ndo oad_i1 = 1, 3\na(oad_i1, oad_i2) = 2 * b(oad_i1, oad_i2)\nend do\nend do"
    );
}

#[test]
fn select_with_ranges_becomes_if_chain() {
    let t = canon_text("subroutine s(i, y)\n select case (i + 1)\n case (1:3)\n y = 1\n case default\n y = 2\n end select\nend\n");
    let b = body(&t, "s");
    assert!(
        b.starts_with("oad_t1 = i + 1\nif (oad_t1 >= 1 .and. oad_t1 <= 3) then"),
        "{b}"
    );
    assert!(b.contains("else\ny = 2"), "{b}");
}

#[test]
fn else_if_that_calls_a_function_nests() {
    let t = canon_text(
        "logical function p(a)\n p = a > 0\nend\nsubroutine s(x, y)\n logical p\n if (x > 1) then\n y = 1\n else if (p(x)) then\n y = 2\n end if\nend\n",
    );
    let b = body(&t, "s");
    assert_eq!(b, "if (x > 1) then\ny = 1\nelse\ncall oad_s_p(x, oad_t1)\nif (oad_t1) then\ny = 2\nend if\nend if");
}

#[test]
fn sum_over_real_data_is_a_loop() {
    let t = canon_text("subroutine s(a, y)\n real a(4)\n y = sum(a) / 4\nend\n");
    assert_eq!(
        body(&t, "s"),
        "oad_t1 = 0\ndo oad_i1 = 1, 4\noad_t1 = oad_t1 + a(oad_i1)\nend do\ny = oad_t1 / 4"
    );
}

#[test]
fn where_becomes_masked_loops() {
    let t = canon_text("subroutine s(a, b)\n real a(3), b(3)\n where (a > 0)\n b = a\n elsewhere\n b = 0\n end where\nend\n");
    assert_eq!(
        body(&t, "s"),
        "do oad_i1 = 1, 3\nif (a(oad_i1) > 0) then\nb(oad_i1) = a(oad_i1)\nelse\nb(oad_i1) = 0\nend if\nend do"
    );
    // An arm whose right side reads the target: one loop per arm.
    let t = canon_text("subroutine s(a, b)\n real a(3), b(3)\n where (a > 0)\n b = a\n elsewhere\n b = 2 * b\n end where\nend\n");
    assert_eq!(
        body(&t, "s"),
        "do oad_i1 = 1, 3\nif (a(oad_i1) > 0) then\nb(oad_i1) = a(oad_i1)\nend if\nend do\n\
         do oad_i2 = 1, 3\nif (.not. (a(oad_i2) > 0)) then\nb(oad_i2) = 2 * b(oad_i2)\nend if\nend do"
    );
    // Clipping: the mask reads only the element its one assignment writes.
    let t = canon_text("subroutine s(a)\n real a(3)\n where (a > 0) a = -a\nend\n");
    assert_eq!(
        body(&t, "s"),
        "do oad_i1 = 1, 3\nif (a(oad_i1) > 0) then\na(oad_i1) = -a(oad_i1)\nend if\nend do"
    );
    // Otherwise the mask is evaluated into a temporary before the arm.
    let t = canon_text("subroutine s(a)\n real a(3)\n where (a > 0)\n a = -a\n elsewhere\n a = 1\n end where\nend\n");
    assert_eq!(
        body(&t, "s"),
        "do oad_i1 = 1, 3\noad_t1(oad_i1) = a(1 + (oad_i1 - 1)) > 0\nend do\n\
         do oad_i2 = 1, 3\nif (oad_t1(oad_i2)) then\na(oad_i2) = -a(oad_i2)\nend if\nend do\n\
         do oad_i3 = 1, 3\nif (.not. (oad_t1(oad_i3))) then\na(oad_i3) = 1\nend if\nend do"
    );
}

#[test]
fn forall_evaluates_right_sides_before_assigning() {
    // Reads its own target elsewhere: right sides into a temporary first;
    // the index is a fresh variable (the construct's own).
    let t = canon_text("subroutine s(a)\n real a(4)\n forall (i = 2:4) a(i) = a(i - 1)\nend\n");
    assert_eq!(
        body(&t, "s"),
        "do oad_i1 = 2, 4\noad_t1(1 + (oad_i1 - 2)) = a(oad_i1 - 1)\nend do\n\
         do oad_i1 = 2, 4\na(oad_i1) = oad_t1(1 + (oad_i1 - 2))\nend do"
    );
    let t = canon_text("subroutine s(a, b)\n real a(3, 2), b(2, 3)\n forall (i = 1:3, j = 1:2, i /= j) a(i, j) = b(j, i)\nend\n");
    assert_eq!(
        body(&t, "s"),
        "do oad_i2 = 1, 2\ndo oad_i1 = 1, 3\nif (oad_i1 /= oad_i2) then\na(oad_i1, oad_i2) = b(oad_i2, oad_i1)\nend if\nend do\nend do"
    );
}

#[test]
fn real_components_are_scalarised_like_arrays() {
    let t = canon_text("module m\n type t\n real :: v(3)\n integer :: n\n end type\nend module\nsubroutine s(x)\n use m\n real x(3)\n type(t) :: p, q\n p%n = 3\n p%v = 2*x\n q = p\nend\n");
    let b = body(&t, "s");
    assert!(b.contains("p%v(oad_i1) = 2 * x(oad_i1)"), "{b}");
    // Whole-value assignment: opaque, then every real component again.
    assert!(b.contains("q = p\n"), "{b}");
    assert!(b.contains("q%v(oad_i2) = p%v(oad_i2)"), "{b}");
    assert!(t.contains("!$oad component t%v\n"), "{t}");
}

const CELL_MODULE: &str = "module m\n type g\n real(8) :: dx\n end type\n type t\n type(g) :: grid\n real(8) :: v(2)\n end type\ncontains\n function mk(a) result(r)\n real(8) :: a\n type(g) :: r\n r%dx = a\n end function\nend module\n";

#[test]
fn sub_object_values_are_copied_component_by_component() {
    let t = canon_text(&format!(
        "{CELL_MODULE}subroutine s(x)\nuse m\nreal(8) :: x\ntype(t) :: c(3)\ninteger :: i\ni = 2\nc(i) = c(i - 1)\nc(3)%grid = mk(x)\nend\n"
    ));
    let b = body(&t, "s");
    // The whole element, then each real component reachable from it.
    assert!(b.contains("c(i) = c(i - 1)\n"), "{b}");
    assert!(b.contains("c(i)%grid%dx = c(i - 1)%grid%dx"), "{b}");
    assert!(b.contains("c(i)%v(oad_i1) = c(i - 1)%v(oad_i1)"), "{b}");
    // A function result goes through a temporary of its type.
    assert!(b.contains("call oad_s_mk(x, oad_t1)\n"), "{b}");
    assert!(
        b.contains("c(3)%grid = oad_t1\nc(3)%grid%dx = oad_t1%dx"),
        "{b}"
    );
    assert!(t.contains("type(g) :: oad_t1"), "{t}");
}

#[test]
fn overlapping_sections_of_derived_type_are_refused_by_name() {
    let e = canon_err(&format!(
        "{CELL_MODULE}subroutine s()\nuse m\ntype(t) :: c(3)\nc(2:3) = c(1:2)\nend\n"
    ));
    assert!(
        e.contains("sections of the same array of derived types"),
        "{e}"
    );
}

const GENERIC_MODULE: &str = "module m\nprivate\npublic :: g\ninterface g\nmodule procedure g_vec, g_int\nend interface\ncontains\nsubroutine g_vec(a, s)\nreal(8) :: a(:), s\ns = sum(a)\nend subroutine\nsubroutine g_int(n, s)\ninteger :: n\nreal(8) :: s\ns = n\nend subroutine\nend module\n";

#[test]
fn generic_call_gets_its_specific_by_type_and_rank() {
    let t = canon_text(&format!(
        "{GENERIC_MODULE}subroutine s(x, y)\nuse m, only: h => g\nreal(8) :: x(3), y, z\ncall h(x, y)\ncall h(2, z)\ny = y + z\nend\n"
    ));
    assert_eq!(
        body(&t, "s"),
        "call g_vec(x, y)\ncall g_int(2, z)\ny = y + z"
    );
    // The specifics are made public; the generic itself is not emitted.
    assert!(t.contains("public :: g_vec, g_int"), "{t}");
    assert!(!t.contains(":: g\n"), "{t}");
}

#[test]
fn generic_call_without_a_matching_specific_is_refused() {
    let e = canon_err(&format!(
        "{GENERIC_MODULE}subroutine s(x, y)\nuse m\nreal(8) :: x(3, 2), y\ncall g(x, y)\nend\n"
    ));
    assert!(
        e.contains("no specific procedure of generic 'g'") && e.contains("real(8) of rank 2"),
        "{e}"
    );
}

#[test]
fn defined_operator_with_an_array_result_calls_into_a_temporary_of_its_shape() {
    let t = canon_text("module m\ninterface operator(.cross.)\nmodule procedure cross\nend interface\ncontains\nfunction cross(a, b)\nreal :: a(3), b(3), cross(3)\ncross = a\nend function\nend module\nsubroutine s(x, y)\nuse m\nreal :: x(3), y(3)\ny = x .cross. x\nend\n");
    assert!(t.contains("real :: oad_t1(3)"), "{t}");
    assert_eq!(
        body(&t, "s"),
        "call oad_s_cross(x, x, oad_t1)\ndo oad_i1 = 1, 3\ny(oad_i1) = oad_t1(oad_i1)\nend do"
    );
}

#[test]
fn array_result_shape_is_evaluated_with_the_actual_arguments() {
    // `size(u)` of the section passed, `n` the actual; lower bound 0.
    let t = canon_text("module m\ncontains\nfunction f(u, n) result(r)\ninteger :: n\nreal(8) :: u(:), r(0:size(u) + n)\nr = 0\nend function\nend module\nsubroutine s(x, k)\nuse m\ninteger :: k\nreal(8) :: x(10), y\ny = sum(f(x(2:7), k))\nx(1) = y\nend\n");
    assert!(t.contains("real(kind=8) :: oad_t1(6 + k - 0 + 1)"), "{t}");
    assert!(
        body(&t, "s").starts_with("call oad_s_f(x(2:7), k, oad_t1)"),
        "{t}"
    );
}

#[test]
fn array_result_shape_the_caller_cannot_evaluate_is_a_named_error() {
    let e = canon_err("module m\ncontains\nfunction f(a) result(r)\nreal :: a(:)\nreal :: r(ubound(a, 1))\nr = a\nend function\nend module\nsubroutine s(x, y)\nuse m\nreal :: x(3), y(3)\ny = f(x)\nend\n");
    assert!(
        e.contains("the result shape of array-valued function 'f' depends on the bounds of dummy argument 'a'"),
        "{e}"
    );
}

#[test]
fn vector_subscripts_address_through_the_vector() {
    let t = canon_text(
        "subroutine s(a, b, iv)\n real a(5), b(3)\n integer iv(3)\n b = a(iv)\n a(iv) = 2 * b\nend\n",
    );
    assert_eq!(
        body(&t, "s"),
        "do oad_i1 = 1, 3\nb(oad_i1) = a(iv(oad_i1))\nend do\n\
         do oad_i2 = 1, 3\na(iv(oad_i2)) = 2 * b(oad_i2)\nend do"
    );
}

#[test]
fn implied_do_constructor_fills_a_temporary_with_its_own_index() {
    let t = canon_text(
        "subroutine s(a, y)\n real a(4), y(4)\n j = 7\n y = [(a(j) * 2, j = 1, 4)]\nend\n",
    );
    assert!(t.contains("real :: oad_t1(4)"), "{t}");
    assert_eq!(
        body(&t, "s"),
        "j = 7\noad_t2 = 0\ndo oad_i1 = 1, 4\noad_t2 = oad_t2 + 1\noad_t1(oad_t2) = a(oad_i1) * 2\nend do\n\
         do oad_i2 = 1, 4\ny(oad_i2) = oad_t1(oad_i2)\nend do"
    );
}

#[test]
fn cshift_is_an_index_map_and_sum_with_dim_a_temporary() {
    // A shift known only at run time: position p reads mod(p + mod(k, n) + n, n).
    let t = canon_text("subroutine s(a, b, k)\n real a(4), b(4)\n b = cshift(a, k)\nend\n");
    assert_eq!(
        body(&t, "s"),
        "do oad_i1 = 1, 4\nb(oad_i1) = a(1 + mod(oad_i1 - 1 + (mod(k, 4) + 4), 4))\nend do"
    );
    let t = canon_text("subroutine s(a, c)\n real a(2, 3), c(3)\n c = sum(a, dim=1)\nend\n");
    assert_eq!(
        body(&t, "s"),
        "do oad_i1 = 1, 3\noad_t1(oad_i1) = 0\ndo oad_i2 = 1, 2\n\
         oad_t1(oad_i1) = oad_t1(oad_i1) + a(oad_i2, oad_i1)\nend do\nend do\n\
         do oad_i3 = 1, 3\nc(oad_i3) = oad_t1(oad_i3)\nend do"
    );
}

#[test]
fn array_language_refusals_are_named() {
    let e = canon_err(
        "subroutine s(a, b, k)\n real a(4, 2), b(4, 2)\n integer k(2)\n b = cshift(a, k, 1)\nend\n",
    );
    assert!(e.contains("cshift with an array-valued shift"), "{e}");
    let e = canon_err(
        "subroutine s(a, c, d)\n real a(2, 3), c(3)\n integer d\n c = sum(a, dim=d)\nend\n",
    );
    assert!(e.contains("sum with a dim that is not a constant"), "{e}");
    let e =
        canon_err("subroutine s(y)\n real y(10)\n y(1:6) = [((i * j, i = 1, j), j = 1, 3)]\nend\n");
    assert!(e.contains("inner bounds depend on its variable"), "{e}");
}

#[test]
fn cshift_with_constant_shifts_is_peeled_where_it_wraps() {
    // Shifts -1 and 2 on 6 elements: pieces [1, 1], [2, 4], [5, 6].
    let t = canon_text(
        "subroutine s(a, b)\n real a(6), b(6)\n b = cshift(a, -1) + cshift(a, 2)\nend\n",
    );
    assert_eq!(
        body(&t, "s"),
        "do oad_i1 = 1, 1\nb(oad_i1) = a(oad_i1 + (-1 + 6)) + a(oad_i1 + 2)\nend do\n\
         do oad_i1 = 2, 4\nb(oad_i1) = a(oad_i1 - 1) + a(oad_i1 + 2)\nend do\n\
         do oad_i1 = 5, 6\nb(oad_i1) = a(oad_i1 - 1) + a(oad_i1 + (2 - 6))\nend do"
    );
}

#[test]
fn defined_operators_and_assignment_become_calls_of_their_specifics() {
    let t = canon_text(
        "module m\ntype v2\nreal(8) :: c(2)\nend type\ninterface operator(.dot.)\nmodule procedure dot2\nend interface\ninterface operator(+)\nmodule procedure norm_sum\nend interface\ninterface assignment(=)\nmodule procedure from_array\nend interface\ncontains\nreal(8) function dot2(a, b)\ntype(v2), intent(in) :: a, b\ndot2 = a%c(1) * b%c(1) + a%c(2) * b%c(2)\nend function\nreal(8) function norm_sum(a, b)\ntype(v2), intent(in) :: a, b\nnorm_sum = a%c(1) + b%c(2)\nend function\nsubroutine from_array(v, x)\ntype(v2), intent(out) :: v\nreal(8), intent(in) :: x(2)\nv%c = x\nend subroutine\nend module\nsubroutine s(x, y)\nuse m\nreal(8) :: x(2), y\ntype(v2) :: p\np = x\ny = (p .dot. p) + 2 * (p + p)\nend\n",
    );
    assert_eq!(
        body(&t, "s"),
        "call from_array(p, x)\ncall oad_s_dot2(p, p, oad_t1)\ncall oad_s_norm_sum(p, p, oad_t2)\ny = oad_t1 + 2 * oad_t2"
    );
}

#[test]
fn complex_product_is_written_on_the_parts() {
    let t = canon_text(
        "subroutine s(x, y)\n real(8) :: x(2), y\n complex(8) :: z, w\n z = cmplx(x(1), x(2), kind=8)\n w = z * conjg(z)\n y = real(w) + aimag(z)\nend\n",
    );
    assert_eq!(
        body(&t, "s"),
        "z%re = x(1)\nz%im = x(2)\noad_t1 = -z%im\nw%re = z%re * z%re - z%im * oad_t1\nw%im = z%re * oad_t1 + z%im * z%re\ny = w%re + z%im"
    );
}

#[test]
fn complex_target_read_on_the_right_goes_through_a_temporary() {
    // The real part is written first: the imaginary part must not see it.
    let t = canon_text(
        "subroutine s(x, y)\n real(8) :: x, y\n complex(8) :: z\n z = cmplx(x, 1d0, kind=8)\n z = z * z\n y = abs(z)\nend\n",
    );
    assert_eq!(
        body(&t, "s"),
        "z%re = x\nz%im = 1d0\noad_t1 = z%re * z%im + z%im * z%re\nz%re = z%re * z%re - z%im * z%im\nz%im = oad_t1\ny = sqrt(z%re * z%re + z%im * z%im)"
    );
}

#[test]
fn complex_quotient_and_exp_are_written_on_the_parts() {
    let t = canon_text(
        "subroutine s(x, y)\n real(8) :: x, y\n complex(8) :: z\n z = 1d0 / cmplx(x, 2d0, kind=8)\n z = exp(z)\n y = real(z)\nend\n",
    );
    // 1/(x + 2i) by Smith's algorithm as gfortran: |x| < |2|: r = x/2,
    // q = x r + 2, ((1 r + 0) + i(0 r - 1))/q; else r = 2/x, q = 2 r + x,
    // ((0 r + 1) + i(0 - 1 r))/q. exp(a + ib) = exp(a) (cos b + i sin b).
    assert_eq!(
        body(&t, "s"),
        "if (abs(x) < abs(2d0)) then\noad_t3 = x / 2d0\noad_t4 = x * oad_t3 + 2d0\noad_t1 = (1d0 * oad_t3 + 0.0d0) / oad_t4\noad_t2 = (0.0d0 * oad_t3 - 1d0) / oad_t4\nelse\noad_t5 = 2d0 / x\noad_t6 = 2d0 * oad_t5 + x\noad_t1 = (0.0d0 * oad_t5 + 1d0) / oad_t6\noad_t2 = (0.0d0 - 1d0 * oad_t5) / oad_t6\nend if\nz%re = oad_t1\nz%im = oad_t2\noad_t7 = exp(z%re)\noad_t8 = oad_t7 * sin(z%im)\nz%re = oad_t7 * cos(z%im)\nz%im = oad_t8\ny = z%re"
    );
}

#[test]
fn complex_operations_without_a_rule_are_named_errors() {
    let e = canon_err("subroutine s(x)\n real(8) :: x\n complex(8) :: z\n z = cmplx(x, x, kind=8)\n z = sqrt(z)\nend\n");
    assert!(e.contains("intrinsic 'sqrt' on active complex data"), "{e}");
    let e = canon_err("subroutine s(x)\n real(8) :: x\n complex(8) :: z\n z = cmplx(x, x, kind=8)\n z = z ** 5\nend\n");
    assert!(e.contains("'**' on active complex data"), "{e}");
}

#[test]
fn complex_array_assignment_reading_its_target_keeps_the_imaginary_parts_in_a_temporary_array() {
    let t = canon_text(
        "subroutine s(x)\n real(8) :: x(3)\n complex(8) :: z(3)\n z = x\n z = z * z\nend\n",
    );
    let b = body(&t, "s");
    let temp = b.find("oad_t1(").expect("temporary array");
    let re = b
        .find("z(oad_i")
        .and_then(|_| b.find("%re = z("))
        .expect("real parts");
    assert!(temp < re, "{b}");
    assert!(b.contains("%im = oad_t1("), "{b}");
}

#[test]
fn associate_with_an_array_expression_is_a_named_error() {
    let e = Program::build(vec![parse_file(
        "subroutine s(x)\nreal(8) :: x(3)\nassociate (d => x * 2)\nx = d\nend associate\nend\n",
        0,
    )
    .unwrap()])
    .unwrap_err()
    .message;
    assert!(
        e.contains("associate selector that is an array expression"),
        "{e}"
    );
}

#[test]
fn associate_with_a_function_reference_evaluates_it_once() {
    let t = canon_text("real(8) function f(a)\nreal(8) :: a\nf = a\nend\nsubroutine s(x)\nreal(8) :: x, f\nassociate (d => f(x))\nx = d\nx = x + d\nend associate\nend\n");
    let b = body(&t, "s");
    assert_eq!(b.matches("oad_s_f").count(), 1, "{b}");
    assert!(
        b.ends_with("oad_a1_d = oad_t1\nx = oad_a1_d\nx = x + oad_a1_d"),
        "{b}"
    );
}

#[test]
fn automatic_array_of_a_block_needs_declarable_bounds() {
    let e = Program::build(vec![parse_file("subroutine s(x)\nreal(8) :: x(3)\ninteger :: n\nn = 3\nblock\nreal(8) :: w(n)\nw = x\nx = w\nend block\nend\n", 0).unwrap()]).unwrap_err().message;
    assert!(
        e.contains("automatic array in a block construct whose bounds use 'n'"),
        "{e}"
    );
}

const LAYER_TYPE: &str =
    "module m\ntype layer_t\nreal(8) :: t, s = 35d0\ninteger :: id\nend type\nend module\n";

#[test]
fn structure_constructor_is_assigned_component_by_component() {
    let t = canon_text(&format!(
        "{LAYER_TYPE}subroutine s(x, l)\nuse m\nreal(8) :: x\ntype(layer_t) :: l\nl = layer_t(2 * x, id=3)\nend\n"
    ));
    // The integer component is an opaque statement.
    assert_eq!(
        body(&t, "s"),
        "l%t = 2 * x\nl%s = 35d0\n!$oad stmt 0\nl%id = 3"
    );
}

#[test]
fn structure_constructor_reading_its_target_goes_through_a_temporary() {
    let t = canon_text(&format!(
        "{LAYER_TYPE}subroutine s(l)\nuse m\ntype(layer_t) :: l\nl = layer_t(l%s, l%t, 1)\nend\n"
    ));
    let b = body(&t, "s");
    assert!(
        b.starts_with("oad_t1%t = l%s\noad_t1%s = l%t\n!$oad stmt 0\noad_t1%id = 1\n"),
        "{b}"
    );
    assert!(b.contains("l = oad_t1\n"), "{b}");
}

#[test]
fn structure_constructor_without_a_value_for_a_component_is_refused() {
    let e = canon_err(&format!(
        "{LAYER_TYPE}subroutine s(x, l)\nuse m\nreal(8) :: x\ntype(layer_t) :: l\nl = layer_t(x)\nend\n"
    ));
    assert!(e.contains("without a value for component 'id'"), "{e}");
}

#[test]
fn structure_constructor_of_a_type_with_allocatable_components_is_refused() {
    let e = canon_err("module m\ntype v_t\nreal(8), allocatable :: a(:)\nreal(8) :: b\nend type\nend module\nsubroutine s(x, v)\nuse m\nreal(8) :: x(2)\ntype(v_t) :: v\nv = v_t(x, x(1))\nend\n");
    assert!(
        e.contains("component 'a' is allocatable or a pointer"),
        "{e}"
    );
}

#[test]
fn merge_on_real_data_is_an_if_on_its_mask() {
    let t =
        canon_text("subroutine s(a, b, y)\nreal(8) :: a, b, y\ny = 2 * merge(a, b, a > b)\nend\n");
    assert_eq!(
        body(&t, "s"),
        "if (a > b) then\noad_t1 = a\nelse\noad_t1 = b\nend if\ny = 2 * oad_t1"
    );
}

#[test]
fn elemental_merge_fills_a_temporary_array() {
    let t =
        canon_text("subroutine s(a, b)\nreal(8) :: a(4), b(4)\na = merge(a, b, b > 0) + 1\nend\n");
    let b = body(&t, "s");
    assert!(
        b.starts_with("do oad_i1 = 1, 4\nif (b(oad_i1) > 0) then\noad_t1(oad_i1) = a(oad_i1)\nelse\noad_t1(oad_i1) = b(oad_i1)\nend if\nend do\n"),
        "{b}"
    );
}

#[test]
fn norm2_is_the_root_of_a_sum_of_squares() {
    let t = canon_text("subroutine s(a, y)\nreal(8) :: a(3), y\ny = norm2(a)\nend\n");
    assert!(
        body(&t, "s").contains("oad_t1 = oad_t1 + a(oad_i1) ** 2"),
        "{t}"
    );
    assert!(body(&t, "s").ends_with("y = sqrt(oad_t1)"), "{t}");
}

#[test]
fn constructor_of_structures_reading_its_array_builds_every_item_first() {
    let t = canon_text(&format!(
        "{LAYER_TYPE}subroutine s(l)\nuse m\ntype(layer_t) :: l(2)\nl = [layer_t(l(2)%t, 1d0, 1), layer_t(l(1)%t, 2d0, 2)]\nend\n"
    ));
    let b = body(&t, "s");
    assert!(b.starts_with("oad_t1%t = l(2)%t\n"), "{b}");
    assert!(b.contains("oad_t2%t = l(1)%t\n"), "{b}");
    let first_store = b.find("l(lbound(l, 1) + 0)").expect("stored");
    assert!(first_store > b.find("oad_t2%t").unwrap(), "{b}");
}

#[test]
fn constructor_assigned_to_an_element_it_reads_goes_through_a_temporary() {
    let t = canon_text(&format!(
        "{LAYER_TYPE}subroutine s(l)\nuse m\ntype(layer_t) :: l(2)\nl(1) = layer_t(l(1)%s, l(1)%t, 1)\nend\n"
    ));
    let b = body(&t, "s");
    assert!(
        b.starts_with("oad_t1%t = l(1)%s\noad_t1%s = l(1)%t\n"),
        "{b}"
    );
}

#[test]
fn statement_lines_follow_wrapped_statements_and_blank_lines() {
    let long = (1..=30)
        .map(|k| format!("x({k})"))
        .collect::<Vec<_>>()
        .join(" + ");
    let src = format!(
        "subroutine s(x, y)\n real(8) :: x(30), y\n y = 0\n y = {long}\n call t(y)\nend\n\
         subroutine t(y)\n real(8) :: y\n y = 2 * y\nend\n"
    );
    let mut prog = Program::build(vec![parse_file(&src, 0).unwrap()]).unwrap();
    canonicalise(&mut prog).unwrap();
    let (text, statements) = crate::emit_canon::emit_with_statement_lines(&prog);
    assert_eq!(text, crate::emit_canon::emit(&prog));
    assert!(!text.contains('\u{1f}'), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let at = |first: usize, last: usize| lines[first - 1..last].join("\n");
    // Each assignment and call, where the statement lines say it is.
    let mut found = Vec::new();
    for (_, first, last) in &statements {
        found.push(at(*first, *last).trim().to_string());
    }
    assert!(found.contains(&"y = 0".to_string()), "{found:?}");
    assert!(found.contains(&"call t(y)".to_string()), "{found:?}");
    assert!(found.contains(&"y = 2 * y".to_string()), "{found:?}");
    // The long sum is wrapped: its range covers every continuation line.
    let wrapped = found
        .iter()
        .find(|s| s.starts_with("y = x(1)"))
        .expect("the long assignment");
    assert!(
        wrapped.contains("&\n") && wrapped.ends_with("x(30)"),
        "{wrapped}"
    );
}
