! use mpi_f08: a nonblocking collective (MPI_Iallreduce), a persistent one (MPI_Allreduce_init,
! three starts), a reduction with an operation written in Fortran (MPI_Op_create), MPI_LOGICAL
! under MPI_LAND / MPI_LOR / MPI_LXOR, MPI_IN_PLACE, MPI_Bcast of CHARACTER, the large-count
! form (_c) with INTEGER(KIND=MPI_COUNT_KIND), REAL / COMPLEX / INTEGER(KIND=8) reductions,
! MPI_Abi_get_fortran_booleans and MPI_Abi_get_fortran_info against gfortran's own values.
module f08_coll_ops
  use mpi_f08
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
  implicit none
  integer :: calls = 0
contains
  ! inoutvec(i) = 2 * invec(i) + inoutvec(i) - invec(i): a sum, written the long way, that also
  ! checks the datatype it is given.
  subroutine my_sum(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    if (datatype /= MPI_INTEGER) then
      print '(a)', 'f08_coll: my_sum got another datatype than MPI_INTEGER'
      call MPI_Abort(MPI_COMM_WORLD, 2)
    end if
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = 2 * a + b - a
    calls = calls + 1
  end subroutine my_sum
end module f08_coll_ops

program f08_coll
  use mpi_f08
  use f08_coll_ops
  implicit none
  integer :: rank, nprocs, it, i, total, n
  integer, asynchronous :: x, y
  double precision, asynchronous :: px(3), py(3)
  integer :: v(5), w(5)
  integer(kind=MPI_COUNT_KIND) :: big
  logical :: flag, all_, any_, odd, flags(2), res(2)
  character(len=12) :: word
  character(len=MPI_MAX_INFO_VAL) :: value
  real :: r, rs
  complex :: c, cs
  integer(kind=8) :: i8, i8s
  logical :: lt, lf, is_set, found
  type(MPI_Info) :: finfo
  type(MPI_Request) :: req
  type(MPI_Op) :: op

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  total = nprocs * (nprocs - 1) / 2

  ! Nonblocking collective.
  x = rank
  y = -1
  call MPI_Iallreduce(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call check(y == total, 'MPI_Iallreduce sum')

  ! Persistent collective, started three times with new data.
  call MPI_Allreduce_init(px, py, 3, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, req)
  do it = 1, 3
    px = [dble(rank + it), dble(-rank), dble(it * rank)]
    py = 0
    call MPI_Start(req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call check(py(1) == nprocs - 1 + it .and. py(2) == 0 .and. py(3) == it * (nprocs - 1), &
               'MPI_Allreduce_init max')
  end do
  call MPI_Request_free(req)

  ! An operation written in Fortran.
  call MPI_Op_create(my_sum, .true., op)
  v = [(rank * 10 + i, i = 1, 5)]
  w = 0
  call MPI_Allreduce(v, w, 5, MPI_INTEGER, op, MPI_COMM_WORLD)
  do i = 1, 5
    call check(w(i) == 10 * total + nprocs * i, 'user operation result')
  end do
  call check(nprocs == 1 .or. calls > 0, 'user operation called')
  call MPI_Op_free(op)
  call check(op == MPI_OP_NULL, 'MPI_Op_free sets MPI_OP_NULL')

  ! MPI_LOGICAL.
  flag = rank /= 1
  call MPI_Allreduce(flag, all_, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
  call check(all_ .eqv. (nprocs == 1), 'MPI_LAND on MPI_LOGICAL')
  call MPI_Allreduce(flag, any_, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD)
  call check(any_, 'MPI_LOR on MPI_LOGICAL')
  flag = .true.
  call MPI_Allreduce(flag, odd, 1, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD)
  call check(odd .eqv. (mod(nprocs, 2) == 1), 'MPI_LXOR on MPI_LOGICAL')
  flags = [.true., rank == 0]
  call MPI_Allreduce(flags, res, 2, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
  call check(res(1) .and. (res(2) .eqv. (nprocs == 1)), 'MPI_LAND on two LOGICALs')

  ! MPI_IN_PLACE, MPI_Reduce to the last rank.
  v = rank + 1
  if (rank == nprocs - 1) then
    call MPI_Reduce(MPI_IN_PLACE, v, 5, MPI_INTEGER, MPI_PROD, nprocs - 1, MPI_COMM_WORLD)
    call check(v(3) == product([(i, i = 1, nprocs)]), 'MPI_Reduce MPI_IN_PLACE prod')
  else
    call MPI_Reduce(v, w, 5, MPI_INTEGER, MPI_PROD, nprocs - 1, MPI_COMM_WORLD)
  end if

  ! CHARACTER data.
  word = 'unset'
  if (rank == 0) word = 'from rank 0'
  call MPI_Bcast(word, 12, MPI_CHARACTER, 0, MPI_COMM_WORLD)
  call check(word == 'from rank 0', 'MPI_Bcast of CHARACTER')

  ! Large-count form through the generic name.
  big = 5
  v = rank
  call MPI_Allreduce(v, w, big, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(all(w == total), 'MPI_Allreduce with an MPI_COUNT_KIND count')

  ! More Fortran types.
  r = 0.5 * (rank + 1)
  call MPI_Allreduce(r, rs, 1, MPI_REAL, MPI_SUM, MPI_COMM_WORLD)
  call check(rs == 0.25 * nprocs * (nprocs + 1), 'MPI_REAL sum')
  c = cmplx(rank, -2 * rank)
  call MPI_Allreduce(c, cs, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD)
  call check(cs == cmplx(total, -2 * total), 'MPI_COMPLEX sum')
  i8 = 2_8**40 + rank
  call MPI_Allreduce(i8, i8s, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
  call check(i8s == nprocs * 2_8**40 + total, 'MPI_INTEGER8 sum')

  call MPI_Sizeof(i8, n)
  call check(n == 8, 'MPI_Sizeof(INTEGER(KIND=8))')
  call MPI_Sizeof(c, n)
  call check(n == 8, 'MPI_Sizeof(COMPLEX)')
  call MPI_Sizeof(px, n)
  call check(n == 8, 'MPI_Sizeof of a DOUBLE PRECISION array')

  ! The library knows gfortran's LOGICAL values and type sizes.
  call MPI_Abi_get_fortran_booleans(storage_size(lt) / 8, lt, lf, is_set)
  call check(is_set .and. lt .and. .not. lf, 'MPI_Abi_get_fortran_booleans')
  call MPI_Abi_get_fortran_info(finfo)
  n = len(value)
  call MPI_Info_get_string(finfo, 'mpi_logical_size', n, value, found)
  call check(found .and. trim(value) == char(ichar('0') + storage_size(lt) / 8), 'mpi_logical_size')
  n = len(value)
  call MPI_Info_get_string(finfo, 'mpi_double_precision_size', n, value, found)
  call check(found .and. trim(value) == char(ichar('0') + storage_size(1.0d0) / 8), 'mpi_double_precision_size')
  call MPI_Info_free(finfo)

  call MPI_Finalize()
  if (rank == 0) print '(a)', 'f08_coll: ok'

end program f08_coll
