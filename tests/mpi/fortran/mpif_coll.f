! include 'mpif.h' (fixed source form): MPI_Iallreduce, MPI_Allreduce_init,
! an operation written in Fortran, MPI_LOGICAL under MPI_LAND.
      program mpif_coll
      implicit none
      include 'mpif.h'
      integer rank, nprocs, it, i, total, ierr, req, op
      integer x, y, v(5), w(5)
      double precision px(3), py(3)
      logical flag, all
      external my_sum
      call MPI_Init(ierr)
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
      total = nprocs * (nprocs - 1) / 2
      x = rank
      y = -1
      call MPI_Iallreduce(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD,
     &                    req, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call MPI_F_sync_reg(y)
      call check(y .eq. total, 'MPI_Iallreduce sum')
      call MPI_Allreduce_init(px, py, 3, MPI_DOUBLE_PRECISION, MPI_MAX,
     &                        MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
      do it = 1, 3
        px(1) = rank + it
        px(2) = -rank
        px(3) = it * rank
        call MPI_F_sync_reg(px)
        call MPI_Start(req, ierr)
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        call MPI_F_sync_reg(py)
        call check(py(1) .eq. nprocs - 1 + it .and. py(2) .eq. 0 .and.
     &             py(3) .eq. it * (nprocs - 1), 'persistent max')
      end do
      call MPI_Request_free(req, ierr)
      call MPI_Op_create(my_sum, .true., op, ierr)
      do i = 1, 5
        v(i) = rank * 10 + i
        w(i) = 0
      end do
      call MPI_Allreduce(v, w, 5, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
      do i = 1, 5
        call check(w(i) .eq. 10 * total + nprocs * i, 'user op')
      end do
      call MPI_Op_free(op, ierr)
      flag = rank .ne. 1
      call MPI_Allreduce(flag, all, 1, MPI_LOGICAL, MPI_LAND,
     &                   MPI_COMM_WORLD, ierr)
      call check(all .eqv. (nprocs .eq. 1), 'MPI_LAND')
      call MPI_Finalize(ierr)
      if (rank .eq. 0) print '(a)', 'mpif_coll: ok'
      end

      subroutine my_sum(invec, inoutvec, len, datatype)
      implicit none
      include 'mpif.h'
      integer len, datatype, invec(len), inoutvec(len), i, e
      if (datatype .ne. MPI_INTEGER) then
        call MPI_Abort(MPI_COMM_WORLD, 2, e)
      end if
      do i = 1, len
        inoutvec(i) = 2 * invec(i) + inoutvec(i) - invec(i)
      end do
      end

