// File entry points (MPI-4.1 chapter 14) other than data access: open / close / delete, views,
// sizes, pointers, info, atomicity, file error handlers, data representations. The I/O layer is
// src/io/ (docs/io.md).
//
// A file handle is the address of its io::file; the I/O layer keeps a registry of open files, so
// a closed or made-up handle gives MPI_ERR_FILE. Errors on a file go to its error handler, errors
// without a file (MPI_File_open, MPI_File_delete, an invalid handle) to MPI_FILE_NULL's, which is
// MPI_ERRORS_RETURN until the program sets another (MPI-4.1 14.7).
#include <cstring>
#include <mutex>
#include <type_traits>

#include "abi/abi_file.hpp"
#include "abi/abi_objects.hpp"
#include "comm/comm.hpp"
#include "core/comm.hpp"
#include "core/datatype.hpp"
#include "core/group.hpp"
#include "core/info.hpp"
#include "io/datarep.hpp"

using namespace baton;
using abi::run_guarded;
using core::errc;

static_assert(io::mode_append == MPI_MODE_APPEND && io::mode_create == MPI_MODE_CREATE &&
                  io::mode_delete_on_close == MPI_MODE_DELETE_ON_CLOSE && io::mode_excl == MPI_MODE_EXCL &&
                  io::mode_rdonly == MPI_MODE_RDONLY && io::mode_rdwr == MPI_MODE_RDWR &&
                  io::mode_sequential == MPI_MODE_SEQUENTIAL && io::mode_unique_open == MPI_MODE_UNIQUE_OPEN &&
                  io::mode_wronly == MPI_MODE_WRONLY,
              "io access modes must be the ABI's");
static_assert(int(errc::access) == MPI_ERR_ACCESS && int(errc::amode) == MPI_ERR_AMODE &&
                  int(errc::bad_file) == MPI_ERR_BAD_FILE && int(errc::conversion) == MPI_ERR_CONVERSION &&
                  int(errc::dup_datarep) == MPI_ERR_DUP_DATAREP && int(errc::file_exists) == MPI_ERR_FILE_EXISTS &&
                  int(errc::file_in_use) == MPI_ERR_FILE_IN_USE && int(errc::file) == MPI_ERR_FILE &&
                  int(errc::io) == MPI_ERR_IO && int(errc::no_space) == MPI_ERR_NO_SPACE &&
                  int(errc::no_such_file) == MPI_ERR_NO_SUCH_FILE && int(errc::quota) == MPI_ERR_QUOTA &&
                  int(errc::read_only) == MPI_ERR_READ_ONLY &&
                  int(errc::unsupported_datarep) == MPI_ERR_UNSUPPORTED_DATAREP,
              "file error classes must be the ABI's");

namespace baton::abi {

namespace {
std::mutex g_null_mutex;
core::errhandler* g_null_eh = nullptr;  // MPI_FILE_NULL's error handler (the default of new files)

core::errhandler* null_errhandler() {
  std::lock_guard<std::mutex> g(g_null_mutex);
  if (!g_null_eh) g_null_eh = core::errhandler_predefined(core::errhandler_kind::ret);
  return g_null_eh;
}
}  // namespace

int raise_file(const char* fn, io::file* f, errc e) {
  core::errhandler* eh = f ? f->eh : null_errhandler();
  if (eh->kind == core::errhandler_kind::user) {
    int code = to_mpi(e);
    MPI_File h = f ? to_handle(f) : MPI_FILE_NULL;
    reinterpret_cast<MPI_File_errhandler_function*>(eh->user_fn)(&h, &code);
    return code;
  }
  return raise_with(fn, eh, MPI_COMM_NULL, e);
}

int file_entry(const char* fn, MPI_File fh, io::file** out) {
  if (errc e = check_init(fn); e != errc::success) return raise(fn, nullptr, e);
  auto* f = reinterpret_cast<io::file*>(fh);
  if (fh == MPI_FILE_NULL)
    return raise_file(fn, nullptr, core::error_set(errc::file, "the file handle is MPI_FILE_NULL"));
  if (is_predefined(fh) || !io::file_valid(f))
    return raise_file(fn, nullptr,
                      core::error_set(errc::file, "invalid file handle %p (closed, or never opened)",
                                      static_cast<void*>(fh)));
  *out = f;
  return MPI_SUCCESS;
}

}  // namespace baton::abi

namespace {

// The file's communicator carries its error handler too: errors that completion calls
// (MPI_Wait on an MPI_File_i* request) report go to the file's handler that way.
void mirror_errhandler(io::file* f) {
  f->eh->retain();
  if (f->c->eh) f->c->eh->release();
  f->c->eh = f->eh;
}

errc info_entries(MPI_Info info, std::vector<std::pair<std::string, std::string>>* out) {
  out->clear();
  if (info == MPI_INFO_NULL) return errc::success;
  core::info* in = abi::to_info(info);
  if (!in) return errc::info;
  *out = in->entries;
  return errc::success;
}

errc check_whence(int whence, io::whence* w) {
  switch (whence) {
    case MPI_SEEK_SET: *w = io::whence::set; return errc::success;
    case MPI_SEEK_CUR: *w = io::whence::cur; return errc::success;
    case MPI_SEEK_END: *w = io::whence::end; return errc::success;
    default: return core::error_set(errc::arg, "invalid whence %d (MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END)", whence);
  }
}

errc check_view_type(MPI_Datatype h, const char* which, const core::datatype** out) {
  *out = abi::to_type(h);
  if (!*out) return core::error_set(errc::type, "the %s is not a valid datatype", which);
  return errc::success;
}

}  // namespace

namespace {
template <class Conv>
int register_datarep(const char* fn, const char* name, Conv* read_fn, Conv* write_fn,
                     MPI_Datarep_extent_function* extent_fn, void* extra) {
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  return abi::file_call(fn, nullptr, [&] {
    if (!name || !*name) return core::error_set(errc::arg, "the data representation's name is empty");
    if (std::strlen(name) >= MPI_MAX_DATAREP_STRING)
      return core::error_set(errc::arg, "the data representation's name is longer than MPI_MAX_DATAREP_STRING - 1");
    if (!extent_fn) return core::error_set(errc::arg, "dtype_file_extent_fn is NULL");
    if ((read_fn == nullptr) != (write_fn == nullptr))
      return core::error_set(errc::arg, "give both conversion functions or neither (MPI_CONVERSION_FN_NULL)");
    io::datarep r;
    r.name = name;
    if (read_fn) {
      r.convert = [read_fn, write_fn, extra](bool read, void* userbuf, const core::datatype* t, int64_t count,
                                             void* filebuf, int64_t position) {
        Conv* f = read ? read_fn : write_fn;
        int rc = 0;
        if constexpr (std::is_same_v<Conv, MPI_Datarep_conversion_function>)
          rc = f(userbuf, abi::to_handle(t), static_cast<int>(count), filebuf, position, extra);
        else
          rc = f(userbuf, abi::to_handle(t), count, filebuf, position, extra);
        if (rc == MPI_SUCCESS) return errc::success;
        return core::error_set(abi::user_callback_error(rc) == errc::other ? errc::conversion : errc(rc),
                               "the data representation's %s conversion function returned %d",
                               read ? "read" : "write", rc);
      };
    }
    r.file_extent = [extent_fn, extra](const core::datatype* t, int64_t* extent) {
      MPI_Aint x = 0;
      int rc = extent_fn(abi::to_handle(t), &x, extra);
      *extent = x;
      if (rc == MPI_SUCCESS) return errc::success;
      return core::error_set(errc::conversion, "the data representation's extent function returned %d", rc);
    };
    return io::datarep_register(std::move(r));
  });
}
}  // namespace

namespace baton::impl {

// ---- open / close / delete ----

int MPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
  const char* fn = "MPI_File_open";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  core::comm* c = abi::to_comm(comm);
  if (!c) return abi::raise_file(fn, nullptr, errc::comm);
  if (!fh) return abi::raise_file(fn, nullptr, core::error_set(errc::arg, "fh is NULL"));
  std::vector<std::pair<std::string, std::string>> hints;
  if (errc e = info_entries(info, &hints); e != errc::success) return abi::raise_file(fn, nullptr, e);
  return abi::file_call(fn, nullptr, [&] {
    if (c->inter) return core::error_set(errc::comm, "files cannot be opened on an intercommunicator");
    // The file's private communicator (its collective traffic never meets the user's);
    // io::file_open takes it over.
    core::comm* fc = nullptr;
    if (errc e = comm::comm_dup(c, &fc); e != errc::success) return e;
    io::file* f = nullptr;
    if (errc e = io::file_open(fc, filename, amode, hints, abi::null_errhandler(), &f); e != errc::success) {
      *fh = MPI_FILE_NULL;
      return e;
    }
    mirror_errhandler(f);
    *fh = abi::to_handle(f);
    return errc::success;
  });
}

int MPI_File_close(MPI_File* fh) {
  const char* fn = "MPI_File_close";
  if (!fh) return abi::raise_file(fn, nullptr, core::error_set(errc::arg, "fh is NULL"));
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, *fh, &f); rc != MPI_SUCCESS) return rc;
  if (f->split) {
    (void)core::error_set(errc::other, "a split collective on '%s' is still active: end it before closing",
                          f->name.c_str());
    return abi::raise_file(fn, f, errc::other);
  }
  // The file is gone after this: a failure goes to the handler it had.
  core::errhandler* eh = f->eh;
  eh->retain();
  errc e = run_guarded([&] { return io::file_close(f); });
  *fh = MPI_FILE_NULL;
  int rc = MPI_SUCCESS;
  if (e != errc::success) {
    if (eh->kind == core::errhandler_kind::user) {
      rc = abi::to_mpi(e);
      MPI_File h = MPI_FILE_NULL;
      reinterpret_cast<MPI_File_errhandler_function*>(eh->user_fn)(&h, &rc);
    } else {
      rc = abi::raise_with(fn, eh, MPI_COMM_NULL, e);
    }
  }
  eh->release();
  return rc;
}

int MPI_File_delete(const char* filename, MPI_Info info) {
  const char* fn = "MPI_File_delete";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  std::vector<std::pair<std::string, std::string>> hints;
  if (errc e = info_entries(info, &hints); e != errc::success) return abi::raise_file(fn, nullptr, e);
  return abi::file_call(fn, nullptr, [&] { return io::file_delete(filename); });
}

// ---- size, sync, mode, group, info, atomicity ----

int MPI_File_set_size(MPI_File fh, MPI_Offset size) {
  const char* fn = "MPI_File_set_size";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    if (size < 0) return core::error_set(errc::arg, "negative size %lld", (long long)size);
    return io::file_set_size(f, size);
  });
}
int MPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  const char* fn = "MPI_File_preallocate";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    if (size < 0) return core::error_set(errc::arg, "negative size %lld", (long long)size);
    return io::file_preallocate(f, size);
  });
}
int MPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  const char* fn = "MPI_File_get_size";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    if (!size) return core::error_set(errc::arg, "size is NULL");
    int64_t s = 0;
    errc e = io::file_get_size(f, &s);
    *size = s;
    return e;
  });
}
int MPI_File_sync(MPI_File fh) {
  const char* fn = "MPI_File_sync";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] { return io::file_sync(f); });
}
int MPI_File_get_amode(MPI_File fh, int* amode) {
  const char* fn = "MPI_File_get_amode";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    if (!amode) return core::error_set(errc::arg, "amode is NULL");
    *amode = f->amode;
    return errc::success;
  });
}
int MPI_File_get_group(MPI_File fh, MPI_Group* group) {
  const char* fn = "MPI_File_get_group";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    if (!group) return core::error_set(errc::arg, "group is NULL");
    *group = abi::to_handle(io::file_get_group(f));
    return errc::success;
  });
}
int MPI_File_set_info(MPI_File fh, MPI_Info info) {
  const char* fn = "MPI_File_set_info";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    std::vector<std::pair<std::string, std::string>> hints;
    if (errc e = info_entries(info, &hints); e != errc::success) return e;
    return io::file_set_info(f, hints);
  });
}
int MPI_File_get_info(MPI_File fh, MPI_Info* info_used) {
  const char* fn = "MPI_File_get_info";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    if (!info_used) return core::error_set(errc::arg, "info_used is NULL");
    auto* in = new core::info;
    in->entries = io::file_get_info(f);
    *info_used = abi::to_handle(in);
    return errc::success;
  });
}
int MPI_File_set_atomicity(MPI_File fh, int flag) {
  const char* fn = "MPI_File_set_atomicity";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] { return io::file_set_atomicity(f, flag != 0); });
}
int MPI_File_get_atomicity(MPI_File fh, int* flag) {
  const char* fn = "MPI_File_get_atomicity";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    if (!flag) return core::error_set(errc::arg, "flag is NULL");
    *flag = f->atomic ? 1 : 0;
    return errc::success;
  });
}

// ---- views ----

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char* datarep,
                       MPI_Info info) {
  const char* fn = "MPI_File_set_view";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    const core::datatype* et = nullptr;
    const core::datatype* ft = nullptr;
    if (errc e = check_view_type(etype, "etype", &et); e != errc::success) return e;
    if (errc e = check_view_type(filetype, "filetype", &ft); e != errc::success) return e;
    if (f->split) return core::error_set(errc::other, "a split collective is active on '%s'", f->name.c_str());
    std::vector<std::pair<std::string, std::string>> hints;
    if (errc e = info_entries(info, &hints); e != errc::success) return e;
    return io::file_set_view(f, disp, et, ft, datarep ? datarep : "native", hints);
  });
}

int MPI_File_get_view(MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype, MPI_Datatype* filetype, char* datarep) {
  const char* fn = "MPI_File_get_view";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    if (!disp || !etype || !filetype || !datarep)
      return core::error_set(errc::arg, "NULL disp, etype, filetype or datarep");
    // Derived types come back as new handles the caller frees (MPI-4.1 14.3).
    auto give = [](const core::datatype* t, MPI_Datatype* out) {
      if (t->is_predefined()) {
        *out = abi::to_handle(t);
        return errc::success;
      }
      core::datatype* d = nullptr;
      if (errc e = core::type_dup(t, &d); e != errc::success) return e;
      abi::type_register(d);
      *out = abi::to_handle(d);
      return errc::success;
    };
    *disp = f->v.disp;
    if (errc e = give(f->v.etype, etype); e != errc::success) return e;
    if (errc e = give(f->v.filetype, filetype); e != errc::success) return e;
    std::snprintf(datarep, MPI_MAX_DATAREP_STRING, "%s", f->v.rep->name.c_str());
    return errc::success;
  });
}

// ---- pointers and offsets ----

int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  const char* fn = "MPI_File_seek";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    io::whence w;
    if (errc e = check_whence(whence, &w); e != errc::success) return e;
    return io::file_seek(f, offset, w);
  });
}
int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  const char* fn = "MPI_File_seek_shared";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    io::whence w;
    if (errc e = check_whence(whence, &w); e != errc::success) return e;
    return io::file_seek_shared(f, offset, w);
  });
}
int MPI_File_get_position(MPI_File fh, MPI_Offset* offset) {
  const char* fn = "MPI_File_get_position";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    if (!offset) return core::error_set(errc::arg, "offset is NULL");
    if (f->amode & MPI_MODE_SEQUENTIAL)
      return core::error_set(errc::unsupported_operation,
                             "'%s' was opened with MPI_MODE_SEQUENTIAL: it has no individual file pointer",
                             f->name.c_str());
    *offset = f->fp;
    return errc::success;
  });
}
int MPI_File_get_position_shared(MPI_File fh, MPI_Offset* offset) {
  const char* fn = "MPI_File_get_position_shared";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    if (!offset) return core::error_set(errc::arg, "offset is NULL");
    int64_t o = 0;
    errc e = io::file_get_position_shared(f, &o);
    *offset = o;
    return e;
  });
}
int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp) {
  const char* fn = "MPI_File_get_byte_offset";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    if (!disp) return core::error_set(errc::arg, "disp is NULL");
    int64_t d = 0;
    errc e = io::file_get_byte_offset(f, offset, &d);
    *disp = d;
    return e;
  });
}
int MPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count* extent) {
  const char* fn = "MPI_File_get_type_extent_c";
  io::file* f = nullptr;
  if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    const core::datatype* t = abi::to_type(datatype);
    if (!t) return errc::type;
    if (!extent) return core::error_set(errc::arg, "extent is NULL");
    int64_t x = 0;
    errc e = io::file_type_extent(f, t, &x);
    *extent = x;
    return e;
  });
}
int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent) {
  MPI_Count x = 0;
  int rc = PMPI_File_get_type_extent_c(fh, datatype, extent ? &x : nullptr);
  if (rc == MPI_SUCCESS) *extent = MPI_Aint(x);
  return rc;
}

// ---- error handlers ----

int MPI_File_create_errhandler(MPI_File_errhandler_function* function, MPI_Errhandler* errhandler) {
  const char* fn = "MPI_File_create_errhandler";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  if (!function || !errhandler)
    return abi::raise_file(fn, nullptr, core::error_set(errc::arg, "NULL %s", function ? "errhandler" : "function"));
  auto* e = new core::errhandler;
  e->kind = core::errhandler_kind::user;
  e->user_fn = reinterpret_cast<void*>(function);
  *errhandler = abi::to_handle(e);
  return MPI_SUCCESS;
}
int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
  const char* fn = "MPI_File_set_errhandler";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  io::file* f = nullptr;
  if (file != MPI_FILE_NULL)
    if (int rc = abi::file_entry(fn, file, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    core::errhandler* e = abi::to_errhandler(errhandler);
    if (!e) return core::error_set(errc::arg, "invalid error handler");
    if (e->for_session)
      return core::error_set(errc::arg, "the error handler was made by MPI_Session_create_errhandler");
    e->retain();
    if (!f) {  // the default for files opened from now on
      core::errhandler* old = abi::null_errhandler();
      std::lock_guard<std::mutex> g(abi::g_null_mutex);
      abi::g_null_eh = e;
      old->release();
      return errc::success;
    }
    f->eh->release();
    f->eh = e;
    mirror_errhandler(f);
    return errc::success;
  });
}
int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler* errhandler) {
  const char* fn = "MPI_File_get_errhandler";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  io::file* f = nullptr;
  if (file != MPI_FILE_NULL)
    if (int rc = abi::file_entry(fn, file, &f); rc != MPI_SUCCESS) return rc;
  return abi::file_call(fn, f, [&] {
    if (!errhandler) return core::error_set(errc::arg, "errhandler is NULL");
    core::errhandler* e = f ? f->eh : abi::null_errhandler();
    e->retain();
    *errhandler = abi::to_handle(e);
    return errc::success;
  });
}
int MPI_File_call_errhandler(MPI_File fh, int errorcode) {
  const char* fn = "MPI_File_call_errhandler";
  if (errc e = abi::check_init(fn); e != errc::success) return abi::raise(fn, nullptr, e);
  io::file* f = nullptr;
  if (fh != MPI_FILE_NULL)
    if (int rc = abi::file_entry(fn, fh, &f); rc != MPI_SUCCESS) return rc;
  (void)core::error_set(errc(errorcode), "error raised by the application");
  (void)abi::raise_file(fn, f, errc(errorcode));
  return MPI_SUCCESS;
}

// ---- data representations ----


int MPI_Register_datarep(const char* datarep, MPI_Datarep_conversion_function* read_conversion_fn,
                          MPI_Datarep_conversion_function* write_conversion_fn,
                          MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state) {
  return register_datarep("MPI_Register_datarep", datarep, read_conversion_fn, write_conversion_fn,
                          dtype_file_extent_fn, extra_state);
}
int MPI_Register_datarep_c(const char* datarep, MPI_Datarep_conversion_function_c* read_conversion_fn,
                            MPI_Datarep_conversion_function_c* write_conversion_fn,
                            MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state) {
  return register_datarep("MPI_Register_datarep_c", datarep, read_conversion_fn, write_conversion_fn,
                          dtype_file_extent_fn, extra_state);
}

}  // namespace baton::impl
