use super::*;

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

fn names(list: &[&str]) -> HashSet<String> {
    list.iter().map(|s| s.to_string()).collect()
}

const UNIT: &str = "\
subroutine step(x, y)
  use OAD_active
  type(active) :: x(3)
  type(active) :: y
  type(active), allocatable :: h(:)
  type(active) :: w(10)
  type(active) :: p(10)
  type(active), allocatable, save :: oad_keep_h(:)
  integer :: i
  allocate(h(0:n + 1))
  if (allocated(oad_keep_h)) then
    if (lbound(oad_keep_h, 1) /= 0) deallocate(oad_keep_h)
  end if
  if (allocated(oad_keep_h)) call move_alloc(oad_keep_h, h)
  do i = 1, size(h)
    h(i)%v = x(1)%v * w(i)%v   ! h(i) w
    w(i)%d = w(i)%d + h(i + 1)%d
  end do
  h%d = 0
  call oad_zero_d(w)
  call oad_snap_push(h%v, lbound(h), ubound(h))
  call foo(p)
  call move_alloc(h, oad_keep_h)
end subroutine step";

#[test]
fn locals_split_dummies_and_arrays_passed_whole_stay() {
    let d = decide(&lines(UNIT), &names(&["step", "x", "y"]), false);
    assert_eq!(
        d.split.iter().cloned().collect::<Vec<_>>(),
        vec!["h", "oad_keep_h", "w"]
    );
    assert_eq!(d.kept.get("x"), Some(&Kept::Interface));
    assert_eq!(
        d.kept.get("p"),
        Some(&Kept::WholeReference("call foo(p)".into()))
    );
    // y is a scalar: not a candidate at all.
    assert!(!d.kept.contains_key("y") && !d.split.contains("y"));
}

#[test]
fn host_of_internal_procedures_keeps_everything() {
    let d = decide(&lines(UNIT), &names(&["step", "x", "y"]), true);
    assert!(d.split.is_empty());
    assert_eq!(d.kept.get("h"), Some(&Kept::HostOfInternal));
}

#[test]
fn rewrite_spells_every_reference_in_the_split_layout() {
    let mut l = lines(UNIT);
    // The executable part starts at `allocate`.
    let body_at = l.iter().position(|s| s.contains("allocate(h")).unwrap();
    apply(&mut l, body_at, &names(&["step", "x", "y"]), false);
    let text = l.join("\n");
    for want in [
        "  real(8), allocatable :: oad_v_h(:), oad_d_h(:)",
        "  real(8) :: oad_v_w(10), oad_d_w(10)",
        "  type(active) :: p(10)",
        "  real(8), allocatable, save :: oad_v_oad_keep_h(:), oad_d_oad_keep_h(:)",
        "  oad_d_w = 0\n  allocate(oad_v_h(0:n + 1), oad_d_h(0:n + 1))\n  oad_d_h = 0",
        "if (lbound(oad_v_oad_keep_h, 1) /= 0) deallocate(oad_v_oad_keep_h, oad_d_oad_keep_h)",
        "if (allocated(oad_v_oad_keep_h)) then; call move_alloc(oad_v_oad_keep_h, oad_v_h); \
         call move_alloc(oad_d_oad_keep_h, oad_d_h); end if",
        "do i = 1, size(oad_v_h)",
        "oad_v_h(i) = x(1)%v * oad_v_w(i)   ! h(i) w",
        "oad_d_w(i) = oad_d_w(i) + oad_d_h(i + 1)",
        "  oad_d_h = 0\n  oad_d_w = 0\n",
        "call oad_snap_push(oad_v_h, lbound(oad_v_h), ubound(oad_v_h))",
        "  call move_alloc(oad_v_h, oad_v_oad_keep_h); call move_alloc(oad_d_h, oad_d_oad_keep_h)",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
}

#[test]
fn a_move_alloc_partner_that_stays_keeps_the_other() {
    let unit = "\
subroutine s(a)
  type(active), allocatable :: a(:)
  type(active), allocatable :: b(:)
  allocate(b(3))
  b%v = 1
  call move_alloc(b, a)
end subroutine s";
    let d = decide(&lines(unit), &names(&["s", "a"]), false);
    assert!(d.split.is_empty());
    assert_eq!(
        d.kept.get("b"),
        Some(&Kept::WholeReference("call move_alloc(b, a)".into()))
    );
}

#[test]
fn declarations_the_split_layout_cannot_repeat() {
    for (decl, why) in [
        ("type(active), target :: t(4)", "attribute 'target'"),
        ("type(active), pointer :: t(:)", "attribute 'pointer'"),
        ("type(active), save, target :: t(4)", "attribute 'target'"),
        (
            "type(active) :: t(2) = (/ active(1), active(2) /)",
            "an initial value or several entities",
        ),
    ] {
        let unit = format!("subroutine s()\n  {decl}\n  t(1)%v = 0\nend subroutine s");
        let d = decide(&lines(&unit), &names(&["s"]), false);
        assert_eq!(
            d.kept.get("t"),
            Some(&Kept::Declaration(why.into())),
            "{decl}"
        );
    }
}

#[test]
fn allocation_with_stat_or_in_a_logical_if_stays() {
    for stmt in ["allocate(t(4), stat=k)", "if (k > 0) allocate(t(4))"] {
        let unit = format!(
            "subroutine s()\n  type(active), allocatable :: t(:)\n  integer :: k\n  {stmt}\n  t(1)%v = 0\nend subroutine s"
        );
        let d = decide(&lines(&unit), &names(&["s"]), false);
        assert!(d.split.is_empty(), "{stmt}");
    }
}

#[test]
fn bounds_naming_another_split_array_are_rewritten_too() {
    let unit = "\
subroutine s()
  type(active), allocatable :: a(:)
  type(active), allocatable :: b(:)
  allocate(a(5))
  allocate(b(size(a)))
  b(1)%v = a(1)%v
end subroutine s";
    let mut l = lines(unit);
    let d = apply(&mut l, 3, &names(&["s"]), false);
    assert_eq!(d.split.len(), 2);
    assert!(
        l.contains(&"  allocate(oad_v_b(size(oad_v_a)), oad_d_b(size(oad_v_a)))".to_string()),
        "{l:?}"
    );
}

#[test]
fn strings_and_comments_are_left_alone() {
    let unit = "\
subroutine s()
  type(active) :: a(2)
  a(1)%v = 1 ! a(1)%v
  print *, 'a(1)%v', a(2)%v
end subroutine s";
    let mut l = lines(unit);
    apply(&mut l, 2, &names(&["s"]), false);
    assert_eq!(l[3], "  oad_v_a(1) = 1 ! a(1)%v");
    assert_eq!(l[4], "  print *, 'a(1)%v', oad_v_a(2)");
}

#[test]
fn zeroing_goes_after_the_declarations_of_a_template_body() {
    let unit = "\
subroutine s()
  type(active) :: a(2)
  type(modetype) :: oad_saved_mode
  if (our_rev_mode%tape) then
    a(1)%v = 1
  end if
end subroutine s";
    let mut l = lines(unit);
    apply(&mut l, 2, &names(&["s"]), false);
    assert_eq!(l[2], "  type(modetype) :: oad_saved_mode");
    assert_eq!(l[3], "  oad_d_a = 0");
}

#[test]
fn a_directive_naming_the_array_keeps_it() {
    let unit = "\
subroutine s()
  type(active) :: a(2)
  !$omp parallel do private(a)
  a(1)%v = 1
end subroutine s";
    let d = decide(&lines(unit), &names(&["s"]), false);
    assert!(d.split.is_empty());
    assert!(matches!(d.kept.get("a"), Some(Kept::WholeReference(_))));
}

#[test]
fn a_declaration_inside_the_executable_part_stays() {
    let unit = "\
subroutine s()
  type(active) :: a(2)
  a(1)%v = 1
  block
    type(active) :: b(2)
    b(1)%v = a(1)%v
  end block
end subroutine s";
    let mut l = lines(unit);
    let d = apply(&mut l, 2, &names(&["s"]), false);
    assert_eq!(d.split.iter().cloned().collect::<Vec<_>>(), vec!["a"]);
    assert_eq!(
        d.kept.get("b"),
        Some(&Kept::Declaration("declared in the executable part".into()))
    );
    assert!(l.contains(&"    b(1)%v = oad_v_a(1)".to_string()), "{l:?}");
}

#[test]
fn saved_arrays_are_initialised_once_and_a_save_statement_keeps_them() {
    let unit = "subroutine s()\n  type(active), save :: t(4)\n  type(active) :: w(4)\n  t(1)%v = w(2)%v\nend subroutine s";
    let mut l = lines(unit);
    let d = apply(&mut l, 1, &names(&["s"]), false);
    assert_eq!(d.split.len(), 2);
    assert_eq!(l[1], "  real(8), save :: oad_v_t(4), oad_d_t(4) = 0.0d0");
    // Only the unsaved array is zeroed at entry.
    assert_eq!(l[3], "  oad_d_w = 0");
    assert_eq!(l[4], "  oad_v_t(1) = oad_v_w(2)");
    let with_statement = unit.replace("  type(active) :: w(4)", "  type(active) :: w(4)\n  save");
    let d = decide(&lines(&with_statement), &names(&["s"]), false);
    assert!(d.split.is_empty());
    assert_eq!(
        d.kept.get("w"),
        Some(&Kept::Declaration("a `save` statement saves it".into()))
    );
}

#[test]
fn an_inquiry_in_another_arrays_bounds_is_respelled() {
    let unit = "subroutine s()\n  type(active) :: a(4)\n  type(active) :: t(size(a))\n  t(1)%v = a(2)%v\nend subroutine s";
    let mut l = lines(unit);
    let d = apply(&mut l, 1, &names(&["s"]), false);
    assert!(d.split.contains("a") && d.split.contains("t"), "{d:?}");
    assert_eq!(
        l[2],
        "  real(8) :: oad_v_t(size(oad_v_a)), oad_d_t(size(oad_v_a))"
    );
    // A value in the bounds is no inquiry: `a` stays.
    let unit = unit.replace("t(size(a))", "t(int(a(1)%v))");
    let d = decide(&lines(&unit), &names(&["s"]), false);
    assert_eq!(
        d.kept.get("a"),
        Some(&Kept::WholeReference(
            "type(active) :: t(int(a(1)%v))".into()
        ))
    );
}

#[test]
fn which_actuals_a_scalar_dummy_takes_as_two_components() {
    // The actual of `call k(ACTUAL)`, with `h` a candidate.
    let designator = |actual: &str| {
        let text = format!("  call k({actual})");
        let line = Line::new(&text);
        let open = (0..line.toks.len()).find(|&j| line.s(j) == "(").unwrap();
        let args = line.arguments(open).unwrap();
        let (first, last) = args[0];
        line.designator(first, last, &names(&["h"]))
    };
    for yes in ["fl", "u(i + 1)", "p%visc", "s(k)%a(2, j)%x", "h(3)", "h"] {
        assert!(designator(yes), "{yes}");
    }
    // An expression, a constant, a value part, a candidate in a subscript
    // or behind a component.
    for no in [
        "2*u(i)",
        "1.5d0",
        "u(i)%v",
        "w(int(h(1)%v))",
        "(fl)",
        "h(1)%d",
    ] {
        assert!(!designator(no), "{no}");
    }
}
