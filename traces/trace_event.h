// One event of a process in an ibsec trace (docs/trace-format.md): what the
// process did, with whom, and when it began and returned in the original run.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ibsec::traces {

// Values are the binary encoding's op byte; do not renumber.
enum class TraceOp : uint8_t {
  kCompute = 0,
  kSend = 1,
  kRecv = 2,
  kIsend = 3,
  kIrecv = 4,
  kWait = 5,
  kBarrier = 6,
  kBcast = 7,
  kReduce = 8,
  kGather = 9,
  kScatter = 10,
  kAllreduce = 11,
  kAllgather = 12,
  kAlltoall = 13,
};
inline constexpr int kTraceOpCount = 14;

// Which arguments an op's text line carries, in order.
enum class ArgLayout : uint8_t {
  kNone,            // compute
  kPeerBytesTag,    // send, recv
  kPeerBytesTagReq, // isend, irecv
  kReq,             // wait
  kComm,            // barrier
  kCommRootBytes,   // bcast, reduce, gather, scatter
  kCommBytes,       // allreduce, allgather, alltoall
};

struct TraceOpInfo {
  std::string_view name;
  ArgLayout layout;
};

inline constexpr std::array<TraceOpInfo, kTraceOpCount> kTraceOps{{
    {"compute", ArgLayout::kNone},
    {"send", ArgLayout::kPeerBytesTag},
    {"recv", ArgLayout::kPeerBytesTag},
    {"isend", ArgLayout::kPeerBytesTagReq},
    {"irecv", ArgLayout::kPeerBytesTagReq},
    {"wait", ArgLayout::kReq},
    {"barrier", ArgLayout::kComm},
    {"bcast", ArgLayout::kCommRootBytes},
    {"reduce", ArgLayout::kCommRootBytes},
    {"gather", ArgLayout::kCommRootBytes},
    {"scatter", ArgLayout::kCommRootBytes},
    {"allreduce", ArgLayout::kCommBytes},
    {"allgather", ArgLayout::kCommBytes},
    {"alltoall", ArgLayout::kCommBytes},
}};

constexpr const TraceOpInfo& info(TraceOp op) { return kTraceOps[static_cast<size_t>(op)]; }
constexpr std::string_view name(TraceOp op) { return info(op).name; }

inline std::optional<TraceOp> trace_op_named(std::string_view text) {
  for (size_t i = 0; i < kTraceOps.size(); ++i) {
    if (kTraceOps[i].name == text) return static_cast<TraceOp>(i);
  }
  return std::nullopt;
}

constexpr bool is_collective(TraceOp op) { return op >= TraceOp::kBarrier; }
constexpr bool is_send(TraceOp op) { return op == TraceOp::kSend || op == TraceOp::kIsend; }
constexpr bool is_receive(TraceOp op) { return op == TraceOp::kRecv || op == TraceOp::kIrecv; }
constexpr bool opens_request(TraceOp op) { return op == TraceOp::kIsend || op == TraceOp::kIrecv; }
constexpr bool has_root(TraceOp op) { return info(op).layout == ArgLayout::kCommRootBytes; }

// Fields an op does not use are zero, so that equal events compare equal.
struct TraceEvent {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t bytes = 0;
  uint32_t rank = 0;
  uint32_t peer = 0;     // point-to-point partner (world rank)
  uint32_t tag = 0;
  uint32_t request = 0;
  uint32_t comm = 0;     // collectives: communicator id (0 = world)
  uint32_t root = 0;     // rooted collectives: world rank
  TraceOp op = TraceOp::kCompute;

  bool operator==(const TraceEvent&) const = default;
};

}  // namespace ibsec::traces
