/* MPI_Isendrecv / MPI_Isendrecv_replace, single-completion calls leaving status.MPI_ERROR alone,
 * buffered sends fitting in exactly packed size + MPI_BSEND_OVERHEAD, MPI_Buffer_flush/iflush.
 * (The last three are regressions found by MPICH's pt2pt suite: mprobe, scancel, bsend_iflush.) */
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpitest_init();
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  /* ring with Isendrecv, small and large, and a PROC_NULL variant */
  const int sizes[] = {1, 1000, 300000};
  for (int k = 0; k < 3; ++k) {
    int n = sizes[k];
    int* out = malloc(sizeof(int) * (size_t)n);
    int* in = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; ++i) { out[i] = rank * 1000 + i; in[i] = -1; }
    MPI_Request r;
    MPI_Status st;
    CHECK_MPI(MPI_Isendrecv(out, n, MPI_INT, right, 7, in, n, MPI_INT, left, 7, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL, "request not freed");
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += in[i] != left * 1000 + i;
    CHECK(bad == 0, "isendrecv n=%d: %d wrong", n, bad);
    /* replace */
    for (int i = 0; i < n; ++i) in[i] = rank * 7 + i;
    CHECK_MPI(MPI_Isendrecv_replace(in, n, MPI_INT, right, 8, left, MPI_ANY_TAG, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Wait(&r, &st));
    bad = 0;
    for (int i = 0; i < n; ++i) bad += in[i] != left * 7 + i;
    CHECK(bad == 0, "isendrecv_replace n=%d: %d wrong", n, bad);
    CHECK(st.MPI_TAG == 8, "replace tag %d", st.MPI_TAG);
    free(out);
    free(in);
  }
  {
    int x = 5, y = -1;
    MPI_Request r;
    MPI_Status st;
    CHECK_MPI(MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && y == -1, "PROC_NULL isendrecv: source %d y %d", st.MPI_SOURCE, y);
  }

  /* single-completion calls do not write MPI_ERROR */
  {
    int x = rank, y = -1;
    MPI_Status st;
    st.MPI_ERROR = MPI_ERR_TOPOLOGY;
    CHECK_MPI(MPI_Sendrecv(&x, 1, MPI_INT, right, 9, &y, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_ERROR == MPI_ERR_TOPOLOGY, "MPI_Sendrecv wrote MPI_ERROR (%d)", st.MPI_ERROR);
    st.MPI_ERROR = MPI_ERR_TOPOLOGY;
    CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_ERROR == MPI_ERR_TOPOLOGY, "MPI_Recv wrote MPI_ERROR (%d)", st.MPI_ERROR);
  }

  /* buffered sends fit in exactly n + MPI_BSEND_OVERHEAD */
  for (int n = 1; n <= 40; ++n) {
    int bsize = n + MPI_BSEND_OVERHEAD;
    char* buf = malloc((size_t)bsize);
    char msg[40], got[40];
    memset(msg, 'a' + n % 26, sizeof msg);
    CHECK_MPI(MPI_Buffer_attach(buf, bsize));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Bsend(msg, n, MPI_CHAR, rank, 11, MPI_COMM_WORLD));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK_MPI(MPI_Recv(got, n, MPI_CHAR, rank, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(memcmp(got, msg, (size_t)n) == 0, "bsend of %d bytes", n);
    void* b;
    int s;
    CHECK_MPI(MPI_Buffer_detach(&b, &s));
    free(buf);
  }

  /* Buffer_flush and Buffer_iflush wait for pending buffered sends */
  {
    int bsize = 4 * (1000 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char* buf = malloc((size_t)bsize);
    int data[1000], in[1000];
    for (int i = 0; i < 1000; ++i) data[i] = rank + i;
    CHECK_MPI(MPI_Buffer_attach(buf, bsize));
    CHECK_MPI(MPI_Bsend(data, 1000, MPI_INT, right, 12, MPI_COMM_WORLD));
    MPI_Request fr, rr;
    CHECK_MPI(MPI_Irecv(in, 1000, MPI_INT, left, 12, MPI_COMM_WORLD, &rr));
    CHECK_MPI(MPI_Buffer_iflush(&fr));
    CHECK_MPI(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rr, MPI_STATUS_IGNORE));
    CHECK(in[999] == left + 999, "bsend data %d", in[999]);
    CHECK_MPI(MPI_Bsend(data, 1000, MPI_INT, right, 13, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(in, 1000, MPI_INT, left, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Buffer_flush());
    void* b;
    int s;
    CHECK_MPI(MPI_Buffer_detach(&b, &s));
    free(buf);
  }
  int rc = mpitest_finish();
  MPI_Finalize();
  return rc;
}
