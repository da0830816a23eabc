/*
 * The binary encoding of a trace (docs/trace-format.md, "Binary encoding")
 * as libibsec_capture writes it: the C view of traces/trace_binary.h, which
 * the engine's reader and writer use. Each offset is written here once;
 * the _Static_asserts below check that the fields tile the record as
 * trace_binary.h says, and tests/cpp/unit/capture_binary_layout_test.cpp
 * checks at compile time that every offset and size equals the engine's.
 * Plain C, includable from C++.
 */
#ifndef IBSEC_CAPTURE_BINARY_H
#define IBSEC_CAPTURE_BINARY_H

#ifdef __cplusplus
#define BIN_STATIC_ASSERT static_assert
#else
#define BIN_STATIC_ASSERT _Static_assert
#endif

/* Before the header text: the magic, then the version and the length of
 * the header text, each a little-endian u32. */
#define BIN_MAGIC "IBSECTRB"
#define BIN_MAGIC_SIZE 8
#define BIN_PREAMBLE_VERSION_OFFSET 0
#define BIN_PREAMBLE_VERSION_SIZE 4
#define BIN_PREAMBLE_HEADER_LENGTH_OFFSET 4
#define BIN_PREAMBLE_HEADER_LENGTH_SIZE 4
#define BIN_PREAMBLE_SIZE 8

/* A record. BIN_OFFSET_x / BIN_SIZE_x for each field x; the fields that
 * carry arguments are named as TRACE_ARG's slot in traces/trace_ops.def
 * (a, b, c, d, flags, bytes), so that BIN_OFFSET_##slot finds them. */
#define BIN_OFFSET_start 0
#define BIN_SIZE_start 8
#define BIN_OFFSET_end 8
#define BIN_SIZE_end 8
#define BIN_OFFSET_bytes 16
#define BIN_SIZE_bytes 8
#define BIN_OFFSET_rank 24
#define BIN_SIZE_rank 4
#define BIN_OFFSET_a 28
#define BIN_SIZE_a 4
#define BIN_OFFSET_b 32
#define BIN_SIZE_b 4
#define BIN_OFFSET_c 36
#define BIN_SIZE_c 4
#define BIN_OFFSET_op 40
#define BIN_SIZE_op 1
#define BIN_OFFSET_flags 41
#define BIN_SIZE_flags 1
#define BIN_PADDING 42 /* zero bytes up to d */
#define BIN_OFFSET_d 44
#define BIN_SIZE_d 4
#define BIN_RECORD_SIZE 48

/* The op byte of the trailer (whose `bytes` is the number of event records)
 * and of a counts record, which follows an event with COUNTS: BIN_COUNTS_PER_RECORD
 * u32 counts from offset 0, the rest zero. */
#define BIN_TRAILER_OP 255
#define BIN_COUNTS_OP 254
#define BIN_COUNT_SIZE 4
#define BIN_COUNTS_PER_RECORD (BIN_OFFSET_op / BIN_COUNT_SIZE)

#define BIN_END(field) (BIN_OFFSET_##field + BIN_SIZE_##field)
BIN_STATIC_ASSERT(BIN_PREAMBLE_VERSION_OFFSET + BIN_PREAMBLE_VERSION_SIZE == BIN_PREAMBLE_HEADER_LENGTH_OFFSET &&
                      BIN_PREAMBLE_HEADER_LENGTH_OFFSET + BIN_PREAMBLE_HEADER_LENGTH_SIZE == BIN_PREAMBLE_SIZE,
                  "binary preamble: version and header length must tile it");
BIN_STATIC_ASSERT(BIN_OFFSET_start == 0 && BIN_END(start) == BIN_OFFSET_end && BIN_END(end) == BIN_OFFSET_bytes &&
                      BIN_END(bytes) == BIN_OFFSET_rank && BIN_END(rank) == BIN_OFFSET_a &&
                      BIN_END(a) == BIN_OFFSET_b && BIN_END(b) == BIN_OFFSET_c && BIN_END(c) == BIN_OFFSET_op &&
                      BIN_END(op) == BIN_OFFSET_flags && BIN_END(flags) == BIN_PADDING && BIN_PADDING < BIN_OFFSET_d &&
                      BIN_END(d) == BIN_RECORD_SIZE,
                  "binary record: the fields must tile the record");
BIN_STATIC_ASSERT(BIN_COUNTS_PER_RECORD *BIN_COUNT_SIZE <= BIN_OFFSET_op, "counts must end before the op byte");

#endif /* IBSEC_CAPTURE_BINARY_H */
