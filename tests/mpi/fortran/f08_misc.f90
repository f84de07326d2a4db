! use mpi_f08: what MPICH's test/mpi/f08 run found wrong, each checked here: 1-based indices of
! MPI_Waitany / MPI_Testsome, MPI_Info_get_string's Fortran lengths and untouched value,
! info keys with leading blanks, MPI_File_close (handle inout), the PMPI_ names, the _f08ts
! specific names, MPI_ARGVS_NULL of rank 2 for MPI_Comm_spawn_multiple.
program f08_misc
  use mpi_f08, only : MPI_Init, MPI_Finalize, MPI_Comm_rank, MPI_Comm_size, MPI_COMM_WORLD, &
                      MPI_COMM_SELF, MPI_Request, MPI_Status, MPI_Info, MPI_File, MPI_Comm, &
                      MPI_INTEGER, MPI_UNDEFINED, MPI_STATUSES_IGNORE, MPI_MAX_INFO_VAL, &
                      MPI_ARGVS_NULL, MPI_INFO_NULL, MPI_FILE_NULL, MPI_MODE_CREATE, MPI_MODE_RDWR, &
                      MPI_MODE_DELETE_ON_CLOSE, MPI_SUCCESS, MPI_REQUEST_NULL, &
                      MPI_Irecv, MPI_Isend, MPI_Waitany, MPI_Testsome, MPI_Waitall, MPI_Info_create, &
                      MPI_Info_set, MPI_Info_get_string, MPI_Info_get_nthkey, MPI_Info_free, &
                      MPI_File_open, MPI_File_close, MPI_File_write, MPI_Comm_spawn_multiple, &
                      PMPI_Comm_rank, PMPI_Wtime, MPI_Wtime, operator(==), &
                      MPI_Send_f08ts, MPI_Comm_rank_f08
  implicit none
  integer :: rank, nprocs, prank, i, idx, outcount, indices(4), bufl, ierr, n, done
  integer :: sbuf(2), rbuf(2)
  type(MPI_Request) :: reqs(4)
  type(MPI_Info) :: info
  type(MPI_File) :: fh
  type(MPI_Comm) :: inter
  character(len=MPI_MAX_INFO_VAL) :: val
  character(len=32) :: key, fname
  logical :: flag
  integer :: errcodes(2), np(2)
  character(len=8) :: cmds(2)
  type(MPI_Info) :: infos(2)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)

  ! PMPI_ names and the specific names of the standard's table.
  call PMPI_Comm_rank(MPI_COMM_WORLD, prank)
  call check(prank == rank, 'PMPI_Comm_rank')
  call check(PMPI_Wtime() <= MPI_Wtime(), 'PMPI_Wtime')
  call MPI_Comm_rank_f08(MPI_COMM_WORLD, prank)
  call check(prank == rank, 'MPI_Comm_rank_f08')
  sbuf = [rank, 7]
  call MPI_Irecv(rbuf, 2, MPI_INTEGER, 0, 5, MPI_COMM_SELF, reqs(1))
  call MPI_Send_f08ts(sbuf, 2, MPI_INTEGER, 0, 5, MPI_COMM_SELF)
  call MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE)
  call check(rbuf(1) == rank .and. rbuf(2) == 7, 'MPI_Send_f08ts')

  ! MPI_Waitany gives a position from 1; MPI_UNDEFINED when every request is null.
  reqs(1) = MPI_REQUEST_NULL
  call MPI_Irecv(rbuf, 2, MPI_INTEGER, 0, 6, MPI_COMM_SELF, reqs(2))
  call MPI_Isend(sbuf, 2, MPI_INTEGER, 0, 6, MPI_COMM_SELF, reqs(3))
  reqs(4) = MPI_REQUEST_NULL
  done = 0
  do i = 1, 2
    call MPI_Waitany(4, reqs, idx, MPI_STATUSES_IGNORE(1))
    call check(idx == 2 .or. idx == 3, 'MPI_Waitany index counts from 1')
    done = done + idx
  end do
  call check(done == 5, 'MPI_Waitany completed requests 2 and 3')
  call MPI_Waitany(4, reqs, idx, MPI_STATUSES_IGNORE(1))
  call check(idx == MPI_UNDEFINED, 'MPI_Waitany on null requests: MPI_UNDEFINED')

  ! MPI_Testsome: positions from 1.
  call MPI_Irecv(rbuf, 2, MPI_INTEGER, 0, 7, MPI_COMM_SELF, reqs(1))
  call MPI_Isend(sbuf, 2, MPI_INTEGER, 0, 7, MPI_COMM_SELF, reqs(2))
  n = 0
  do while (n < 2)
    call MPI_Testsome(2, reqs, outcount, indices, MPI_STATUSES_IGNORE)
    call check(outcount /= MPI_UNDEFINED, 'MPI_Testsome outcount')
    do i = 1, outcount
      call check(indices(i) == 1 .or. indices(i) == 2, 'MPI_Testsome index counts from 1')
    end do
    n = n + outcount
  end do

  ! Info: Fortran lengths count characters, the value is left alone when there is none, keys
  ! lose leading and trailing blanks.
  call MPI_Info_create(info)
  call MPI_Info_set(info, '  lead', ' abc ')
  call MPI_Info_get_nthkey(info, 0, key)
  call check(key == 'lead', 'MPI_Info_set strips leading blanks of a key')
  val = 'canary'
  bufl = 10
  call MPI_Info_get_string(info, 'nokey', bufl, val, flag)
  call check(.not. flag .and. val == 'canary', 'MPI_Info_get_string of a missing key leaves value')
  bufl = 0
  call MPI_Info_get_string(info, 'lead', bufl, val, flag)
  call check(flag .and. bufl == 3 .and. val == 'canary', 'MPI_Info_get_string with buflen 0')
  bufl = 2
  call MPI_Info_get_string(info, 'lead', bufl, val, flag)
  call check(flag .and. bufl == 3 .and. val == 'ab', 'MPI_Info_get_string with buflen 2')
  bufl = len(val)
  call MPI_Info_get_string(info, 'lead', bufl, val, flag)
  call check(flag .and. bufl == 3 .and. val == 'abc', 'MPI_Info_get_string, whole value')
  call MPI_Info_free(info)

  ! MPI_File_close takes the handle in and sets MPI_FILE_NULL.
  write (fname, '(a,i0,a,i0)') 'fortran_f08_misc.', rank, '.', int(mod(MPI_Wtime() * 1000, 1d6))
  call MPI_File_open(MPI_COMM_SELF, trim(fname), MPI_MODE_CREATE + MPI_MODE_RDWR + MPI_MODE_DELETE_ON_CLOSE, &
                     MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_open')
  call MPI_File_write(fh, sbuf, 2, MPI_INTEGER, MPI_STATUSES_IGNORE(1), ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_write')
  call MPI_File_close(fh, ierr)
  call check(ierr == MPI_SUCCESS .and. fh == MPI_FILE_NULL, 'MPI_File_close')

  ! MPI_ARGVS_NULL matches array_of_argv (compiled, not run: spawning is tests/mpi/dynamic's).
  if (nprocs < 0) then
    cmds = 'none'
    np = 1
    infos = MPI_INFO_NULL
    call MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, np, infos, 0, MPI_COMM_WORLD, inter, errcodes)
  end if

  call MPI_Finalize()
  if (rank == 0) print '(a)', 'f08_misc: ok'
end program f08_misc
