  ! begin derivative layout
  ! Vector tangent mode (-m fv): up to max_deriv_vec_len derivatives per
  ! element. A message carries only the directions in use: up to the
  ! last one with a nonzero derivative among the elements it sends (a
  ! driver seeding nx directions sends at most nx per element); a
  ! point-to-point message says how many in its first element.
  pure integer function width()
    width = max_deriv_vec_len
  end function width

  pure logical function variable_width()
    variable_width = .true.
  end function variable_width

  ! A point-to-point message starts with its width.
  pure integer function header()
    header = 1
  end function header

  integer function in_use(p, n)
    type(active), intent(in) :: p(:)
    integer, intent(in) :: n
    integer :: i, k
    in_use = 0
    do i = 1, n
      do k = max_deriv_vec_len, in_use + 1, -1
        if (p(i)%d(k) /= 0) then
          in_use = k
          exit
        end if
      end do
    end do
  end function in_use

  subroutine get_dirs(p, n, w, t)
    type(active), intent(in) :: p(:)
    integer, intent(in) :: n, w
    real(8), intent(out) :: t(:)
    integer :: i
    do i = 1, n
      t((i - 1) * w + 1:i * w) = p(i)%d(1:w)
    end do
  end subroutine get_dirs

  subroutine set_dirs(p, n, w, t)
    type(active), intent(inout) :: p(:)
    integer, intent(in) :: n, w
    real(8), intent(in) :: t(:)
    integer :: i
    do i = 1, n
      p(i)%d(1:w) = t((i - 1) * w + 1:i * w)
      p(i)%d(w + 1:) = 0
    end do
  end subroutine set_dirs

  ! Adjoints exist in the scalar modes only: these are never called.
  subroutine get_d(p, n, t)
    type(active), intent(in) :: p(:)
    integer, intent(in) :: n
    real(8), intent(out) :: t(:)
    call get_dirs(p, n, max_deriv_vec_len, t)
  end subroutine get_d

  subroutine set_d(p, n, t)
    type(active), intent(inout) :: p(:)
    integer, intent(in) :: n
    real(8), intent(in) :: t(:)
    call set_dirs(p, n, max_deriv_vec_len, t)
  end subroutine set_d

  subroutine zero_d(p, n)
    type(active), intent(inout) :: p(:)
    integer, intent(in) :: n
    integer :: i
    do i = 1, n
      p(i)%d = 0
    end do
  end subroutine zero_d

  subroutine add_d(p, n, t)
    type(active), intent(inout) :: p(:)
    integer, intent(in) :: n
    real(8), intent(in) :: t(:)
    if (n > 0 .and. size(t) > 0 .and. size(p) > 0) then
      error stop 'OAD_mpi: no adjoints in the vector tangent mode'
    end if
  end subroutine add_d
  ! end derivative layout
