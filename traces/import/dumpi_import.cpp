#include "traces/import/dumpi_import.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <span>
#include <string_view>
#include <unordered_map>

#include "traces/import/dumpi_run.h"

namespace ibsec::traces {
namespace {

// ---------------------------------------------------------------------------
// The record layouts (dumpi_calls.def), as data.

enum class Kind : uint8_t { kI8, kI16, kI32, kI64, kA8, kA16, kA32, kA32X2, kSTR, kSTRS, kSTRS2, kSTATUS, kEnd };

struct Field {
  Kind kind;
  std::string_view name;
  bool root_only;  // written only by the member whose commrank is root
};

#define F(kind, name) Field{Kind::k##kind, #name, false},
#define R(kind, name) Field{Kind::k##kind, #name, true},
#define DUMPI_CALL(id, name, ...) constexpr Field kFields_##name[] = {__VA_ARGS__ Field{Kind::kEnd, "", false}};
#include "traces/import/dumpi_calls.def"
#undef DUMPI_CALL

struct Call {
  uint16_t id;
  std::string_view name;  // "Send"
  const Field* fields;    // ended by Kind::kEnd
};

constexpr Call kCalls[] = {
#define DUMPI_CALL(id, name, ...) Call{id, #name, kFields_##name},
#include "traces/import/dumpi_calls.def"
#undef DUMPI_CALL
};
#undef F
#undef R

enum class Id : uint16_t {
#define DUMPI_CALL(id, name, ...) k##name = id,
#include "traces/import/dumpi_calls.def"
#undef DUMPI_CALL
};

constexpr uint16_t kAllFunctions = 290;   // DUMPI's sentinel after the last MPI function: footer counts 0..290
constexpr uint16_t kFunctionEnter = 291;  // then Function_exit: DUMPI's own records, no MPI calls
constexpr uint16_t kEndOfStream = 293;
constexpr size_t kMaxFields = 16;

constexpr size_t field_count(const Field* fields) {
  size_t n = 0;
  while (fields[n].kind != Kind::kEnd) ++n;
  return n;
}

constexpr bool layouts_fit() {
  for (const Call& call : kCalls) {
    if (call.id >= kEndOfStream || field_count(call.fields) > kMaxFields) return false;
    size_t statuses = 0;
    for (const Field* f = call.fields; f->kind != Kind::kEnd; ++f) statuses += f->kind == Kind::kSTATUS ? 1 : 0;
    if (statuses > 1) return false;
  }
  return true;
}
static_assert(layouts_fit(), "dumpi_calls.def: an id beyond the stream's end label, too many fields or two statuses");

const std::array<const Call*, kEndOfStream>& calls_by_id() {
  static const auto table = [] {
    std::array<const Call*, kEndOfStream> t{};
    for (const Call& call : kCalls) t[call.id] = &call;
    return t;
  }();
  return table;
}

// The name of a function id that has no layout, for the error.
std::string unknown_id_name(uint16_t id) {
  if (id == 128) return "MPI_Pcontrol, which DUMPI never writes as a record of its own";
  if (id == kAllFunctions) return "DUMPI's sentinel after the last function, no function";
  if (id > kEndOfStream) return "beyond DUMPI's last function id " + std::to_string(kEndOfStream);
  return "no function";
}

std::string mpi_name(const Call& call) {
  if (call.name.starts_with("IO_")) return "MPIO_" + std::string(call.name.substr(3));
  return "MPI_" + std::string(call.name);
}

// DUMPI's values for MPI's predefined handles (its constants.h).
constexpr uint16_t kCommNull = 1;
constexpr uint16_t kCommWorld = 2;
constexpr uint16_t kCommSelf = 3;
constexpr uint16_t kGroupNull = 1;
constexpr uint16_t kGroupEmpty = 2;
constexpr int64_t kRequestNull = 1;
constexpr int64_t kAnySource = -1;
constexpr int64_t kAnyTag = -1;

constexpr uint64_t kHeadMagic = 0xffaadd44554d5049ULL;  // ff aa dd 'D' 'U' 'M' 'P' 'I'
constexpr uint64_t kFootMagic = 0xf007fee7ULL;
constexpr uint64_t kIndexBytes = 8 * 8;
constexpr uint64_t kNsPerSecond = 1'000'000'000;

constexpr uint8_t kStatusMask = 0x03;
constexpr uint8_t kCpuMask = 0x04;
constexpr uint8_t kWallMask = 0x08;
constexpr uint8_t kThreadMask = 0x40;
constexpr uint8_t kPerfMask = 0x80;

// ---------------------------------------------------------------------------
// A rank file, read through a buffer, every read checked against a limit.

class Bytes {
 public:
  explicit Bytes(std::string path) : path_(std::move(path)) {
    file_ = std::fopen(path_.c_str(), "rb");
    if (!file_) throw TraceError(path_, TraceLocation::file(), "file", "cannot be opened (missing?)");
    std::fseek(file_, 0, SEEK_END);
    size_ = static_cast<uint64_t>(std::ftell(file_));
  }
  ~Bytes() {
    if (file_) std::fclose(file_);
  }
  Bytes(const Bytes&) = delete;
  Bytes& operator=(const Bytes&) = delete;

  [[nodiscard]] uint64_t size() const { return size_; }
  [[nodiscard]] uint64_t offset() const { return base_ + pos_; }
  [[nodiscard]] const std::string& path() const { return path_; }

  // Reads from OFFSET on; nothing at or after LIMIT may be read. WHAT names
  // the section, for errors.
  void seek(uint64_t offset, uint64_t limit, std::string_view what) {
    base_ = offset;
    pos_ = len_ = 0;
    limit_ = limit;
    section_ = what;
    std::fseek(file_, static_cast<long>(offset), SEEK_SET);
  }
  void field(std::string_view name) { field_ = name; }

  [[noreturn]] void fail(const std::string& problem) const { fail_at(offset(), problem); }
  [[noreturn]] void fail_at(uint64_t where, const std::string& problem) const {
    throw TraceError(path_, TraceLocation::file(), std::string(field_),
                     "at byte offset " + std::to_string(where) + " (" + std::string(section_) + "): " + problem);
  }

  void need(uint64_t bytes) {
    if (offset() + bytes > limit_) {
      fail("needs " + std::to_string(bytes) + " bytes but the " + std::string(section_) + " ends at byte " +
           std::to_string(limit_) + (limit_ >= size_ ? " (the end of the file: truncated?)" : ""));
    }
  }

  uint8_t u8() {
    uint8_t b[1];
    take(b, 1);
    return b[0];
  }
  uint16_t u16() {
    uint8_t b[2];
    take(b, 2);
    return static_cast<uint16_t>(b[0] << 8 | b[1]);
  }
  uint32_t u32() {
    uint8_t b[4];
    take(b, 4);
    return uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3];
  }
  uint64_t u64() {
    const uint64_t high = u32();
    return high << 32 | u32();
  }
  void skip(uint64_t bytes) {
    need(bytes);
    while (bytes > 0) {
      if (pos_ == len_) refill();
      const uint64_t step = std::min<uint64_t>(bytes, len_ - pos_);
      pos_ += step;
      bytes -= step;
    }
  }

 private:
  void take(uint8_t* out, size_t n) {
    need(n);
    for (size_t i = 0; i < n; ++i) {
      if (pos_ == len_) refill();
      out[i] = buffer_[pos_++];
    }
  }
  void refill() {
    base_ += len_;
    pos_ = 0;
    len_ = std::fread(buffer_.data(), 1, buffer_.size(), file_);
    if (len_ == 0) fail("the file ends here (truncated?)");
  }

  std::string path_;
  std::FILE* file_ = nullptr;
  uint64_t size_ = 0;
  uint64_t base_ = 0;  // file offset of buffer_[0]
  size_t pos_ = 0;
  size_t len_ = 0;
  uint64_t limit_ = 0;
  std::string_view section_ = "file";
  std::string_view field_;
  std::array<uint8_t, 1 << 16> buffer_{};
};

struct Status {
  int32_t bytes = 0;
  int32_t source = 0;
  int32_t tag = 0;
  bool cancelled = false;
};

// One decoded record: its call, place, times and arguments.
struct Record {
  const Call* call = nullptr;
  uint64_t offset = 0;  // of its function label in the rank file
  uint64_t index = 0;   // among the rank's records, from 0
  uint16_t thread = 0;
  bool has_cpu = false;
  uint64_t cpu_start = 0, cpu_stop = 0;    // ns of the process's CPU clock
  uint64_t wall_start = 0, wall_stop = 0;  // ns of the host's monotonic clock
  struct Value {
    int64_t scalar = 0;
    uint32_t first = 0;  // arrays: their elements in `elements`
    uint32_t count = 0;
    bool present = false;
  };
  std::array<Value, kMaxFields> values{};
  std::vector<int64_t> elements;
  std::vector<Status> statuses;

  [[nodiscard]] size_t position(std::string_view name) const {
    for (size_t i = 0; call->fields[i].kind != Kind::kEnd; ++i) {
      if (call->fields[i].name == name) return i;
    }
    return kMaxFields;
  }
  [[nodiscard]] bool has(std::string_view name) const {
    const size_t i = position(name);
    return i < kMaxFields && values[i].present;
  }
  [[nodiscard]] int64_t get(std::string_view name) const {
    const size_t i = position(name);
    return i < kMaxFields ? values[i].scalar : 0;
  }
  [[nodiscard]] std::span<const int64_t> array(std::string_view name) const {
    const size_t i = position(name);
    if (i >= kMaxFields || !values[i].present) return {};
    return {elements.data() + values[i].first, values[i].count};
  }
};

struct FileHeader {
  uint8_t version[3] = {0, 0, 0};
  uint64_t starttime = 0;
  std::string hostname;
  std::string username;
};

// Reads a rank file's index, header, footer and datatype sizes, then its
// stream of records.
class RankFile {
 public:
  RankFile(const std::string& path, uint32_t rank) : in_(path), rank_(rank) { read_index(); }

  [[nodiscard]] const FileHeader& header() const { return header_; }
  [[nodiscard]] const std::vector<uint32_t>& call_counts() const { return call_count_; }
  [[nodiscard]] const std::vector<uint32_t>& ignored_counts() const { return ignored_count_; }
  [[nodiscard]] const std::vector<int64_t>& type_sizes() const { return type_size_; }
  [[nodiscard]] const std::string& path() const { return in_.path(); }
  [[nodiscard]] uint32_t rank() const { return rank_; }
  [[nodiscard]] uint64_t records() const { return records_; }

  void start_stream() {
    in_.seek(body_, header_off_, "stream");
    in_.field("time bias");
    cpu_bias_ = in_.u32();
    wall_bias_ = in_.u32();
    records_ = 0;
    wall_epoch_ = cpu_epoch_ = 0;
    last_wall_sec_ = last_cpu_sec_ = 0;
    last_stop_ns_ = 0;
    ended_ = false;
  }

  // The next record, or false at the stream's end label.
  bool next(Record& r) {
    if (ended_) return false;
    r.offset = in_.offset();
    in_.field("function");
    const uint16_t id = in_.u16();
    if (id == kEndOfStream) {
      if (in_.offset() != header_off_) {
        in_.fail("the stream's end label is followed by " + std::to_string(header_off_ - in_.offset()) +
                 " bytes before the header the index names");
      }
      ended_ = true;
      return false;
    }
    const Call* call = id < kEndOfStream ? calls_by_id()[id] : nullptr;
    if (!call) {
      in_.fail_at(r.offset,
                  "function id " + std::to_string(id) + " (" + unknown_id_name(id) +
                      ") has no known record layout (traces/import/dumpi_calls.def), so the stream cannot be read past "
                      "it; record " +
                      std::to_string(records_) + " of rank " + std::to_string(rank_));
    }
    r.call = call;
    r.index = records_++;
    in_.field("mask");
    const uint8_t mask = in_.u8();
    in_.field("thread");
    r.thread = (mask & kThreadMask) ? in_.u16() : 0;
    if (id >= kFunctionEnter) {
      // DUMPI's function-entry and annotation records (MPI_Pcontrol) leave
      // their start times unset: not read, and never imported.
      in_.field("time");
      in_.skip(((mask & kCpuMask) ? 12 : 0) + ((mask & kWallMask) ? 12 : 0));
      r.has_cpu = false;
      r.wall_start = r.wall_stop = 0;
    } else {
      read_times(r, mask);
    }
    if (mask & kPerfMask) {
      in_.field("perfinfo");
      const uint8_t counters = in_.u8();
      in_.skip(uint64_t{counters} * 16);
    }
    read_arguments(r, mask);
    return true;
  }

  [[noreturn]] void fail(const Record& r, const std::string& field, const std::string& problem) const {
    throw TraceError(path(), TraceLocation::file(), field,
                     "record " + std::to_string(r.index) + " of rank " + std::to_string(rank_) + " (" +
                         mpi_name(*r.call) + ") at byte offset " + std::to_string(r.offset) + ": " + problem);
  }

 private:
  void read_times(Record& r, uint8_t mask) {
    const Call& call = *r.call;
    r.has_cpu = (mask & kCpuMask) != 0;
    if (r.has_cpu) {
      in_.field("cpu time");
      r.cpu_start = time(cpu_bias_, cpu_epoch_, last_cpu_sec_);
      r.cpu_stop = time(cpu_bias_, cpu_epoch_, last_cpu_sec_);
    }
    if (!(mask & kWallMask)) {
      in_.field("mask");
      in_.fail(mpi_name(call) +
               " record without wall-clock times (timestamps turned off in dumpi.conf): the "
               "import needs them");
    }
    in_.field("wall time");
    r.wall_start = time(wall_bias_, wall_epoch_, last_wall_sec_);
    r.wall_stop = time(wall_bias_, wall_epoch_, last_wall_sec_);
    if (r.wall_stop < r.wall_start) in_.fail_at(r.offset, mpi_name(call) + " ends before it begins");
    if (r.wall_start < last_stop_ns_) {
      in_.fail_at(r.offset, mpi_name(call) + " begins " + std::to_string(last_stop_ns_ - r.wall_start) +
                                " ns before the rank's previous call ended: calls of several threads overlap, "
                                "which the ibsec format cannot express, or the times are damaged");
    }
    last_stop_ns_ = r.wall_stop;
  }

  // Seconds are stored as 16 bits above the stream's bias: a trace longer
  // than 18 hours wraps, which a backwards jump of more than half the range
  // undoes.
  uint64_t time(uint32_t bias, uint64_t& epoch, uint64_t& last_sec) {
    const uint16_t sec = in_.u16();
    const uint32_t ns = in_.u32();
    if (ns >= kNsPerSecond) in_.fail(std::to_string(ns) + " nanoseconds, more than a second");
    uint64_t full = epoch * 65536 + sec;
    if (full + 32768 < last_sec) {
      ++epoch;
      full += 65536;
    }
    last_sec = full;
    return (uint64_t{bias} + full) * kNsPerSecond + ns;
  }

  uint64_t length(uint64_t element_bytes) {
    const uint32_t n = in_.u32();
    in_.need(uint64_t{n} * element_bytes);
    return n;
  }

  void read_arguments(Record& r, uint8_t mask) {
    r.elements.clear();
    r.statuses.clear();
    const Field* fields = r.call->fields;
    for (size_t i = 0; fields[i].kind != Kind::kEnd; ++i) {
      const Field& f = fields[i];
      Record::Value& v = r.values[i];
      v = {};
      in_.field(f.name);
      if (f.root_only) {
        const int64_t me = r.has("commrank") ? r.get("commrank") : r.get("oldcommrank");
        if (me != r.get("root")) continue;
      }
      v.present = true;
      switch (f.kind) {
        case Kind::kI8:
          v.scalar = in_.u8();
          break;
        case Kind::kI16:
          v.scalar = in_.u16();
          break;
        case Kind::kI32:
          v.scalar = static_cast<int32_t>(in_.u32());
          break;
        case Kind::kI64:
          v.scalar = static_cast<int64_t>(in_.u64());
          break;
        case Kind::kA8:
        case Kind::kA16:
        case Kind::kA32: {
          const uint64_t width = f.kind == Kind::kA8 ? 1 : f.kind == Kind::kA16 ? 2 : 4;
          const uint64_t n = length(width);
          v.first = static_cast<uint32_t>(r.elements.size());
          v.count = static_cast<uint32_t>(n);
          for (uint64_t k = 0; k < n; ++k) {
            r.elements.push_back(width == 1   ? int64_t{in_.u8()}
                                 : width == 2 ? int64_t{in_.u16()}
                                              : int64_t{static_cast<int32_t>(in_.u32())});
          }
          break;
        }
        case Kind::kA32X2: {  // rows of int: kept flat, rows of 3 (MPI's ranges) are what is used
          const uint64_t rows = length(4);
          v.first = static_cast<uint32_t>(r.elements.size());
          for (uint64_t row = 0; row < rows; ++row) {
            const uint64_t n = length(4);
            for (uint64_t k = 0; k < n; ++k) r.elements.push_back(static_cast<int32_t>(in_.u32()));
          }
          v.count = static_cast<uint32_t>(r.elements.size() - v.first);
          v.scalar = static_cast<int64_t>(rows);
          break;
        }
        case Kind::kSTR:
          in_.skip(length(1));
          break;
        case Kind::kSTRS: {
          const uint64_t n = length(4);
          for (uint64_t k = 0; k < n; ++k) in_.skip(length(1));
          break;
        }
        case Kind::kSTRS2: {
          const uint64_t n = length(4);
          for (uint64_t k = 0; k < n; ++k) {
            const uint64_t m = length(4);
            for (uint64_t j = 0; j < m; ++j) in_.skip(length(1));
          }
          break;
        }
        case Kind::kSTATUS: {
          if (!(mask & kStatusMask)) {
            v.present = false;
            break;
          }
          const uint64_t n = length(14);
          for (uint64_t k = 0; k < n; ++k) {
            Status s;
            s.bytes = static_cast<int32_t>(in_.u32());
            s.source = static_cast<int32_t>(in_.u32());
            s.cancelled = in_.u8() != 0;
            in_.u8();  // error
            s.tag = static_cast<int32_t>(in_.u32());
            r.statuses.push_back(s);
          }
          v.count = static_cast<uint32_t>(n);
          break;
        }
        case Kind::kEnd:
          break;
      }
    }
  }

  void check_offset(uint64_t offset, const char* field, bool may_be_zero) {
    in_.field(field);
    if (offset == 0 && may_be_zero) return;
    if (offset < 8 || offset >= in_.size() - kIndexBytes) {
      in_.fail("the index puts the " + std::string(field) + " at byte " + std::to_string(offset) +
               ", outside the file's " + std::to_string(in_.size() - kIndexBytes) + " bytes before the index");
    }
  }

  void read_index() {
    if (in_.size() < 8 + kIndexBytes) {
      in_.seek(0, in_.size(), "file");
      in_.field("index");
      in_.fail("a file of " + std::to_string(in_.size()) + " bytes is too short for a DUMPI trace (truncated?)");
    }
    in_.seek(0, 8, "lead-in");
    in_.field("magic");
    if (in_.u64() != kHeadMagic) {
      in_.seek(0, 8, "lead-in");
      in_.fail("not a DUMPI trace file: it does not begin with DUMPI's magic ff aa dd 'DUMPI'");
    }
    const uint64_t index = in_.size() - kIndexBytes;
    in_.seek(index, in_.size(), "index");
    in_.field("index");
    if (in_.u64() != kHeadMagic) {
      in_.seek(index, in_.size(), "index");
      in_.fail("no index record at the end of the file (truncated, or written by a DUMPI older than 0.6.6)");
    }
    sizes_ = in_.u64();
    const uint64_t addresses = in_.u64();
    perf_ = in_.u64();
    header_off_ = in_.u64();
    body_ = in_.u64();
    footer_ = in_.u64();
    const uint64_t keyval = in_.u64();
    in_.seek(index, in_.size(), "index");
    check_offset(sizes_, "datatype sizes offset", true);
    check_offset(addresses, "function addresses offset", true);
    check_offset(perf_, "perfcounter labels offset", true);
    check_offset(header_off_, "header offset", false);
    check_offset(body_, "stream offset", false);
    check_offset(footer_, "footer offset", false);
    check_offset(keyval, "keyval offset", true);
    in_.field("stream offset");
    if (body_ + 10 > header_off_) {
      in_.fail("the stream (byte " + std::to_string(body_) + ") must come before the header (byte " +
               std::to_string(header_off_) + ")");
    }
    read_header(index);
    read_footer(index);
    read_sizes(index);
  }

  void read_header(uint64_t index) {
    in_.seek(header_off_, index, "header");
    in_.field("version");
    for (uint8_t& v : header_.version) v = in_.u8();
    const auto [major, minor, patch] = std::tuple{header_.version[0], header_.version[1], header_.version[2]};
    if (major == 0 && (minor < 6 || (minor == 6 && patch < 9))) {
      in_.fail("DUMPI " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch) +
               " wrote this file; the layouts read are those of 0.6.9 and later");
    }
    in_.field("starttime");
    header_.starttime = in_.u64();
    in_.field("hostname");
    header_.hostname = string16();
    in_.field("username");
    header_.username = string16();
  }

  std::string string16() {
    const uint16_t n = in_.u16();
    in_.need(n);
    std::string text(n, '\0');
    for (char& c : text) c = static_cast<char>(in_.u8());
    return text;
  }

  void read_footer(uint64_t index) {
    in_.seek(footer_, index, "footer");
    in_.field("footer magic");
    if (in_.u64() != kFootMagic) in_.fail("the footer does not begin with its magic 0xf007fee7");
    in_.field("call counts");
    call_count_.resize(kAllFunctions + 1);
    for (uint32_t& c : call_count_) c = in_.u32();
    in_.field("ignored counts");
    ignored_count_.resize(kAllFunctions + 1);
    for (uint32_t& c : ignored_count_) c = in_.u32();
  }

  void read_sizes(uint64_t index) {
    if (sizes_ == 0) return;
    in_.seek(sizes_, index, "datatype sizes");
    in_.field("datatype sizes");
    const uint64_t n = length(4);
    type_size_.resize(n);
    for (int64_t& s : type_size_) s = static_cast<int32_t>(in_.u32());
  }

  Bytes in_;
  uint32_t rank_;
  FileHeader header_;
  uint64_t sizes_ = 0, perf_ = 0, header_off_ = 0, body_ = 0, footer_ = 0;
  std::vector<uint32_t> call_count_, ignored_count_;
  std::vector<int64_t> type_size_;
  uint32_t cpu_bias_ = 0, wall_bias_ = 0;
  uint64_t wall_epoch_ = 0, cpu_epoch_ = 0, last_wall_sec_ = 0, last_cpu_sec_ = 0;
  uint64_t records_ = 0;
  uint64_t last_stop_ns_ = 0;  // when the rank's previous call ended
  bool ended_ = false;
};

// ---------------------------------------------------------------------------
// Communicators: DUMPI numbers each rank's handles on its own, so a
// communicator is known by the calls that made it on every member.

bool creates_comm(Id id) {
  return id == Id::kComm_dup || id == Id::kComm_split || id == Id::kComm_create || id == Id::kCart_create;
}

// Calls that make a communicator the importer does not follow: naming one
// in a call that moves data is refused, naming its maker.
bool makes_unfollowed_comm(Id id) {
  return id == Id::kCart_sub || id == Id::kGraph_create || id == Id::kIntercomm_create || id == Id::kIntercomm_merge ||
         id == Id::kComm_spawn || id == Id::kComm_spawn_multiple || id == Id::kComm_accept || id == Id::kComm_connect ||
         id == Id::kComm_join || id == Id::kComm_get_parent;
}

bool is_group_op(Id id) {
  switch (id) {
    case Id::kComm_group:
    case Id::kGroup_incl:
    case Id::kGroup_excl:
    case Id::kGroup_range_incl:
    case Id::kGroup_range_excl:
    case Id::kGroup_union:
    case Id::kGroup_intersection:
    case Id::kGroup_difference:
    case Id::kGroup_free:
    case Id::kComm_remote_group:
      return true;
    default:
      return false;
  }
}

// The handle field a call that makes a communicator writes it to.
std::string_view new_comm_field(Id id) {
  switch (id) {
    case Id::kComm_join:
      return "comm";
    case Id::kComm_get_parent:
      return "parent";
    default:
      return "newcomm";
  }
}

// Calls that only ever work on the calling process's own state: computation
// in the trace, as in the capture library, never "not imported". (Those of
// the builder's own list, MPI_Comm_*, MPI_Type_*, waits and tests..., are
// not repeated here.)
bool is_local_call(Id id) {
  switch (id) {
    case Id::kSend_init:
    case Id::kBsend_init:
    case Id::kSsend_init:
    case Id::kRsend_init:
    case Id::kRecv_init:
    case Id::kStart:
    case Id::kStartall:
    case Id::kCancel:
    case Id::kTest_cancelled:
    case Id::kRequest_free:
    case Id::kRequest_get_status:
    case Id::kPack:
    case Id::kUnpack:
    case Id::kPack_external:
    case Id::kPack_external_size:
    case Id::kUnpack_external:
    case Id::kStatus_set_cancelled:
    case Id::kStatus_set_elements:
    case Id::kAlloc_mem:
    case Id::kFree_mem:
    case Id::kKeyval_create:
    case Id::kKeyval_free:
    case Id::kAdd_error_class:
    case Id::kAdd_error_code:
    case Id::kAdd_error_string:
      return true;
    default:
      return false;
  }
}

// A communicator-related record, kept from the first reading.
struct CommOp {
  Id id;
  uint64_t index = 0;
  uint64_t offset = 0;
  std::map<std::string_view, int64_t> scalars;
  std::vector<int64_t> list;  // ranks, ranges or dims
};

// What a rank's communicator handle stands for.
constexpr int64_t kNoComm = -1;      // COMM_NULL: the rank is in none (split with MPI_UNDEFINED, not in the group)
constexpr int64_t kUnfollowed = -2;  // made by a call the importer does not follow

struct LocalComms {
  std::unordered_map<uint16_t, int64_t> comm;       // handle -> ibsec comm, or kNoComm/kUnfollowed
  std::unordered_map<uint16_t, std::string> maker;  // handle -> the call that made it, for errors
};

}  // namespace

std::vector<std::string> dumpi_known_calls() {
  std::vector<std::string> names;
  for (const Call& call : kCalls) names.push_back(mpi_name(call));
  return names;
}

struct DumpiSource::State {
  DumpiRun run;
  std::string source;
  std::string source_note;  // "import: source META (DUMPI .meta and N rank files)", its digest added by the import
  std::vector<uint64_t> clock_shifts;
  TraceHeader header;
  std::vector<std::vector<int64_t>> type_sizes;  // by rank
  uint64_t origin_ns = std::numeric_limits<uint64_t>::max();
  bool all_cpu = true;

  // Communicators: members by ibsec id (0 the world), and what each rank's
  // k-th communicator-making call made.
  std::vector<std::vector<uint32_t>> members;
  std::map<std::vector<uint32_t>, uint32_t> id_of_members;
  std::vector<std::vector<CommOp>> comm_ops;  // by rank, in order
  std::vector<std::vector<int64_t>> made;     // by rank: the comm of each creating call
  std::vector<int64_t> self_comm;             // by rank: MPI_COMM_SELF's ibsec comm, or kNoComm
  uint64_t merged_comms = 0;
  uint64_t reordered_carts = 0;
  std::string version;          // of DUMPI, as rank 0's file says
  std::set<std::string> hosts;  // as the rank files name them

  // Notes gathered while reading.
  uint64_t annotation_records = 0;
  std::set<uint16_t> threads;
  std::map<std::string, uint64_t> proc_null;  // call -> calls with MPI_PROC_NULL
  uint64_t statusless_receives = 0;
  uint64_t freed_requests = 0;
  uint64_t self_collectives = 0;

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw TraceError(run.meta.string(), TraceLocation::file(), field, problem);
  }

  uint32_t comm_id(std::vector<uint32_t> ranks) {
    const auto [it, fresh] = id_of_members.emplace(ranks, static_cast<uint32_t>(members.size()));
    if (fresh) {
      members.push_back(std::move(ranks));
    } else {
      ++merged_comms;
    }
    return it->second;
  }

  void scan_ranks();
  void resolve_comms();
  void describe();
};

namespace {

using State = DumpiSource::State;

// Calls whose communicator argument is used to move data.
bool moves_data(Id id) {
  switch (id) {
    case Id::kSend:
    case Id::kBsend:
    case Id::kSsend:
    case Id::kRsend:
    case Id::kIsend:
    case Id::kIbsend:
    case Id::kIssend:
    case Id::kIrsend:
    case Id::kRecv:
    case Id::kIrecv:
    case Id::kSendrecv:
    case Id::kSendrecv_replace:
    case Id::kSend_init:
    case Id::kBsend_init:
    case Id::kSsend_init:
    case Id::kRsend_init:
    case Id::kRecv_init:
    case Id::kBarrier:
    case Id::kBcast:
    case Id::kGather:
    case Id::kGatherv:
    case Id::kScatter:
    case Id::kScatterv:
    case Id::kAllgather:
    case Id::kAllgatherv:
    case Id::kAlltoall:
    case Id::kAlltoallv:
    case Id::kAlltoallw:
    case Id::kReduce:
    case Id::kAllreduce:
    case Id::kReduce_scatter:
    case Id::kScan:
    case Id::kExscan:
      return true;
    default:
      return false;
  }
}

CommOp keep_comm_op(const Record& r) {
  CommOp op{static_cast<Id>(r.call->id), r.index, r.offset, {}, {}};
  for (size_t i = 0; r.call->fields[i].kind != Kind::kEnd; ++i) {
    const Field& f = r.call->fields[i];
    if (!r.values[i].present) continue;
    if (f.kind == Kind::kI16 || f.kind == Kind::kI32 || f.kind == Kind::kI8) op.scalars[f.name] = r.values[i].scalar;
    if (f.kind == Kind::kA32 || f.kind == Kind::kA32X2) {
      if (f.name == "ranks" || f.name == "ranges" || f.name == "dims") {
        const auto values = r.array(f.name);
        op.list.assign(values.begin(), values.end());
      }
    }
  }
  return op;
}

}  // namespace

// The first reading: every rank file through, its structure checked, and
// what the second reading needs before it starts: communicators, datatype
// sizes, the clocks there are.
void State::scan_ranks() {
  comm_ops.resize(run.processes);
  self_comm.assign(run.processes, kNoComm);
  std::vector<bool> uses_self(run.processes, false);
  uint64_t records = 0;
  for (uint32_t rank = 0; rank < run.processes; ++rank) {
    RankFile file(run.rank_files[rank].string(), rank);
    type_sizes.push_back(file.type_sizes());
    const FileHeader& h = file.header();
    const std::string v =
        std::to_string(h.version[0]) + "." + std::to_string(h.version[1]) + "." + std::to_string(h.version[2]);
    if (rank == 0) {
      version = v;
      header.notes.push_back("import: DUMPI " + v + ", user " + h.username);
    }
    hosts.insert(h.hostname);
    file.start_stream();
    Record r;
    std::vector<uint64_t> counted(kAllFunctions + 1, 0);
    while (file.next(r)) {
      const Id id = static_cast<Id>(r.call->id);
      if (r.call->id < kAllFunctions) ++counted[r.call->id];
      if (id == Id::kFunction_enter || id == Id::kFunction_exit) continue;
      threads.insert(r.thread);
      origin_ns = std::min(origin_ns, r.wall_start);
      all_cpu = all_cpu && r.has_cpu;
      if (creates_comm(id) || makes_unfollowed_comm(id) || is_group_op(id) || id == Id::kComm_free) {
        comm_ops[rank].push_back(keep_comm_op(r));
      }
      if (moves_data(id) && r.get("comm") == kCommSelf) uses_self[rank] = true;
    }
    for (uint16_t f = 0; f < kAllFunctions; ++f) {
      const uint64_t expected = file.call_counts()[f] - std::min(file.call_counts()[f], file.ignored_counts()[f]);
      if (counted[f] == expected || (expected == counted[f] + 1 && f == static_cast<uint16_t>(Id::kFinalize))) {
        continue;
      }
      header.notes.push_back("import: rank " + std::to_string(rank) + ": its footer counts " +
                             std::to_string(expected) + " recorded " + mpi_name(*calls_by_id()[f]) +
                             " calls, the stream holds " + std::to_string(counted[f]));
    }
    records += file.records();
    const uint32_t ignored = file.ignored_counts()[kAllFunctions];
    if (ignored > 0) {
      header.notes.push_back("import: rank " + std::to_string(rank) + ": DUMPI did not record " +
                             std::to_string(ignored) +
                             " MPI calls (turned off in its dumpi.conf, or made inside another MPI call)");
    }
  }
  header.notes.push_back("import: " + std::to_string(records) + " DUMPI records in " + std::to_string(run.processes) +
                         " rank files");
  // MPI_COMM_SELF: a communicator of one, made only for ranks that move data on it.
  for (uint32_t rank = 0; rank < run.processes; ++rank) {
    if (uses_self[rank]) self_comm[rank] = comm_id({rank});
  }
}

// Replays the communicator-making calls of all ranks together: a call that
// makes a communicator is collective over the old one, so the k-th such
// call on a communicator is the same call on every member. A rank waits at
// its call until every member has made it.
void State::resolve_comms() {
  const uint32_t n = run.processes;
  made.assign(n, {});
  struct Rank {
    size_t cursor = 0;
    LocalComms comms;
    std::unordered_map<uint16_t, std::vector<uint32_t>> groups;
    std::map<uint32_t, uint64_t> calls_on;  // ibsec comm -> communicator-making calls so far
    bool waiting = false;
    std::pair<uint32_t, uint64_t> instance;
  };
  struct Instance {
    std::map<uint32_t, const CommOp*> parts;  // world rank -> its call
    std::map<uint32_t, int64_t> result;
    bool done = false;
  };
  std::vector<Rank> ranks(n);
  std::map<std::pair<uint32_t, uint64_t>, Instance> instances;
  for (uint32_t r = 0; r < n; ++r) {
    ranks[r].comms.comm[kCommWorld] = 0;
    ranks[r].comms.comm[kCommSelf] = self_comm[r] >= 0 ? self_comm[r] : kUnfollowed;
    ranks[r].comms.maker[kCommSelf] = "MPI_COMM_SELF";
  }
  const auto fail_at = [&](uint32_t r, const CommOp& op, const std::string& field, const std::string& problem) {
    throw TraceError(run.rank_files[r].string(), TraceLocation::file(), field,
                     "record " + std::to_string(op.index) + " of rank " + std::to_string(r) + " (" +
                         mpi_name(*calls_by_id()[static_cast<uint16_t>(op.id)]) + ") at byte offset " +
                         std::to_string(op.offset) + ": " + problem);
  };
  const auto group_of = [&](uint32_t r, const CommOp& op, std::string_view field) -> std::vector<uint32_t> {
    const auto handle = static_cast<uint16_t>(op.scalars.at(field));
    if (handle == kGroupEmpty) return {};
    const auto found = ranks[r].groups.find(handle);
    if (found == ranks[r].groups.end()) {
      fail_at(r, op, std::string(field),
              "group " + std::to_string(handle) + " was not made by a call the importer follows");
    }
    return found->second;
  };
  const auto resolve = [&](std::pair<uint32_t, uint64_t> key, Instance& inst) {
    const std::vector<uint32_t> old = members[key.first];
    const CommOp& first = *inst.parts.begin()->second;
    for (const auto& [r, op] : inst.parts) {
      if (op->id != first.id) {
        fail_at(r, *op, "function",
                "communicator-making call #" + std::to_string(key.second) + " on communicator " +
                    std::to_string(key.first) + " is " + mpi_name(*calls_by_id()[static_cast<uint16_t>(op->id)]) +
                    " here but " + mpi_name(*calls_by_id()[static_cast<uint16_t>(first.id)]) + " on another member");
      }
    }
    switch (first.id) {
      case Id::kComm_dup: {
        const uint32_t id = comm_id(old);
        for (const auto& [r, op] : inst.parts) inst.result[r] = id;
        break;
      }
      case Id::kComm_split: {
        std::map<int64_t, std::vector<std::tuple<int64_t, size_t, uint32_t>>> by_color;
        for (size_t pos = 0; pos < old.size(); ++pos) {
          const CommOp& op = *inst.parts.at(old[pos]);
          const int64_t color = op.scalars.at("color");
          if (color < 0) {
            inst.result[old[pos]] = kNoComm;  // MPI_UNDEFINED
            continue;
          }
          by_color[color].emplace_back(op.scalars.at("key"), pos, old[pos]);
        }
        for (auto& [color, parts] : by_color) {
          std::sort(parts.begin(), parts.end());
          std::vector<uint32_t> ranks_of;
          for (const auto& part : parts) ranks_of.push_back(std::get<2>(part));
          const uint32_t id = comm_id(ranks_of);
          for (const auto& part : parts) inst.result[std::get<2>(part)] = id;
        }
        break;
      }
      case Id::kComm_create: {
        std::optional<std::vector<uint32_t>> group;
        for (const auto& [r, op] : inst.parts) {
          std::vector<uint32_t> mine = group_of(r, *op, "group");
          if (group && mine != *group) fail_at(r, *op, "group", "not the group the other members gave");
          for (uint32_t member : mine) {
            if (std::find(old.begin(), old.end(), member) == old.end()) {
              fail_at(r, *op, "group", "world rank " + std::to_string(member) + " is not in the old communicator");
            }
          }
          group = std::move(mine);
        }
        const int64_t id = group->empty() ? kNoComm : comm_id(*group);
        for (const auto& [r, op] : inst.parts) {
          inst.result[r] = std::find(group->begin(), group->end(), r) == group->end() ? kNoComm : id;
        }
        break;
      }
      case Id::kCart_create: {
        uint64_t size = 1;
        for (int64_t d : first.list) {
          size *= static_cast<uint64_t>(std::max<int64_t>(d, 0));
          if (size > old.size())
            fail_at(inst.parts.begin()->first, first, "dims", "a grid larger than its communicator");
        }
        if (first.scalars.at("reorder") != 0) ++reordered_carts;
        const std::vector<uint32_t> grid(old.begin(), old.begin() + static_cast<ptrdiff_t>(size));
        const int64_t id = grid.empty() ? kNoComm : comm_id(grid);
        for (size_t pos = 0; pos < old.size(); ++pos) inst.result[old[pos]] = pos < size ? id : kNoComm;
        break;
      }
      default:
        break;
    }
    inst.done = true;
  };

  bool progress = true;
  while (progress) {
    progress = false;
    for (uint32_t r = 0; r < n; ++r) {
      Rank& me = ranks[r];
      while (me.cursor < comm_ops[r].size()) {
        const CommOp& op = comm_ops[r][me.cursor];
        if (me.waiting) {
          Instance& inst = instances.at(me.instance);
          if (!inst.done) break;
          const int64_t result = inst.result.at(r);
          made[r].push_back(result);
          const auto handle = static_cast<uint16_t>(op.scalars.at("newcomm"));
          me.comms.comm[handle] = result;
          me.waiting = false;
          ++me.cursor;
          progress = true;
          continue;
        }
        if (creates_comm(op.id)) {
          const auto old_handle = static_cast<uint16_t>(op.scalars.at("oldcomm"));
          const auto found = me.comms.comm.find(old_handle);
          if (found == me.comms.comm.end() || found->second < 0) {
            // Made from a communicator the importer does not know: it is not followed either.
            made[r].push_back(kUnfollowed);
            me.comms.comm[static_cast<uint16_t>(op.scalars.at("newcomm"))] = kUnfollowed;
            me.comms.maker[static_cast<uint16_t>(op.scalars.at("newcomm"))] =
                mpi_name(*calls_by_id()[static_cast<uint16_t>(op.id)]) + " of an unknown communicator";
            ++me.cursor;
            progress = true;
            continue;
          }
          const auto old = static_cast<uint32_t>(found->second);
          const std::pair<uint32_t, uint64_t> key{old, me.calls_on[old]++};
          Instance& inst = instances[key];
          inst.parts[r] = &op;
          me.waiting = true;
          me.instance = key;
          if (inst.parts.size() == members[old].size()) resolve(key, inst);
          progress = true;
          continue;
        }
        if (makes_unfollowed_comm(op.id)) {
          const auto handle = static_cast<uint16_t>(op.scalars.at(new_comm_field(op.id)));
          me.comms.comm[handle] = kUnfollowed;
          me.comms.maker[handle] = mpi_name(*calls_by_id()[static_cast<uint16_t>(op.id)]);
        } else if (op.id == Id::kComm_free) {
          me.comms.comm.erase(static_cast<uint16_t>(op.scalars.at("comm")));
        } else if (op.id == Id::kComm_group) {
          const auto handle = static_cast<uint16_t>(op.scalars.at("group"));
          const auto found = me.comms.comm.find(static_cast<uint16_t>(op.scalars.at("comm")));
          if (found != me.comms.comm.end() && found->second >= 0) {
            me.groups[handle] = members[static_cast<size_t>(found->second)];
          } else {
            me.groups.erase(handle);
          }
        } else if (op.id == Id::kGroup_free) {
          me.groups.erase(static_cast<uint16_t>(op.scalars.at("group")));
        } else if (op.id == Id::kComm_remote_group) {
          me.groups.erase(static_cast<uint16_t>(op.scalars.at("group")));
        } else {
          // Group_incl, _excl, _range_incl, _range_excl, _union, _intersection, _difference.
          const auto newgroup = static_cast<uint16_t>(op.scalars.at("newgroup"));
          const bool two =
              op.id == Id::kGroup_union || op.id == Id::kGroup_intersection || op.id == Id::kGroup_difference;
          const auto known = [&](std::string_view field) {
            const auto handle = static_cast<uint16_t>(op.scalars.at(field));
            return handle == kGroupEmpty || me.groups.contains(handle);
          };
          if (!known(two ? "group1" : "group") || (two && !known("group2"))) {
            me.groups.erase(newgroup);  // of a group not followed: so is this one
            ++me.cursor;
            continue;
          }
          const std::vector<uint32_t> g = group_of(r, op, two ? "group1" : "group");
          std::vector<uint32_t> result;
          const auto in_range = [&](int64_t pos) {
            if (pos < 0 || static_cast<uint64_t>(pos) >= g.size()) {
              fail_at(r, op, "ranks", std::to_string(pos) + " is not a rank of a group of " + std::to_string(g.size()));
            }
            return static_cast<size_t>(pos);
          };
          std::vector<int64_t> positions;
          if (op.id == Id::kGroup_range_incl || op.id == Id::kGroup_range_excl) {
            if (op.list.size() % 3 != 0) fail_at(r, op, "ranges", "ranges are not triples");
            for (size_t i = 0; i < op.list.size(); i += 3) {
              const int64_t first = op.list[i], last = op.list[i + 1], stride = op.list[i + 2];
              if (stride == 0) fail_at(r, op, "ranges", "a stride of 0");
              for (int64_t p = first; stride > 0 ? p <= last : p >= last; p += stride) {
                positions.push_back(static_cast<int64_t>(in_range(p)));  // a range beyond the group stops here
              }
            }
          } else {
            positions = op.list;
          }
          if (op.id == Id::kGroup_incl || op.id == Id::kGroup_range_incl) {
            for (int64_t p : positions) result.push_back(g[in_range(p)]);
          } else if (op.id == Id::kGroup_excl || op.id == Id::kGroup_range_excl) {
            std::set<size_t> out;
            for (int64_t p : positions) out.insert(in_range(p));
            for (size_t i = 0; i < g.size(); ++i) {
              if (!out.contains(i)) result.push_back(g[i]);
            }
          } else {
            const std::vector<uint32_t> g2 = group_of(r, op, "group2");
            const auto in2 = [&](uint32_t x) { return std::find(g2.begin(), g2.end(), x) != g2.end(); };
            for (uint32_t x : g) {
              if ((op.id == Id::kGroup_union) || (op.id == Id::kGroup_intersection) == in2(x)) result.push_back(x);
            }
            if (op.id == Id::kGroup_union) {
              for (uint32_t x : g2) {
                if (std::find(g.begin(), g.end(), x) == g.end()) result.push_back(x);
              }
            }
          }
          me.groups[newgroup] = std::move(result);
        }
        ++me.cursor;
        progress = true;
      }
    }
  }
  for (uint32_t r = 0; r < n; ++r) {
    if (!ranks[r].waiting) continue;
    const Instance& inst = instances.at(ranks[r].instance);
    std::string missing;
    for (uint32_t member : members[ranks[r].instance.first]) {
      if (inst.parts.contains(member)) continue;
      if (!missing.empty()) missing += ',';
      missing += std::to_string(member);
    }
    fail_at(r, comm_ops[r][ranks[r].cursor], "oldcomm",
            "this communicator-making call on communicator " + std::to_string(ranks[r].instance.first) +
                " is never made by world ranks " + missing);
  }
}

void State::describe() {
  TraceHeader& h = header;
  h.processes = run.processes;
  for (size_t id = 1; id < members.size(); ++id) h.comms[static_cast<uint32_t>(id)] = members[id];
  h.origin = TraceOrigin::kCaptured;
  h.origin_text = "imported from DUMPI " + version + ": " + run.meta.filename().string();
  if (all_cpu) h.cpu_clock = CpuClock::kProcess;
  source_note =
      "import: source " + run.meta.string() + " (DUMPI .meta and " + std::to_string(run.processes) + " rank files)";
  std::vector<std::string> notes;
  std::string names;
  for (const std::string& host : hosts) names += (names.empty() ? "" : ", ") + host;
  notes.push_back(
      "import: host" + std::string(hosts.size() > 1 ? "s " : " ") + names +
      (hosts.size() > 1 ? " (wall clocks of different hosts: shifted where a receive precedes its send)" : ""));
  notes.push_back(all_cpu ? "import: CPU times from DUMPI's process CPU clock (CLOCK_PROCESS_CPUTIME_ID)"
                          : "import: no CPU times (some records carry none)");
  if (merged_comms > 0) {
    notes.push_back("import: repaired " + std::to_string(merged_comms) +
                    ": communicators with the same members as another taken as that one");
  }
  if (reordered_carts > 0) {
    notes.push_back("import: repaired " + std::to_string(reordered_carts) +
                    ": MPI_Cart_create with reorder: ranks taken in the old communicator's order (DUMPI does not "
                    "record a reordering)");
  }
  if (threads.size() > 1) {
    notes.push_back("import: calls of " + std::to_string(threads.size()) +
                    " threads per process, read as one sequence per rank");
  }
  h.notes.insert(h.notes.begin(), notes.begin(), notes.end());
}

DumpiSource::DumpiSource(const std::string& source, std::vector<uint64_t> clock_shifts)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.source = source;
  s.run = read_dumpi_run(source);
  s.clock_shifts = std::move(clock_shifts);
  if (!s.clock_shifts.empty() && s.clock_shifts.size() != s.run.processes) {
    s.fail("clock shifts",
           std::to_string(s.clock_shifts.size()) + " given for " + std::to_string(s.run.processes) + " ranks");
  }
  std::vector<uint32_t> world(s.run.processes);
  for (uint32_t i = 0; i < s.run.processes; ++i) world[i] = i;
  s.comm_id(world);
  s.scan_ranks();
  s.resolve_comms();
  s.describe();
}

DumpiSource::~DumpiSource() = default;

const TraceHeader& DumpiSource::header() const { return state_->header; }

const std::string& DumpiSource::source_note() const { return state_->source_note; }

namespace {

// A request as the rank's calls made it.
struct Request {
  enum class Kind : uint8_t { kSend, kRecv, kNull } kind = Kind::kNull;
  bool persistent = false;
  bool active = false;
  uint32_t comm = 0;
  int64_t peer = 0;  // world rank, or kAnySource
  int64_t tag = 0;
  uint64_t bytes = 0;
  std::string call;  // the call that made it
};

// The second reading: one rank's calls into the builder.
class RankReader {
 public:
  RankReader(State& s, ImportBuilder& b, uint32_t rank) : s_(s), b_(b), rank_(rank), file_(path(s, rank), rank) {
    file_.start_stream();
    comms_.comm[kCommWorld] = 0;
    comms_.comm[kCommSelf] = s.self_comm[rank] >= 0 ? s.self_comm[rank] : kUnfollowed;
    comms_.maker[kCommSelf] = "MPI_COMM_SELF";
  }

  bool advance() { return file_.next(record_); }
  [[nodiscard]] const Record& record() const { return record_; }
  [[nodiscard]] uint64_t shift() const { return s_.clock_shifts.empty() ? 0 : s_.clock_shifts[rank_]; }
  [[nodiscard]] uint64_t start_ns() const { return record_.wall_start - s_.origin_ns + shift(); }

  void import_record();

 private:
  static std::string path(const State& s, uint32_t rank) { return s.run.rank_files[rank].string(); }
  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    file_.fail(record_, field, problem);
  }
  WorldRank me() const { return WorldRank(rank_); }

  uint64_t type_size(std::string_view field) const {
    const int64_t type = record_.get(field);
    const auto& sizes = s_.type_sizes[rank_];
    if (type < 0 || static_cast<uint64_t>(type) >= sizes.size()) {
      fail(std::string(field), "datatype " + std::to_string(type) + " is not in the rank file's datatype-size table (" +
                                   std::to_string(sizes.size()) + " types)");
    }
    if (sizes[static_cast<size_t>(type)] < 0) fail(std::string(field), "a negative datatype size");
    return static_cast<uint64_t>(sizes[static_cast<size_t>(type)]);
  }
  uint64_t bytes(std::string_view count, std::string_view type) const {
    const int64_t n = record_.get(count);
    if (n < 0) fail(std::string(count), std::to_string(n) + " is not a count");
    return static_cast<uint64_t>(n) * type_size(type);
  }

  // The ibsec communicator the handle in FIELD stands for.
  uint32_t comm(std::string_view field = "comm") const {
    const auto handle = static_cast<uint16_t>(record_.get(field));
    const auto found = comms_.comm.find(handle);
    if (handle == kCommNull) fail(std::string(field), "MPI_COMM_NULL");
    if (found == comms_.comm.end()) {
      fail(std::string(field), "communicator " + std::to_string(handle) + " was not made by any call of this rank");
    }
    if (found->second == kUnfollowed) {
      fail(std::string(field), "communicator " + std::to_string(handle) + " was made by " + comms_.maker.at(handle) +
                                   ", which the importer does not follow (docs/importing.md)");
    }
    if (found->second < 0)
      fail(std::string(field), "communicator " + std::to_string(handle) + " is MPI_COMM_NULL here");
    return static_cast<uint32_t>(found->second);
  }
  // The world rank of communicator rank RANK (from FIELD).
  int64_t world(uint32_t c, int64_t rank, std::string_view field) const {
    const auto& members = s_.members[c];
    if (rank < 0 || static_cast<uint64_t>(rank) >= members.size()) {
      fail(std::string(field), std::to_string(rank) + " is not a rank of communicator " + std::to_string(c) + " (" +
                                   std::to_string(members.size()) + " members)");
    }
    return members[static_cast<size_t>(rank)];
  }
  uint32_t tag(int64_t value, std::string_view field) const {
    if (value < 0 || value > static_cast<int64_t>(info(TraceArg::kTag).max)) {
      fail(std::string(field), std::to_string(value) + " is not an MPI tag");
    }
    return static_cast<uint32_t>(value);
  }
  bool proc_null(int64_t peer) const { return peer < 0 && peer != kAnySource; }
  // A call to MPI_PROC_NULL moves nothing: counted, its request (if any) kept as one that completes at once.
  bool skipped_as_proc_null(int64_t peer, std::optional<int64_t> request) {
    if (!proc_null(peer)) return false;
    ++s_.proc_null[mpi_name(*record_.call)];
    if (request) requests_[*request] = Request{Request::Kind::kNull, false, true, 0, 0, 0, 0, ""};
    b_.moves_nothing(me());
    return true;
  }

  void send(std::string_view count, std::string_view type, std::string_view dest, std::string_view tag_field,
            std::optional<int64_t> request);
  void recv_posted(std::string_view count, std::string_view type, std::string_view source, std::string_view tag_field,
                   std::optional<int64_t> request, const Status* status);
  void complete(int64_t request, const Status* status);
  void start(int64_t request);
  void collective();
  void track_comms();

  State& s_;
  ImportBuilder& b_;
  uint32_t rank_;
  RankFile file_;
  Record record_;
  LocalComms comms_;
  size_t made_ = 0;  // communicator-making calls so far
  std::unordered_map<int64_t, Request> requests_;
};

void RankReader::send(std::string_view count, std::string_view type, std::string_view dest, std::string_view tag_field,
                      std::optional<int64_t> request) {
  const int64_t peer = record_.get(dest);
  if (skipped_as_proc_null(peer, request)) return;
  const uint32_t c = comm();
  const WorldRank to(static_cast<uint32_t>(world(c, peer, dest)));
  const uint64_t size = bytes(count, type);
  const uint32_t t = tag(record_.get(tag_field), tag_field);
  if (request) {
    b_.isend(me(), to, size, t, TraceComm(c), SourceRequest(static_cast<uint64_t>(*request)));
    requests_[*request] = Request{Request::Kind::kSend, false, true, c, to.value(), t, size, ""};
  } else {
    b_.send(me(), to, size, t, TraceComm(c));
  }
}

// A receive posted (REQUEST) or made (STATUS: what arrived, if recorded).
void RankReader::recv_posted(std::string_view count, std::string_view type, std::string_view source,
                             std::string_view tag_field, std::optional<int64_t> request, const Status* status) {
  const int64_t peer = record_.get(source);
  if (skipped_as_proc_null(peer, request)) return;
  const uint32_t c = comm();
  Request posted{Request::Kind::kRecv,
                 false,
                 true,
                 c,
                 peer == kAnySource ? kAnySource : world(c, peer, source),
                 record_.get(tag_field),
                 bytes(count, type),
                 ""};
  if (request) {
    b_.irecv_posted(me(), SourceRequest(static_cast<uint64_t>(*request)));
    requests_[*request] = posted;
    return;
  }
  const auto [from, size, t] = [&]() -> std::tuple<int64_t, uint64_t, int64_t> {
    if (status) return {world(c, status->source, "status"), static_cast<uint64_t>(status->bytes), status->tag};
    if (posted.peer == kAnySource || posted.tag == kAnyTag) {
      fail("status",
           "a receive posted with MPI_ANY_SOURCE or MPI_ANY_TAG and no status recorded: its sender is unknown");
    }
    ++s_.statusless_receives;
    return {posted.peer, posted.bytes, posted.tag};
  }();
  b_.recv(me(), WorldRank(static_cast<uint32_t>(from)), size, tag(t, "tag"), TraceComm(c), posted.peer == kAnySource,
          status == nullptr);
}

void RankReader::complete(int64_t request, const Status* status) {
  if (request == kRequestNull) return;
  const auto found = requests_.find(request);
  if (found == requests_.end() || !found->second.active) {
    fail("request", "request " + std::to_string(request) + " completes but was never started");
  }
  Request& req = found->second;
  const SourceRequest source(static_cast<uint64_t>(request));
  if (req.kind == Request::Kind::kSend) {
    b_.send_completed(me(), source);
  } else if (req.kind == Request::Kind::kRecv) {
    if (status && status->cancelled) {
      b_.request_cancelled(me(), source);
    } else if (status) {
      b_.irecv_completed(me(), WorldRank(static_cast<uint32_t>(world(req.comm, status->source, "status"))),
                         static_cast<uint64_t>(status->bytes), tag(status->tag, "status"), TraceComm(req.comm), source,
                         req.peer == kAnySource);
    } else {
      if (req.peer == kAnySource || req.tag == kAnyTag) {
        fail("status", "request " + std::to_string(request) +
                           ", a receive posted with MPI_ANY_SOURCE or MPI_ANY_TAG, completes with no status recorded");
      }
      ++s_.statusless_receives;
      b_.irecv_completed(me(), WorldRank(static_cast<uint32_t>(req.peer)), req.bytes, tag(req.tag, "tag"),
                         TraceComm(req.comm), source, false, true);
    }
  }
  if (req.persistent) {
    req.active = false;
  } else {
    requests_.erase(found);
  }
}

void RankReader::start(int64_t request) {
  const auto found = requests_.find(request);
  if (found == requests_.end() || !found->second.persistent) {
    fail("request", "request " + std::to_string(request) + " is not a persistent request");
  }
  Request& req = found->second;
  if (req.active) fail("request", "request " + std::to_string(request) + " is started again before it completed");
  req.active = true;
  const SourceRequest source(static_cast<uint64_t>(request));
  if (req.kind == Request::Kind::kSend) {
    b_.isend(me(), WorldRank(static_cast<uint32_t>(req.peer)), req.bytes, tag(req.tag, "tag"), TraceComm(req.comm),
             source);
  } else if (req.kind == Request::Kind::kRecv) {
    b_.irecv_posted(me(), source);
  }
}

void RankReader::collective() {
  const Id id = static_cast<Id>(record_.call->id);
  const uint32_t c = comm();
  const auto& members = s_.members[c];
  const auto root = [&]() { return WorldRank(static_cast<uint32_t>(world(c, record_.get("root"), "root"))); };
  const auto position = [&]() {
    return static_cast<size_t>(std::find(members.begin(), members.end(), rank_) - members.begin());
  };
  switch (id) {
    case Id::kBarrier:
      b_.collective(me(), TraceOp::kBarrier, TraceComm(c), std::nullopt, 0, 0);
      break;
    case Id::kBcast: {
      const uint64_t n = bytes("count", "datatype");
      b_.collective(me(), TraceOp::kBcast, TraceComm(c), root(), n, n);
      break;
    }
    case Id::kReduce: {
      const uint64_t n = bytes("count", "datatype");
      b_.collective(me(), TraceOp::kReduce, TraceComm(c), root(), n, n);
      break;
    }
    case Id::kAllreduce:
    case Id::kScan:
    case Id::kExscan: {
      const uint64_t n = bytes("count", "datatype");
      const TraceOp op = id == Id::kAllreduce ? TraceOp::kAllreduce
                         : id == Id::kScan    ? TraceOp::kScan
                                              : TraceOp::kExscan;
      b_.collective(me(), op, TraceComm(c), std::nullopt, n, n);
      break;
    }
    case Id::kGather:
    case Id::kGatherv:
      b_.collective(me(), id == Id::kGather ? TraceOp::kGather : TraceOp::kGatherv, TraceComm(c), root(),
                    bytes("sendcount", "sendtype"), 0);
      break;
    case Id::kScatter:
    case Id::kScatterv:
      b_.collective(me(), id == Id::kScatter ? TraceOp::kScatter : TraceOp::kScatterv, TraceComm(c), root(), 0,
                    bytes("recvcount", "recvtype"));
      break;
    case Id::kAllgather:
    case Id::kAllgatherv:
      b_.collective(me(), id == Id::kAllgather ? TraceOp::kAllgather : TraceOp::kAllgatherv, TraceComm(c), std::nullopt,
                    bytes("sendcount", "sendtype"), 0);
      break;
    case Id::kAlltoall:
      b_.collective(me(), TraceOp::kAlltoall, TraceComm(c), std::nullopt, bytes("sendcount", "sendtype"), 0);
      break;
    case Id::kAlltoallv:
    case Id::kAlltoallw: {
      const auto counts = record_.array("sendcounts");
      const auto types = record_.array("sendtypes");
      if (counts.size() != members.size() || (id == Id::kAlltoallw && types.size() != members.size())) {
        fail("sendcounts", std::to_string(counts.size()) + " counts for a communicator of " +
                               std::to_string(members.size()) + " members");
      }
      std::vector<uint64_t> sent(counts.size());
      const auto& sizes = s_.type_sizes[rank_];
      for (size_t i = 0; i < counts.size(); ++i) {
        const int64_t type = id == Id::kAlltoallw ? types[i] : record_.get("sendtype");
        if (type < 0 || static_cast<uint64_t>(type) >= sizes.size()) {
          fail("sendtype", "datatype " + std::to_string(type) + " is not in the rank file's datatype-size table");
        }
        if (counts[i] < 0) fail("sendcounts", std::to_string(counts[i]) + " is not a count");
        sent[i] = static_cast<uint64_t>(counts[i]) * static_cast<uint64_t>(std::max<int64_t>(sizes[type], 0));
      }
      b_.alltoallv(me(), TraceComm(c), std::move(sent));
      break;
    }
    case Id::kReduce_scatter: {
      const auto counts = record_.array("recvcounts");
      const size_t pos = position();
      if (pos >= counts.size()) {
        fail("recvcounts", std::to_string(counts.size()) + " counts for a communicator of " +
                               std::to_string(members.size()) + " members");
      }
      if (counts[pos] < 0) fail("recvcounts", std::to_string(counts[pos]) + " is not a count");
      b_.collective(me(), TraceOp::kReduceScatter, TraceComm(c), std::nullopt, 0,
                    static_cast<uint64_t>(counts[pos]) * type_size("datatype"));
      break;
    }
    default:
      break;
  }
}

// Binds the handles the rank's communicator-making calls give, as the first
// reading resolved them.
void RankReader::track_comms() {
  const Id id = static_cast<Id>(record_.call->id);
  if (creates_comm(id)) {
    const auto handle = static_cast<uint16_t>(record_.get("newcomm"));
    comms_.comm[handle] = s_.made[rank_].at(made_++);
    comms_.maker[handle] = mpi_name(*record_.call) + " of an unknown communicator";
  } else if (makes_unfollowed_comm(id)) {
    const auto handle = static_cast<uint16_t>(record_.get(new_comm_field(id)));
    comms_.comm[handle] = kUnfollowed;
    comms_.maker[handle] = mpi_name(*record_.call);
  } else if (id == Id::kComm_free) {
    comms_.comm.erase(static_cast<uint16_t>(record_.get("comm")));
  }
}

void RankReader::import_record() {
  const Record& r = record_;
  const Id id = static_cast<Id>(r.call->id);
  if (id == Id::kFunction_enter || id == Id::kFunction_exit) {
    ++s_.annotation_records;
    return;
  }
  const uint64_t begin = start_ns();
  const uint64_t stop = r.wall_stop - s_.origin_ns + shift();
  const std::optional<uint64_t> cpu_start = s_.all_cpu ? std::optional(r.cpu_start) : std::nullopt;
  const std::optional<uint64_t> cpu_stop = s_.all_cpu ? std::optional(r.cpu_stop) : std::nullopt;
  b_.at(me(), r.index);
  b_.now(begin, begin);
  b_.begin_rank(me(), begin);
  b_.enter_call(me(), begin, mpi_name(*r.call), cpu_start);
  b_.now(stop, begin);  // what the call received is recorded as it returns
  const Status* status = r.statuses.empty() ? nullptr : &r.statuses.front();
  const auto status_at = [&](size_t i) -> const Status* { return i < r.statuses.size() ? &r.statuses[i] : nullptr; };
  switch (id) {
    case Id::kSend:
    case Id::kBsend:
    case Id::kSsend:
    case Id::kRsend:
      send("count", "datatype", "dest", "tag", std::nullopt);
      break;
    case Id::kIsend:
    case Id::kIbsend:
    case Id::kIssend:
    case Id::kIrsend:
      send("count", "datatype", "dest", "tag", r.get("request"));
      break;
    case Id::kRecv:
      recv_posted("count", "datatype", "source", "tag", std::nullopt, status);
      break;
    case Id::kIrecv:
      recv_posted("count", "datatype", "source", "tag", r.get("request"), nullptr);
      break;
    case Id::kSendrecv:
      send("sendcount", "sendtype", "dest", "sendtag", std::nullopt);
      recv_posted("recvcount", "recvtype", "source", "recvtag", std::nullopt, status);
      break;
    case Id::kSendrecv_replace:
      send("count", "datatype", "dest", "sendtag", std::nullopt);
      recv_posted("count", "datatype", "source", "recvtag", std::nullopt, status);
      break;
    case Id::kSend_init:
    case Id::kBsend_init:
    case Id::kSsend_init:
    case Id::kRsend_init:
    case Id::kRecv_init: {
      const bool receive = id == Id::kRecv_init;
      const int64_t peer = r.get(receive ? "source" : "dest");
      Request req{Request::Kind::kNull, true, false, 0, 0, 0, 0, mpi_name(*r.call)};
      if (!proc_null(peer)) {
        const uint32_t c = comm();
        if (receive) {
          req.kind = Request::Kind::kRecv;
          req.peer = peer == kAnySource ? kAnySource : world(c, peer, "source");
        } else {
          req.kind = Request::Kind::kSend;
          req.peer = world(c, peer, "dest");
        }
        req.comm = c;
        req.tag = r.get("tag");
        req.bytes = bytes("count", "datatype");
      } else {
        ++s_.proc_null[mpi_name(*r.call)];
      }
      requests_[r.get("request")] = req;
      break;
    }
    case Id::kStart:
      start(r.get("request"));
      break;
    case Id::kStartall:
      for (int64_t request : r.array("requests")) start(request);
      break;
    case Id::kWait:
      complete(r.get("request"), status);
      break;
    case Id::kTest:
      if (r.get("flag") != 0) complete(r.get("request"), status);
      break;
    case Id::kWaitany:
    case Id::kTestany: {
      const int64_t index = r.get("index");
      const auto requests = r.array("requests");
      if ((id == Id::kWaitany || r.get("flag") != 0) && index >= 0) {
        if (static_cast<uint64_t>(index) >= requests.size())
          fail("index", std::to_string(index) + " is beyond the requests");
        complete(requests[static_cast<size_t>(index)], status);
      }
      break;
    }
    case Id::kWaitall:
    case Id::kTestall: {
      if (id == Id::kTestall && r.get("flag") == 0) break;
      const auto requests = r.array("requests");
      for (size_t i = 0; i < requests.size(); ++i) complete(requests[i], status_at(i));
      break;
    }
    case Id::kWaitsome:
    case Id::kTestsome: {
      const auto requests = r.array("requests");
      const auto indices = r.array("indices");
      for (size_t i = 0; i < indices.size(); ++i) {
        if (indices[i] < 0 || static_cast<uint64_t>(indices[i]) >= requests.size()) {
          fail("indices", std::to_string(indices[i]) + " is beyond the requests");
        }
        complete(requests[static_cast<size_t>(indices[i])], status_at(i));
      }
      break;
    }
    case Id::kRequest_free: {
      const int64_t request = r.get("request");
      const auto found = requests_.find(request);
      if (found == requests_.end()) break;
      if (found->second.active && found->second.kind != Request::Kind::kNull) {
        // Freed while active: completes, as far as the trace can tell, here.
        ++s_.freed_requests;
        found->second.persistent = false;
        complete(request, nullptr);
      } else {
        requests_.erase(found);
      }
      break;
    }
    default:
      if (moves_data(id)) {
        if (r.get("comm") == kCommSelf) {
          ++s_.self_collectives;
          b_.moves_nothing(me());
          break;
        }
        collective();
      }
      break;
  }
  if (is_local_call(id)) b_.moves_nothing(me());
  track_comms();
  b_.leave_call(me(), stop, cpu_stop);
}

}  // namespace

void DumpiSource::read_events(ImportBuilder& builder) {
  State& s = *state_;
  s.annotation_records = 0;
  s.proc_null.clear();
  s.statusless_receives = s.freed_requests = s.self_collectives = 0;
  std::vector<std::unique_ptr<RankReader>> readers;
  // Ranks merged by the start of their next call.
  using Next = std::pair<uint64_t, uint32_t>;
  std::priority_queue<Next, std::vector<Next>, std::greater<>> order;
  for (uint32_t rank = 0; rank < s.run.processes; ++rank) {
    readers.push_back(std::make_unique<RankReader>(s, builder, rank));
    if (readers.back()->advance()) order.emplace(readers.back()->start_ns(), rank);
  }
  while (!order.empty()) {
    const uint32_t rank = order.top().second;
    order.pop();
    RankReader& reader = *readers[rank];
    reader.import_record();
    if (reader.advance()) {
      const uint64_t next = reader.start_ns();
      order.emplace(next, rank);
    }
  }
  TraceHeader& h = s.header;
  for (const auto& [call, count] : s.proc_null) {
    h.notes.push_back("import: " + std::to_string(count) + " " + call +
                      " calls with MPI_PROC_NULL as their peer: no message");
  }
  if (s.statusless_receives > 0) {
    h.notes.push_back(
        "import: repaired " + std::to_string(s.statusless_receives) +
        ": receives completed without a recorded status: sender and tag as posted, size from the matching send");
  }
  if (s.freed_requests > 0) {
    h.notes.push_back("import: repaired " + std::to_string(s.freed_requests) +
                      ": requests freed while active (MPI_Request_free): completed at the free");
  }
  if (s.self_collectives > 0) {
    h.notes.push_back("import: " + std::to_string(s.self_collectives) +
                      " collectives on MPI_COMM_SELF left out (they move nothing between ranks)");
  }
  if (s.annotation_records > 0) {
    h.notes.push_back("import: skipped " + std::to_string(s.annotation_records) +
                      " DUMPI function-entry/exit and annotation records (no MPI calls)");
  }
}

}  // namespace ibsec::traces
