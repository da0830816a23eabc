#include "hosts/collectives.h"

#include <stdexcept>

namespace ibsec::hosts {
namespace {

using Rounds = std::vector<CollectiveRound>;

CollectiveRound exchange(uint32_t to, uint32_t from, uint64_t bytes) { return {{{to, bytes}}, {{from, bytes}}}; }
CollectiveRound send_only(uint32_t to, uint64_t bytes) { return {{{to, bytes}}, {}}; }
CollectiveRound receive_only(uint32_t from, uint64_t bytes) { return {{}, {{from, bytes}}}; }

Rounds barrier(uint32_t n, uint32_t r) {
  Rounds rounds;
  for (uint32_t k = 1; k < n; k *= 2) rounds.push_back(exchange((r + k) % n, (r + n - k) % n, 0));
  return rounds;
}

// Ranks relative to the root; the child of v at distance `mask` is v + mask.
Rounds bcast(uint32_t n, uint32_t r, uint32_t root, uint64_t bytes) {
  Rounds rounds;
  const uint32_t v = (r + n - root) % n;
  auto real = [&](uint32_t relative) { return (relative + root) % n; };
  uint32_t mask = 1;
  while (mask < n) {
    if ((v & mask) != 0) {
      rounds.push_back(receive_only(real(v - mask), bytes));
      break;
    }
    mask <<= 1;
  }
  CollectiveRound children;
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (v + mask < n) children.sends.push_back({real(v + mask), bytes});
  }
  if (!children.sends.empty()) rounds.push_back(children);
  return rounds;
}

// Each partial result must arrive before it can be combined, so every
// receive is its own round.
Rounds reduce(uint32_t n, uint32_t r, uint32_t root, uint64_t bytes) {
  Rounds rounds;
  const uint32_t v = (r + n - root) % n;
  auto real = [&](uint32_t relative) { return (relative + root) % n; };
  for (uint32_t mask = 1; mask < n; mask <<= 1) {
    if ((v & mask) != 0) {
      rounds.push_back(send_only(real(v - mask), bytes));
      break;
    }
    if ((v | mask) < n) rounds.push_back(receive_only(real(v | mask), bytes));
  }
  return rounds;
}

Rounds gather(uint32_t n, uint32_t r, uint32_t root, uint64_t bytes) {
  if (r != root) return {send_only(root, bytes)};
  CollectiveRound all;
  for (uint32_t p = 0; p < n; ++p) {
    if (p != root) all.receives.push_back({p, bytes});
  }
  return all.receives.empty() ? Rounds{} : Rounds{all};
}

Rounds scatter(uint32_t n, uint32_t r, uint32_t root, uint64_t bytes) {
  if (r != root) return {receive_only(root, bytes)};
  CollectiveRound all;
  for (uint32_t p = 0; p < n; ++p) {
    if (p != root) all.sends.push_back({p, bytes});
  }
  return all.sends.empty() ? Rounds{} : Rounds{all};
}

// MPICH's recursive doubling: the first 2*extra ranks pair up (odd keeps
// going, even hands its data over and waits for the result), then the
// remaining power of two exchange with partners at distance 1, 2, 4, ...
Rounds allreduce(uint32_t n, uint32_t r, uint64_t bytes) {
  Rounds rounds;
  uint32_t pof2 = 1;
  while (pof2 * 2 <= n) pof2 *= 2;
  const uint32_t extra = n - pof2;
  int64_t newrank = 0;
  if (r < 2 * extra) {
    if (r % 2 == 0) {
      rounds.push_back(send_only(r + 1, bytes));
      newrank = -1;
    } else {
      rounds.push_back(receive_only(r - 1, bytes));
      newrank = r / 2;
    }
  } else {
    newrank = r - extra;
  }
  if (newrank >= 0) {
    for (uint32_t mask = 1; mask < pof2; mask <<= 1) {
      const auto partner_new = static_cast<uint32_t>(newrank) ^ mask;
      const uint32_t partner = partner_new < extra ? partner_new * 2 + 1 : partner_new + extra;
      rounds.push_back(exchange(partner, partner, bytes));
    }
  }
  if (r < 2 * extra) rounds.push_back(r % 2 == 1 ? send_only(r - 1, bytes) : receive_only(r + 1, bytes));
  return rounds;
}

Rounds allgather(uint32_t n, uint32_t r, uint64_t bytes) {
  Rounds rounds;
  for (uint32_t step = 1; step < n; ++step) rounds.push_back(exchange((r + 1) % n, (r + n - 1) % n, bytes));
  return rounds;
}

Rounds alltoall(uint32_t n, uint32_t r, uint64_t bytes) {
  Rounds rounds;
  for (uint32_t s = 1; s < n; ++s) rounds.push_back(exchange((r + s) % n, (r + n - s) % n, bytes));
  return rounds;
}

// MPICH's recursive doubling for prefix reductions: partners at distance 1,
// 2, 4, ... exchange partial results (the same messages for scan and exscan).
Rounds scan(uint32_t n, uint32_t r, uint64_t bytes) {
  Rounds rounds;
  for (uint32_t mask = 1; mask < n; mask <<= 1) {
    const uint32_t partner = r ^ mask;
    if (partner < n) rounds.push_back(exchange(partner, partner, bytes));
  }
  return rounds;
}

}  // namespace

std::vector<CollectiveRound> expand_collective(TraceOp op, uint32_t size, uint32_t rank, uint32_t root,
                                               uint64_t bytes) {
  if (size == 0 || rank >= size || root >= size)
    throw std::invalid_argument("collective rank outside its communicator");
  switch (op) {
    case TraceOp::kBarrier:
      return barrier(size, rank);
    case TraceOp::kBcast:
      return bcast(size, rank, root, bytes);
    case TraceOp::kReduce:
      return reduce(size, rank, root, bytes);
    case TraceOp::kGather:
      return gather(size, rank, root, bytes);
    case TraceOp::kScatter:
      return scatter(size, rank, root, bytes);
    case TraceOp::kAllreduce:
      return allreduce(size, rank, bytes);
    case TraceOp::kAllgather:
      return allgather(size, rank, bytes);
    case TraceOp::kAlltoall:
      return alltoall(size, rank, bytes);
    case TraceOp::kScan:
    case TraceOp::kExscan:
      return scan(size, rank, bytes);
    default:
      throw std::invalid_argument("not a collective: " + std::string(name(op)));
  }
}

}  // namespace ibsec::hosts
