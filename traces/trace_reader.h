// Reads a trace one event at a time, whatever its encoding (text or binary)
// and compression (none, gzip, zstd), so that a multi-gigabyte trace never has
// to fit in memory. Each event is checked on its own as it is read: fields,
// ranges, communicators, time order. What needs several events (matching
// sends with receives, requests with waits, collectives across members) is
// TraceChecker's job.
#pragma once

#include <array>
#include <cstdint>
#include <fstream>
#include <ios>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/iostreams/filtering_stream.hpp>

#include "traces/trace_binary.h"
#include "traces/trace_error.h"
#include "traces/trace_event.h"
#include "traces/trace_header.h"

namespace ibsec::traces {

enum class TraceEncoding : uint8_t { kText, kBinary };
enum class TraceCompression : uint8_t { kNone, kGzip, kZstd };

class TraceReader {
 public:
  // Opens the file and reads its header. Throws TraceError.
  explicit TraceReader(std::string path);
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  [[nodiscard]] const TraceHeader& header() const { return header_; }
  [[nodiscard]] const std::map<uint32_t, Communicator>& communicators() const { return comms_; }
  [[nodiscard]] TraceEncoding encoding() const { return encoding_; }
  [[nodiscard]] TraceCompression compression() const { return compression_; }
  [[nodiscard]] const std::string& path() const { return path_; }

  // The next event, or false once the trailer has been read and checked.
  bool next(TraceEvent& event);
  // Where the last event returned by next() came from.
  [[nodiscard]] TraceLocation location() const {
    return encoding_ == TraceEncoding::kBinary ? TraceLocation::record(position_) : TraceLocation::line(position_);
  }
  [[nodiscard]] uint64_t events_read() const { return events_; }

  // Throws a TraceError at the current position.
  [[noreturn]] void fail(const std::string& field, const std::string& problem) const;
  [[noreturn]] void fail_at(TraceLocation where, const std::string& field, const std::string& problem) const;
  // Corrupt or truncated compressed data, said with what the decoder knows.
  [[noreturn]] void fail_decompressing(const std::ios_base::failure& e) const;

 private:
  void open_stream();
  bool starts_with_binary_magic();
  void read_text_header();
  void read_binary_header();
  void read_binary_header_text();
  void parse_header_line(std::string_view line, int& stage);
  void parse_cpu_time(std::string_view clock);
  void finish_header();
  bool next_text(TraceEvent& event);
  bool next_binary(TraceEvent& event);
  void parse_event_line(std::string_view line, TraceEvent& event);
  [[nodiscard]] uint64_t number_field(std::string_view text, std::string_view field, uint64_t max) const;
  [[nodiscard]] uint64_t argument_field(std::string_view text, TraceArg arg) const;
  [[nodiscard]] size_t argument_count(TraceOp op, std::string_view text) const;
  [[nodiscard]] size_t members_of(uint32_t comm) const;
  void parse_counts(std::string_view text, TraceEvent& event);
  static void set_counts(TraceEvent& event, std::shared_ptr<std::vector<uint32_t>> counts);
  const unsigned char* next_record();
  void read_counts_records(TraceEvent& event);
  void decode_record(const unsigned char* record, TraceEvent& event);
  template <ArgLayout kLayout>
  void decode_arguments(const unsigned char* record, TraceEvent& event);
  void check_event(const TraceEvent& event);
  void check_trailer(uint64_t declared);
  bool read_line(std::string& line);

  std::string path_;
  std::ifstream file_;
  boost::iostreams::filtering_istream in_;
  TraceEncoding encoding_ = TraceEncoding::kText;
  TraceCompression compression_ = TraceCompression::kNone;
  TraceHeader header_;
  uint32_t binary_version_ = 0;  // of a binary trace's preamble
  std::map<uint32_t, Communicator> comms_;
  uint64_t position_ = 0;  // text line or binary record number
  uint64_t events_ = 0;
  bool finished_ = false;
  uint64_t last_start_ = 0;
  std::vector<uint64_t> rank_free_at_;  // END of each rank's latest event
  std::string line_;
  std::vector<char> line_buffer_;
  std::vector<unsigned char> records_;  // binary read-ahead
  size_t record_at_ = 0;
  size_t records_held_ = 0;
};

// Encoding and compression a written file gets from its name: ".ibtb" is
// binary, anything else text; a final ".gz" or ".zst" compresses.
TraceEncoding encoding_for_path(const std::string& path);
TraceCompression compression_for_path(const std::string& path);

}  // namespace ibsec::traces
