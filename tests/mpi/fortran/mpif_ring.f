! include 'mpif.h' (fixed source form): a token ring, status(MPI_SOURCE),
! MPI_Get_count, MPI_STATUS_IGNORE, nonblocking with MPI_STATUSES_IGNORE.
      program mpif_ring
      implicit none
      include 'mpif.h'
      integer rank, nprocs, left, right, token, n, i, ierr
      integer status(MPI_STATUS_SIZE), reqs(2)
      double precision buf(8), rbuf(8)
      call MPI_Init(ierr)
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
      left = mod(rank - 1 + nprocs, nprocs)
      right = mod(rank + 1, nprocs)
      if (rank .eq. 0) then
        token = 100
        call MPI_Send(token, 1, MPI_INTEGER, right, 7, MPI_COMM_WORLD,
     &                ierr)
        call MPI_Recv(token, 1, MPI_INTEGER, left, 7, MPI_COMM_WORLD,
     &                status, ierr)
        call check(token .eq. 100 + nprocs * (nprocs - 1) / 2,
     &             'token after the ring')
      else
        call MPI_Recv(token, 1, MPI_INTEGER, MPI_ANY_SOURCE,
     &                MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
        token = token + rank
        call MPI_Send(token, 1, MPI_INTEGER, right, 7, MPI_COMM_WORLD,
     &                ierr)
      end if
      call check(status(MPI_SOURCE) .eq. left, 'status(MPI_SOURCE)')
      call check(status(MPI_TAG) .eq. 7, 'status(MPI_TAG)')
      do i = 1, 8
        buf(i) = 1000 * rank + i
        rbuf(i) = -1
      end do
      call MPI_Sendrecv(buf, 8, MPI_DOUBLE_PRECISION, right, 1,
     &                  rbuf, 8, MPI_DOUBLE_PRECISION, left, 1,
     &                  MPI_COMM_WORLD, status, ierr)
      call MPI_Get_count(status, MPI_DOUBLE_PRECISION, n, ierr)
      call check(n .eq. 8, 'MPI_Get_count')
      call check(rbuf(8) .eq. 1000 * left + 8, 'sendrecv data')
      call MPI_Sendrecv(buf, 1, MPI_DOUBLE_PRECISION, right, 2,
     &                  rbuf, 1, MPI_DOUBLE_PRECISION, left, 2,
     &                  MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'MPI_STATUS_IGNORE')
      do i = 1, 8
        rbuf(i) = -1
      end do
      call MPI_Irecv(rbuf, 8, MPI_DOUBLE_PRECISION, left, 3,
     &               MPI_COMM_WORLD, reqs(1), ierr)
      call MPI_Isend(buf, 8, MPI_DOUBLE_PRECISION, right, 3,
     &               MPI_COMM_WORLD, reqs(2), ierr)
      call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
      call MPI_F_sync_reg(rbuf)
      call check(rbuf(3) .eq. 1000 * left + 3, 'nonblocking data')
      call MPI_Finalize(ierr)
      if (rank .eq. 0) print '(a)', 'mpif_ring: ok'
      end

