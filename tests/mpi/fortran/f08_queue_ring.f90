! Example 13.1 of the draft chapter on queued communication, written with the mpi_f08 queue
! bindings (TYPE(MPI_Queue), MPI_Queue_init, MPI_Matchall, MPI_Enqueue_startall / _waitall,
! MPI_Queue_fence, MPI_Queue_free): a ring exchange whose persistent requests are matched once,
! then started and waited through a queue every iteration. examples/queue_ring.c is the C text;
! the lines marked "added" fill the send buffers and check the received data. The buffers are
! ASYNCHRONOUS: the queue uses them after the enqueue calls return (MPI-4.1 19.1.16).
program f08_queue_ring
  use mpi_f08
  implicit none
  integer, parameter :: n = 1024, niter = 100
  integer :: rank, nprocs, left, right, iter, i, bad
  double precision, asynchronous :: send_left(n), send_right(n), recv_left(n), recv_right(n)
  double precision :: want_left, want_right
  type(MPI_Queue) :: queue
  type(MPI_Request) :: reqs(4)
  type(MPI_Status) :: statuses(4)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)

  ! Determine neighbors in a 1-D ring topology
  left = mod(rank - 1 + nprocs, nprocs)
  right = mod(rank + 1, nprocs)

  ! Initialize a queue. A system-specific type and external execution context can be used if
  ! available (MPI_BOTTOM: none).
  call MPI_Queue_init(queue, MPI_QUEUE_TYPE_DEFAULT, MPI_BOTTOM)

  ! Create persistent send and receive requests for ring exchange
  call MPI_Recv_init(recv_left, n, MPI_DOUBLE_PRECISION, left, 0, MPI_COMM_WORLD, reqs(1))
  call MPI_Recv_init(recv_right, n, MPI_DOUBLE_PRECISION, right, 0, MPI_COMM_WORLD, reqs(2))
  call MPI_Send_init(send_left, n, MPI_DOUBLE_PRECISION, left, 0, MPI_COMM_WORLD, reqs(3))
  call MPI_Send_init(send_right, n, MPI_DOUBLE_PRECISION, right, 0, MPI_COMM_WORLD, reqs(4))

  ! Match all requests once
  call MPI_Matchall(4, reqs)

  do i = 1, n                                       ! added: what each rank sends
    send_left(i) = 1000.0d0 * rank + i              ! added
    send_right(i) = -1000.0d0 * rank - i            ! added
  end do                                            ! added

  ! Enqueue the data exchange operations each iteration
  do iter = 1, niter
    call MPI_Enqueue_startall(queue, 2, reqs(1:2))
    call MPI_Enqueue_startall(queue, 2, reqs(3:4))
    call MPI_Enqueue_waitall(queue, 4, reqs, statuses)
  end do

  ! Block until all enqueued communication operations complete
  call MPI_Queue_fence(queue)
  if (.not. MPI_ASYNC_PROTECTS_NONBLOCKING) call MPI_F_sync_reg(recv_left)

  ! added: the left neighbour sent its send_right to us, the right one its send_left. On 1 or 2
  ! ranks both neighbours are one process and the two messages of a pair match in the order of
  ! the MPI_Matchall calls: recv_left gets send_left, recv_right gets send_right.
  bad = 0
  do i = 1, n
    if (left == right) then
      want_left = 1000.0d0 * left + i
      want_right = -1000.0d0 * right - i
    else
      want_left = -1000.0d0 * left - i
      want_right = 1000.0d0 * right + i
    end if
    if (recv_left(i) /= want_left) bad = bad + 1
    if (recv_right(i) /= want_right) bad = bad + 1
  end do
  if (statuses(1)%MPI_SOURCE /= left .or. statuses(2)%MPI_SOURCE /= right) bad = bad + 1
  if (bad /= 0) then
    print '(a,i0,a,i0,a)', 'f08_queue_ring: rank ', rank, ': ', bad, ' wrong values'
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if

  ! Free requests and the queue
  do i = 1, 4
    call MPI_Request_free(reqs(i))
  end do
  call MPI_Queue_free(queue)
  call check_queue_null()
  call MPI_Finalize()
  if (rank == 0) print '(a)', 'f08_queue_ring: ok'

contains

  subroutine check_queue_null()
    if (queue /= MPI_QUEUE_NULL) then
      print '(a)', 'f08_queue_ring: MPI_Queue_free did not set MPI_QUEUE_NULL'
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine check_queue_null

end program f08_queue_ring
