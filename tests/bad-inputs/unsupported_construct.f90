! error-at: 7, error-kind: unsupported
! ENTRY gives a subroutine a second entry point; the tool rejects it.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(1)
  !$openad INDEPENDENT(x)
  entry head_again(x, y)
  y(1) = x(1) * x(2)
  !$openad DEPENDENT(y)
end subroutine head
