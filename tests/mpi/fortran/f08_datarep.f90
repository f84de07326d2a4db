! use mpi_f08: a data representation registered with conversion functions written in Fortran
! (MPI_Register_datarep): the file holds each INTEGER negated; reading through the
! representation gives the values back, reading the bytes natively shows the negation.
module f08_datarep_fns
  use mpi_f08
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
  implicit none
  integer :: reads = 0, writes = 0, extents = 0
contains
  subroutine negate(from, to, n)
    type(c_ptr), value :: from, to
    integer, intent(in) :: n
    integer, pointer :: a(:), b(:)
    call c_f_pointer(from, a, [n])
    call c_f_pointer(to, b, [n])
    b = -a
  end subroutine negate

  ! file -> memory, at element `position` of userbuf
  subroutine rd(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:)
    ierror = MPI_ERR_TYPE
    if (datatype /= MPI_INTEGER .or. extra_state /= 42) return
    call c_f_pointer(userbuf, u, [position + count])
    call negate(filebuf, c_loc_of(u(position + 1)), count)
    reads = reads + 1
    ierror = MPI_SUCCESS
  end subroutine rd

  subroutine wr(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:)
    ierror = MPI_ERR_TYPE
    if (datatype /= MPI_INTEGER .or. extra_state /= 42) return
    call c_f_pointer(userbuf, u, [position + count])
    call negate(c_loc_of(u(position + 1)), filebuf, count)
    writes = writes + 1
    ierror = MPI_SUCCESS
  end subroutine wr

  subroutine ext(datatype, extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror, size
    call MPI_Type_size(datatype, size)
    extent = size
    extents = extents + 1
    ierror = MPI_SUCCESS
    if (extra_state /= 42) ierror = MPI_ERR_OTHER
  end subroutine ext

  function c_loc_of(x) result(p)
    use, intrinsic :: iso_c_binding, only : c_loc
    integer, target, intent(in) :: x
    type(c_ptr) :: p
    p = c_loc(x)
  end function c_loc_of
end module f08_datarep_fns

program f08_datarep
  use mpi_f08
  use f08_datarep_fns
  implicit none
  integer :: rank, i, ierr, v(8), back(8), raw(8)
  type(MPI_File) :: fh
  character(len=64) :: fname

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Register_datarep('f08negate', rd, wr, ext, 42_MPI_ADDRESS_KIND, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Register_datarep')

  write (fname, '(a,i0,a,i0)') 'fortran_f08_datarep.', rank, '.', int(mod(MPI_Wtime() * 1000, 1d6))
  call MPI_File_open(MPI_COMM_SELF, trim(fname), MPI_MODE_CREATE + MPI_MODE_RDWR + MPI_MODE_DELETE_ON_CLOSE, &
                     MPI_INFO_NULL, fh)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'f08negate', MPI_INFO_NULL)
  v = [(100 * rank + i, i = 1, 8)]
  call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, v, 8, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. writes > 0 .and. extents > 0, 'write through the representation')
  back = 0
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, back, 8, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. reads > 0, 'read through the representation')
  call check(all(back == v), 'values back through the representation')
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL)
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, raw, 8, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call check(all(raw == -v), 'the file holds the negated values')
  call MPI_File_close(fh)

  call MPI_Finalize()
  if (rank == 0) print '(a)', 'f08_datarep: ok'
end program f08_datarep
