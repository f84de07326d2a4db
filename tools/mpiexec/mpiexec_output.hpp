// Line-by-line forwarding of the ranks' stdout / stderr.
//
// Each rank stream is cut into whole lines; only whole lines (plus a final partial line
// when the stream ends) reach the launcher's descriptor, each batch in one write, so
// lines of different ranks never interleave.
#pragma once

#include <string>
#include <string_view>

namespace baton::launcher {

/// One of the launcher's own output descriptors (1 or 2).
class output_sink {
 public:
  explicit output_sink(int fd) : fd_(fd) {}
  /// Writes data whole. If the previous write, from another writer, ended in a partial
  /// line, a newline goes first so that the partial line is not glued to this data.
  void write_chunk(std::string_view data, const void* writer);

 private:
  int fd_;
  bool dangling_ = false;
  const void* last_writer_ = nullptr;
  bool broken_ = false;
};

/// The output of one rank stream on its way to a sink.
class line_stream {
 public:
  line_stream(output_sink& sink, std::string prefix) : sink_(&sink), prefix_(std::move(prefix)) {}
  /// Takes bytes read from the rank; forwards the complete lines.
  void feed(std::string_view bytes);
  /// The stream ended: forwards what is left of a partial line.
  void finish();

  /// Lines longer than this are forwarded in pieces.
  static constexpr size_t max_line = 1 << 20;

 private:
  void append_prefixed(std::string_view text);

  output_sink* sink_;
  std::string prefix_;
  std::string partial_;
  std::string out_;
  bool continuing_ = false;  // part of the current line has already been forwarded
};

}  // namespace baton::launcher
