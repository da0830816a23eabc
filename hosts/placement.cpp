#include "hosts/placement.h"

#include <charconv>
#include <fstream>
#include <sstream>

#include "core/errors.h"

namespace ibsec::hosts {
namespace {

constexpr const char* kKey = "trace.placement";
// Lines as long as a trace's: longer is a corrupt or hostile file, refused
// before it is held in memory.
constexpr size_t kMaxLineBytes = size_t{1} << 20;

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

  IdVector<ProcessId, NodeId> read() {
    std::ifstream in(path_);
    if (!in) throw ConfigError(kKey, "cannot read the placement file '" + path_ + "'");
    std::string line;
    uint64_t number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (line.size() > kMaxLineBytes) fail(number, "", "line longer than 1 MiB");
      take(number, line);
    }
    if (in.bad()) throw ConfigError(kKey, "cannot read the placement file '" + path_ + "'");
    check_complete();
    return placed_;
  }

 private:
  [[noreturn]] void fail(uint64_t line, const std::string& field, const std::string& problem) const {
    std::string where = path_ + ":" + std::to_string(line) + ": ";
    if (!field.empty()) where += "field '" + field + "': ";
    throw ConfigError(kKey, where + problem);
  }

  // Whitespace-separated fields of a line, its comment removed.
  static std::vector<std::string> fields(const std::string& line) {
    std::istringstream text(line.substr(0, line.find('#')));
    std::vector<std::string> out;
    for (std::string field; text >> field;) out.push_back(field);
    return out;
  }

  uint32_t whole(uint64_t line, const std::string& field, const std::string& text) const {
    uint32_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) {
      fail(line, field, "'" + text + "' is not a whole number below 2^32");
    }
    return value;
  }

  void take(uint64_t line, const std::string& text) {
    const std::vector<std::string> f = fields(text);
    if (f.empty()) return;
    if (f.size() != 2 && f.size() != 3) fail(line, "", "expected 'RANK NODE' or 'JOB RANK NODE'");
    if (width_ == 0) width_ = f.size();
    if (f.size() != width_) {
      fail(line, "", "expected " + std::to_string(width_) + " fields, as on the file's first line");
    }
    if (width_ == 2 && job_sizes_.size() > 1) {
      fail(line, "", "the run replays " + std::to_string(job_sizes_.size()) + " jobs: give 'JOB RANK NODE' lines");
    }
    const uint32_t job = width_ == 3 ? whole(line, "job", f[0]) : 0;
    const uint32_t rank = whole(line, "rank", f[width_ - 2]);
    const uint32_t node = whole(line, "node", f[width_ - 1]);
    place(line, job, rank, node);
  }

  void place(uint64_t line, uint32_t job, uint32_t rank, uint32_t node) {
    if (job >= job_sizes_.size()) {
      fail(line, "job", std::to_string(job) + " is not a job (the run has " + std::to_string(job_sizes_.size()) + ")");
    }
    if (rank >= job_sizes_[job]) {
      fail(line, "rank",
           std::to_string(rank) + " is not a rank of job " + std::to_string(job) + " (it has " +
               std::to_string(job_sizes_[job]) + " processes)");
    }
    if (node >= nodes_) {
      fail(line, "node", std::to_string(node) + " is not a node (the cluster has " + std::to_string(nodes_) + ")");
    }
    const uint32_t p = first_process_[job] + rank;
    if (line_of_[p] != 0) {
      fail(line, "rank", described(job, rank) + " is placed twice (first on line " + std::to_string(line_of_[p]) + ")");
    }
    line_of_[p] = line;
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

IdVector<ProcessId, NodeId> place_processes(const std::string& placement, const std::vector<uint32_t>& job_sizes,
                                            uint32_t nodes) {
  if (placement == "cyclic") return cyclic(job_sizes, nodes);
  if (placement == "block") return block(job_sizes, nodes);
  return PlacementFile(placement, job_sizes, nodes).read();
}

}  // namespace ibsec::hosts
