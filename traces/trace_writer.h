// Writes a trace in the canonical text or the binary encoding, optionally
// compressed, chosen from the file name (docs/trace-format.md). The file
// appears under its name only when finish() has written the trailer, so an
// interrupted conversion or capture never leaves a trace that looks whole.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <boost/iostreams/filtering_stream.hpp>

#include "core/atomic_file.h"
#include "traces/trace_event.h"
#include "traces/trace_header.h"
#include "traces/trace_reader.h"

namespace ibsec::traces {

class TraceWriter {
 public:
  // `field` names the option the path came from, for error messages.
  TraceWriter(const std::string& path, const TraceHeader& header, const std::string& field = "out");
  TraceWriter(const std::string& path, const TraceHeader& header, TraceEncoding encoding, TraceCompression compression,
              const std::string& field = "out");
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  void write(const TraceEvent& event);
  // Writes the trailer and puts the file in place.
  void finish();

 private:
  void write_text(const TraceEvent& event);
  void write_binary(const TraceEvent& event);
  void write_counts_records(const std::vector<uint32_t>& counts);
  // Room for `size` bytes at the end of the block being gathered, which is
  // written out first when they would not fit.
  unsigned char* append(size_t size);
  void append(const char* data, size_t size);
  void write_block();

  AtomicFile file_;
  boost::iostreams::filtering_ostream compressor_;  // only when compressed: else its buffer would copy every write
  std::ostream* out_;                               // the compressor, or the file's own buffered stream
  TraceEncoding encoding_;
  uint32_t version_;  // the header's written_version(): which arguments the events carry
  uint64_t events_ = 0;
  // Events are gathered into blocks and each block written at once: a
  // stream write per event cost as much as encoding it.
  std::vector<unsigned char> block_;
  size_t block_used_ = 0;
};

// The text line of one event as format `version` writes it, without its '\n'
// (for messages and tests).
std::string format_event(const TraceEvent& event, uint32_t version = kTraceFormatVersion);

}  // namespace ibsec::traces
