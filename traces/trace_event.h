// One event of a process in an ibsec trace (docs/trace-format.md): what the
// process did, with whom, and when it began and returned in the original run.
// The ops, their arguments and argument layouts come from
// traces/trace_ops.def, which the capture library (C) reads too.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ibsec::traces {

// An argument of an event line.
enum class TraceArg : uint8_t {
#define TRACE_ARG(Id, text, slot, member, max, words, since) k##Id,
#include "traces/trace_ops.def"
  kNone,  // fills a layout's places after its last argument; not an argument
};

// Which arguments an op's text line carries, in order.
enum class ArgLayout : uint8_t {
#define TRACE_LAYOUT(Id, arg1, arg2, arg3, arg4, arg5, arg6) k##Id,
#include "traces/trace_ops.def"
};

// Values are the binary encoding's op byte; do not renumber.
enum class TraceOp : uint8_t {
#define TRACE_OP(Id, ID, text, code, layout, role, counts, since, blocking) k##Id = code,
#include "traces/trace_ops.def"
};

struct TraceArgInfo {
  std::string_view name;   // as the format's documentation and error messages call it
  uint64_t max;            // the largest value a trace may give it
  std::string_view words;  // empty for a number, else the words for 0, 1, ... separated by spaces
  uint32_t since;          // the format version that added it

  // The word an event line uses for `value` (at most max), if the argument is a word.
  [[nodiscard]] constexpr std::string_view word(uint64_t value) const {
    std::string_view rest = words;
    for (; value > 0; --value) rest.remove_prefix(rest.find(' ') + 1);
    return rest.substr(0, rest.find(' '));
  }
  // The value of `text` if it is one of the words.
  [[nodiscard]] constexpr std::optional<uint64_t> value_of(std::string_view text) const {
    for (uint64_t value = 0; value <= max && !words.empty(); ++value) {
      if (word(value) == text) return value;
    }
    return std::nullopt;
  }
};

inline constexpr auto kTraceArgs = std::to_array<TraceArgInfo>({
#define TRACE_ARG(Id, text, slot, member, max, words, since) {text, max, words, since},
#include "traces/trace_ops.def"
});
inline constexpr size_t kTraceArgCount = kTraceArgs.size();

inline constexpr size_t kMaxTraceArgs = 6;

struct ArgLayoutInfo {
  std::array<TraceArg, kMaxTraceArgs> places;  // TraceArg::kNone after the last argument
  size_t count = 0;

  [[nodiscard]] constexpr std::span<const TraceArg> args() const { return {places.data(), count}; }
  [[nodiscard]] constexpr bool has(TraceArg arg) const {
    for (TraceArg a : args()) {
      if (a == arg) return true;
    }
    return false;
  }
};

// Counts the arguments, which must all come before the first kNone.
constexpr ArgLayoutInfo make_layout(std::array<TraceArg, kMaxTraceArgs> places) {
  ArgLayoutInfo layout{places, 0};
  while (layout.count < kMaxTraceArgs && places[layout.count] != TraceArg::kNone) ++layout.count;
  for (size_t i = layout.count; i < kMaxTraceArgs; ++i) {
    if (places[i] != TraceArg::kNone) throw "trace_ops.def: a layout has an argument after None";
  }
  return layout;
}

inline constexpr auto kArgLayouts = std::to_array<ArgLayoutInfo>({
#define TRACE_LAYOUT(Id, arg1, arg2, arg3, arg4, arg5, arg6)                                                  \
  make_layout({TraceArg::k##arg1, TraceArg::k##arg2, TraceArg::k##arg3, TraceArg::k##arg4, TraceArg::k##arg5, \
               TraceArg::k##arg6}),
#include "traces/trace_ops.def"
});

// What an op does (TRACE_OP's role).
enum class OpRole : uint8_t { kCompute, kSend, kReceive, kWait, kCollective };

// The role's word in `registries --json`.
constexpr std::string_view name(OpRole role) {
  constexpr std::array<std::string_view, 5> kNames = {"compute", "send", "receive", "wait", "collective"};
  return kNames[static_cast<size_t>(role)];
}

struct TraceOpInfo {
  std::string_view name;  // its word in an event line
  uint8_t code;           // its op byte in the binary encoding
  ArgLayout layout;
  OpRole role;
  bool collective;   // called by every member of the communicator its first argument names (role kCollective)
  bool counts;       // its line ends with one byte count per member of the communicator
  uint32_t since;    // the format version that added it
  TraceOp blocking;  // the op whose messages it sends: itself, or a non-blocking collective's blocking form
};

inline constexpr auto kTraceOps = std::to_array<TraceOpInfo>({
#define TRACE_OP(Id, ID, text, code, layout, role, counts, since, blocking)                             \
  {text,          code,  ArgLayout::k##layout, OpRole::k##role, OpRole::k##role == OpRole::kCollective, \
   (counts) != 0, since, TraceOp::k##blocking},
#include "traces/trace_ops.def"
});
inline constexpr int kTraceOpCount = static_cast<int>(kTraceOps.size());

constexpr const TraceArgInfo& info(TraceArg arg) { return kTraceArgs[static_cast<size_t>(arg)]; }
constexpr const ArgLayoutInfo& info(ArgLayout layout) { return kArgLayouts[static_cast<size_t>(layout)]; }
constexpr const TraceOpInfo& info(TraceOp op) { return kTraceOps[static_cast<size_t>(op)]; }
constexpr std::string_view name(TraceOp op) { return info(op).name; }
// The arguments of the op's event line, in order.
constexpr std::span<const TraceArg> arguments(TraceOp op) { return info(info(op).layout).args(); }
// Those a line of format `version` carries: the ones that version had, which
// come first (trace_op_arguments_by_version checks it); the rest read as 0.
constexpr std::span<const TraceArg> arguments(TraceOp op, uint32_t version) {
  const auto all = arguments(op);
  size_t count = 0;
  while (count < all.size() && info(all[count]).since <= version) ++count;
  return all.first(count);
}
constexpr bool has_argument(TraceOp op, TraceArg arg) { return info(info(op).layout).has(arg); }

// Op codes index kTraceOps.
constexpr bool trace_op_codes_dense() {
  for (size_t i = 0; i < kTraceOps.size(); ++i) {
    if (kTraceOps[i].code != i) return false;
  }
  return true;
}
static_assert(trace_op_codes_dense(), "trace_ops.def: ops must be listed with codes 0, 1, 2, ... in order");

// A collective's first argument is its communicator, and only a collective has one.
constexpr bool trace_op_collectives_name_comm() {
  for (const TraceOpInfo& op : kTraceOps) {
    const auto args = info(op.layout).args();
    if (op.collective != (!args.empty() && args.front() == TraceArg::kComm)) return false;
  }
  return true;
}
static_assert(trace_op_collectives_name_comm(),
              "trace_ops.def: an op is collective if and only if it starts with Comm");

// A send or receive names its peer, and nothing else does.
constexpr bool trace_op_point_to_point_names_peer() {
  for (const TraceOpInfo& op : kTraceOps) {
    const bool point_to_point = op.role == OpRole::kSend || op.role == OpRole::kReceive;
    if (point_to_point != info(op.layout).has(TraceArg::kPeer)) return false;
  }
  return true;
}
static_assert(trace_op_point_to_point_names_peer(),
              "trace_ops.def: an op has role Send or Receive if and only if it has a Peer");

inline std::optional<TraceOp> trace_op_named(std::string_view text) {
  for (size_t i = 0; i < kTraceOps.size(); ++i) {
    if (kTraceOps[i].name == text) return static_cast<TraceOp>(i);
  }
  return std::nullopt;
}

constexpr bool is_collective(TraceOp op) { return info(op).collective; }
constexpr bool is_send(TraceOp op) { return info(op).role == OpRole::kSend; }
constexpr bool is_receive(TraceOp op) { return info(op).role == OpRole::kReceive; }
constexpr bool opens_request(TraceOp op) { return op != TraceOp::kWait && has_argument(op, TraceArg::kReq); }
constexpr bool has_root(TraceOp op) { return has_argument(op, TraceArg::kRoot); }
constexpr bool has_counts(TraceOp op) { return info(op).counts; }
constexpr TraceOp blocking_form(TraceOp op) { return info(op).blocking; }
constexpr bool in_version(TraceOp op, uint32_t version) { return info(op).since <= version; }

// A non-blocking collective sends what its blocking form does, and only a
// non-blocking collective names another op as its blocking form.
constexpr bool trace_op_blocking_forms_valid() {
  for (size_t i = 0; i < kTraceOps.size(); ++i) {
    const TraceOpInfo& op = kTraceOps[i];
    const auto form = static_cast<size_t>(op.blocking);
    const bool own = form == i;
    if (!own && (!op.collective || !kTraceOps[form].collective || kTraceOps[form].blocking != op.blocking ||
                 kTraceOps[form].counts != op.counts || !info(op.layout).has(TraceArg::kReq)))
      return false;
    if (op.since == 0) return false;
  }
  return true;
}
static_assert(trace_op_blocking_forms_valid(), "trace_ops.def: a blocking form or a version is wrong");

// In every layout, an argument added by a later version comes after those of
// earlier ones, so that a line of an older version carries a prefix of them.
constexpr bool trace_op_arguments_by_version() {
  for (const ArgLayoutInfo& layout : kArgLayouts) {
    for (size_t i = 1; i < layout.count; ++i) {
      if (info(layout.places[i]).since < info(layout.places[i - 1]).since) return false;
    }
  }
  return true;
}
static_assert(trace_op_arguments_by_version(), "trace_ops.def: a layout lists a newer argument before an older one");

// Fields an op does not use are zero, so that equal events compare equal.
struct TraceEvent {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t bytes = 0;
  uint32_t rank = 0;
  uint32_t peer = 0;  // point-to-point partner (world rank)
  uint32_t tag = 0;
  uint32_t request = 0;
  uint32_t comm = 0;    // communicator id (0 = world)
  uint32_t root = 0;    // rooted collectives: world rank
  uint8_t posted = 0;   // receives: 1 if posted with MPI_ANY_SOURCE (peer is the source that matched)
  uint64_t cpu_ns = 0;  // compute (version 3): the part of START..END the process spent on a CPU
  TraceOp op = TraceOp::kCompute;
  // Ops with counts: one byte count per member of the communicator, in
  // communicator-rank order; `bytes` is their sum. Shared, so that an event
  // is cheap to copy; null for every other op.
  std::shared_ptr<const std::vector<uint32_t>> counts;

  bool operator==(const TraceEvent& other) const {
    auto fields = [](const TraceEvent& e) {
      return std::tie(e.start_ns, e.end_ns, e.bytes, e.rank, e.peer, e.tag, e.request, e.comm, e.root, e.posted,
                      e.cpu_ns, e.op);
    };
    const bool same_counts = counts == other.counts || (counts && other.counts && *counts == *other.counts);
    return fields(*this) == fields(other) && same_counts;
  }
};

// Each argument's member can hold every value the format allows it.
#define TRACE_ARG(Id, text, slot, member, largest, words, since)                       \
  static_assert((largest) <= std::numeric_limits<decltype(TraceEvent::member)>::max(), \
                "trace_ops.def: TraceEvent::" #member " cannot hold every value of " text);
#include "traces/trace_ops.def"

// The field of TraceEvent that holds an argument (TRACE_ARG's member).
constexpr uint64_t argument(const TraceEvent& event, TraceArg arg) {
  switch (arg) {
#define TRACE_ARG(Id, text, slot, member, max, words, since) \
  case TraceArg::k##Id:                                      \
    return event.member;
#include "traces/trace_ops.def"
    case TraceArg::kNone:
      break;
  }
  return 0;
}

// `value` must be at most the argument's max (the reader checks it first).
constexpr void set_argument(TraceEvent& event, TraceArg arg, uint64_t value) {
  switch (arg) {
#define TRACE_ARG(Id, text, slot, member, max, words, since)         \
  case TraceArg::k##Id:                                              \
    event.member = static_cast<decltype(TraceEvent::member)>(value); \
    break;
#include "traces/trace_ops.def"
    case TraceArg::kNone:
      break;
  }
}

// The op table for `ibsec-engine registries --json`, in code order:
// [{"name": "send", "code": 1, "arguments": ["peer", "bytes", "tag"], "collective": false}, ...].
nlohmann::ordered_json trace_ops_json();

}  // namespace ibsec::traces
