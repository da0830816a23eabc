#include "traces/trace_writer.h"

#include <charconv>
#include <cstring>

#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filter/zstd.hpp>

namespace ibsec::traces {
namespace {

template <typename T>
void store(unsigned char* at, T value) {
  std::memcpy(at, &value, sizeof value);
}

// Appends " value" to a line being built in a fixed buffer.
char* put(char* at, char* end, uint64_t value) {
  *at++ = ' ';
  return std::to_chars(at, end, value).ptr;
}

char* format_into(char* at, char* end, const TraceEvent& e) {
  at = std::to_chars(at, end, e.rank).ptr;
  at = put(at, end, e.start_ns);
  at = put(at, end, e.end_ns);
  *at++ = ' ';
  const std::string_view op = name(e.op);
  at = std::copy(op.begin(), op.end(), at);
  switch (info(e.op).layout) {
    case ArgLayout::kNone: break;
    case ArgLayout::kPeerBytesTag: at = put(put(put(at, end, e.peer), end, e.bytes), end, e.tag); break;
    case ArgLayout::kPeerBytesTagReq:
      at = put(put(put(put(at, end, e.peer), end, e.bytes), end, e.tag), end, e.request);
      break;
    case ArgLayout::kReq: at = put(at, end, e.request); break;
    case ArgLayout::kComm: at = put(at, end, e.comm); break;
    case ArgLayout::kCommRootBytes: at = put(put(put(at, end, e.comm), end, e.root), end, e.bytes); break;
    case ArgLayout::kCommBytes: at = put(put(at, end, e.comm), end, e.bytes); break;
  }
  return at;
}

// Longest line: 10 + 3 * 20 + 9 + 4 * 20 spaces and digits, well under this.
constexpr size_t kLineBuffer = 256;

}  // namespace

std::string format_event(const TraceEvent& event) {
  char buffer[kLineBuffer];
  return {buffer, format_into(buffer, buffer + sizeof buffer, event)};
}

TraceWriter::TraceWriter(const std::string& path, const TraceHeader& header, const std::string& field)
    : TraceWriter(path, header, encoding_for_path(path), compression_for_path(path), field) {}

TraceWriter::TraceWriter(const std::string& path, const TraceHeader& header, TraceEncoding encoding,
                         TraceCompression compression, const std::string& field)
    : file_(path, field), encoding_(encoding) {
  if (compression == TraceCompression::kGzip) out_.push(boost::iostreams::gzip_compressor());
  if (compression == TraceCompression::kZstd) out_.push(boost::iostreams::zstd_compressor());
  out_.push(file_.stream());
  const std::string text = format_header(header);
  if (encoding_ == TraceEncoding::kBinary) {
    unsigned char sizes[8];
    store(sizes, kTraceFormatVersion);
    store(sizes + 4, static_cast<uint32_t>(text.size()));
    out_.write(kBinaryMagic.data(), static_cast<std::streamsize>(kBinaryMagic.size()));
    out_.write(reinterpret_cast<const char*>(sizes), sizeof sizes);
  }
  out_.write(text.data(), static_cast<std::streamsize>(text.size()));
}

TraceWriter::~TraceWriter() = default;

void TraceWriter::write(const TraceEvent& event) {
  if (encoding_ == TraceEncoding::kBinary) {
    write_binary(event);
  } else {
    write_text(event);
  }
  ++events_;
}

void TraceWriter::write_text(const TraceEvent& event) {
  char buffer[kLineBuffer];
  char* end = format_into(buffer, buffer + sizeof buffer - 1, event);
  *end++ = '\n';
  out_.write(buffer, end - buffer);
}

void TraceWriter::write_binary(const TraceEvent& e) {
  unsigned char record[kBinaryRecordBytes] = {};
  const bool collective = is_collective(e.op);
  store(record, e.start_ns);
  store(record + 8, e.end_ns);
  store(record + 16, e.bytes);
  store(record + 24, e.rank);
  store(record + 28, collective ? e.comm : e.peer);
  store(record + 32, collective ? e.root : e.tag);
  store(record + 36, e.request);
  record[40] = static_cast<uint8_t>(e.op);
  out_.write(reinterpret_cast<const char*>(record), sizeof record);
}

void TraceWriter::finish() {
  if (encoding_ == TraceEncoding::kBinary) {
    unsigned char record[kBinaryRecordBytes] = {};
    store(record + 16, events_);
    record[40] = kBinaryTrailerOp;
    out_.write(reinterpret_cast<const char*>(record), sizeof record);
  } else {
    const std::string trailer = "end " + std::to_string(events_) + "\n";
    out_.write(trailer.data(), static_cast<std::streamsize>(trailer.size()));
  }
  out_.reset();  // flushes and closes the compressor before the file is committed
  file_.commit();
}

}  // namespace ibsec::traces
