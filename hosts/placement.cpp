#include "hosts/placement.h"

#include <charconv>
#include <sstream>

#include "core/bounded_input.h"
#include "core/errors.h"

namespace ibsec::hosts {
namespace {

constexpr const char* kKey = "trace.placement";

// Each job's ranks dealt to the nodes in turn, as mpirun --map-by node does.
IdVector<ProcessId, NodeId> cyclic(const std::vector<uint32_t>& job_sizes, uint32_t nodes) {
  IdVector<ProcessId, NodeId> placed;
  for (const uint32_t size : job_sizes) {
    for (uint32_t rank = 0; rank < size; ++rank) placed.push_back(NodeId(rank % nodes));
  }
  return placed;
}

// Each job's ranks fill node 0, then node 1, ..., ceil(size / nodes) each, as
// mpirun --map-by slot does. Jobs are placed on their own, like cyclic ones,
// so that every job spreads over the same nodes.
IdVector<ProcessId, NodeId> block(const std::vector<uint32_t>& job_sizes, uint32_t nodes) {
  IdVector<ProcessId, NodeId> placed;
  for (const uint32_t size : job_sizes) {
    const uint32_t per_node = (size + nodes - 1) / nodes;
    for (uint32_t rank = 0; rank < size; ++rank) placed.push_back(NodeId(rank / per_node));
  }
  return placed;
}

// Reads a placement file: one line per rank, "RANK NODE" (one job) or
// "JOB RANK NODE", '#' starting a comment; every rank placed exactly once.
class PlacementFile {
 public:
  PlacementFile(std::string path, const std::vector<uint32_t>& job_sizes, uint32_t nodes)
      : path_(std::move(path)), job_sizes_(job_sizes), nodes_(nodes) {
    uint32_t first = 0;
    for (const uint32_t size : job_sizes_) {
      first_process_.push_back(first);
      first += size;
    }
    placed_ = IdVector<ProcessId, NodeId>(first, NodeId::none());
    line_of_.assign(first, 0);
  }

  // Bounded like every side input (core/bounded_input.h): a line a rank.
  IdVector<ProcessId, NodeId> read() {
    LineReader in(path_, kKey, "placement file");
    for (std::string line; in.next(line);) take(in, line);
    check_complete();
    return placed_;
  }

 private:
  // Whitespace-separated fields of a line, its comment removed.
  static std::vector<std::string> fields(const std::string& line) {
    std::istringstream text(line.substr(0, line.find('#')));
    std::vector<std::string> out;
    for (std::string field; text >> field;) out.push_back(field);
    return out;
  }

  static uint32_t whole(const LineReader& in, const std::string& field, const std::string& text) {
    uint32_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) {
      in.fail(field, "'" + text + "' is not a whole number below 2^32");
    }
    return value;
  }

  void take(const LineReader& in, const std::string& text) {
    const std::vector<std::string> f = fields(text);
    if (f.empty()) return;
    if (f.size() != 2 && f.size() != 3) in.fail("expected 'RANK NODE' or 'JOB RANK NODE'");
    if (width_ == 0) width_ = f.size();
    if (f.size() != width_) in.fail("expected " + std::to_string(width_) + " fields, as on the file's first line");
    if (width_ == 2 && job_sizes_.size() > 1) {
      in.fail("the run replays " + std::to_string(job_sizes_.size()) + " jobs: give 'JOB RANK NODE' lines");
    }
    const uint32_t job = width_ == 3 ? whole(in, "job", f[0]) : 0;
    const uint32_t rank = whole(in, "rank", f[width_ - 2]);
    const uint32_t node = whole(in, "node", f[width_ - 1]);
    place(in, job, rank, node);
  }

  void place(const LineReader& in, uint32_t job, uint32_t rank, uint32_t node) {
    if (job >= job_sizes_.size()) {
      in.fail("job", std::to_string(job) + " is not a job (the run has " + std::to_string(job_sizes_.size()) + ")");
    }
    if (rank >= job_sizes_[job]) {
      in.fail("rank", std::to_string(rank) + " is not a rank of job " + std::to_string(job) + " (it has " +
                          std::to_string(job_sizes_[job]) + " processes)");
    }
    if (node >= nodes_) {
      in.fail("node", std::to_string(node) + " is not a node (the cluster has " + std::to_string(nodes_) + ")");
    }
    const uint32_t p = first_process_[job] + rank;
    if (line_of_[p] != 0) {
      in.fail("rank", described(job, rank) + " is placed twice (first on line " + std::to_string(line_of_[p]) + ")");
    }
    line_of_[p] = in.line_number();
    placed_[ProcessId(p)] = NodeId(node);
  }

  void check_complete() const {
    for (uint32_t job = 0; job < job_sizes_.size(); ++job) {
      for (uint32_t rank = 0; rank < job_sizes_[job]; ++rank) {
        if (line_of_[first_process_[job] + rank] == 0) {
          throw ConfigError(kKey, path_ + ": " + described(job, rank) + " is not placed: every rank needs a line");
        }
      }
    }
  }

  [[nodiscard]] std::string described(uint32_t job, uint32_t rank) const {
    return job_sizes_.size() == 1 ? "rank " + std::to_string(rank)
                                  : "rank " + std::to_string(rank) + " of job " + std::to_string(job);
  }

  std::string path_;
  const std::vector<uint32_t>& job_sizes_;
  uint32_t nodes_;
  std::vector<uint32_t> first_process_;
  IdVector<ProcessId, NodeId> placed_;
  std::vector<uint64_t> line_of_;  // 0: not placed yet
  size_t width_ = 0;               // fields per line, from the first
};

}  // namespace

bool is_placement_rule(const std::string& placement) { return placement == "cyclic" || placement == "block"; }

IdVector<ProcessId, NodeId> place_processes(const std::string& placement, const std::vector<uint32_t>& job_sizes,
                                            uint32_t nodes) {
  if (placement == "cyclic") return cyclic(job_sizes, nodes);
  if (placement == "block") return block(job_sizes, nodes);
  return PlacementFile(placement, job_sizes, nodes).read();
}

}  // namespace ibsec::hosts
