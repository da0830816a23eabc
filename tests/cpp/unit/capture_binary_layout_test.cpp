// The capture library (C) writes binary traces from its own copy of the
// layout (traces/capture/capture_binary.h); every offset and size there must
// be the engine's (traces/trace_binary.h). Checked when this file compiles.
#include <gtest/gtest.h>

#include <string_view>

#include "traces/capture/capture_binary.h"
#include "traces/trace_binary.h"

namespace ibsec::traces {
namespace {

constexpr bool same(const BinaryField& field, size_t offset, size_t size) {
  return field.offset == offset && field.size == size;
}

#define SAME_FIELD(field) same(BinaryRecordLayout::field, BIN_OFFSET_##field, BIN_SIZE_##field)
static_assert(SAME_FIELD(start) && SAME_FIELD(end) && SAME_FIELD(bytes) && SAME_FIELD(rank) && SAME_FIELD(a) &&
                  SAME_FIELD(b) && SAME_FIELD(c) && SAME_FIELD(op) && SAME_FIELD(flags) && SAME_FIELD(d),
              "capture_binary.h: a record field differs from trace_binary.h");
#undef SAME_FIELD
static_assert(BinaryRecordLayout::padding == BIN_PADDING && BinaryRecordLayout::size == BIN_RECORD_SIZE);
static_assert(same(BinaryPreamble::version, BIN_PREAMBLE_VERSION_OFFSET, BIN_PREAMBLE_VERSION_SIZE) &&
                  same(BinaryPreamble::header_length, BIN_PREAMBLE_HEADER_LENGTH_OFFSET,
                       BIN_PREAMBLE_HEADER_LENGTH_SIZE) &&
                  BinaryPreamble::size == BIN_PREAMBLE_SIZE,
              "capture_binary.h: the preamble differs from trace_binary.h");
static_assert(kBinaryMagic == std::string_view(BIN_MAGIC) && kBinaryMagic.size() == BIN_MAGIC_SIZE);
static_assert(kBinaryTrailerOp == BIN_TRAILER_OP && kBinaryCountsOp == BIN_COUNTS_OP);
static_assert(BinaryCountsLayout::count_size == BIN_COUNT_SIZE &&
              BinaryCountsLayout::per_record == BIN_COUNTS_PER_RECORD);

// Every argument's slot (trace_ops.def) is a field both layouts name alike.
#define TRACE_ARG(Id, text, slot, member, max, words, since)                         \
  static_assert(same(field_of(TraceArg::k##Id), BIN_OFFSET_##slot, BIN_SIZE_##slot), \
                "capture_binary.h: the field of argument " text " differs from trace_binary.h");
#include "traces/trace_ops.def"

TEST(CaptureBinaryLayout, MatchesTheEngineAtCompileTime) { SUCCEED(); }

}  // namespace
}  // namespace ibsec::traces
