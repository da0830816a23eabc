#include "hosts/vector_collectives.h"

#include <stdexcept>
#include <string>

namespace ibsec::hosts {
namespace {

using Rounds = std::vector<CollectiveRound>;

// A caller's counts: what it sends to each member (alltoallv).
Rounds alltoallv(uint32_t n, uint32_t r, std::span<const uint32_t> sends) {
  Rounds rounds;
  for (uint32_t s = 1; s < n; ++s) {
    const uint32_t to = (r + s) % n;
    const uint32_t from = (r + n - s) % n;
    rounds.push_back({{{to, sends[to]}}, {{from, 0}}});  // a receive takes what arrives
  }
  return rounds;
}

// Each member's contribution, the same list on all: the ring passes block
// (r - s + 1) on in step s.
Rounds allgatherv(uint32_t n, uint32_t r, std::span<const uint32_t> parts) {
  Rounds rounds;
  for (uint32_t s = 1; s < n; ++s) {
    const uint32_t block = (r + n - s + 1) % n;
    rounds.push_back({{{(r + 1) % n, parts[block]}}, {{(r + n - 1) % n, parts[(block + n - 1) % n]}}});
  }
  return rounds;
}

// The root lists every member's part; the others their own.
Rounds gatherv(uint32_t n, uint32_t r, uint32_t root, std::span<const uint32_t> parts) {
  if (r != root) return {{{{root, parts[r]}}, {}}};
  CollectiveRound all;
  for (uint32_t p = 0; p < n; ++p) {
    if (p != root) all.receives.push_back({p, parts[p]});
  }
  return all.receives.empty() ? Rounds{} : Rounds{all};
}

Rounds scatterv(uint32_t n, uint32_t r, uint32_t root, std::span<const uint32_t> parts) {
  if (r != root) return {{{}, {{root, parts[r]}}}};
  CollectiveRound all;
  for (uint32_t p = 0; p < n; ++p) {
    if (p != root) all.sends.push_back({p, parts[p]});
  }
  return all.sends.empty() ? Rounds{} : Rounds{all};
}

// Ring reduce-scatter: in step s a member sends its partial result for
// block (r - s - 1) to r + 1 and receives block (r - s - 2) from r - 1, so
// that after n - 1 steps it holds its own block, complete.
Rounds reduce_scatter(uint32_t n, uint32_t r, std::span<const uint32_t> blocks) {
  Rounds rounds;
  for (uint32_t s = 0; s + 1 < n; ++s) {
    const uint32_t sent = (r + 2 * n - s - 1) % n;
    const uint32_t received = (r + 2 * n - s - 2) % n;
    rounds.push_back({{{(r + 1) % n, blocks[sent]}}, {{(r + n - 1) % n, blocks[received]}}});
  }
  return rounds;
}

}  // namespace

std::vector<CollectiveRound> expand_vector_collective(TraceOp op, uint32_t size, uint32_t rank, uint32_t root,
                                                      std::span<const uint32_t> counts) {
  if (size == 0 || rank >= size || root >= size || counts.size() != size)
    throw std::invalid_argument("collective rank or counts outside its communicator");
  switch (op) {
    case TraceOp::kAlltoallv:
      return alltoallv(size, rank, counts);
    case TraceOp::kAllgatherv:
      return allgatherv(size, rank, counts);
    case TraceOp::kGatherv:
      return gatherv(size, rank, root, counts);
    case TraceOp::kScatterv:
      return scatterv(size, rank, root, counts);
    case TraceOp::kReduceScatter:
      return reduce_scatter(size, rank, counts);
    default:
      throw std::invalid_argument("not a collective with counts: " + std::string(name(op)));
  }
}

}  // namespace ibsec::hosts
