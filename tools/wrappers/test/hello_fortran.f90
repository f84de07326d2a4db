! Built by the installed (and the build tree's) mpifort: the three Fortran bindings in one program.
subroutine hello_f08(total)
  use mpi_f08
  implicit none
  integer, intent(out) :: total
  integer :: rank
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Allreduce(rank + 1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
end subroutine hello_f08

subroutine hello_mpi(rank, nprocs)
  use mpi
  implicit none
  integer, intent(out) :: rank, nprocs
  integer :: ierr
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
end subroutine hello_mpi

program hello_fortran
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, total
  call MPI_Init(ierr)
  call hello_mpi(rank, nprocs)
  call hello_f08(total)
  if (total /= nprocs * (nprocs + 1) / 2) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  print '(a,i0,a,i0)', 'hello from Fortran rank ', rank, ' of ', nprocs
  call MPI_Finalize(ierr)
end program hello_fortran
