! use mpi_f08: error classes through ierror under MPI_ERRORS_RETURN, MPI_Error_string, error
! handlers (communicator, window, file) and attribute copy/delete functions written in Fortran, a
! generalized request.
module f08_errors_cb
  use mpi_f08
  implicit none
  integer :: handler_calls = 0, handler_code = 0, deletes = 0, copies = 0
  logical :: handler_comm_ok = .false.
  integer :: win_calls = 0, win_code = 0, file_calls = 0, file_code = 0
contains
  subroutine my_handler(comm, error_code)
    type(MPI_Comm) :: comm
    integer :: error_code
    handler_calls = handler_calls + 1
    handler_code = error_code
    handler_comm_ok = comm == MPI_COMM_WORLD
  end subroutine my_handler

  subroutine win_handler(win, error_code)
    type(MPI_Win) :: win
    integer :: error_code
    win_calls = win_calls + 1
    win_code = error_code
    if (win == MPI_WIN_NULL) win_calls = -100
  end subroutine win_handler

  subroutine file_handler(file, error_code)
    type(MPI_File) :: file
    integer :: error_code
    file_calls = file_calls + 1
    file_code = error_code
    if (file /= MPI_FILE_NULL) file_calls = -100
  end subroutine file_handler

  subroutine my_copy(oldcomm, keyval, extra_state, val_in, val_out, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, val_in, val_out
    logical :: flag
    copies = copies + 1
    val_out = val_in + extra_state
    flag = oldcomm /= MPI_COMM_NULL .and. keyval /= MPI_KEYVAL_INVALID
    ierror = MPI_SUCCESS
  end subroutine my_copy

  subroutine my_delete(comm, keyval, val, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: val, extra_state
    if (comm /= MPI_COMM_NULL .and. keyval /= MPI_KEYVAL_INVALID .and. extra_state == 5) &
      deletes = deletes + int(val)
    ierror = MPI_SUCCESS
  end subroutine my_delete

  subroutine gq(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Status) :: status
    integer :: ierror
    status%MPI_SOURCE = int(extra_state)
    status%MPI_TAG = 77
    status%MPI_ERROR = MPI_SUCCESS
    call MPI_Status_set_elements(status, MPI_INTEGER, 3)
    ierror = MPI_SUCCESS
  end subroutine gq

  subroutine gf(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    extra_state = extra_state + 1000
    ierror = MPI_SUCCESS
  end subroutine gf

  subroutine gc(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    if (complete .and. extra_state < 0) deletes = -1
    ierror = MPI_SUCCESS
  end subroutine gc
end module f08_errors_cb

program f08_errors
  use mpi_f08
  use f08_errors_cb
  implicit none
  integer :: rank, nprocs, x, ierr, cls, slen, keyval, n
  integer(kind=MPI_ADDRESS_KIND) :: val
  ! changed by free_fn inside MPI_Wait: VOLATILE, or the compiler may keep it in a register
  integer(kind=MPI_ADDRESS_KIND), volatile :: greq_state
  logical :: flag
  character(len=MPI_MAX_ERROR_STRING) :: msg
  type(MPI_Errhandler) :: eh
  type(MPI_Comm) :: dup
  type(MPI_Win) :: win
  type(MPI_File) :: fh
  integer, asynchronous :: wbuf(4)
  type(MPI_Request) :: req
  type(MPI_Status) :: status

  call MPI_Init(ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init ierror')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  x = 1

  call MPI_Send(x, 1, MPI_INTEGER, nprocs, 0, MPI_COMM_WORLD, ierr)
  call check(ierr /= MPI_SUCCESS, 'send to rank nprocs fails')
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_RANK, 'its class is MPI_ERR_RANK')
  call MPI_Error_string(ierr, msg, slen)
  call check(slen > 0 .and. slen <= MPI_MAX_ERROR_STRING .and. len_trim(msg) == slen, 'MPI_Error_string')

  call MPI_Send(x, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_COUNT, 'negative count: MPI_ERR_COUNT')

  call MPI_Send(x, 1, MPI_INTEGER, 0, -5, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_TAG, 'negative tag: MPI_ERR_TAG')

  call MPI_Send(x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_TYPE, 'MPI_DATATYPE_NULL: MPI_ERR_TYPE')

  call MPI_Barrier(MPI_COMM_NULL, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_COMM, 'MPI_COMM_NULL: MPI_ERR_COMM')

  ! The library still works after the errors.
  call MPI_Allreduce(x, n, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. n == nprocs, 'allreduce after the errors')

  ! An error handler written in Fortran.
  call MPI_Comm_create_errhandler(my_handler, eh)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh)
  call MPI_Send(x, 1, MPI_INTEGER, nprocs + 3, 0, MPI_COMM_WORLD, ierr)
  call check(handler_calls == 1, 'the Fortran error handler ran once')
  call check(handler_comm_ok, 'the handler got MPI_COMM_WORLD')
  call MPI_Error_class(handler_code, cls)
  call check(cls == MPI_ERR_RANK, 'the handler got an MPI_ERR_RANK code')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Errhandler_free(eh)

  ! Window and file error handlers written in Fortran.
  call MPI_Win_create_errhandler(win_handler, eh)
  call MPI_Win_create(wbuf, 16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_set_errhandler(win, eh)
  call MPI_Errhandler_free(eh)
  call MPI_Win_fence(0, win)
  call MPI_Put(x, 1, MPI_INTEGER, nprocs + 1, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
  call check(win_calls == 1, 'the Fortran window error handler ran once on the window')
  call MPI_Error_class(win_code, cls)
  call check(cls == MPI_ERR_RANK, 'the window handler got an MPI_ERR_RANK code')
  call MPI_Win_fence(0, win)
  call MPI_Win_free(win)
  call MPI_File_create_errhandler(file_handler, eh)
  call MPI_File_set_errhandler(MPI_FILE_NULL, eh)
  call MPI_File_open(MPI_COMM_SELF, 'fortran_f08_errors.no/such/file', MPI_MODE_RDONLY, MPI_INFO_NULL, fh, ierr)
  call check(ierr /= MPI_SUCCESS .and. file_calls == 1, 'the Fortran file error handler ran once')
  call MPI_Error_class(file_code, cls)
  call check(cls == MPI_ERR_NO_SUCH_FILE, 'the file handler got MPI_ERR_NO_SUCH_FILE')
  call MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN)
  call MPI_Errhandler_free(eh)

  ! Attribute copy and delete functions written in Fortran.
  call MPI_Comm_create_keyval(my_copy, my_delete, keyval, 5_MPI_ADDRESS_KIND)
  val = 100
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, val)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call check(copies == 1, 'the copy function ran on MPI_Comm_dup')
  call MPI_Comm_get_attr(dup, keyval, val, flag)
  call check(flag .and. val == 105, 'the copied attribute')
  call MPI_Comm_free(dup)
  call check(deletes == 105, 'the delete function ran on MPI_Comm_free')
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval)
  call check(deletes == 205, 'the delete function ran on MPI_Comm_delete_attr')
  call MPI_Comm_free_keyval(keyval)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag)
  call check(flag .and. val >= 32767, 'MPI_TAG_UB as an attribute')

  ! A generalized request with Fortran callbacks.
  ! The callbacks see the program's extra_state variable itself (as with MPICH).
  greq_state = rank
  call MPI_Grequest_start(gq, gf, gc, greq_state, req)
  call MPI_Grequest_complete(req)
  call MPI_Wait(req, status)
  call check(status%MPI_SOURCE == rank .and. status%MPI_TAG == 77, 'generalized request status')
  call check(greq_state == rank + 1000, 'free_fn updated extra_state')
  call MPI_Get_count(status, MPI_INTEGER, n)
  call check(n == 3, 'generalized request count')

  call MPI_Finalize()
  if (rank == 0) print '(a)', 'f08_errors: ok'

end program f08_errors
