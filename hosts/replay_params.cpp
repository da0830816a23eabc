#include "hosts/replay_params.h"

#include "core/errors.h"

namespace ibsec::hosts {
namespace {

void check_placement(const ParameterValues&, ReplayParams& r) {
  if (r.placement.empty()) throw ConfigError("trace.placement", "give cyclic, block or the path of a placement file");
}

void check_compute_scale(const ParameterValues& v, ReplayParams& r) {
  if (r.compute_scale > kMaxComputeScale) {
    throw ConfigError("replay.compute_scale", "must be at most " + nlohmann::json(kMaxComputeScale).dump() + ", got " +
                                                  v.at("replay.compute_scale").dump());
  }
}

const char* scheme_name(CollectiveScheme scheme) { return scheme == CollectiveScheme::kTuned ? "tuned" : "simple"; }

void read_scheme(const ParameterValues& v, const std::string& key, ReplayParams& r) {
  const std::string scheme = v.text(key);
  if (scheme != "tuned" && scheme != "simple") {
    throw ConfigError(key, "expected tuned or simple, got '" + scheme + "'");
  }
  r.collectives = scheme == "tuned" ? CollectiveScheme::kTuned : CollectiveScheme::kSimple;
}

void read_compute(const ParameterValues& v, const std::string& key, ReplayParams& r) {
  const std::string clock = v.text(key);
  for (const ComputeClock c : {ComputeClock::kWall, ComputeClock::kCpu, ComputeClock::kAuto}) {
    if (clock == name(c)) {
      r.compute = c;
      return;
    }
  }
  throw ConfigError(key, "expected wall, cpu or auto, got '" + clock + "'");
}

void read_wildcards(const ParameterValues& v, const std::string& key, ReplayParams& r) {
  const std::string wildcards = v.text(key);
  if (wildcards != "recorded" && wildcards != "rematch") {
    throw ConfigError(key, "expected recorded or rematch, got '" + wildcards + "'");
  }
  r.rematch_wildcards = wildcards == "rematch";
}

// replay.collective.<op>: "auto", or one of the op's registered algorithms.
void add_forcing(ParameterSet<ReplayParams>& set, const CollectiveOp& op) {
  std::string known;
  for (const std::string& name : CollectiveAlgorithms::of(op.op)) known += (known.empty() ? "" : ", ") + name;
  const TraceOp which = op.op;
  set.custom("replay.collective." + op.name, "auto", "",
             "algorithm of every " + op.name + ", whatever replay.collectives: auto (replay.collectives's choice) or " +
                 known + " (`ibsec-engine registries`; docs/replay.md)",
             [which, known](const ParameterValues& v, const std::string& key, ReplayParams& r) {
               const std::string algorithm = v.text(key);
               if (algorithm == "auto") {
                 r.forced_collectives.erase(which);
                 return;
               }
               if (CollectiveAlgorithms::find(which, algorithm) == nullptr) {
                 throw ConfigError(key, "unknown algorithm '" + algorithm + "'; known: auto, " + known);
               }
               r.forced_collectives[which] = algorithm;
             });
}

ParameterSet<ReplayParams> declare() {
  const ReplayParams d;
  ParameterSet<ReplayParams> set(d);
  set.file("trace.placement", &ReplayParams::placement, FileRole::kInput,
           "where each replayed rank runs: cyclic (rank r of every job on node r mod nodes), block (each job's "
           "ranks fill the nodes in order, ceil(ranks / nodes) per node) or a placement file of 'RANK NODE' or "
           "'JOB RANK NODE' lines (docs/replay.md)")
      .number("replay.compute_scale", &ReplayParams::compute_scale, "factor",
              "multiplies every compute event and every gap between a process's events (0.5: a CPU twice as "
              "fast as the traced one; at most 1000)",
              Bound::kPositive)
      .custom("replay.compute", std::string(name(d.compute)), "",
              "which time a compute event lasts: wall (END - START, as recorded), cpu (the CPU time the capture "
              "measured, trace format version 3) or auto (cpu where the trace has CPU times and its capture notes a "
              "host with more processes than CPUs, wall otherwise); docs/replay.md",
              read_compute)
      .count("replay.eager_limit_bytes", &ReplayParams::eager_limit_bytes, "bytes",
             "a send (blocking or not, collectives' too) of more bytes goes by rendezvous: a request to send, the "
             "receiver's clear to send once its receive is posted, then the data; 12288 is Open MPI's openib eager "
             "limit (docs/replay.md); 18446744073709551615 disables rendezvous")
      .custom("replay.collectives", scheme_name(d.collectives), "",
              "how each collective chooses its algorithm: tuned (Open MPI 4.1's coll/tuned fixed decision rules, "
              "by communicator and message size) or simple (one algorithm per op); docs/replay.md",
              read_scheme)
      .custom("replay.wildcards", d.rematch_wildcards ? "rematch" : "recorded", "",
              "receives posted with MPI_ANY_SOURCE (`posted any` in a trace): recorded (wait for the source that "
              "matched in the original run) or rematch (take whichever message comes first, in MPI's matching "
              "order); docs/replay.md",
              read_wildcards)
      .check(check_placement)
      .check(check_compute_scale);
  for (const CollectiveOp* op : CollectiveOps::sorted()) add_forcing(set, *op);
  return set;
}

}  // namespace

const ParameterSet<ReplayParams>& replay_parameters() {
  static const ParameterSet<ReplayParams> set = declare();
  return set;
}

}  // namespace ibsec::hosts
