! include 'mpif.h' (fixed source form): error classes through ierror under
! MPI_ERRORS_RETURN, MPI_Error_string.
      program mpif_errors
      implicit none
      include 'mpif.h'
      integer rank, nprocs, x, n, ierr, cls, slen
      character*(MPI_MAX_ERROR_STRING) msg
      call MPI_Init(ierr)
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
      call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &                             ierr)
      x = 1
      call MPI_Send(x, 1, MPI_INTEGER, nprocs, 0, MPI_COMM_WORLD, ierr)
      call check(ierr .ne. MPI_SUCCESS, 'send to rank nprocs')
      call MPI_Error_class(ierr, cls, n)
      call check(cls .eq. MPI_ERR_RANK, 'MPI_ERR_RANK')
      call MPI_Error_string(ierr, msg, slen, n)
      call check(slen .gt. 0 .and. len_trim(msg) .eq. slen,
     &           'MPI_Error_string')
      call MPI_Send(x, 1, MPI_INTEGER, 0, -5, MPI_COMM_WORLD, ierr)
      call MPI_Error_class(ierr, cls, n)
      call check(cls .eq. MPI_ERR_TAG, 'MPI_ERR_TAG')
      call MPI_Barrier(MPI_COMM_NULL, ierr)
      call MPI_Error_class(ierr, cls, n)
      call check(cls .eq. MPI_ERR_COMM, 'MPI_ERR_COMM')
      call MPI_Allreduce(x, n, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD,
     &                   ierr)
      call check(ierr .eq. MPI_SUCCESS .and. n .eq. nprocs,
     &           'allreduce after the errors')
      call MPI_Finalize(ierr)
      if (rank .eq. 0) print '(a)', 'mpif_errors: ok'
      end

