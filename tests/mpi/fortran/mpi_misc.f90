! use mpi: MPI_Alloc_mem with a TYPE(C_PTR) baseptr and with an INTEGER(KIND=MPI_ADDRESS_KIND)
! one, PMPI_ names, MPI_Waitany's 1-based index, TYPE(MPI_Status) and MPI_Status_f2f08 / f082f.
program mpi_misc
  use mpi
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer, c_associated
  implicit none
  integer :: rank, ierr, idx, reqs(3), sbuf, rbuf, prank
  type(c_ptr) :: p
  integer, pointer :: a(:)
  integer(kind=MPI_ADDRESS_KIND) :: addr
  integer :: istatus(MPI_STATUS_SIZE), istatus2(MPI_STATUS_SIZE)
  type(MPI_Status) :: fstatus

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call PMPI_Comm_rank(MPI_COMM_WORLD, prank, ierr)
  call check(prank == rank, 'PMPI_Comm_rank')
  call check(PMPI_Wtime() <= MPI_Wtime(), 'PMPI_Wtime')

  call MPI_Alloc_mem(400_MPI_ADDRESS_KIND, MPI_INFO_NULL, p, ierr)
  call check(ierr == MPI_SUCCESS .and. c_associated(p), 'MPI_Alloc_mem with TYPE(C_PTR)')
  call c_f_pointer(p, a, [100])
  a = 3
  call check(sum(a) == 300, 'memory from MPI_Alloc_mem')
  call MPI_Free_mem(a, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Free_mem')
  call MPI_Alloc_mem(64_MPI_ADDRESS_KIND, MPI_INFO_NULL, addr, ierr)
  call check(ierr == MPI_SUCCESS .and. addr /= 0, 'MPI_Alloc_mem with an address integer')
  p = transfer(addr, p)
  call c_f_pointer(p, a, [16])
  call MPI_Free_mem(a, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Free_mem of the second block')

  reqs(1) = MPI_REQUEST_NULL
  sbuf = rank
  call MPI_Irecv(rbuf, 1, MPI_INTEGER, 0, 1, MPI_COMM_SELF, reqs(2), ierr)
  reqs(3) = MPI_REQUEST_NULL
  call MPI_Send(sbuf, 1, MPI_INTEGER, 0, 1, MPI_COMM_SELF, ierr)
  call MPI_Waitany(3, reqs, idx, MPI_STATUS_IGNORE, ierr)
  call check(idx == 2 .and. rbuf == rank, 'MPI_Waitany index counts from 1')

  call MPI_Sendrecv(sbuf, 1, MPI_INTEGER, 0, 5, rbuf, 1, MPI_INTEGER, 0, 5, MPI_COMM_SELF, istatus, ierr)
  call MPI_Status_f2f08(istatus, fstatus, ierr)
  call check(ierr == MPI_SUCCESS .and. fstatus%MPI_SOURCE == 0 .and. fstatus%MPI_TAG == 5, &
             'MPI_Status_f2f08 in module mpi')
  fstatus%MPI_TAG = 6
  call MPI_Status_f082f(fstatus, istatus2, ierr)
  call check(ierr == MPI_SUCCESS .and. istatus2(MPI_TAG) == 6 .and. istatus2(MPI_SOURCE) == 0, &
             'MPI_Status_f082f in module mpi')
  call MPI_Get_count(istatus2, MPI_INTEGER, idx, ierr)
  call check(idx == 1, 'the count survives the round trip through TYPE(MPI_Status)')

  call MPI_Finalize(ierr)
  if (rank == 0) print '(a)', 'mpi_misc: ok'
end program mpi_misc
