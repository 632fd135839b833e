  ! begin derivative layout
  ! Vector tangent mode (-m fv): max_deriv_vec_len derivatives per
  ! element, element after element.
  pure integer function width()
    width = max_deriv_vec_len
  end function width

  subroutine get_d(p, n, t)
    type(active), intent(in) :: p(:)
    integer, intent(in) :: n
    real(8), intent(out) :: t(:)
    integer :: i, w
    w = max_deriv_vec_len
    do i = 1, n
      t((i - 1) * w + 1:i * w) = p(i)%d
    end do
  end subroutine get_d

  subroutine set_d(p, n, t)
    type(active), intent(inout) :: p(:)
    integer, intent(in) :: n
    real(8), intent(in) :: t(:)
    integer :: i, w
    w = max_deriv_vec_len
    do i = 1, n
      p(i)%d = t((i - 1) * w + 1:i * w)
    end do
  end subroutine set_d

  subroutine zero_d(p, n)
    type(active), intent(inout) :: p(:)
    integer, intent(in) :: n
    integer :: i
    do i = 1, n
      p(i)%d = 0
    end do
  end subroutine zero_d

  ! Adjoints exist in the scalar modes only.
  subroutine add_d(p, n, t)
    type(active), intent(inout) :: p(:)
    integer, intent(in) :: n
    real(8), intent(in) :: t(:)
    if (n > 0 .and. size(t) > 0 .and. size(p) > 0) then
      error stop 'OAD_mpi: no adjoints in the vector tangent mode'
    end if
  end subroutine add_d
  ! end derivative layout
