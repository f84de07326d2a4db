! 8-byte ping-pong and 8-byte allreduce through `use mpi_f08` (docs/fortran.md): the same loops as
! latency_c.c, to compare the Fortran glue with the C library it calls.
!   mpifort -O2 latency_f08.f90 -o latency_f08 && mpiexec -n 2 ./latency_f08 [iterations]
program latency_f08
  use mpi_f08
  implicit none
  integer :: rank, nprocs, i, iters, batch, nargs
  double precision :: x, y, t0, best_pp, best_ar, t
  character(len=32) :: arg

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  iters = 100000
  nargs = command_argument_count()
  if (nargs >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  x = rank
  best_pp = huge(1.0d0)
  best_ar = huge(1.0d0)
  do batch = 1, 5
    call MPI_Barrier(MPI_COMM_WORLD)
    t0 = MPI_Wtime()
    do i = 1, iters
      if (rank == 0) then
        call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD)
        call MPI_Recv(y, 1, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      else if (rank == 1) then
        call MPI_Recv(y, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD)
      end if
    end do
    t = (MPI_Wtime() - t0) / iters / 2 * 1d6
    best_pp = min(best_pp, t)
    call MPI_Barrier(MPI_COMM_WORLD)
    t0 = MPI_Wtime()
    do i = 1, iters
      call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
    end do
    t = (MPI_Wtime() - t0) / iters * 1d6
    best_ar = min(best_ar, t)
  end do
  if (rank == 0) print '(a,f8.3,a,f8.3,a)', 'f08: pingpong 8 B ', best_pp, ' us (one way), allreduce 8 B ', &
                       best_ar, ' us (best of 5 batches)'
  call MPI_Finalize()
end program latency_f08
