! The failure path of every check in tests/mpi/fortran, shared by the programs of all three
! bindings (an external procedure: it includes mpif.h for itself).
subroutine check(ok, what)
  implicit none
  include 'mpif.h'
  logical, intent(in) :: ok
  character(len=*), intent(in) :: what
  integer :: rank, ierr
  if (ok) return
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  print '(a,i0,2a)', 'rank ', rank, ': wrong: ', what
  call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
end subroutine check
