// A trace is malformed or inconsistent. The message names the file, where in
// it (text line, binary record, or the end) and the field at fault:
//   ring.trace:118: field 'peer': 7 is not a rank (the trace has 4 processes)
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace ibsec::traces {

// Where in a trace something is. Lines and records count from 1. An
// imported source (traces/import) is read rank by rank: there a place is a
// rank and the index of an event among that rank's records.
struct TraceLocation {
  enum class Kind : uint8_t { kFile, kLine, kRecord, kEvent, kEnd, kRankEvent };
  Kind kind = Kind::kFile;
  uint64_t index = 0;
  uint32_t rank = 0;  // kRankEvent only

  static TraceLocation file() { return {Kind::kFile, 0}; }
  static TraceLocation line(uint64_t n) { return {Kind::kLine, n}; }
  static TraceLocation record(uint64_t n) { return {Kind::kRecord, n}; }
  // The n-th event of a trace being made, before it is in a file.
  static TraceLocation event(uint64_t n) { return {Kind::kEvent, n}; }
  static TraceLocation end() { return {Kind::kEnd, 0}; }
  static TraceLocation rank_event(uint32_t rank, uint64_t n) { return {Kind::kRankEvent, n, rank}; }

  // "line 12", "record 12", "end of trace" or "" for the file as a whole.
  [[nodiscard]] std::string describe() const {
    switch (kind) {
      case Kind::kLine:
        return "line " + std::to_string(index);
      case Kind::kRecord:
        return "record " + std::to_string(index);
      case Kind::kEvent:
        return "event " + std::to_string(index);
      case Kind::kEnd:
        return "end of trace";
      case Kind::kRankEvent:
        return "rank " + std::to_string(rank) + ", event " + std::to_string(index);
      case Kind::kFile:
        break;
    }
    return "";
  }
};

class TraceError : public std::runtime_error {
 public:
  TraceError(const std::string& file, TraceLocation where, const std::string& field, const std::string& problem)
      : std::runtime_error(compose(file, where, field, problem)), field_(field) {}
  [[nodiscard]] const std::string& field() const { return field_; }

 private:
  // Text lines read as file:line like a compiler's messages.
  static std::string compose(const std::string& file, TraceLocation where, const std::string& field,
                             const std::string& problem) {
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "..." + string where this is inlined.
    std::string text = file;
    if (where.kind == TraceLocation::Kind::kLine) {
      text += ':';
      text += std::to_string(where.index);
    } else if (where.kind != TraceLocation::Kind::kFile) {
      text += ": ";
      text += where.describe();
    }
    text += ": ";
    if (!field.empty()) {
      text += "field '";
      text += field;
      text += "': ";
    }
    return text + problem;
  }
  std::string field_;
};

}  // namespace ibsec::traces
