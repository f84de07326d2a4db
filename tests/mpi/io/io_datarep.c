/* Data representations: native, internal, external32 (big-endian in the file, sizes of the
 * standard: MPI_LONG takes 4 bytes), and a representation registered with MPI_Register_datarep
 * (byte-swapped ints through its conversion functions). */
#include <stdint.h>

#include "io_test.h"

static int swaps = 0;

static void swap4(const void* in, void* out, int n) {
  const unsigned char* a = in;
  unsigned char* b = out;
  for (int i = 0; i < n; ++i) {
    b[4 * i + 0] = a[4 * i + 3];
    b[4 * i + 1] = a[4 * i + 2];
    b[4 * i + 2] = a[4 * i + 1];
    b[4 * i + 3] = a[4 * i + 0];
  }
}
/* Reads: file -> memory, at element `position` of userbuf (ints only). */
static int rd(void* userbuf, MPI_Datatype t, int count, void* filebuf, MPI_Offset position, void* extra) {
  (void)extra;
  if (t != MPI_INT) return MPI_ERR_TYPE;
  swap4(filebuf, (int*)userbuf + position, count);
  swaps++;
  return MPI_SUCCESS;
}
static int wr(void* userbuf, MPI_Datatype t, int count, void* filebuf, MPI_Offset position, void* extra) {
  (void)extra;
  if (t != MPI_INT) return MPI_ERR_TYPE;
  swap4((int*)userbuf + position, filebuf, count);
  swaps++;
  return MPI_SUCCESS;
}
static int ext(MPI_Datatype t, MPI_Aint* e, void* extra) {
  (void)extra;
  int s;
  MPI_Type_size(t, &s);
  *e = s;
  return MPI_SUCCESS;
}

static uint32_t be32(const unsigned char* p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

int main(int argc, char** argv) {
  int rank, size;
  io_start(&argc, &argv, &rank, &size);
  enum { N = 16 };
  MPI_File fh;
  const char* reps[] = {"native", "internal", "external32"};
  for (int k = 0; k < 3; ++k) {
    char fname[32];
    snprintf(fname, sizeof(fname), "rep-%s", reps[k]);
    const char* name = io_path(fname);
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), "open");
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, reps[k], MPI_INFO_NULL), "set_view");
    char got[MPI_MAX_DATAREP_STRING];
    MPI_Offset d;
    MPI_Datatype et, ft;
    MPI_File_get_view(fh, &d, &et, &ft, got);
    CHECK(!strcmp(got, reps[k]), "get_view datarep %s", got);
    int v[N], back[N];
    for (int i = 0; i < N; ++i) v[i] = 0x01020304 + rank * 1000 + i;
    CHECK_RC(MPI_File_write_at_all(fh, rank * N, v, N, MPI_INT, MPI_STATUS_IGNORE), "write_at_all");
    CHECK_RC(MPI_File_read_at_all(fh, rank * N, back, N, MPI_INT, MPI_STATUS_IGNORE), "read_at_all");
    for (int i = 0; i < N; ++i) CHECK(back[i] == v[i], "%s: read back %d = %x", reps[k], i, back[i]);
    MPI_Aint e = 0;
    MPI_File_get_type_extent(fh, MPI_LONG, &e);
    CHECK(e == (k == 2 ? 4 : (MPI_Aint)sizeof(long)), "%s: file extent of MPI_LONG %ld", reps[k], (long)e);
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned char raw[4];
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "set_view native");
    CHECK_RC(MPI_File_read_at(fh, (MPI_Offset)rank * N * 4, raw, 4, MPI_BYTE, MPI_STATUS_IGNORE), "read raw");
    uint32_t x;
    memcpy(&x, raw, 4);
    if (k == 2)
      CHECK(be32(raw) == (uint32_t)v[0], "external32 is big-endian: %08x", be32(raw));
    else
      CHECK(x == (uint32_t)v[0], "%s keeps the memory layout: %08x", reps[k], x);
    CHECK_RC(MPI_File_close(&fh), "close");
  }
  /* external32 with types whose size differs from memory: MPI_LONG is 4 bytes in the file. */
  {
    const char* name = io_path("ext-long");
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), "open");
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL), "set_view long");
    long l[3] = {rank + 1, -5, 123456};
    long lb[3] = {0, 0, 0};
    CHECK_RC(MPI_File_write_at_all(fh, rank * 3, l, 3, MPI_LONG, MPI_STATUS_IGNORE), "write long");
    CHECK_RC(MPI_File_read_at_all(fh, rank * 3, lb, 3, MPI_LONG, MPI_STATUS_IGNORE), "read long");
    CHECK(lb[0] == l[0] && lb[1] == -5 && lb[2] == 123456, "external32 longs: %ld %ld %ld", lb[0], lb[1], lb[2]);
    MPI_Offset sz = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_get_size(fh, &sz);
    CHECK(sz == (MPI_Offset)size * 12, "external32 longs take 4 bytes: size %lld", (long long)sz);
    CHECK_RC(MPI_File_close(&fh), "close");
  }
  /* A user representation. */
  CHECK_RC(MPI_Register_datarep("swap4", rd, wr, ext, NULL), "register_datarep");
  int rc = MPI_Register_datarep("swap4", rd, wr, ext, NULL);
  CHECK(io_class(rc) == MPI_ERR_DUP_DATAREP, "registering twice gives %d", rc);
  {
    const char* name = io_path("swap4");
    CHECK_RC(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), "open");
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "swap4", MPI_INFO_NULL), "set_view swap4");
    int v[N], back[N];
    for (int i = 0; i < N; ++i) v[i] = 0x0a0b0c00 + rank * 64 + i;
    CHECK_RC(MPI_File_write_at(fh, rank * N, v, N, MPI_INT, MPI_STATUS_IGNORE), "write swap4");
    CHECK_RC(MPI_File_read_at(fh, rank * N, back, N, MPI_INT, MPI_STATUS_IGNORE), "read swap4");
    for (int i = 0; i < N; ++i) CHECK(back[i] == v[i], "swap4 read back %d", i);
    CHECK(swaps >= 2, "the conversion functions ran (%d)", swaps);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "set_view native");
    unsigned char raw[4];
    MPI_File_read_at(fh, (MPI_Offset)rank * N * 4, raw, 4, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(be32(raw) == (uint32_t)v[0], "swap4 stored the bytes swapped");
    CHECK_RC(MPI_File_close(&fh), "close");
  }
  return io_finish();
}
