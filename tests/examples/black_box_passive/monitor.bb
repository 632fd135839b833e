# A C routine of the model's diagnostics library: no derivatives wanted.
subroutine monitor_tracer(n, c, dx, mass, negative)
  passive
  integer, intent(in) :: n
  real(8), intent(in) :: c(n), dx
  real(8), intent(out) :: mass
  integer, intent(out) :: negative
end subroutine

# Observations: overwrite the modelled inflow (its derivative is dropped).
subroutine observed_inflow(k, inflow)
  passive
  integer, intent(in) :: k
  real(8), intent(out) :: inflow
end subroutine
