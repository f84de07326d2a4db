! use mpi: MPI_Iallreduce, MPI_Allreduce_init (three starts), an operation written in Fortran,
! MPI_LOGICAL under MPI_LAND / MPI_LOR, MPI_IN_PLACE.
module mpi_coll_ops
  use mpi
  implicit none
  integer :: calls = 0
contains
  subroutine my_sum(invec, inoutvec, len, datatype)
    integer :: len, datatype
    integer :: invec(len), inoutvec(len)
    integer :: e
    if (datatype /= MPI_INTEGER) then
      print '(a)', 'mpi_coll: my_sum got another datatype than MPI_INTEGER'
      call MPI_Abort(MPI_COMM_WORLD, 2, e)
    end if
    inoutvec = 2 * invec + inoutvec - invec
    calls = calls + 1
  end subroutine my_sum
end module mpi_coll_ops

program mpi_coll
  use mpi
  use mpi_coll_ops
  implicit none
  integer :: rank, nprocs, it, i, total, ierr, req, op
  integer :: x, y, v(5), w(5)
  double precision :: px(3), py(3)
  logical :: flag, all_, any_

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  total = nprocs * (nprocs - 1) / 2

  x = rank
  y = -1
  call MPI_Iallreduce(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_F_sync_reg(y)
  call check(y == total, 'MPI_Iallreduce sum')

  call MPI_Allreduce_init(px, py, 3, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
  do it = 1, 3
    px = [dble(rank + it), dble(-rank), dble(it * rank)]
    py = 0
    call MPI_F_sync_reg(px)
    call MPI_Start(req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call MPI_F_sync_reg(py)
    call check(py(1) == nprocs - 1 + it .and. py(2) == 0 .and. py(3) == it * (nprocs - 1), &
               'MPI_Allreduce_init max')
  end do
  call MPI_Request_free(req, ierr)

  call MPI_Op_create(my_sum, .true., op, ierr)
  v = [(rank * 10 + i, i = 1, 5)]
  w = 0
  call MPI_Allreduce(v, w, 5, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  do i = 1, 5
    call check(w(i) == 10 * total + nprocs * i, 'user operation result')
  end do
  call check(nprocs == 1 .or. calls > 0, 'user operation called')
  call MPI_Op_free(op, ierr)
  call check(op == MPI_OP_NULL, 'MPI_Op_free sets MPI_OP_NULL')

  flag = rank /= 1
  call MPI_Allreduce(flag, all_, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  call check(all_ .eqv. (nprocs == 1), 'MPI_LAND on MPI_LOGICAL')
  call MPI_Allreduce(flag, any_, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  call check(any_, 'MPI_LOR on MPI_LOGICAL')

  v = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, v, 5, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(all(v == total + nprocs), 'MPI_Allreduce MPI_IN_PLACE')

  call MPI_Sizeof(px, i, ierr)
  call check(i == 8 .and. ierr == MPI_SUCCESS, 'MPI_Sizeof of a DOUBLE PRECISION array')
  call MPI_Sizeof(flag, i, ierr)
  call check(i == 4, 'MPI_Sizeof(LOGICAL)')

  call MPI_Finalize(ierr)
  if (rank == 0) print '(a)', 'mpi_coll: ok'

end program mpi_coll
