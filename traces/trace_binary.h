// The fixed layout of the binary encoding (docs/trace-format.md, "Binary
// encoding"), written once for the reader and the writer: the preamble
// before the header text, the fields of a record and which field carries
// each argument of an event line.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "traces/trace_event.h"

namespace ibsec::traces {

static_assert(std::endian::native == std::endian::little, "the binary trace encoding is read and written in place");

// An unsigned little-endian integer of `size` bytes (1, 2, 4 or 8) at `offset`.
struct BinaryField {
  std::string_view name;  // as docs/trace-format.md names it
  size_t offset;
  size_t size;

  [[nodiscard]] constexpr size_t end() const { return offset + size; }
  constexpr bool operator==(const BinaryField& other) const { return offset == other.offset; }
};

// Fields are 1, 2, 4 or 8 bytes wide: copies of a known width compile to one
// load or store, where a copy of a run-time width would call memcpy.
template <typename T>
T load_as(const unsigned char* at) {
  T value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

inline uint64_t load(const unsigned char* record, BinaryField field) {
  const unsigned char* at = record + field.offset;
  switch (field.size) {
    case 1:
      return *at;
    case 2:
      return load_as<uint16_t>(at);
    case 4:
      return load_as<uint32_t>(at);
    default:
      return load_as<uint64_t>(at);
  }
}

template <typename T>
void store_as(unsigned char* at, uint64_t value) {
  const auto narrow = static_cast<T>(value);
  std::memcpy(at, &narrow, sizeof narrow);
}

// `value` must fit the field; the writer's do (TraceArgInfo::max).
inline void store(unsigned char* record, BinaryField field, uint64_t value) {
  unsigned char* at = record + field.offset;
  switch (field.size) {
    case 1:
      *at = static_cast<unsigned char>(value);
      break;
    case 2:
      store_as<uint16_t>(at, value);
      break;
    case 4:
      store_as<uint32_t>(at, value);
      break;
    default:
      store_as<uint64_t>(at, value);
      break;
  }
}

inline constexpr std::string_view kBinaryMagic = "IBSECTRB";

// What follows the magic: the format version and the length of the header text.
struct BinaryPreamble {
  static constexpr BinaryField version{"version", 0, 4};
  static constexpr BinaryField header_length{"header length", 4, 4};
  static constexpr size_t size = 8;
};
static_assert(BinaryPreamble::version.end() == BinaryPreamble::header_length.offset);
static_assert(BinaryPreamble::header_length.end() == BinaryPreamble::size);

// One record: an event, or the trailer (op kBinaryTrailerOp, `bytes` the
// number of event records, every other byte zero), or a counts record
// (below). Version 1 had no `flags` and `d`: its records have zeros there,
// which read as a point-to-point event on the world, posted exactly.
struct BinaryRecordLayout {
  static constexpr BinaryField start{"start", 0, 8};
  static constexpr BinaryField end{"end", 8, 8};
  static constexpr BinaryField bytes{"bytes", 16, 8};
  static constexpr BinaryField rank{"rank", 24, 4};
  static constexpr BinaryField a{"a", 28, 4};  // PEER, or COMM for collectives
  static constexpr BinaryField b{"b", 32, 4};  // TAG, or ROOT for rooted collectives
  static constexpr BinaryField c{"c", 36, 4};  // REQ
  static constexpr BinaryField op{"op", 40, 1};
  static constexpr BinaryField flags{"flags", 41, 1};  // POSTED
  static constexpr size_t padding = 42;                // two zero bytes up to `d`
  static constexpr BinaryField d{"d", 44, 4};          // COMM of a point-to-point event
  static constexpr size_t size = 48;

  // The fields that carry arguments (TRACE_ARG's slot in traces/trace_ops.def),
  // in the order the reader checks that those an op does not use are zero.
  static constexpr std::array<BinaryField, 6> argument_fields{bytes, a, b, c, d, flags};
};

// The fields follow each other from offset 0 without gap or overlap (but for
// the padding before `d`), each of a width load() and store() know.
constexpr bool binary_record_layout_valid() {
  using R = BinaryRecordLayout;
  constexpr std::array<BinaryField, 9> kInOrder{R::start, R::end, R::bytes, R::rank, R::a, R::b, R::c, R::op, R::flags};
  for (size_t i = 0; i < kInOrder.size(); ++i) {
    if (i > 0 && kInOrder[i - 1].end() != kInOrder[i].offset) return false;
    if (!std::has_single_bit(kInOrder[i].size) || kInOrder[i].size > 8) return false;
  }
  return kInOrder.front().offset == 0 && kInOrder.back().end() == R::padding && R::padding < R::d.offset &&
         R::d.end() == R::size;
}
static_assert(binary_record_layout_valid(), "BinaryRecordLayout: fields must tile the record");

inline constexpr uint8_t kBinaryTrailerOp = 255;
inline constexpr uint8_t kBinaryCountsOp = 254;
static_assert(kTraceOpCount <= kBinaryCountsOp, "op codes must stay below the counts record's and the trailer's");

// The COUNTS of an event follow its record in as many counts records as they
// need: `per_record` little-endian u32 counts from offset 0, then the op byte
// kBinaryCountsOp at BinaryRecordLayout::op; places after the last count and
// every other byte are zero.
struct BinaryCountsLayout {
  static constexpr size_t count_size = 4;
  static constexpr size_t per_record = BinaryRecordLayout::op.offset / count_size;

  static constexpr size_t records_for(size_t counts) { return (counts + per_record - 1) / per_record; }
  static constexpr BinaryField count(size_t i) { return {"counts", i * count_size, count_size}; }
};

// The field of a record that carries each argument, indexed by TraceArg.
inline constexpr std::array<BinaryField, kTraceArgCount> kArgumentFields{{
#define TRACE_ARG(Id, text, slot, member, max, words, since) BinaryRecordLayout::slot,
#include "traces/trace_ops.def"
}};

constexpr const BinaryField& field_of(TraceArg arg) { return kArgumentFields[static_cast<size_t>(arg)]; }

// Every value an argument may take fits its field.
constexpr bool arguments_fit_their_fields() {
  for (size_t i = 0; i < kTraceArgCount; ++i) {
    const size_t bits = 8 * kArgumentFields[i].size;
    if (bits < 64 && (kTraceArgs[i].max >> bits) != 0) return false;
  }
  return true;
}
static_assert(arguments_fit_their_fields(), "trace_ops.def: an argument's max does not fit its binary field");

}  // namespace ibsec::traces
