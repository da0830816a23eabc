// The replay's own parameters (docs/replay.md): where each rank runs, how
// fast the simulated CPUs compute, when a send waits for its receive and
// which algorithm each collective uses. Each default is written once, here; where
// a default models a real system, docs/replay.md gives its source.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/parameters.h"
#include "hosts/collectives.h"
#include "hosts/compute_clock.h"

namespace ibsec::hosts {

struct ReplayParams {
  // "cyclic" (rank r of every job on node r mod nodes), "block" (each job's
  // ranks fill the nodes in rank order), or the path of a placement file.
  std::string placement = "cyclic";
  // Multiplies every compute event and every gap between events: 0.5 models
  // a CPU twice as fast as the traced one.
  double compute_scale = 1.0;
  // Which clock compute events are taken from (hosts/compute_clock.h).
  ComputeClock compute = ComputeClock::kAuto;
  // A send of more bytes goes by rendezvous: Open MPI's openib BTL eager
  // limit, 12 KiB (docs/replay.md cites it). The largest value disables
  // rendezvous.
  uint64_t eager_limit_bytes = 12 * 1024;
  // How collectives choose their algorithm: Open MPI 4.1's fixed decision
  // rules (tuned) or one algorithm per op (simple).
  CollectiveScheme collectives = CollectiveScheme::kTuned;
  // Per op, an algorithm used whatever the scheme (absent: the scheme's).
  std::map<TraceOp, std::string> forced_collectives;
  // A receive posted with MPI_ANY_SOURCE takes whichever message comes first
  // (true), or waits for the source that matched in the original run.
  bool rematch_wildcards = false;

  [[nodiscard]] CollectiveChoice collective_choice() const { return CollectiveChoice(collectives, forced_collectives); }
};

// A CPU a thousand times slower than the traced one is as far as a study
// needs to go, and keeps every scaled gap within the model's time range.
inline constexpr double kMaxComputeScale = 1000.0;

const ParameterSet<ReplayParams>& replay_parameters();

}  // namespace ibsec::hosts
