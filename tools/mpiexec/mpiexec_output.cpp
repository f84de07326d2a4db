#include "mpiexec_output.hpp"

#include <cerrno>
#include <poll.h>
#include <unistd.h>

namespace baton::launcher {
namespace {

bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n > 0) {
      data += n;
      size -= static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      // The descriptor came to us non-blocking; wait until it drains.
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, -1);
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

void output_sink::write_chunk(std::string_view data, const void* writer) {
  if (data.empty() || broken_) return;
  if (dangling_ && writer != last_writer_ && !write_all(fd_, "\n", 1)) broken_ = true;
  if (!broken_ && !write_all(fd_, data.data(), data.size())) broken_ = true;
  dangling_ = data.back() != '\n';
  last_writer_ = writer;
}

void line_stream::append_prefixed(std::string_view text) {
  if (!continuing_) out_ += prefix_;
  out_ += text;
}

void line_stream::feed(std::string_view bytes) {
  out_.clear();
  size_t pos = 0;
  while (pos < bytes.size()) {
    size_t nl = bytes.find('\n', pos);
    if (nl == std::string_view::npos) break;
    std::string_view piece = bytes.substr(pos, nl + 1 - pos);
    if (!partial_.empty()) {
      partial_ += piece;
      append_prefixed(partial_);
      partial_.clear();
    } else {
      append_prefixed(piece);
    }
    continuing_ = false;
    pos = nl + 1;
  }
  partial_ += bytes.substr(pos);
  if (partial_.size() >= max_line) {
    append_prefixed(partial_);
    partial_.clear();
    continuing_ = true;
  }
  sink_->write_chunk(out_, this);
}

void line_stream::finish() {
  if (partial_.empty()) return;
  out_.clear();
  append_prefixed(partial_);
  partial_.clear();
  continuing_ = false;
  sink_->write_chunk(out_, this);
}

}  // namespace baton::launcher
