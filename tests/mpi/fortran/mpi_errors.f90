! use mpi: error classes through ierror under MPI_ERRORS_RETURN, MPI_Error_string, an error
! handler written in Fortran.
module mpi_errors_cb
  use mpi
  implicit none
  integer :: handler_calls = 0, handler_code = 0
  logical :: handler_comm_ok = .false.
contains
  subroutine my_handler(comm, error_code)
    integer :: comm, error_code
    handler_calls = handler_calls + 1
    handler_code = error_code
    handler_comm_ok = comm == MPI_COMM_WORLD
  end subroutine my_handler
end module mpi_errors_cb

program mpi_errors
  use mpi
  use mpi_errors_cb
  implicit none
  integer :: rank, nprocs, x, n, ierr, cls, slen, eh
  character(len=MPI_MAX_ERROR_STRING) :: msg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  x = 1

  call MPI_Send(x, 1, MPI_INTEGER, nprocs, 0, MPI_COMM_WORLD, ierr)
  call check(ierr /= MPI_SUCCESS, 'send to rank nprocs fails')
  call MPI_Error_class(ierr, cls, n)
  call check(cls == MPI_ERR_RANK, 'its class is MPI_ERR_RANK')
  call MPI_Send(x, 1, MPI_INTEGER, nprocs, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_string(ierr, msg, slen, n)
  call check(n == MPI_SUCCESS .and. slen > 0 .and. len_trim(msg) == slen, 'MPI_Error_string')

  call MPI_Send(x, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls, n)
  call check(cls == MPI_ERR_COUNT, 'negative count: MPI_ERR_COUNT')
  call MPI_Send(x, 1, MPI_INTEGER, 0, -5, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls, n)
  call check(cls == MPI_ERR_TAG, 'negative tag: MPI_ERR_TAG')
  call MPI_Barrier(MPI_COMM_NULL, ierr)
  call MPI_Error_class(ierr, cls, n)
  call check(cls == MPI_ERR_COMM, 'MPI_COMM_NULL: MPI_ERR_COMM')
  call MPI_Allreduce(x, n, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. n == nprocs, 'allreduce after the errors')

  call MPI_Comm_create_errhandler(my_handler, eh, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh, ierr)
  call MPI_Send(x, 1, MPI_INTEGER, nprocs + 3, 0, MPI_COMM_WORLD, ierr)
  call check(handler_calls == 1 .and. handler_comm_ok, 'the Fortran error handler ran on MPI_COMM_WORLD')
  call MPI_Error_class(handler_code, cls, n)
  call check(cls == MPI_ERR_RANK, 'the handler got an MPI_ERR_RANK code')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Errhandler_free(eh, ierr)

  call MPI_Finalize(ierr)
  if (rank == 0) print '(a)', 'mpi_errors: ok'

end program mpi_errors
