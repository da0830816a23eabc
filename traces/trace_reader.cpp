#include "traces/trace_reader.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>

#include <boost/iostreams/filter/gzip.hpp>

#include "traces/zstd_decompressor.h"

namespace ibsec::traces {
namespace {

constexpr size_t kRecordsPerRead = 4096;
constexpr uint32_t kMaxBinaryHeaderBytes = 64u << 20;
constexpr size_t kMaxLineBytes = 1u << 20;
constexpr size_t kMaxNotes = 1u << 16;
constexpr uint64_t kMaxBytes = std::numeric_limits<uint32_t>::max();
const std::string kKnownVersions =
    "versions " + std::to_string(kOldestTraceFormatVersion) + " to " + std::to_string(kTraceFormatVersion);

std::string quoted(std::string_view text) {
  constexpr size_t kShown = 40;
  std::string shown(text.substr(0, kShown));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return "'" + shown + (text.size() > kShown ? "...'" : "'");
}

// Splits on single spaces; an empty piece means a doubled or trailing space.
std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t from = 0;
  while (true) {
    const size_t space = line.find(' ', from);
    fields.push_back(line.substr(from, space - from));
    if (space == std::string_view::npos) break;
    from = space + 1;
  }
  return fields;
}

// The value of a field that must be an unsigned integer and nothing else.
std::optional<uint64_t> whole_number(std::string_view text) {
  uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// The two words of a header line: key and the rest.
std::pair<std::string_view, std::string_view> key_and_rest(std::string_view line) {
  const size_t space = line.find(' ');
  if (space == std::string_view::npos) return {line, {}};
  return {line.substr(0, space), line.substr(space + 1)};
}

}  // namespace

TraceEncoding encoding_for_path(const std::string& path) {
  std::string_view name = path;
  for (std::string_view suffix : {".gz", ".zst"}) {
    if (name.ends_with(suffix)) name.remove_suffix(suffix.size());
  }
  return name.ends_with(".ibtb") ? TraceEncoding::kBinary : TraceEncoding::kText;
}

TraceCompression compression_for_path(const std::string& path) {
  if (path.ends_with(".gz")) return TraceCompression::kGzip;
  if (path.ends_with(".zst")) return TraceCompression::kZstd;
  return TraceCompression::kNone;
}

TraceReader::TraceReader(std::string path) : path_(std::move(path)) {
  open_stream();
  if (starts_with_binary_magic()) {
    encoding_ = TraceEncoding::kBinary;
    read_binary_header();
  } else {
    read_text_header();
  }
}

void TraceReader::fail(const std::string& field, const std::string& problem) const {
  throw TraceError(path_, location(), field, problem);
}

void TraceReader::fail_at(TraceLocation where, const std::string& field, const std::string& problem) const {
  throw TraceError(path_, where, field, problem);
}

// Compression is recognised by its magic number, so a file's name never has
// to be right for it to be read.
void TraceReader::open_stream() {
  if (!std::filesystem::exists(path_)) fail_at(TraceLocation::file(), "", "no such file");
  if (std::filesystem::is_directory(path_)) fail_at(TraceLocation::file(), "", "is a directory, not a trace");
  file_.open(path_, std::ios::binary);
  if (!file_) fail_at(TraceLocation::file(), "", "cannot be opened for reading");
  unsigned char magic[4] = {};
  file_.read(reinterpret_cast<char*>(magic), sizeof magic);
  const auto got = file_.gcount();
  file_.clear();
  file_.seekg(0);
  if (got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    compression_ = TraceCompression::kGzip;
    in_.push(boost::iostreams::gzip_decompressor());
  } else if (got == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd) {
    compression_ = TraceCompression::kZstd;
    in_.push(ZstdDecompressor());
  }
  in_.push(file_);
  // A corrupt compressed stream surfaces as an exception we turn into a TraceError.
  in_.exceptions(std::ios::badbit);
}

void TraceReader::fail_decompressing(const std::ios_base::failure& e) const {
  const auto* known = dynamic_cast<const CompressedDataError*>(&e);
  fail_at(TraceLocation::file(), "",
          "cannot be decompressed: " + (known != nullptr ? known->detail() : "corrupt or truncated compressed data"));
}

// One line without its '\n'; false at the end of the file. A last line with
// no '\n' means the file was cut short. Lines are bounded, so a crafted or
// corrupt file (one endless line) cannot exhaust memory.
bool TraceReader::read_line(std::string& line) {
  try {
    line_buffer_.resize(kMaxLineBytes + 1);
    in_.getline(line_buffer_.data(), static_cast<std::streamsize>(line_buffer_.size()));
    const auto got = static_cast<size_t>(in_.gcount());
    if (in_.fail() && !in_.eof()) {
      ++position_;
      fail("", "line longer than " + std::to_string(kMaxLineBytes) + " bytes");
    }
    if (got == 0 && in_.eof()) return false;
    line.assign(line_buffer_.data(), in_.eof() ? got : got - 1);
    if (in_.eof()) {
      ++position_;
      fail("", "truncated: the last line has no end of line");
    }
  } catch (const std::ios_base::failure& e) {
    fail_decompressing(e);
  }
  return true;
}

// Reads the magic through a second, short-lived decompressing stream, so the
// main stream starts at byte 0 whatever the encoding.
bool TraceReader::starts_with_binary_magic() {
  std::ifstream probe_file(path_, std::ios::binary);
  boost::iostreams::filtering_istream probe;
  if (compression_ == TraceCompression::kGzip) probe.push(boost::iostreams::gzip_decompressor());
  if (compression_ == TraceCompression::kZstd) probe.push(ZstdDecompressor());
  probe.push(probe_file);
  std::string first(kBinaryMagic.size(), '\0');
  try {
    probe.read(first.data(), static_cast<std::streamsize>(first.size()));
  } catch (const std::ios_base::failure&) {
    return false;  // the main stream reports the corruption
  }
  return probe.gcount() == static_cast<std::streamsize>(first.size()) && first == kBinaryMagic;
}

void TraceReader::read_text_header() {
  int stage = 0;
  uint64_t header_bytes = 0;
  while (stage < 2) {
    if (!read_line(line_)) {
      if (position_ == 0) fail_at(TraceLocation::file(), "", "is empty, not a trace");
      fail_at(TraceLocation::end(), "", "truncated: the header has no 'events' line");
    }
    ++position_;
    // Notes and communicators are kept in memory: bound them as a binary header is.
    header_bytes += line_.size() + 1;
    if (header_bytes > kMaxBinaryHeaderBytes) {
      fail("", "header longer than " + std::to_string(kMaxBinaryHeaderBytes) + " bytes");
    }
    parse_header_line(line_, stage);
  }
  finish_header();
}

void TraceReader::read_binary_header() {
  try {
    read_binary_header_text();
  } catch (const std::ios_base::failure& e) {
    fail_decompressing(e);
  }
  records_.resize(kRecordsPerRead * BinaryRecordLayout::size);
}

void TraceReader::read_binary_header_text() {
  in_.ignore(static_cast<std::streamsize>(kBinaryMagic.size()));
  unsigned char preamble[BinaryPreamble::size];
  in_.read(reinterpret_cast<char*>(preamble), sizeof preamble);
  if (in_.gcount() != sizeof preamble) fail_at(TraceLocation::file(), "", "truncated: binary header cut short");
  const auto version = static_cast<uint32_t>(load(preamble, BinaryPreamble::version));
  const auto length = static_cast<uint32_t>(load(preamble, BinaryPreamble::header_length));
  if (version < kOldestTraceFormatVersion || version > kTraceFormatVersion) {
    fail_at(TraceLocation::file(), "version",
            "binary format version " + std::to_string(version) + " is not supported (this reader knows " +
                kKnownVersions + ")");
  }
  binary_version_ = version;
  if (length > kMaxBinaryHeaderBytes) {
    fail_at(TraceLocation::file(), "header", "header length " + std::to_string(length) + " is implausible");
  }
  std::string text(length, '\0');
  in_.read(text.data(), length);
  if (static_cast<uint32_t>(in_.gcount()) != length) fail_at(TraceLocation::file(), "", "truncated: header cut short");
  int stage = 0;
  size_t from = 0;
  // Header lines of a binary file are numbered as in its text form.
  encoding_ = TraceEncoding::kText;
  while (stage < 2) {
    const size_t newline = text.find('\n', from);
    ++position_;
    if (newline == std::string::npos) fail("", "binary header does not end with an 'events' line");
    parse_header_line(std::string_view(text).substr(from, newline - from), stage);
    from = newline + 1;
  }
  if (from != text.size()) fail("", "binary header has text after its 'events' line");
  encoding_ = TraceEncoding::kBinary;
  position_ = 0;
  finish_header();
}

// stage: 0 before the first line, 1 inside the header, 2 after "events".
void TraceReader::parse_header_line(std::string_view line, int& stage) {
  if (stage == 0) {
    if (!line.starts_with("ibsec-trace ")) {
      fail("", "not an ibsec trace (the first line must be 'ibsec-trace " + std::to_string(kTraceFormatVersion) +
                   "'), found " + quoted(line));
    }
    const auto version = whole_number(line.substr(12));
    if (!version || *version < kOldestTraceFormatVersion || *version > kTraceFormatVersion)
      fail("version",
           "trace format " + quoted(line.substr(12)) + " is not supported (this reader knows " + kKnownVersions + ")");
    if (binary_version_ != 0 && *version != binary_version_) {
      fail("version", "the header text says version " + std::to_string(*version) + " but the binary preamble " +
                          std::to_string(binary_version_));
    }
    header_.version = static_cast<uint32_t>(*version);
    stage = 1;
    return;
  }
  if (line.empty() || line.front() == '#') return;
  const auto [key, rest] = key_and_rest(line);
  if (key == "events") {
    if (!rest.empty()) fail("events", "the 'events' line takes no value");
    stage = 2;
  } else if (key == "processes") {
    if (header_.processes != 0) fail("processes", "given twice");
    const auto n = whole_number(rest);
    if (!n || *n == 0 || *n > kMaxTraceProcesses) {
      fail("processes",
           quoted(rest) + " is not a number of processes (1 to " + std::to_string(kMaxTraceProcesses) + ")");
    }
    header_.processes = static_cast<uint32_t>(*n);
  } else if (key == "time_unit") {
    if (rest != "ns") fail("time_unit", quoted(rest) + " is not supported (times are in ns)");
  } else if (key == "origin") {
    const auto [kind, text] = key_and_rest(rest);
    if (kind == "captured") {
      header_.origin = TraceOrigin::kCaptured;
    } else if (kind == "synthetic") {
      header_.origin = TraceOrigin::kSynthetic;
    } else {
      fail("origin", quoted(kind) + " is neither 'captured' nor 'synthetic'");
    }
    header_.origin_text = std::string(text);
  } else if (key == "cpu_time") {
    parse_cpu_time(rest);
  } else if (key == "note") {
    if (header_.notes.size() == kMaxNotes) fail("note", "more than " + std::to_string(kMaxNotes) + " note lines");
    header_.notes.emplace_back(rest);
  } else if (key == "comm") {
    if (header_.processes == 0) fail("comm", "communicators must come after the 'processes' line");
    const auto fields = split_fields(rest);
    const auto parsed_id = whole_number(fields[0]);
    if (!parsed_id || *parsed_id == 0 || *parsed_id > kMaxBytes) {
      fail("comm", quoted(fields[0]) + " is not a communicator id (1 to 4294967295; 0 is the world)");
    }
    const uint64_t id = *parsed_id;
    if (header_.comms.contains(static_cast<uint32_t>(id)))
      fail("comm", "communicator " + std::to_string(id) + " declared twice");
    if (fields.size() < 2) fail("comm", "communicator " + std::to_string(id) + " has no members");
    std::vector<uint32_t> members;
    std::vector<bool> seen(header_.processes, false);
    for (size_t i = 1; i < fields.size(); ++i) {
      const auto rank = whole_number(fields[i]);
      if (!rank || *rank >= header_.processes) {
        fail("comm",
             quoted(fields[i]) + " is not a rank (the trace has " + std::to_string(header_.processes) + " processes)");
      }
      const uint64_t r = *rank;
      if (seen[r]) fail("comm", "rank " + std::to_string(r) + " listed twice in communicator " + std::to_string(id));
      seen[r] = true;
      members.push_back(static_cast<uint32_t>(r));
    }
    header_.comms.emplace(static_cast<uint32_t>(id), std::move(members));
  } else {
    fail(std::string(key),
         "unknown header line (expected processes, time_unit, origin, cpu_time, note, comm or events)");
  }
}

void TraceReader::parse_cpu_time(std::string_view clock) {
  if (header_.version < kCpuTimeVersion) {
    fail("cpu_time", "a version-" + std::to_string(header_.version) +
                         " trace has no CPU times (they came with version " + std::to_string(kCpuTimeVersion) + ")");
  }
  if (header_.cpu_clock != CpuClock::kNone) fail("cpu_time", "given twice");
  if (clock == name(CpuClock::kThread)) {
    header_.cpu_clock = CpuClock::kThread;
  } else if (clock == name(CpuClock::kProcess)) {
    header_.cpu_clock = CpuClock::kProcess;
  } else {
    fail("cpu_time", quoted(clock) + " is neither 'thread' nor 'process'");
  }
}

void TraceReader::finish_header() {
  if (header_.processes == 0) fail("processes", "the header has no 'processes' line");
  if (header_.version >= kCpuTimeVersion && header_.cpu_clock == CpuClock::kNone) {
    fail("cpu_time",
         "a version-" + std::to_string(header_.version) +
             " trace must say which clock measured its CPU times ('cpu_time thread' or 'cpu_time process')");
  }
  comms_ = header_.communicators();
  rank_free_at_.assign(header_.processes, 0);
}

bool TraceReader::next(TraceEvent& event) {
  if (finished_) return false;
  const bool got = encoding_ == TraceEncoding::kBinary ? next_binary(event) : next_text(event);
  if (got) {
    check_event(event);
    ++events_;
  }
  return got;
}

bool TraceReader::next_text(TraceEvent& event) {
  while (read_line(line_)) {
    ++position_;
    if (line_.empty() || line_.front() == '#') continue;
    if (line_.starts_with("end")) {
      const auto [key, count] = key_and_rest(line_);
      if (key == "end") {
        const auto declared = whole_number(count);
        if (!declared) fail("end", quoted(count) + " is not an event count");
        check_trailer(*declared);
        while (read_line(line_)) {
          ++position_;
          if (!line_.empty() && line_.front() != '#') fail("", "text after the 'end' line");
        }
        return false;
      }
    }
    parse_event_line(line_, event);
    return true;
  }
  fail_at(TraceLocation::end(), "", "truncated: no 'end' line after " + std::to_string(events_) + " events");
}

void TraceReader::check_trailer(uint64_t declared) {
  if (declared != events_) {
    fail("end", "the trace declares " + std::to_string(declared) + " events but has " + std::to_string(events_));
  }
  finished_ = true;
}

// The value of a numeric field, or the failure that names it.
uint64_t TraceReader::number_field(std::string_view text, std::string_view field, uint64_t max) const {
  uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty()) fail(std::string(field), "empty (fields are separated by single spaces)");
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && value > max && ptr == text.data() + text.size())) {
    fail(std::string(field), quoted(text) + " is out of range (at most " + std::to_string(max) + ")");
  }
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    fail(std::string(field), quoted(text) + " is not a non-negative integer");
  }
  return value;
}

uint64_t TraceReader::argument_field(std::string_view text, TraceArg arg) const {
  const TraceArgInfo& about = info(arg);
  if (about.words.empty()) return number_field(text, about.name, about.max);
  const auto value = about.value_of(text);
  if (!value) fail(std::string(about.name), quoted(text) + " is not one of: " + std::string(about.words));
  return *value;
}

// How many arguments `op` carries in this trace's version; an op the
// version does not have is an unknown event.
size_t TraceReader::argument_count(TraceOp op, std::string_view text) const {
  if (!in_version(op, header_.version)) {
    fail("op", "unknown event " + quoted(text) + " in a version-" + std::to_string(header_.version) +
                   " trace (it came with version " + std::to_string(info(op).since) + ")");
  }
  return arguments(op, header_.version).size();
}

void TraceReader::parse_event_line(std::string_view line, TraceEvent& event) {
  const auto fields = split_fields(line);
  static constexpr std::string_view kLeading[] = {"rank", "start", "end", "op"};
  constexpr size_t first = std::size(kLeading);  // arguments follow
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].empty()) {
      fail(i < first ? std::string(kLeading[i]) : "argument " + std::to_string(i - first + 1),
           "empty (fields are separated by single spaces)");
    }
  }
  if (fields.size() < first) fail("op", "an event line needs RANK START END OP, found " + quoted(line));
  const auto op = trace_op_named(fields[3]);
  if (!op) fail("op", "unknown event " + quoted(fields[3]));
  event = TraceEvent{};
  event.op = *op;
  event.rank = static_cast<uint32_t>(number_field(fields[0], "rank", kMaxBytes));
  event.start_ns = number_field(fields[1], "start", std::numeric_limits<uint64_t>::max());
  event.end_ns = number_field(fields[2], "end", std::numeric_limits<uint64_t>::max());
  const auto args = arguments(*op).first(argument_count(*op, fields[3]));
  const size_t expected = args.size() + (has_counts(*op) ? 1 : 0);
  if (fields.size() != first + expected) {
    fail(fields.size() > first + expected ? "" : "op", std::string(name(*op)) + " takes " + std::to_string(expected) +
                                                           " arguments, found " +
                                                           std::to_string(fields.size() - first));
  }
  for (size_t i = 0; i < args.size(); ++i) set_argument(event, args[i], argument_field(fields[first + i], args[i]));
  if (has_counts(*op)) parse_counts(fields.back(), event);
}

// How many members a communicator has: as many counts as an event on it carries.
size_t TraceReader::members_of(uint32_t comm) const {
  const auto found = comms_.find(comm);
  if (found == comms_.end()) fail("comm", "communicator " + std::to_string(comm) + " is not declared in the header");
  return found->second.members.size();
}

// COUNTS: one count per member of the event's communicator, separated by commas.
void TraceReader::parse_counts(std::string_view text, TraceEvent& event) {
  const size_t members = members_of(event.comm);
  auto counts = std::make_shared<std::vector<uint32_t>>();
  counts->reserve(members);
  size_t from = 0;
  while (true) {
    const size_t comma = text.find(',', from);
    if (counts->size() == members) {
      fail("counts", "more than " + std::to_string(members) + " counts (communicator " + std::to_string(event.comm) +
                         " has " + std::to_string(members) + " members)");
    }
    counts->push_back(static_cast<uint32_t>(number_field(text.substr(from, comma - from), "counts", kMaxBytes)));
    if (comma == std::string_view::npos) break;
    from = comma + 1;
  }
  if (counts->size() != members) {
    fail("counts", std::to_string(counts->size()) + " counts, but communicator " + std::to_string(event.comm) +
                       " has " + std::to_string(members) + " members");
  }
  set_counts(event, std::move(counts));
}

void TraceReader::set_counts(TraceEvent& event, std::shared_ptr<std::vector<uint32_t>> counts) {
  event.bytes = 0;
  for (const uint32_t count : *counts) event.bytes += count;
  event.counts = std::move(counts);
}

// The next record of a binary trace, read ahead in blocks.
const unsigned char* TraceReader::next_record() {
  using R = BinaryRecordLayout;
  if (record_at_ == records_held_) {
    try {
      in_.read(reinterpret_cast<char*>(records_.data()), static_cast<std::streamsize>(records_.size()));
    } catch (const std::ios_base::failure& e) {
      fail_decompressing(e);
    }
    const auto got = static_cast<size_t>(in_.gcount());
    if (got % R::size != 0) {
      position_ += got / R::size + 1;
      fail("", "truncated: the last record is cut short");
    }
    records_held_ = got / R::size;
    record_at_ = 0;
    if (records_held_ == 0) {
      fail_at(TraceLocation::end(), "", "truncated: no trailer record after " + std::to_string(events_) + " events");
    }
  }
  ++position_;
  return records_.data() + record_at_++ * R::size;
}

bool TraceReader::next_binary(TraceEvent& event) {
  using R = BinaryRecordLayout;
  const unsigned char* record = next_record();
  const uint64_t op = load(record, R::op);
  if (op == kBinaryTrailerOp) {
    for (size_t i = 0; i < R::size; ++i) {
      const bool count_or_op = (i >= R::bytes.offset && i < R::bytes.end()) || i == R::op.offset;
      if (!count_or_op && record[i] != 0) fail("", "the trailer record has non-zero fields");
    }
    check_trailer(load(record, R::bytes));
    bool more = record_at_ != records_held_;
    try {
      more = more || in_.peek() != std::char_traits<char>::eof();
    } catch (const std::ios_base::failure& e) {
      fail_decompressing(e);
    }
    if (more) fail("", "data after the trailer record");
    return false;
  }
  if (op == kBinaryCountsOp) fail("op", "a counts record that follows no event with counts");
  decode_record(record, event);
  if (has_counts(event.op)) read_counts_records(event);
  return true;
}

void TraceReader::read_counts_records(TraceEvent& event) {
  using C = BinaryCountsLayout;
  const size_t members = members_of(event.comm);
  auto counts = std::make_shared<std::vector<uint32_t>>();
  counts->reserve(members);
  const TraceLocation event_at = location();
  for (size_t r = 0; r < C::records_for(members); ++r) {
    const unsigned char* record = next_record();
    if (load(record, BinaryRecordLayout::op) != kBinaryCountsOp) {
      fail("op", "expected counts record " + std::to_string(r + 1) + " of " + std::to_string(C::records_for(members)) +
                     " for the event at " + event_at.describe());
    }
    const size_t here = std::min(C::per_record, members - counts->size());
    for (size_t i = 0; i < BinaryRecordLayout::size; ++i) {
      const bool used = i < here * C::count_size || i == BinaryRecordLayout::op.offset;
      if (!used && record[i] != 0) fail("counts", "a counts record's unused bytes must be zero");
    }
    for (size_t i = 0; i < here; ++i) counts->push_back(static_cast<uint32_t>(load(record, C::count(i))));
  }
  set_counts(event, std::move(counts));
}

void TraceReader::decode_record(const unsigned char* record, TraceEvent& event) {
  using R = BinaryRecordLayout;
  const uint64_t op = load(record, R::op);
  if (op >= kTraceOpCount) fail("op", "unknown event code " + std::to_string(op));
  for (size_t i = R::padding; i < R::d.offset; ++i) {
    if (record[i] != 0) {
      fail("", "padding bytes " + std::to_string(R::padding) + "-" + std::to_string(R::d.offset - 1) + " must be zero");
    }
  }
  event = TraceEvent{};
  event.op = static_cast<TraceOp>(op);
  if (!in_version(event.op, binary_version_)) {
    fail("op", "event code " + std::to_string(op) + " (" + std::string(name(event.op)) + ") in a version-" +
                   std::to_string(binary_version_) + " trace (it came with version " +
                   std::to_string(info(event.op).since) + ")");
  }
  event.start_ns = load(record, R::start);
  event.end_ns = load(record, R::end);
  event.rank = static_cast<uint32_t>(load(record, R::rank));
  switch (info(event.op).layout) {
#define TRACE_LAYOUT(Id, arg1, arg2, arg3, arg4, arg5, arg6) \
  case ArgLayout::k##Id:                                     \
    decode_arguments<ArgLayout::k##Id>(record, event);       \
    break;
#include "traces/trace_ops.def"
  }
}

// One instance per layout, so that the loops unroll into loads of fields
// known at compile time: binary traces are read for speed.
template <ArgLayout kLayout>
void TraceReader::decode_arguments(const unsigned char* record, TraceEvent& event) {
  using R = BinaryRecordLayout;
  static constexpr std::span<const TraceArg> kArgs = info(kLayout).args();
  static constexpr auto kUsed = [] {
    std::array<bool, R::argument_fields.size()> used{};
    for (size_t i = 0; i < used.size(); ++i) {
      for (const TraceArg arg : kArgs) used[i] = used[i] || field_of(arg) == R::argument_fields[i];
    }
    return used;
  }();
  for (size_t i = 0; i < R::argument_fields.size(); ++i) {
    const BinaryField& field = R::argument_fields[i];
    if (!kUsed[i] && load(record, field) != 0) {
      fail(std::string(field.name), "must be 0 for " + std::string(name(event.op)));
    }
  }
  for (const TraceArg arg : kArgs) {
    const uint64_t value = load(record, field_of(arg));
    const TraceArgInfo& about = info(arg);
    if (value > about.max) {
      fail(std::string(about.name),
           std::to_string(value) + " is out of range (at most " + std::to_string(about.max) + ")");
    }
    set_argument(event, arg, value);
  }
  // A binary record has a place for every argument; those the trace's
  // version does not have must be zero.
  for (const TraceArg arg : kArgs) {
    if (info(arg).since > binary_version_ && argument(event, arg) != 0) {
      fail(std::string(info(arg).name), "must be 0 in a version-" + std::to_string(binary_version_) +
                                            " trace (it came with version " + std::to_string(info(arg).since) + ")");
    }
  }
}

void TraceReader::check_event(const TraceEvent& e) {
  const uint32_t processes = header_.processes;
  if (e.rank >= processes) {
    fail("rank", std::to_string(e.rank) + " is not a rank (the trace has " + std::to_string(processes) + " processes)");
  }
  if (e.end_ns < e.start_ns) {
    fail("end", std::to_string(e.end_ns) + " is before the event's start " + std::to_string(e.start_ns));
  }
  if (e.op == TraceOp::kCompute && header_.cpu_clock == CpuClock::kThread && e.cpu_ns > e.end_ns - e.start_ns) {
    fail("cpu", std::to_string(e.cpu_ns) + " ns on the thread's CPU clock is more than the event's " +
                    std::to_string(e.end_ns - e.start_ns) + " ns of wall time");
  }
  if (e.start_ns < last_start_) {
    fail("start", std::to_string(e.start_ns) + " is before the previous event's start " + std::to_string(last_start_) +
                      " (events must be in order of start time)");
  }
  if (e.start_ns < rank_free_at_[e.rank]) {
    fail("start", std::to_string(e.start_ns) + " is before the previous event of rank " + std::to_string(e.rank) +
                      ", which ended at " + std::to_string(rank_free_at_[e.rank]));
  }
  if (has_argument(e.op, TraceArg::kPeer)) {
    if (e.peer >= processes) {
      fail("peer",
           std::to_string(e.peer) + " is not a rank (the trace has " + std::to_string(processes) + " processes)");
    }
    if (e.peer == e.rank && header_.version < 2) {
      fail("peer", "rank " + std::to_string(e.rank) + " cannot " + std::string(name(e.op)) +
                       " to itself in a version-1 trace (self-messages came with version 2)");
    }
  }
  if (is_collective(e.op) || has_argument(e.op, TraceArg::kMsgComm)) {
    const auto comm = comms_.find(e.comm);
    if (comm == comms_.end()) fail("comm", "communicator " + std::to_string(e.comm) + " is not declared in the header");
    if (!comm->second.contains(e.rank)) {
      fail("comm", "rank " + std::to_string(e.rank) + " is not a member of communicator " + std::to_string(e.comm));
    }
    if (has_argument(e.op, TraceArg::kPeer) && !comm->second.contains(e.peer)) {
      fail("peer", "rank " + std::to_string(e.peer) + " is not a member of communicator " + std::to_string(e.comm));
    }
    if (has_root(e.op) && !comm->second.contains(e.root)) {
      fail("root", "rank " + std::to_string(e.root) + " is not a member of communicator " + std::to_string(e.comm));
    }
  }
  last_start_ = e.start_ns;
  rank_free_at_[e.rank] = e.end_ns;
}

}  // namespace ibsec::traces
