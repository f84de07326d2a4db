#include "core/reduce.hpp"

#include <vector>

namespace baton::core {

errc reduce_typed(const op& o, const void* in, void* inout, int64_t count, const datatype& t, void* handle) {
  if (count == 0 || t.size() == 0) return errc::success;
  const elem_kind k = t.basic() ? elem_kind_of_abi_code(t.basic()->abi_code()) : elem_kind::none;
  if (!o.is_predefined()) {
    op_apply(o, k, handle, in, inout, size_t(count));
    return errc::success;
  }
  if (t.is_predefined()) {
    op_apply(o, k, in, inout, size_t(count));
    return errc::success;
  }
  // A derived type of one basic type: count * basic_count basic elements.
  const datatype& basic = *t.basic();
  int64_t n = 0;
  if (__builtin_mul_overflow(count, t.basic_count(), &n))
    return error_set(errc::count, "count %lld is too large", static_cast<long long>(count));
  if (t.is_contiguous() && basic.is_contiguous()) {
    const int64_t off = t.true_lb();
    op_apply(o, k, static_cast<const char*>(in) + off, static_cast<char*>(inout) + off, size_t(n));
    return errc::success;
  }
  const size_t bytes = size_t(n) * size_t(basic.extent());
  std::vector<char> a(bytes), b(bytes);
  uint64_t moved = 0;
  if (errc e = copy_typed(in, count, t, a.data(), n, basic, &moved); e != errc::success) return e;
  if (errc e = copy_typed(inout, count, t, b.data(), n, basic, &moved); e != errc::success) return e;
  op_apply(o, k, a.data(), b.data(), size_t(n));
  return copy_typed(b.data(), n, basic, inout, count, t, &moved);
}

}  // namespace baton::core
