#include "traces/trace_writer.h"

#include <charconv>
#include <cstring>
#include <span>

#include <boost/iostreams/filter/zlib.hpp>
#include <boost/iostreams/filter/zstd.hpp>
#include <nlohmann/json.hpp>

#include "traces/trace_binary.h"

namespace ibsec::traces {
namespace {

// Appends " value" to a line being built in a fixed buffer.
char* put(char* at, char* end, uint64_t value) {
  *at++ = ' ';
  return std::to_chars(at, end, value).ptr;
}

char* format_into(char* at, char* end, const TraceEvent& e, uint32_t version) {
  at = std::to_chars(at, end, e.rank).ptr;
  at = put(at, end, e.start_ns);
  at = put(at, end, e.end_ns);
  *at++ = ' ';
  const std::string_view op = name(e.op);
  at = std::copy(op.begin(), op.end(), at);
  for (const TraceArg arg : arguments(e.op, version)) {
    const TraceArgInfo& about = info(arg);
    if (about.words.empty()) {
      at = put(at, end, argument(e, arg));
    } else {
      *at++ = ' ';
      const std::string_view word = about.word(argument(e, arg));
      at = std::copy(word.begin(), word.end(), at);
    }
  }
  return at;
}

// Bytes gathered before they are written: a few pages, so that the stream
// below sees a few large writes.
constexpr size_t kBlockBytes = size_t{64} << 10;

// Longest line without counts: 10 + 3 * 20 + 15 + 6 * 11 spaces, digits and
// words, well under this.
constexpr size_t kLineBuffer = 256;

// " c0,c1,..." for an op with counts.
void append_counts(std::string& line, const TraceEvent& e) {
  char number[16];
  for (size_t i = 0; i < e.counts->size(); ++i) {
    line += i == 0 ? ' ' : ',';
    line.append(number, std::to_chars(number, number + sizeof number, (*e.counts)[i]).ptr);
  }
}

// One instance per layout, as the reader's decode_arguments: the loop
// unrolls into stores of fields and members known at compile time. Only the
// arguments that format `version` has are written (the rest stay zero).
template <ArgLayout kLayout>
void encode_arguments(unsigned char* record, const TraceEvent& e, uint32_t version) {
  static constexpr std::span<const TraceArg> kArgs = info(kLayout).args();
  for (const TraceArg arg : kArgs) {
    if (info(arg).since <= version) store(record, field_of(arg), argument(e, arg));
  }
}

// A record of the binary encoding, zeroed: the fields an event does not use stay so.
unsigned char* zeroed(unsigned char* record) {
  std::memset(record, 0, BinaryRecordLayout::size);
  return record;
}

// zlib writes the gzip wrapper itself when its window size is raised by 16 (zlib.h, deflateInit2). Boost's own
// gzip_compressor writes the wrapper byte by byte, code on which GCC 12 reports false -Wrestrict warnings.
boost::iostreams::zlib_compressor gzip_compressor() {
  constexpr int kGzipWrapper = 16;
  boost::iostreams::zlib_params params;
  params.window_bits = boost::iostreams::zlib::default_window_bits + kGzipWrapper;
  return boost::iostreams::zlib_compressor(params);
}

}  // namespace

std::string format_event(const TraceEvent& event, uint32_t version) {
  char buffer[kLineBuffer];
  std::string line(buffer, format_into(buffer, buffer + sizeof buffer, event, version));
  if (has_counts(event.op) && event.counts) append_counts(line, event);
  return line;
}

TraceWriter::TraceWriter(const std::string& path, const TraceHeader& header, const std::string& field)
    : TraceWriter(path, header, encoding_for_path(path), compression_for_path(path), field) {}

TraceWriter::TraceWriter(const std::string& path, const TraceHeader& header, TraceEncoding encoding,
                         TraceCompression compression, const std::string& field)
    : file_(path, field), encoding_(encoding), version_(header.written_version()), block_(kBlockBytes) {
  if (compression == TraceCompression::kGzip) compressor_.push(gzip_compressor());
  if (compression == TraceCompression::kZstd) compressor_.push(boost::iostreams::zstd_compressor());
  if (compression != TraceCompression::kNone) compressor_.push(file_.stream());
  out_ = compression == TraceCompression::kNone ? &file_.stream() : &compressor_;
  const std::string text = format_header(header);
  if (encoding_ == TraceEncoding::kBinary) {
    unsigned char preamble[BinaryPreamble::size] = {};
    store(preamble, BinaryPreamble::version, version_);
    store(preamble, BinaryPreamble::header_length, text.size());
    out_->write(kBinaryMagic.data(), static_cast<std::streamsize>(kBinaryMagic.size()));
    out_->write(reinterpret_cast<const char*>(preamble), sizeof preamble);
  }
  out_->write(text.data(), static_cast<std::streamsize>(text.size()));
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

unsigned char* TraceWriter::append(size_t size) {
  if (block_used_ + size > block_.size()) write_block();
  if (size > block_.size()) block_.resize(size);
  unsigned char* at = block_.data() + block_used_;
  block_used_ += size;
  return at;
}

void TraceWriter::append(const char* data, size_t size) { std::memcpy(append(size), data, size); }

void TraceWriter::write_block() {
  out_->write(reinterpret_cast<const char*>(block_.data()), static_cast<std::streamsize>(block_used_));
  block_used_ = 0;
}

void TraceWriter::write_text(const TraceEvent& event) {
  if (has_counts(event.op)) {
    const std::string line = format_event(event, version_) + "\n";
    append(line.data(), line.size());
    return;
  }
  char buffer[kLineBuffer];
  char* end = format_into(buffer, buffer + sizeof buffer - 1, event, version_);
  *end++ = '\n';
  append(buffer, static_cast<size_t>(end - buffer));
}

// Only the op's own arguments are stored: the fields it does not use stay zero.
void TraceWriter::write_binary(const TraceEvent& e) {
  using R = BinaryRecordLayout;
  unsigned char* record = zeroed(append(R::size));
  store(record, R::start, e.start_ns);
  store(record, R::end, e.end_ns);
  store(record, R::rank, e.rank);
  switch (info(e.op).layout) {
#define TRACE_LAYOUT(Id, arg1, arg2, arg3, arg4, arg5, arg6) \
  case ArgLayout::k##Id:                                     \
    encode_arguments<ArgLayout::k##Id>(record, e, version_); \
    break;
#include "traces/trace_ops.def"
  }
  store(record, R::op, static_cast<uint8_t>(e.op));
  if (has_counts(e.op)) write_counts_records(*e.counts);
}

void TraceWriter::write_counts_records(const std::vector<uint32_t>& counts) {
  using C = BinaryCountsLayout;
  for (size_t from = 0; from < counts.size(); from += C::per_record) {
    unsigned char* record = zeroed(append(BinaryRecordLayout::size));
    for (size_t i = 0; i < C::per_record && from + i < counts.size(); ++i) store(record, C::count(i), counts[from + i]);
    store(record, BinaryRecordLayout::op, kBinaryCountsOp);
  }
}

void TraceWriter::finish() {
  if (encoding_ == TraceEncoding::kBinary) {
    using R = BinaryRecordLayout;
    unsigned char* record = zeroed(append(R::size));
    store(record, R::bytes, events_);
    store(record, R::op, kBinaryTrailerOp);
  } else {
    const std::string trailer = "end " + std::to_string(events_) + "\n";
    append(trailer.data(), trailer.size());
  }
  write_block();
  compressor_.reset();  // flushes and closes the compressor before the file is committed
  file_.commit();
}

nlohmann::ordered_json trace_ops_json() {
  auto ops = nlohmann::ordered_json::array();
  for (const TraceOpInfo& op : kTraceOps) {
    auto args = nlohmann::ordered_json::array();
    auto since = nlohmann::ordered_json::array();  // the version that added each argument
    for (const TraceArg arg : info(op.layout).args()) {
      args.push_back(info(arg).name);
      since.push_back(info(arg).since);
    }
    if (op.counts) {
      args.push_back("counts");
      since.push_back(op.since);
    }
    ops.push_back({{"name", op.name},
                   {"code", op.code},
                   {"arguments", args},
                   {"argument_since_version", since},
                   {"role", name(op.role)},
                   {"collective", op.collective},
                   {"blocking_form", name(op.blocking)},
                   {"since_version", op.since}});
  }
  return ops;
}

}  // namespace ibsec::traces
