# Point-to-point test programs (included by tests/mpi/CMakeLists.txt).
# Each program checks data and statuses, agrees on PASS/FAIL at the end with point-to-point only
# (mpitest.h) and exits non-zero on failure. All were validated with MPICH 4.0.2 at 1-8 ranks
# (at most ~7 s at 8 ranks on 2 cores) and Open MPI 4.1.4 at 2 and 4 ranks.

# every predefined C datatype, counts 0 .. 16 MB (eager and rendezvous), MPI_PROC_NULL
add_mpi_test(NAME pt2pt_datatypes SOURCES pt2pt_datatypes.c NP 1 2 3 4 8 TIMEOUT 60 LABELS pt2pt)

# Send/Bsend/Ssend/Rsend and Isend/Ibsend/Issend/Irsend; Buffer_attach/detach sized with
# MPI_BSEND_OVERHEAD; buffered sends complete locally; Issend waits for the receive to be posted
add_mpi_test(NAME pt2pt_sendmodes SOURCES pt2pt_sendmodes.c NP 1 2 3 4 8 TIMEOUT 60 LABELS pt2pt)

# Contiguous rendezvous messages are read in one copy (process_vm_readv) by default; the same two
# programs through the pipelined two-copy path
add_mpi_test(NAME pt2pt_datatypes_pipelined PROGRAM pt2pt_datatypes NP 2 4 TIMEOUT 60 LABELS pt2pt
             ENV BATON_SHM_CMA=0)
add_mpi_test(NAME pt2pt_sendmodes_pipelined PROGRAM pt2pt_sendmodes NP 2 4 TIMEOUT 60 LABELS pt2pt
             ENV BATON_SHM_CMA=0)

# ANY_SOURCE/ANY_TAG, non-overtaking (same size, and small/large interleaved, pre-posted and
# unexpected), tags up to MPI_TAG_UB, dup/split/self communicators never cross-match
add_mpi_test(NAME pt2pt_matching SOURCES pt2pt_matching.c NP 1 2 3 4 8 TIMEOUT 60 LABELS pt2pt)

# Isend/Irecv in every order, self-sends, all eight completion calls with MPI_REQUEST_NULL
# entries and ignored statuses, Request_get_status, Request_free of an active send
add_mpi_test(NAME pt2pt_nonblocking SOURCES pt2pt_nonblocking.c NP 1 2 3 4 8 TIMEOUT 60 LABELS pt2pt)

# Probe/Iprobe (non-consuming), Mprobe/Improbe/Mrecv/Imrecv (matched messages leave the queue),
# MPI_MESSAGE_NO_PROC from MPI_PROC_NULL, Get_count/Get_elements with MPI_UNDEFINED
add_mpi_test(NAME pt2pt_probe SOURCES pt2pt_probe.c NP 1 2 3 4 8 TIMEOUT 60 LABELS pt2pt)

# Send_init/Bsend_init/Ssend_init/Rsend_init + Recv_init, Start/Startall over many iterations with
# changing data; inactive requests complete at once; Request_free of inactive requests.
# (Open MPI 4.1 fails the Bsend_init part: it resends stale data on restart, ompi PR #12797.)
add_mpi_test(NAME pt2pt_persistent SOURCES pt2pt_persistent.c NP 1 2 3 4 8 TIMEOUT 60 LABELS pt2pt)

# Cancel of unmatched receives (Test_cancelled true), of matched ones (false, data intact), of a
# started persistent receive (restartable)
add_mpi_test(NAME pt2pt_cancel SOURCES pt2pt_cancel.c NP 1 2 3 4 8 TIMEOUT 60 LABELS pt2pt)

# Sendrecv and Sendrecv_replace: ring shifts at every distance, wildcards, PROC_NULL chain ends, self
add_mpi_test(NAME pt2pt_sendrecv SOURCES pt2pt_sendrecv.c NP 1 2 3 4 8 TIMEOUT 60 LABELS pt2pt)

# 100,000 requests pending at once (pre-posted, unexpected, both directions); two ranks only.
# (Open MPI 4.1 needs 70-90 s for this; MPICH about 1-3 s.)
add_mpi_test(NAME pt2pt_manyreqs SOURCES pt2pt_manyreqs.c NP 2 TIMEOUT 60 LABELS pt2pt)

# The same programs with the progress thread (BATON_ASYNC_PROGRESS=1), which turns the engine
# lock on: a persistent buffered send used to deadlock re-taking that lock in MPI_Start.
add_mpi_test(NAME pt2pt_persistent_async PROGRAM pt2pt_persistent NP 1 2 4 TIMEOUT 60 LABELS pt2pt async
             ENV BATON_ASYNC_PROGRESS=1)
add_mpi_test(NAME pt2pt_nonblocking_async PROGRAM pt2pt_nonblocking NP 2 3 TIMEOUT 60 LABELS pt2pt async
             ENV BATON_ASYNC_PROGRESS=1)

# Isendrecv(_replace); single-completion calls leave MPI_ERROR alone; buffered sends fit in
# packed size + MPI_BSEND_OVERHEAD; Buffer_flush/iflush (regressions from MPICH's pt2pt suite)
add_mpi_test(NAME pt2pt_isendrecv SOURCES pt2pt_isendrecv.c NP 1 2 3 4 8 TIMEOUT 60 LABELS pt2pt)

# Request_get_status_all/any/some: report without freeing or deactivating; inactive and null
# requests; bad arguments
add_mpi_test(NAME pt2pt_get_status SOURCES pt2pt_get_status.c NP 1 2 3 4 TIMEOUT 60 LABELS pt2pt)

# A message wakes a receiver asleep on its doorbell (lost wake-ups would take the 10 ms futex
# timeout), with the asymmetric sleep/wake fence and with a full fence on both sides.
add_mpi_test(NAME pt2pt_wake SOURCES pt2pt_wake.c NP 2 4 TIMEOUT 60 LABELS pt2pt
             ENV BATON_SPIN_US=20 BATON_YIELD_US=50)
add_mpi_test(NAME pt2pt_wake_fullfence PROGRAM pt2pt_wake NP 2 4 TIMEOUT 60 LABELS pt2pt
             ENV BATON_SPIN_US=20 BATON_YIELD_US=50 BATON_ASYM_FENCE=0)

# Large contiguous messages copied by both ends at once (copy jobs): both waiting, a busy sender,
# unexpected messages, more messages in flight than job slots; with the progress thread too, and
# with jobs off (one reader, the path before them)
add_mpi_test(NAME pt2pt_copy_job SOURCES pt2pt_copy_job.c NP 2 3 4 TIMEOUT 60 LABELS pt2pt)
add_mpi_test(NAME pt2pt_copy_job_async PROGRAM pt2pt_copy_job NP 2 3 TIMEOUT 60 LABELS pt2pt async
             ENV BATON_ASYNC_PROGRESS=1)
add_mpi_test(NAME pt2pt_copy_job_off PROGRAM pt2pt_copy_job NP 2 3 TIMEOUT 60 LABELS pt2pt
             ENV BATON_SHM_COOP_MIN=0)

# With the progress thread, a nonblocking receive (MPI_Irecv, MPI_Start) that matches a rendezvous
# message of 64 KiB or more which has already arrived leaves the copy to the next poll (counted by
# the pvar baton_p2p_fetches_handed_over); blocking receives and smaller messages copy in the call;
# a handed-over receive is matched (MPI_Cancel leaves it), and message order holds
add_mpi_test(NAME pt2pt_handover SOURCES pt2pt_handover.c NP 2 3 TIMEOUT 60 LABELS pt2pt async
             ENV BATON_ASYNC_PROGRESS=1)

# Receives freed while pending complete in MPI_Finalize: a rendezvous sender that sends after its
# receiver entered MPI_Finalize still completes, and the data lands (MPICH's rqfree hung before).
add_mpi_test(NAME pt2pt_free_pending SOURCES pt2pt_free_pending.c NP 2 4 TIMEOUT 30 LABELS pt2pt)
