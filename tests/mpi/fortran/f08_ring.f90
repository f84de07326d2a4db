! use mpi_f08: a token ring (blocking), status%MPI_SOURCE / MPI_TAG, MPI_Get_count,
! MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE, non-contiguous array sections as buffers (blocking
! and nonblocking), MPI_Status_f082f / f2f08.
program f08_ring
  use mpi_f08
  implicit none
  integer :: rank, nprocs, left, right, token, n, i, expect
  type(MPI_Status) :: status, statuses(2)
  type(MPI_Request) :: reqs(2)
  integer :: istatus(MPI_STATUS_SIZE)
  double precision :: buf(8), rbuf(8)
  double precision, asynchronous :: abuf(8), arbuf(8)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)
  right = mod(rank + 1, nprocs)

  ! The token goes once around, each rank adding its rank.
  if (rank == 0) then
    token = 100
    call MPI_Send(token, 1, MPI_INTEGER, right, 7, MPI_COMM_WORLD)
    call MPI_Recv(token, 1, MPI_INTEGER, left, 7, MPI_COMM_WORLD, status)
    expect = 100 + nprocs * (nprocs - 1) / 2
    call check(token == expect, 'token after the ring')
  else
    call MPI_Recv(token, 1, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status)
    token = token + rank
    call MPI_Send(token, 1, MPI_INTEGER, right, 7, MPI_COMM_WORLD)
  end if
  call check(status%MPI_SOURCE == left, 'status%MPI_SOURCE')
  call check(status%MPI_TAG == 7, 'status%MPI_TAG')
  call MPI_Status_f082f(status, istatus)
  call check(istatus(MPI_SOURCE) == left .and. istatus(MPI_TAG) == 7, 'MPI_Status_f082f')
  istatus(MPI_TAG) = 9
  call MPI_Status_f2f08(istatus, status)
  call check(status%MPI_TAG == 9 .and. status%MPI_SOURCE == left, 'MPI_Status_f2f08')

  ! Sendrecv of a whole array, then MPI_Get_count on the status.
  do i = 1, 8
    buf(i) = 1000 * rank + i
  end do
  rbuf = -1
  call MPI_Sendrecv(buf, 8, MPI_DOUBLE_PRECISION, right, 1, rbuf, 8, MPI_DOUBLE_PRECISION, left, 1, &
                    MPI_COMM_WORLD, status)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, n)
  call check(n == 8, 'MPI_Get_count')
  do i = 1, 8
    call check(rbuf(i) == 1000 * left + i, 'sendrecv data')
  end do

  ! Every other element, both sides (array sections: a datatype over the section).
  rbuf = -1
  call MPI_Sendrecv(buf(1:8:2), 4, MPI_DOUBLE_PRECISION, right, 2, rbuf(2:8:2), 4, &
                    MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  do i = 1, 4
    call check(rbuf(2 * i) == 1000 * left + 2 * i - 1, 'section data')
    call check(rbuf(2 * i - 1) == -1, 'section left the gaps alone')
  end do

  ! Nonblocking, ASYNCHRONOUS buffers, a section as the receive buffer.
  do i = 1, 8
    abuf(i) = 10 * rank + i
  end do
  arbuf = -1
  call MPI_Irecv(arbuf(8:1:-2), 4, MPI_DOUBLE_PRECISION, left, 3, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(abuf, 4, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, statuses)
  call check(statuses(1)%MPI_SOURCE == left, 'waitall statuses(1)%MPI_SOURCE')
  if (.not. MPI_ASYNC_PROTECTS_NONBLOCKING) call MPI_F_sync_reg(arbuf)
  do i = 1, 4
    call check(arbuf(10 - 2 * i) == 10 * left + i, 'reversed section data')
  end do
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'requests freed')
  call MPI_Irecv(arbuf, 8, MPI_DOUBLE_PRECISION, left, 4, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(abuf, 8, MPI_DOUBLE_PRECISION, right, 4, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call check(arbuf(8) == 10 * left + 8, 'waitall with MPI_STATUSES_IGNORE')

  call MPI_Finalize()
  if (rank == 0) print '(a)', 'f08_ring: ok'

end program f08_ring
