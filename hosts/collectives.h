// Collective operations as the point-to-point messages a replay sends
// (docs/replay.md, "Collectives"). Each algorithm is one registry entry: a
// name, a description and the function that gives one member's rounds. Each
// collective op registers its algorithms and its decision table from its own
// file under hosts/collectives/, so a new op (or algorithm) is a new file.
//
// Which algorithm a call uses is a CollectiveChoice: Open MPI 4.1's coll/tuned
// fixed decision rules by communicator size and message size (`tuned`), the
// one algorithm per op the replay used before (`simple`), or an algorithm
// forced per op (replay.collectives, replay.collective.<op>). The collectives
// with one byte count per member (alltoallv, ...) have one algorithm each, in
// hosts/vector_collectives.h.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/registry.h"
#include "traces/trace_event.h"

namespace ibsec::hosts {

using traces::TraceOp;

struct Transfer {
  uint32_t peer = 0;  // communicator rank
  uint64_t bytes = 0;
  bool operator==(const Transfer&) const = default;
};

// One round: the process posts `receives`, hands over `sends`, and goes on
// to the next round once all of them have completed.
struct CollectiveRound {
  std::vector<Transfer> sends;
  std::vector<Transfer> receives;
};
using Rounds = std::vector<CollectiveRound>;

// One call of a collective, as one member sees it.
struct CollectiveCall {
  uint32_t size = 1;   // members of the communicator
  uint32_t rank = 0;   // this member's communicator rank
  uint32_t root = 0;   // the root's communicator rank (rooted collectives)
  uint64_t bytes = 0;  // as in the trace (docs/trace-format.md)
};

// One algorithm of one collective op.
struct CollectiveAlgorithm {
  std::string name;       // "<op>.<algorithm>", unique across ops (the registry's key)
  TraceOp op;             // the op it implements
  std::string algorithm;  // its name for the op, as a configuration gives it (e.g. "ring")
  std::string description;
  Rounds (*rounds)(const CollectiveCall&);
};

class CollectiveAlgorithms : public Registry<CollectiveAlgorithm> {
 public:
  // Registers `algorithm` for `op`, from the op's file at start-up.
  static bool add(TraceOp op, std::string algorithm, std::string description, Rounds (*rounds)(const CollectiveCall&));
  // Null if `op` has no algorithm of that name.
  static const CollectiveAlgorithm* find(TraceOp op, const std::string& algorithm);
  // The algorithm names of `op`, sorted.
  static std::vector<std::string> of(TraceOp op);
};

// A decision table transcribed from Open MPI's source: for the first row
// whose communicator size is below `below_size`, the first rule whose
// message size is below `below_bytes` gives Open MPI's algorithm number,
// which `ompi_algorithms` maps to a registered algorithm.
struct SizeRule {
  uint64_t below_bytes;
  int ompi_algorithm;
};
struct DecisionRow {
  uint32_t below_size;
  std::vector<SizeRule> rules;
};
inline constexpr uint32_t kAnySize = UINT32_MAX;
inline constexpr uint64_t kAnyBytes = UINT64_MAX;

// A collective op's choices: the one algorithm of the `simple` scheme, and
// the `tuned` decision table.
struct CollectiveOp {
  std::string name;  // the op's word in traces, e.g. "allreduce" (the registry's key)
  TraceOp op;
  std::string simple;
  std::vector<DecisionRow> tuned;
  std::map<int, std::string> ompi_algorithms;  // Open MPI's number -> registered algorithm
};

class CollectiveOps : public Registry<CollectiveOp> {
 public:
  // Null if `op` registered no choices (it is not a collective).
  static const CollectiveOp* find(TraceOp op);
  // The algorithm Open MPI 4.1's fixed rules choose for `size` members and `bytes`.
  static const CollectiveAlgorithm& tuned(TraceOp op, uint32_t size, uint64_t bytes);
};

enum class CollectiveScheme : uint8_t { kTuned, kSimple };

class CollectiveChoice {
 public:
  // `forced`: op -> algorithm, overriding the scheme for that op.
  explicit CollectiveChoice(CollectiveScheme scheme, std::map<TraceOp, std::string> forced = {});
  [[nodiscard]] const CollectiveAlgorithm& choose(TraceOp op, uint32_t size, uint64_t bytes) const;

 private:
  CollectiveScheme scheme_;
  std::map<TraceOp, std::string> forced_;
};

// The rounds communicator rank `rank` of `size` goes through in a call of
// `op`. `root` is a communicator rank; `bytes` as in the trace.
Rounds expand_collective(TraceOp op, uint32_t size, uint32_t rank, uint32_t root, uint64_t bytes,
                         const CollectiveChoice& choice);

}  // namespace ibsec::hosts
