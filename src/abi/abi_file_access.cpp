// File data access entry points (MPI-4.1 14.4): the read / write families with explicit
// offsets, individual and shared file pointers; blocking, nonblocking, collective, split
// collective and ordered; each with its _c (MPI_Count) form. All of them go through four helpers
// that check the arguments and call src/io.
#include "abi/abi_file.hpp"
#include "core/datatype.hpp"

using namespace baton;
using core::errc;

namespace {

errc check_data(const void* buf, int64_t count, MPI_Datatype type, const core::datatype** t) {
  if (errc e = abi::check_count(count); e != errc::success) return e;
  *t = abi::to_type(type);
  if (errc e = abi::check_type(*t); e != errc::success) return e;
  return abi::check_buffer(buf, count, *t);
}

void set_status(const core::req_status& s, MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  abi::to_status(s, status);
  status->MPI_SOURCE = MPI_ANY_SOURCE;  // undefined for files: what an empty status holds
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS;
}

io::access make(io::position pos, bool write, bool coll, MPI_Offset offset, const void* buf, int64_t count,
                const core::datatype* t) {
  io::access a;
  a.write = write;
  a.collective = coll;
  a.pos = pos;
  a.offset = offset;
  a.buf = const_cast<void*>(buf);
  a.count = count;
  a.type = t;
  return a;
}

int blocking(const char* fn, MPI_File fh, io::position pos, bool write, bool coll, MPI_Offset offset,
             const void* buf, int64_t count, MPI_Datatype type, MPI_Status* status) {
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    const core::datatype* t = nullptr;
    if (errc e = check_data(buf, count, type, &t); e != errc::success) return e;
    if (f->split)
      return core::error_set(errc::other, "a split collective is active on '%s': end it first", f->name.c_str());
    core::req_status st;
    errc e = io::file_access(f, make(pos, write, coll, offset, buf, count, t), &st);
    if (e == errc::success) set_status(st, status);
    return e;
  });
}

int nonblocking(const char* fn, MPI_File fh, io::position pos, bool write, bool coll, MPI_Offset offset,
                const void* buf, int64_t count, MPI_Datatype type, MPI_Request* request) {
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    if (!request) return core::error_set(errc::arg, "request is NULL");
    const core::datatype* t = nullptr;
    if (errc e = check_data(buf, count, type, &t); e != errc::success) return e;
    core::request* r = nullptr;
    if (errc e = io::file_iaccess(f, make(pos, write, coll, offset, buf, count, t), &r); e != errc::success) return e;
    *request = abi::to_handle(r);
    return errc::success;
  });
}

int begin(const char* fn, MPI_File fh, io::position pos, bool write, MPI_Offset offset, const void* buf,
          int64_t count, MPI_Datatype type) {
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    const core::datatype* t = nullptr;
    if (errc e = check_data(buf, count, type, &t); e != errc::success) return e;
    return io::file_split_begin(f, make(pos, write, true, offset, buf, count, t));
  });
}

int end(const char* fn, MPI_File fh, bool write, MPI_Status* status) {
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    core::req_status st;
    errc e = io::file_split_end(f, write, &st);
    if (e == errc::success) set_status(st, status);
    return e;
  });
}

}  // namespace

namespace baton::impl {
int MPI_File_read(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_read", fh, io::position::individual, false, false, 0, buf, count, datatype, status);
}
int MPI_File_read_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_read_all", fh, io::position::individual, false, true, 0, buf, count, datatype, status);
}
int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_read_at", fh, io::position::explicit_offset, false, false, offset, buf, count, datatype, status);
}
int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_read_at_all", fh, io::position::explicit_offset, false, true, offset, buf, count, datatype, status);
}
int MPI_File_read_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_read_shared", fh, io::position::shared, false, false, 0, buf, count, datatype, status);
}
int MPI_File_read_ordered(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_read_ordered", fh, io::position::ordered, false, true, 0, buf, count, datatype, status);
}
int MPI_File_iread(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iread", fh, io::position::individual, false, false, 0, buf, count, datatype, request);
}
int MPI_File_iread_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iread_all", fh, io::position::individual, false, true, 0, buf, count, datatype, request);
}
int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iread_at", fh, io::position::explicit_offset, false, false, offset, buf, count, datatype, request);
}
int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iread_at_all", fh, io::position::explicit_offset, false, true, offset, buf, count, datatype, request);
}
int MPI_File_iread_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iread_shared", fh, io::position::shared, false, false, 0, buf, count, datatype, request);
}
int MPI_File_read_all_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  return begin("MPI_File_read_all_begin", fh, io::position::individual, false, 0, buf, count, datatype);
}
int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype) {
  return begin("MPI_File_read_at_all_begin", fh, io::position::explicit_offset, false, offset, buf, count, datatype);
}
int MPI_File_read_ordered_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  return begin("MPI_File_read_ordered_begin", fh, io::position::ordered, false, 0, buf, count, datatype);
}
int MPI_File_read_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_read_c", fh, io::position::individual, false, false, 0, buf, count, datatype, status);
}
int MPI_File_read_all_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_read_all_c", fh, io::position::individual, false, true, 0, buf, count, datatype, status);
}
int MPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_read_at_c", fh, io::position::explicit_offset, false, false, offset, buf, count, datatype, status);
}
int MPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_read_at_all_c", fh, io::position::explicit_offset, false, true, offset, buf, count, datatype, status);
}
int MPI_File_read_shared_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_read_shared_c", fh, io::position::shared, false, false, 0, buf, count, datatype, status);
}
int MPI_File_read_ordered_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_read_ordered_c", fh, io::position::ordered, false, true, 0, buf, count, datatype, status);
}
int MPI_File_iread_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iread_c", fh, io::position::individual, false, false, 0, buf, count, datatype, request);
}
int MPI_File_iread_all_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iread_all_c", fh, io::position::individual, false, true, 0, buf, count, datatype, request);
}
int MPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iread_at_c", fh, io::position::explicit_offset, false, false, offset, buf, count, datatype, request);
}
int MPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iread_at_all_c", fh, io::position::explicit_offset, false, true, offset, buf, count, datatype, request);
}
int MPI_File_iread_shared_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iread_shared_c", fh, io::position::shared, false, false, 0, buf, count, datatype, request);
}
int MPI_File_read_all_begin_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype) {
  return begin("MPI_File_read_all_begin_c", fh, io::position::individual, false, 0, buf, count, datatype);
}
int MPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype) {
  return begin("MPI_File_read_at_all_begin_c", fh, io::position::explicit_offset, false, offset, buf, count, datatype);
}
int MPI_File_read_ordered_begin_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype) {
  return begin("MPI_File_read_ordered_begin_c", fh, io::position::ordered, false, 0, buf, count, datatype);
}
int MPI_File_read_all_end(MPI_File fh, void* buf, MPI_Status* status) {
  (void)buf;
  return end("MPI_File_read_all_end", fh, false, status);
}
int MPI_File_read_at_all_end(MPI_File fh, void* buf, MPI_Status* status) {
  (void)buf;
  return end("MPI_File_read_at_all_end", fh, false, status);
}
int MPI_File_read_ordered_end(MPI_File fh, void* buf, MPI_Status* status) {
  (void)buf;
  return end("MPI_File_read_ordered_end", fh, false, status);
}
int MPI_File_write(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_write", fh, io::position::individual, true, false, 0, buf, count, datatype, status);
}
int MPI_File_write_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_write_all", fh, io::position::individual, true, true, 0, buf, count, datatype, status);
}
int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_write_at", fh, io::position::explicit_offset, true, false, offset, buf, count, datatype, status);
}
int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_write_at_all", fh, io::position::explicit_offset, true, true, offset, buf, count, datatype, status);
}
int MPI_File_write_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_write_shared", fh, io::position::shared, true, false, 0, buf, count, datatype, status);
}
int MPI_File_write_ordered(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_write_ordered", fh, io::position::ordered, true, true, 0, buf, count, datatype, status);
}
int MPI_File_iwrite(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iwrite", fh, io::position::individual, true, false, 0, buf, count, datatype, request);
}
int MPI_File_iwrite_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iwrite_all", fh, io::position::individual, true, true, 0, buf, count, datatype, request);
}
int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iwrite_at", fh, io::position::explicit_offset, true, false, offset, buf, count, datatype, request);
}
int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iwrite_at_all", fh, io::position::explicit_offset, true, true, offset, buf, count, datatype, request);
}
int MPI_File_iwrite_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iwrite_shared", fh, io::position::shared, true, false, 0, buf, count, datatype, request);
}
int MPI_File_write_all_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  return begin("MPI_File_write_all_begin", fh, io::position::individual, true, 0, buf, count, datatype);
}
int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype) {
  return begin("MPI_File_write_at_all_begin", fh, io::position::explicit_offset, true, offset, buf, count, datatype);
}
int MPI_File_write_ordered_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  return begin("MPI_File_write_ordered_begin", fh, io::position::ordered, true, 0, buf, count, datatype);
}
int MPI_File_write_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_write_c", fh, io::position::individual, true, false, 0, buf, count, datatype, status);
}
int MPI_File_write_all_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_write_all_c", fh, io::position::individual, true, true, 0, buf, count, datatype, status);
}
int MPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_write_at_c", fh, io::position::explicit_offset, true, false, offset, buf, count, datatype, status);
}
int MPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_write_at_all_c", fh, io::position::explicit_offset, true, true, offset, buf, count, datatype, status);
}
int MPI_File_write_shared_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_write_shared_c", fh, io::position::shared, true, false, 0, buf, count, datatype, status);
}
int MPI_File_write_ordered_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_write_ordered_c", fh, io::position::ordered, true, true, 0, buf, count, datatype, status);
}
int MPI_File_iwrite_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iwrite_c", fh, io::position::individual, true, false, 0, buf, count, datatype, request);
}
int MPI_File_iwrite_all_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iwrite_all_c", fh, io::position::individual, true, true, 0, buf, count, datatype, request);
}
int MPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iwrite_at_c", fh, io::position::explicit_offset, true, false, offset, buf, count, datatype, request);
}
int MPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iwrite_at_all_c", fh, io::position::explicit_offset, true, true, offset, buf, count, datatype, request);
}
int MPI_File_iwrite_shared_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iwrite_shared_c", fh, io::position::shared, true, false, 0, buf, count, datatype, request);
}
int MPI_File_write_all_begin_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype) {
  return begin("MPI_File_write_all_begin_c", fh, io::position::individual, true, 0, buf, count, datatype);
}
int MPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count, MPI_Datatype datatype) {
  return begin("MPI_File_write_at_all_begin_c", fh, io::position::explicit_offset, true, offset, buf, count, datatype);
}
int MPI_File_write_ordered_begin_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype) {
  return begin("MPI_File_write_ordered_begin_c", fh, io::position::ordered, true, 0, buf, count, datatype);
}
int MPI_File_write_all_end(MPI_File fh, const void* buf, MPI_Status* status) {
  (void)buf;
  return end("MPI_File_write_all_end", fh, true, status);
}
int MPI_File_write_at_all_end(MPI_File fh, const void* buf, MPI_Status* status) {
  (void)buf;
  return end("MPI_File_write_at_all_end", fh, true, status);
}
int MPI_File_write_ordered_end(MPI_File fh, const void* buf, MPI_Status* status) {
  (void)buf;
  return end("MPI_File_write_ordered_end", fh, true, status);
}

}  // namespace baton::impl
