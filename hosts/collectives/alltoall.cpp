// MPI_Alltoall: every rank sends BYTES to every other. Open MPI's algorithms
// (ompi/mca/coll/base/coll_base_alltoall.c) and its 4.1 fixed decision rule.
#include "hosts/collectives/common.h"

namespace ibsec::hosts::collectives {
namespace {

// Round s: send to r + s, receive from r - s.
Rounds pairwise(const CollectiveCall& c) {
  Rounds rounds;
  const uint32_t n = c.size;
  for (uint32_t s = 1; s < n; ++s) rounds.push_back(sendrecv((c.rank + s) % n, c.bytes, (c.rank + n - s) % n, c.bytes));
  return rounds;
}

// One round: every receive posted (from r + 1, r + 2, ...), then every send
// (to r - 1, r - 2, ...), as Open MPI's basic_linear orders them.
Rounds linear(const CollectiveCall& c) {
  const uint32_t n = c.size;
  CollectiveRound all;
  for (uint32_t s = 1; s < n; ++s) {
    all.receives.push_back({(c.rank + s) % n, c.bytes});
    all.sends.push_back({(c.rank + n - s) % n, c.bytes});
  }
  return all.sends.empty() ? Rounds{} : Rounds{all};
}

// Bruck's, as Open MPI modifies it: round k sends to r + 2^k the blocks whose
// index has bit k set, receives as many from r - 2^k; ceil(log2 n) rounds.
Rounds bruck(const CollectiveCall& c) {
  Rounds rounds;
  const uint32_t n = c.size;
  for (uint32_t distance = 1; distance < n; distance <<= 1) {
    uint64_t blocks = 0;
    for (uint32_t i = 1; i < n; ++i) blocks += (i & distance) != 0 ? 1 : 0;
    rounds.push_back(
        sendrecv((c.rank + distance) % n, blocks * c.bytes, (c.rank + n - distance) % n, blocks * c.bytes));
  }
  return rounds;
}

[[maybe_unused]] const bool registered =
    CollectiveAlgorithms::add(TraceOp::kAlltoall, "pairwise",
                              "round s: send to r+s, receive from r-s; n-1 rounds (Open MPI's pairwise and, for n = "
                              "2, two_proc)",
                              pairwise) &&
    CollectiveAlgorithms::add(TraceOp::kAlltoall, "linear",
                              "every receive and every send at once (Open MPI's basic_linear, and linear_sync with "
                              "its default of no limit on outstanding requests)",
                              linear) &&
    CollectiveAlgorithms::add(TraceOp::kAlltoall, "bruck",
                              "modified Bruck: round k sends to r+2^k the blocks with bit k set; ceil(log2 n) rounds",
                              bruck) &&
    // coll_tuned_decision_fixed.c, ompi_coll_tuned_alltoall_intra_dec_fixed.
    CollectiveOps::add(
        CollectiveOp{"alltoall",
                     TraceOp::kAlltoall,
                     "pairwise",
                     {{3,
                       {{2, 2},
                        {4, 5},
                        {16, 2},
                        {64, 5},
                        {256, 2},
                        {4096, 5},
                        {32768, 2},
                        {262144, 4},
                        {1048576, 5},
                        {kAnyBytes, 2}}},
                      {8, {{8192, 4}, {16384, 1}, {65536, 4}, {524288, 1}, {1048576, 2}, {kAnyBytes, 1}}},
                      {16, {{262144, 4}, {kAnyBytes, 1}}},
                      {32, {{4, 4}, {512, 3}, {8192, 4}, {32768, 1}, {262144, 4}, {524288, 1}, {kAnyBytes, 4}}},
                      {64, {{512, 3}, {524288, 1}, {kAnyBytes, 4}}},
                      {128, {{1024, 3}, {2048, 1}, {4096, 4}, {262144, 1}, {kAnyBytes, 2}}},
                      {256, {{1024, 3}, {2048, 4}, {262144, 1}, {kAnyBytes, 2}}},
                      {512, {{1024, 3}, {8192, 4}, {32768, 1}, {kAnyBytes, 2}}},
                      {1024, {{512, 3}, {8192, 4}, {16384, 1}, {131072, 4}, {262144, 1}, {kAnyBytes, 2}}},
                      {2048, {{512, 3}, {1024, 4}, {2048, 1}, {16384, 4}, {262144, 1}, {kAnyBytes, 4}}},
                      {4096, {{1024, 3}, {4096, 4}, {8192, 1}, {131072, 4}, {kAnyBytes, 1}}},
                      {kAnySize, {{2048, 3}, {8192, 4}, {16384, 1}, {32768, 4}, {65536, 1}, {kAnyBytes, 4}}}},
                     {{1, "linear"}, {2, "pairwise"}, {3, "bruck"}, {4, "linear"}, {5, "pairwise"}}});

}  // namespace
}  // namespace ibsec::hosts::collectives
