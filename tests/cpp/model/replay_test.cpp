// Trace replay timing, checked against hand computation on an idle network:
// the closed-form packet latency (closed_form.h) plus the original gaps the
// replay must keep (docs/trace-format.md, "Replay"). One design per test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/closed_form.h"
#include "support/model_support.h"
#include "traces/trace_error.h"

namespace ibsec {
namespace {

using namespace testing;  // the closed form

std::string trace_file(const std::string& name, const std::string& events, uint32_t processes = 2) {
  const auto path = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()) + ".trace");
  std::ofstream(path) << "ibsec-trace 1\nprocesses " << processes
                      << "\ntime_unit ns\norigin synthetic replay_test\nevents\n"
                      << events;
  return path.string();
}

// Replays `trace` on the default 16-node single-switch cluster.
nlohmann::ordered_json replay(const std::string& trace, std::vector<std::string> overrides = {}) {
  overrides.push_back("trace.file=" + nlohmann::json(trace).dump());
  sim::Cluster cluster(config_with(overrides));
  const sim::RunOutcome outcome = cluster.run();
  EXPECT_TRUE(outcome.drained);
  return cluster.result(outcome);
}

double ns(Tick t) { return ns_from_ticks(t); }
double completion(const nlohmann::ordered_json& result, uint32_t rank) {
  return result["replay"]["per_process"][rank]["completion_time_ns"].get<double>();
}

// Rank 1 answers 500 ns of compute and a 100 ns gap after the ping arrives;
// the pong then finds the key cached at both cards.
TEST(Replay, PingPongKeepsTheGapsAfterTheReceive) {
  const auto result = replay(trace_file("pingpong",
                                        "0 0 100 send 1 256 0\n"
                                        "1 0 2000 recv 0 256 0\n"
                                        "0 100 5000 recv 1 256 1\n"
                                        "1 2000 2500 compute\n"
                                        "1 2600 2700 send 0 256 1\n"
                                        "end 5\n"));
  const Tick ping_arrives = closed_form(Lookup::kSkcMiss, 1, 0);
  const Tick pong_handed = ping_arrives + 500'000 + 100'000;
  const Tick pong_arrives = edge(pong_handed) + closed_form(Lookup::kSkcHit, 1, edge(pong_handed));
  EXPECT_DOUBLE_EQ(completion(result, 0), ns(pong_arrives));
  EXPECT_DOUBLE_EQ(completion(result, 1), ns(injected_at(Lookup::kSkcHit, edge(pong_handed))));
  EXPECT_DOUBLE_EQ(result["replay"]["simulated_execution_time_ns"].get<double>(), ns(pong_arrives));
  EXPECT_DOUBLE_EQ(result["replay"]["original_execution_time_ns"].get<double>(), 5000.0);
  EXPECT_EQ(result["statistics"]["packets_delivered"], 2);
  EXPECT_EQ(result["statistics"]["key_misses"], 2);  // the ping, once at each card
}

// A process's first event starts at its original START.
TEST(Replay, FirstEventStartsAtItsOriginalTime) {
  const auto result = replay(trace_file("offset", "1 0 9000 recv 0 256 0\n0 5000 5100 send 1 256 0\nend 2\n"));
  const Tick handed = 5'000'000;
  EXPECT_DOUBLE_EQ(completion(result, 1), ns(edge(handed) + closed_form(Lookup::kSkcMiss, 1, edge(handed))));
  EXPECT_DOUBLE_EQ(completion(result, 0), ns(injected_at(Lookup::kSkcMiss, edge(handed))));
}

// Non-blocking calls return at once; a wait completes when its request does,
// or at once if it already has.
TEST(Replay, NonBlockingCompleteAtTheirWait) {
  const auto result = replay(trace_file("nonblocking",
                                        "0 0 10 irecv 1 256 0 0\n"
                                        "1 0 10 irecv 0 256 1 5\n"
                                        "0 10 20 isend 1 256 1 1\n"
                                        "1 10 10000 compute\n"
                                        "0 20 30 wait 1\n"
                                        "0 30 12000 wait 0\n"
                                        "1 10000 10100 send 0 256 0\n"
                                        "1 10100 12000 wait 5\n"
                                        "end 8\n"));
  // Rank 1 computes 9 990 ns from time 0, then sends; its irecv was filled long before.
  const Tick send_at = 9'990'000;
  const Tick arrives = edge(send_at) + closed_form(Lookup::kSkcHit, 1, edge(send_at));
  EXPECT_DOUBLE_EQ(completion(result, 0), ns(arrives));
  EXPECT_DOUBLE_EQ(completion(result, 1), ns(injected_at(Lookup::kSkcHit, edge(send_at))));
}

TEST(Replay, CollectivesBecomeTheirPointToPointMessages) {
  std::string events;
  for (int r = 0; r < 4; ++r) events += std::to_string(r) + " 0 100 allreduce 0 8\n";
  for (int r = 0; r < 4; ++r) events += std::to_string(r) + " 100 200 alltoall 0 600\n";
  const auto result = replay(trace_file("collectives", events + "end 8\n", 4));
  // Open MPI 4.1's table on 4 ranks: a ring allreduce of 8 bytes (24
  // messages of 2 bytes) and a linear alltoall (12 of 3 packets).
  EXPECT_EQ(result["replay"]["collective_messages"], 24 + 12);
  EXPECT_EQ(result["replay"]["network_messages"], 24 + 12);
  EXPECT_EQ(result["statistics"]["packets_delivered"], 24 + 12 * 3);
  for (int r = 0; r < 4; ++r) EXPECT_TRUE(result["replay"]["per_process"][r]["completed"].get<bool>());
}

// The simple scheme: recursive doubling on 4 (8 messages) and a pairwise
// alltoall (12 of 3 packets), whatever the sizes.
TEST(Replay, SimpleCollectivesUseOneAlgorithmPerOp) {
  std::string events;
  for (int r = 0; r < 4; ++r) events += std::to_string(r) + " 0 100 allreduce 0 8\n";
  for (int r = 0; r < 4; ++r) events += std::to_string(r) + " 100 200 alltoall 0 600\n";
  const auto result = replay(trace_file("simple", events + "end 8\n", 4), {"replay.collectives=simple"});
  EXPECT_EQ(result["replay"]["collective_messages"], 20);
  EXPECT_EQ(result["statistics"]["packets_delivered"], 8 + 12 * 3);
}

// On a CPU twice as fast, rank 1's 500 ns of compute and its 100 ns gap
// take 250 and 50 ns; the network's times do not change.
TEST(Replay, ComputeScaleMultipliesComputeAndGaps) {
  const auto result = replay(trace_file("scaled",
                                        "0 0 100 send 1 256 0\n"
                                        "1 0 2000 recv 0 256 0\n"
                                        "0 100 5000 recv 1 256 1\n"
                                        "1 2000 2500 compute\n"
                                        "1 2600 2700 send 0 256 1\n"
                                        "end 5\n"),
                             {"replay.compute_scale=0.5"});
  const Tick ping_arrives = closed_form(Lookup::kSkcMiss, 1, 0);
  const Tick pong_handed = ping_arrives + 250'000 + 50'000;
  const Tick pong_arrives = edge(pong_handed) + closed_form(Lookup::kSkcHit, 1, edge(pong_handed));
  EXPECT_DOUBLE_EQ(completion(result, 0), ns(pong_arrives));
  EXPECT_DOUBLE_EQ(completion(result, 1), ns(injected_at(Lookup::kSkcHit, edge(pong_handed))));
  EXPECT_DOUBLE_EQ(result["replay"]["original_execution_time_ns"].get<double>(), 5000.0);
}

// The time before a process's first event is CPU time too: scaled by 3.
TEST(Replay, ComputeScaleMultipliesTheStartOffset) {
  const auto result = replay(trace_file("scaled_offset", "1 0 9000 recv 0 256 0\n0 5000 5100 send 1 256 0\nend 2\n"),
                             {"replay.compute_scale=3"});
  const Tick handed = 15'000'000;
  EXPECT_DOUBLE_EQ(completion(result, 1), ns(edge(handed) + closed_form(Lookup::kSkcMiss, 1, edge(handed))));
}

// A placement file puts ranks 0 and 1 on node 5, ranks 2 and 3 on node 9;
// the result says how many processes each node ran.
TEST(Replay, PlacementFileDecidesTheNodesAndTheResultCountsThem) {
  const auto place = std::filesystem::temp_directory_path() / ("place_" + std::to_string(::getpid()));
  std::ofstream(place) << "0 5\n1 5\n2 9\n3 9\n";
  std::string events;
  for (int r = 0; r < 4; ++r) events += std::to_string(r) + " 0 100 isend " + std::to_string((r + 1) % 4) + " 64 0 1\n";
  for (int r = 0; r < 4; ++r) events += std::to_string(r) + " 100 200 recv " + std::to_string((r + 3) % 4) + " 64 0\n";
  for (int r = 0; r < 4; ++r) events += std::to_string(r) + " 200 300 wait 1\n";
  const auto result =
      replay(trace_file("placed", events + "end 12\n", 4), {"trace.placement=" + nlohmann::json(place).dump()});
  const auto& placement = result["replay"]["placement"];
  EXPECT_EQ(placement["max_processes_per_node"], 2);
  EXPECT_EQ(placement["processes_per_node"].size(), 16U);
  EXPECT_EQ(placement["processes_per_node"][5], 2);
  EXPECT_EQ(placement["processes_per_node"][9], 2);
  EXPECT_EQ(placement["processes_per_node"][0], 0);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(result["replay"]["per_process"][r]["node"], r < 2 ? 5 : 9);
    EXPECT_TRUE(result["replay"]["per_process"][r]["completed"].get<bool>());
  }
}

// An eager send completes when its one packet is on the link.
TEST(Replay, AnEagerSendCompletesOnTheLink) {
  const auto result = replay(trace_file("eager", "0 0 100 send 1 256 0\n1 0 2000 recv 0 256 0\nend 2\n"));
  EXPECT_DOUBLE_EQ(completion(result, 0), ns(injected_at(Lookup::kSkcMiss, 0)));
  EXPECT_DOUBLE_EQ(completion(result, 1), ns(closed_form(Lookup::kSkcMiss, 1, 0)));
  EXPECT_EQ(result["replay"]["network_messages"], 1);
  EXPECT_EQ(result["replay"]["rendezvous_sends"], 0);
}

// With the eager limit below the message, the send is a rendezvous: a
// header-only request to send (both cards miss the key), the receiver's
// clear to send (hits), then the data (hits). The sender completes when the
// data is on the link, the receiver when it has arrived.
TEST(Replay, ARendezvousSendWaitsForTheReceiversAnswer) {
  const auto result = replay(trace_file("rendezvous", "0 0 100 send 1 256 0\n1 0 2000 recv 0 256 0\nend 2\n"),
                             {"replay.eager_limit_bytes=255"});
  const Tick request_arrives = closed_form(Lookup::kSkcMiss, 1, 0, 0);
  const Tick answer_arrives = edge(request_arrives) + closed_form(Lookup::kSkcHit, 1, edge(request_arrives), 0);
  const Tick data = edge(answer_arrives);
  EXPECT_DOUBLE_EQ(completion(result, 0), ns(injected_at(Lookup::kSkcHit, data)));
  EXPECT_DOUBLE_EQ(completion(result, 1), ns(data + closed_form(Lookup::kSkcHit, 1, data)));
  EXPECT_EQ(result["replay"]["network_messages"], 3);
  EXPECT_EQ(result["replay"]["control_messages"], 2);
  EXPECT_EQ(result["replay"]["rendezvous_sends"], 1);
  EXPECT_EQ(result["statistics"]["packets_delivered"], 3);
}

// The receive is posted at 10 us, after the request to send has arrived
// (5.4 us: a key miss at each card): the request waits for it, and the
// sender with it; an eager send would have completed after 2.5 us.
TEST(Replay, AReceivePostedLateDelaysARendezvousSender) {
  const auto result =
      replay(trace_file("late", "0 0 100 send 1 256 0\n1 0 10000 compute\n1 10000 15000 recv 0 256 0\nend 3\n"),
             {"replay.eager_limit_bytes=0"});
  const Tick posted = 10'000'000;
  ASSERT_LT(closed_form(Lookup::kSkcMiss, 1, 0, 0), posted);
  const Tick answer_arrives = edge(posted) + closed_form(Lookup::kSkcHit, 1, edge(posted), 0);
  const Tick data = edge(answer_arrives);
  EXPECT_DOUBLE_EQ(completion(result, 0), ns(injected_at(Lookup::kSkcHit, data)));
  EXPECT_DOUBLE_EQ(completion(result, 1), ns(data + closed_form(Lookup::kSkcHit, 1, data)));
}

// Two ranks that each send before they receive (which eager sends survive):
// by rendezvous each send waits for a receive that comes only after the
// other's send. The run stops, with both processes reported waiting.
TEST(Replay, RendezvousSendsWhoseReceivesAreNeverPostedAreADeadlock) {
  const std::string events =
      "0 0 100 send 1 20000 0\n1 0 100 send 0 20000 0\n0 100 200 recv 1 20000 0\n1 100 200 recv 0 20000 0\nend 4\n";
  sim::Cluster cluster(config_with({"trace.file=" + nlohmann::json(trace_file("head_to_head", events)).dump()}));
  const sim::RunOutcome outcome = cluster.run();
  EXPECT_FALSE(outcome.drained);
  EXPECT_FALSE(cluster.result(outcome)["replay"]["completed"].get<bool>());
  EXPECT_EQ(cluster.host().stall_report(),
            "  rank 0: waits in '0 0 100 send 1 20000 0 0'\n  rank 1: waits in '1 0 100 send 0 20000 0 0'\n");
}

// A forced ring allreduce of 400 bytes on 4 ranks: 2(n-1) rounds of 100
// bytes per rank, 24 one-packet messages in all.
TEST(Replay, AForcedCollectiveAlgorithmIsTheOneReplayed) {
  std::string events;
  for (int r = 0; r < 4; ++r) events += std::to_string(r) + " 0 100 allreduce 0 400\n";
  const auto result = replay(trace_file("ring", events + "end 4\n", 4), {"replay.collective.allreduce=ring"});
  EXPECT_EQ(result["replay"]["collective_messages"], 24);
  EXPECT_EQ(result["statistics"]["packets_delivered"], 24);
  for (int r = 0; r < 4; ++r) EXPECT_TRUE(result["replay"]["per_process"][r]["completed"].get<bool>());
}

TEST(Replay, BadTraceFailsBeforeTheRunWithItsLine) {
  const std::string path = trace_file("bad", "0 0 10 send 1 256 0\nend 1\n");
  try {
    sim::Cluster cluster(config_with({"trace.file=" + nlohmann::json(path).dump()}));
    FAIL() << "accepted";
  } catch (const traces::TraceError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": end of trace: send 0 -> 1 tag 0 (256 bytes, line 6) was never received");
  }
}

}  // namespace
}  // namespace ibsec
