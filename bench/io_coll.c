/* io_coll - collective write and read of a 3-D block-distributed array of doubles through a
 * subarray view (the pattern of every checkpoint), at 64 MiB and 1 GiB in total.
 *
 * The global array is nz x ny x nx doubles (128 x 256 x 256 for 64 MiB, 512^3 for 1 GiB), split
 * over the ranks by MPI_Dims_create; each rank's block is its subarray filetype. One timed sample
 * is MPI_File_write_all (or read_all) of the whole array between two barriers, no MPI_File_sync:
 * the file lives in the page cache for every library alike, so the times are the libraries' own
 * (exchange, aggregation, system calls), not the disk's. Each sample overwrites the same file,
 * made by an untimed first write; the read samples read it back and are validated once.
 * Value: GB/s of array data (decimal), the median of the samples, as
 *   RESULT <tag>/write <total-bytes> <GB/s> GB/s    and    .../read
 * where <tag> is the program's file name (the driver registers it at 2 and 4 ranks).
 *
 * The file goes to $BATON_BENCH_DIR (default /tmp) and is deleted at the end. */
#include "bench_common.h"

#include <unistd.h>

static const char* tag_of(const char* argv0) {
  const char* s = strrchr(argv0, '/');
  return s ? s + 1 : argv0;
}

static double global_index(const int* g, int z, int y, int x) { return ((double)z * g[1] + y) * g[2] + x; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  bench_opts opts;
  bench_parse_args(argc, argv, &opts);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* tag = tag_of(argv[0]);
  const char* dir = getenv("BATON_BENCH_DIR");
  char name[512];
  long id = (long)getpid();
  bench_share_long(&id);
  snprintf(name, sizeof(name), "%s/io_coll.%ld.dat", dir && *dir ? dir : "/tmp", id);

  static const int shapes[2][3] = {{128, 256, 256}, {512, 512, 512}};
  const int nshapes = opts.quick ? 1 : 2;
  int dims[3] = {0, 0, 0};
  MPI_Dims_create(size, 3, dims);
  int coords[3] = {rank / (dims[1] * dims[2]), rank / dims[2] % dims[1], rank % dims[2]};
  for (int s = 0; s < nshapes; ++s) {
    const int* g = shapes[s];
    int sub[3], start[3];
    for (int d = 0; d < 3; ++d) {
      sub[d] = g[d] / dims[d];
      start[d] = coords[d] * sub[d];
    }
    const size_t n = (size_t)sub[0] * sub[1] * sub[2];
    const size_t total = (size_t)g[0] * g[1] * g[2] * sizeof(double);
    double* buf = (double*)bench_alloc(tag, n * sizeof(double));
    double* in = (double*)bench_alloc(tag, n * sizeof(double));
    for (int z = 0, k = 0; z < sub[0]; ++z)
      for (int y = 0; y < sub[1]; ++y)
        for (int x = 0; x < sub[2]; ++x, ++k) buf[k] = global_index(g, start[0] + z, start[1] + y, start[2] + x);
    MPI_Datatype ft;
    bench_check(MPI_Type_create_subarray(3, g, sub, start, MPI_ORDER_C, MPI_DOUBLE, &ft), "subarray");
    bench_check(MPI_Type_commit(&ft), "commit");
    MPI_File fh;
    bench_check(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), "open");
    bench_check(MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL), "set_view");
    /* Untimed: make the file, read it back, validate. */
    bench_check(MPI_File_write_all(fh, buf, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE), "write_all");
    bench_check(MPI_File_read_at_all(fh, 0, in, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE), "read_at_all");
    for (size_t k = 0; k < n; k += 1 + n / 4099)
      if (in[k] != buf[k]) bench_fail(tag, "read back wrong data");
    double wt[BENCH_MAX_SAMPLES], rt[BENCH_MAX_SAMPLES];
    for (int i = 0; i < opts.samples; ++i) {
      bench_check(MPI_Barrier(MPI_COMM_WORLD), "barrier");
      double t0 = MPI_Wtime();
      bench_check(MPI_File_write_at_all(fh, 0, buf, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE), "write_at_all");
      bench_check(MPI_Barrier(MPI_COMM_WORLD), "barrier");
      wt[i] = total / (MPI_Wtime() - t0) / 1e9;
      bench_check(MPI_Barrier(MPI_COMM_WORLD), "barrier");
      t0 = MPI_Wtime();
      bench_check(MPI_File_read_at_all(fh, 0, in, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE), "read_at_all");
      bench_check(MPI_Barrier(MPI_COMM_WORLD), "barrier");
      rt[i] = total / (MPI_Wtime() - t0) / 1e9;
    }
    if (rank == 0) {
      char series[128];
      snprintf(series, sizeof(series), "%s/write", tag);
      bench_result(series, total, bench_median(wt, opts.samples), "GB/s");
      snprintf(series, sizeof(series), "%s/read", tag);
      bench_result(series, total, bench_median(rt, opts.samples), "GB/s");
      fflush(stdout);
    }
    bench_check(MPI_File_close(&fh), "close");
    if (rank == 0) MPI_File_delete(name, MPI_INFO_NULL);
    MPI_Type_free(&ft);
    free(buf);
    free(in);
  }
  MPI_Finalize();
  return 0;
}
