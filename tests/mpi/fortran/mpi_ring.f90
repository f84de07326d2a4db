! use mpi: a token ring (blocking), status(MPI_SOURCE) / status(MPI_TAG), MPI_Get_count,
! MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE, nonblocking point-to-point, MPI_BOTTOM with an
! absolute-address datatype.
program mpi_ring
  use mpi
  implicit none
  integer :: rank, nprocs, left, right, token, n, i, expect, ierr, dtype
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2), reqs(2)
  integer(kind=MPI_ADDRESS_KIND) :: addr
  double precision :: buf(8), rbuf(8)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  left = mod(rank - 1 + nprocs, nprocs)
  right = mod(rank + 1, nprocs)

  if (rank == 0) then
    token = 100
    call MPI_Send(token, 1, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
    call MPI_Recv(token, 1, MPI_INTEGER, left, 7, MPI_COMM_WORLD, status, ierr)
    expect = 100 + nprocs * (nprocs - 1) / 2
    call check(token == expect, 'token after the ring')
  else
    call MPI_Recv(token, 1, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
    token = token + rank
    call MPI_Send(token, 1, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
  end if
  call check(ierr == MPI_SUCCESS, 'ierror of MPI_Send')
  call check(status(MPI_SOURCE) == left, 'status(MPI_SOURCE)')
  call check(status(MPI_TAG) == 7, 'status(MPI_TAG)')

  do i = 1, 8
    buf(i) = 1000 * rank + i
  end do
  rbuf = -1
  call MPI_Sendrecv(buf, 8, MPI_DOUBLE_PRECISION, right, 1, rbuf, 8, MPI_DOUBLE_PRECISION, left, 1, &
                    MPI_COMM_WORLD, status, ierr)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, n, ierr)
  call check(n == 8, 'MPI_Get_count')
  do i = 1, 8
    call check(rbuf(i) == 1000 * left + i, 'sendrecv data')
  end do

  rbuf = -1
  call MPI_Irecv(rbuf, 8, MPI_DOUBLE_PRECISION, left, 3, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(buf, 8, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  call check(statuses(MPI_SOURCE, 1) == left, 'statuses(MPI_SOURCE, 1)')
  call MPI_F_sync_reg(rbuf)
  call check(rbuf(8) == 1000 * left + 8, 'nonblocking data')
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'requests freed')

  ! MPI_BOTTOM: a datatype holding the absolute address of rbuf.
  call MPI_Get_address(rbuf, addr, ierr)
  call MPI_Type_create_hindexed(1, [8], [addr], MPI_DOUBLE_PRECISION, dtype, ierr)
  call MPI_Type_commit(dtype, ierr)
  rbuf = -1
  call MPI_Irecv(MPI_BOTTOM, 1, dtype, left, 4, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(buf, 8, MPI_DOUBLE_PRECISION, right, 4, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call MPI_F_sync_reg(rbuf)
  call check(rbuf(1) == 1000 * left + 1 .and. rbuf(8) == 1000 * left + 8, 'receive at MPI_BOTTOM')
  call MPI_Type_free(dtype, ierr)
  call MPI_Sendrecv(buf, 1, MPI_DOUBLE_PRECISION, right, 5, rbuf, 1, MPI_DOUBLE_PRECISION, left, 5, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. rbuf(1) == 1000 * left + 1, 'MPI_STATUS_IGNORE')

  call MPI_Finalize(ierr)
  if (rank == 0) print '(a)', 'mpi_ring: ok'

end program mpi_ring
