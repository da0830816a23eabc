// Functional cryptography in the card (nic.crypto.mode = functional,
// docs/crypto.md "In the card"): the replay window, a card's receive checks
// against altered, replayed and unkeyed packets, and whole runs whose every
// delivered payload must be the one sent, with timing identical to a timing
// run's.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "core/random.h"
#include "nic/card_crypto.h"
#include "nic/host_interface.h"
#include "nic/replay_window.h"
#include "nic/synthetic_payload.h"
#include "support/model_support.h"

namespace ibsec {
namespace {

using nic::ReceiveVerdict;
using nic::ReplayVerdict;
using testing::config_with;
using testing::run_here;
using testing::run_in_child;

// ---- Replay window ----

TEST(ReplayWindow, AcceptsFreshAndRefusesDuplicatesAndTooOld) {
  nic::ReplayWindow w;
  EXPECT_EQ(w.check(0), ReplayVerdict::kFresh);
  w.accept(0);
  EXPECT_EQ(w.check(0), ReplayVerdict::kDuplicate);
  EXPECT_EQ(w.check(1), ReplayVerdict::kFresh);
  w.accept(5);  // 1..4 not yet seen: still inside the window
  EXPECT_EQ(w.check(3), ReplayVerdict::kFresh);
  w.accept(3);
  EXPECT_EQ(w.check(3), ReplayVerdict::kDuplicate);
  EXPECT_EQ(w.check(5), ReplayVerdict::kDuplicate);
  EXPECT_EQ(w.check(0), ReplayVerdict::kDuplicate);
  EXPECT_EQ(w.highest(), 5U);
}

TEST(ReplayWindow, FarAheadSlidesTheWindowPastOldNumbers) {
  nic::ReplayWindow w;
  w.accept(10);
  w.accept(10 + 1000);  // far ahead: fresh, and the window now ends at 1010
  EXPECT_EQ(w.check(10), ReplayVerdict::kTooOld);
  EXPECT_EQ(w.check(1010 - nic::ReplayWindow::kDefaultWidth), ReplayVerdict::kTooOld);
  EXPECT_EQ(w.check(1010 - nic::ReplayWindow::kDefaultWidth + 1), ReplayVerdict::kFresh);
  EXPECT_EQ(w.check(1009), ReplayVerdict::kFresh);
  EXPECT_EQ(w.check(1010), ReplayVerdict::kDuplicate);
  w.accept(1009);
  w.accept(1010 + 63);  // 1009 and 1010 stay inside
  EXPECT_EQ(w.check(1010), ReplayVerdict::kDuplicate);
  EXPECT_EQ(w.check(1009), ReplayVerdict::kTooOld);
}

// A window of any width against the rule it implements, kept the obvious
// way: every accepted number in a set. Numbers land around the highest so far
// (ahead, inside, at the edge, below), and now and then far ahead.
TEST(ReplayWindow, EveryWidthGivesTheVerdictsOfTheRule) {
  for (const uint64_t width : {1U, 7U, 63U, 64U, 65U, 100U, 1000U}) {
    nic::ReplayWindow w(width);
    std::set<uint64_t> accepted;
    uint64_t highest = 0;
    Rng rng(width);
    for (int step = 0; step < 20000; ++step) {
      const uint64_t spread = 3 * width + 130;
      const uint64_t around = highest + (rng.below(50) == 0 ? 5 * spread : 0);
      const uint64_t low = around > spread / 2 ? around - spread / 2 : 0;
      const uint64_t sequence = low + rng.below(spread);
      ReplayVerdict expected = ReplayVerdict::kFresh;
      if (!accepted.empty() && sequence <= highest) {
        expected = highest - sequence >= width   ? ReplayVerdict::kTooOld
                   : accepted.contains(sequence) ? ReplayVerdict::kDuplicate
                                                 : ReplayVerdict::kFresh;
      }
      ASSERT_EQ(w.check(sequence), expected) << "width " << width << ", step " << step << ", number " << sequence;
      if (expected == ReplayVerdict::kFresh && rng.below(4) != 0) {
        w.accept(sequence);
        accepted.insert(sequence);
        highest = std::max(highest, sequence);
      }
    }
  }
}

// ---- A card's receive path ----

constexpr uint32_t kProcesses = 4;

class CardReceive : public ::testing::Test {
 protected:
  static nic::CardCryptoParams params(bool encrypts = true) { return {7, 16, kProcesses, encrypts}; }

  network::Packet packet(uint32_t sequence, uint32_t bytes = 256) const {
    network::Packet p;
    p.key = key_;
    p.sequence = sequence;
    p.source = NodeId(0);
    p.destination = NodeId(1);
    p.source_process = 0;
    p.destination_process = 1;
    p.payload_bytes = bytes;
    p.message = sequence;
    return p;
  }
  // The sender's side: the payload written at hand-over, sealed at the link.
  network::Packet sealed(uint32_t sequence) {
    const network::Packet p = packet(sequence);
    sender_.write_payload(p, handle_);
    EXPECT_TRUE(sender_.seal(p, handle_));
    return p;
  }
  std::vector<uint8_t> wire_bytes(const network::Packet& p) {
    std::vector<uint8_t> bytes;
    for (const uint8_t b : payloads_.payload(handle_, p.payload_bytes)) bytes.push_back(b);
    for (const uint8_t b : payloads_.tag(handle_)) bytes.push_back(b);
    return bytes;
  }
  void put_wire_bytes(const network::Packet& p, const std::vector<uint8_t>& bytes) {
    std::ranges::copy(std::span(bytes).first(p.payload_bytes), payloads_.payload(handle_, p.payload_bytes).begin());
    std::ranges::copy(std::span(bytes).subspan(p.payload_bytes), payloads_.tag(handle_).begin());
  }
  bool payload_is_plaintext(const network::Packet& p) {
    return nic::SyntheticPayload::matches(p.key, p.source_process, p.sequence,
                                          payloads_.payload(handle_, p.payload_bytes));
  }

  void SetUp() override {
    sender_.key_read(key_);
    receiver_.key_read(key_);
  }

  SessionKeyId key_ = nic::session_key(0, 1, kProcesses);
  network::PacketPayloads payloads_{256};
  network::PacketHandle handle_{3};
  nic::CardCrypto sender_{NodeId(0), params(), payloads_};
  nic::CardCrypto receiver_{NodeId(1), params(), payloads_};
};

TEST_F(CardReceive, DeliversTheSentPayload) {
  const network::Packet p = sealed(0);
  EXPECT_FALSE(payload_is_plaintext(p)) << "the wire must carry ciphertext";
  EXPECT_EQ(receiver_.receive(p, handle_), ReceiveVerdict::kDeliver);
  EXPECT_TRUE(payload_is_plaintext(p));
  EXPECT_EQ(receiver_.stats().packets_opened, 1U);
  EXPECT_EQ(receiver_.stats().payload_mismatches, 0U);
  EXPECT_EQ(sender_.stats().packets_sealed, 1U);
}

TEST_F(CardReceive, DropsAlteredCiphertextTagOrHeader) {
  // Each alteration of what the wire carries: payload, tag, and every header field in the AAD or nonce.
  const std::vector<std::pair<const char*, void (*)(network::Packet&)>> header_changes{
      {"destination process", [](network::Packet& p) { p.destination_process = 2; }},
      {"length", [](network::Packet& p) { p.payload_bytes -= 16; }},
      {"sequence", [](network::Packet& p) { p.sequence += 1; }},
      {"message", [](network::Packet& p) { p.message += 1; }},
      {"last of message", [](network::Packet& p) { p.last_of_message = !p.last_of_message; }},
      {"source node", [](network::Packet& p) { p.source = NodeId(2); }},
      {"service level", [](network::Packet& p) { p.service_level = VirtualLane(1); }},
      {"direction", [](network::Packet& p) { std::swap(p.source_process, p.destination_process); }},
  };
  uint32_t sequence = 0;
  uint64_t drops = 0;
  for (const auto& [what, change] : header_changes) {
    network::Packet p = sealed(sequence++);
    change(p);
    EXPECT_EQ(receiver_.receive(p, handle_), ReceiveVerdict::kDropAuth) << what;
    ++drops;
  }
  for (const bool in_tag : {false, true}) {
    const network::Packet p = sealed(sequence++);
    auto bytes = wire_bytes(p);
    bytes[in_tag ? bytes.size() - 1 : 17] ^= 0x01;
    put_wire_bytes(p, bytes);
    EXPECT_EQ(receiver_.receive(p, handle_), ReceiveVerdict::kDropAuth) << (in_tag ? "tag" : "ciphertext");
    ++drops;
  }
  EXPECT_EQ(receiver_.stats().packets_dropped_auth, drops);
  EXPECT_EQ(receiver_.stats().packets_opened, 0U);
  // Nothing forged moved the window: the genuine packets still go through.
  const network::Packet genuine = sealed(1);
  EXPECT_EQ(receiver_.receive(genuine, handle_), ReceiveVerdict::kDeliver);
}

TEST_F(CardReceive, TheLaneOfTheLastHopIsNotAuthenticated) {
  // Switches may move a packet to another lane on every hop (a torus's
  // datelines); only the lane its card chose, the service level, is in the nonce.
  network::Packet p = sealed(0);
  p.lane = VirtualLane(1);
  EXPECT_EQ(receiver_.receive(p, handle_), ReceiveVerdict::kDeliver);
}

TEST_F(CardReceive, DropsReplayedPacketsAndForgeriesDoNotMoveTheWindow) {
  const network::Packet first = sealed(0);
  const auto copy = wire_bytes(first);
  ASSERT_EQ(receiver_.receive(first, handle_), ReceiveVerdict::kDeliver);
  put_wire_bytes(first, copy);
  EXPECT_EQ(receiver_.receive(first, handle_), ReceiveVerdict::kDropReplay);  // duplicate

  // A forgery far ahead fails its tag and leaves the window where it was.
  network::Packet forged = sealed(1000);
  auto bytes = wire_bytes(forged);
  bytes[0] ^= 0x80;
  put_wire_bytes(forged, bytes);
  EXPECT_EQ(receiver_.receive(forged, handle_), ReceiveVerdict::kDropAuth);
  EXPECT_EQ(receiver_.receive(sealed(2), handle_), ReceiveVerdict::kDeliver);

  // Genuine far ahead moves it; an old genuine packet is then too old.
  const network::Packet old = sealed(3);
  const auto old_copy = wire_bytes(old);
  EXPECT_EQ(receiver_.receive(sealed(2 + nic::ReplayWindow::kDefaultWidth + 5), handle_), ReceiveVerdict::kDeliver);
  put_wire_bytes(old, old_copy);
  EXPECT_EQ(receiver_.receive(old, handle_), ReceiveVerdict::kDropReplay);
  EXPECT_EQ(receiver_.stats().packets_dropped_replay, 2U);
  EXPECT_EQ(receiver_.stats().packets_opened, 3U);
}

TEST_F(CardReceive, WrongKeyIdIsDroppedBeforeAnyKeyIsUsed) {
  network::Packet p = sealed(0);
  p.key = nic::session_key(0, 2, kProcesses);  // not the pair's key
  EXPECT_EQ(receiver_.receive(p, handle_), ReceiveVerdict::kDropAuth);
}

TEST_F(CardReceive, AKeyRecordAlteredInKeyMemoryIsNeverUsed) {
  nic::crypto::WrappedKey* record = receiver_.key_memory_record(key_);
  ASSERT_NE(record, nullptr);
  std::vector<uint8_t> altered(record->bytes().begin(), record->bytes().end());
  altered[nic::crypto::WrappedKey::version_bytes + nic::crypto::AesGcm::nonce_bytes] ^= 0x01;  // first key byte
  *record = *nic::crypto::WrappedKey::parse(altered);
  receiver_.key_read(key_);  // the next SKC miss reads it
  EXPECT_EQ(receiver_.stats().key_unwrap_failures, 1U);
  EXPECT_EQ(receiver_.receive(sealed(0), handle_), ReceiveVerdict::kDropNoKey);
  EXPECT_EQ(receiver_.stats().packets_dropped_key, 1U);
  EXPECT_EQ(receiver_.stats().packets_opened, 0U);
}

TEST_F(CardReceive, EveryReadOfAnAlteredRecordFailsAndTheRestoredOneVerifiesAgain) {
  nic::crypto::WrappedKey* record = receiver_.key_memory_record(key_);
  const nic::crypto::WrappedKey original = *record;  // verified once in SetUp
  std::vector<uint8_t> altered(record->bytes().begin(), record->bytes().end());
  altered.back() ^= 0x80;  // the tag
  *record = *nic::crypto::WrappedKey::parse(altered);
  receiver_.key_read(key_);
  receiver_.key_read(key_);
  EXPECT_EQ(receiver_.stats().key_unwrap_failures, 2U) << "a failed record is not remembered as verified";
  *record = original;
  receiver_.key_read(key_);
  EXPECT_EQ(receiver_.stats().key_unwrap_failures, 2U);
  EXPECT_EQ(receiver_.stats().key_unwraps, 4U);
  EXPECT_EQ(receiver_.receive(sealed(0), handle_), ReceiveVerdict::kDeliver);
}

TEST_F(CardReceive, ARecordMovedToAnotherSlotFailsToUnwrap) {
  const SessionKeyId other = nic::session_key(1, 2, kProcesses);
  receiver_.key_read(other);
  *receiver_.key_memory_record(other) = *receiver_.key_memory_record(key_);
  receiver_.key_read(other);
  EXPECT_EQ(receiver_.stats().key_unwrap_failures, 1U);
}

// Keys, and so the bytes on the wire, follow from the run's seed alone.
TEST_F(CardReceive, TheSeedDeterminesWhatGoesOnTheWire) {
  const auto sealed_by = [this](uint64_t seed) {
    nic::CardCrypto card(NodeId(0), {seed, 16, kProcesses, true}, payloads_);
    card.key_read(key_);
    const network::Packet p = packet(0);
    card.write_payload(p, handle_);
    EXPECT_TRUE(card.seal(p, handle_));
    return wire_bytes(p);
  };
  EXPECT_EQ(sealed_by(7), sealed_by(7));
  EXPECT_NE(sealed_by(7), sealed_by(8));
  const network::Packet p = sealed(0);  // the fixture's sender, seed 7
  EXPECT_EQ(wire_bytes(p), sealed_by(7));
}

TEST(CardReceiveNoSecurity, PlaintextIsDeliveredAsIsAndAlterationOnlyShowsAsAMismatch) {
  network::PacketPayloads payloads(256);
  const network::PacketHandle h(0);
  nic::CardCrypto sender(NodeId(0), {7, 16, kProcesses, false}, payloads);
  nic::CardCrypto receiver(NodeId(1), {7, 16, kProcesses, false}, payloads);
  network::Packet p;
  p.key = nic::session_key(0, 1, kProcesses);
  p.destination_process = 1;
  p.payload_bytes = 100;
  sender.write_payload(p, h);
  EXPECT_TRUE(nic::SyntheticPayload::matches(p.key, 0, 0, payloads.payload(h, 100)));
  EXPECT_EQ(receiver.receive(p, h), ReceiveVerdict::kDeliver);
  payloads.payload(h, 100)[5] ^= 0xFF;
  EXPECT_EQ(receiver.receive(p, h), ReceiveVerdict::kDeliver);  // nothing protects it
  EXPECT_EQ(receiver.stats().payload_mismatches, 1U);
  EXPECT_EQ(receiver.stats().packets_opened, 0U);
}

// ---- Whole runs ----

const std::vector<std::string> kSynthetic{
    "nic.security=SKC-6",          "traffic.processes_per_node=4",     "traffic.messages=3000",
    "traffic.warmup_messages=300", "traffic.sizes_bytes=[64,256,700]", "traffic.load=0.1"};

std::vector<std::string> with(std::vector<std::string> overrides, const std::vector<std::string>& more) {
  overrides.insert(overrides.end(), more.begin(), more.end());
  return overrides;
}

void expect_every_payload_delivered_intact(const nlohmann::ordered_json& s) {
  EXPECT_GT(s["packets_delivered"].get<uint64_t>(), 1000U);
  EXPECT_EQ(s["packets_delivered"], s["packets_handed_over"]);
  EXPECT_EQ(s["packets_sealed"], s["packets_handed_over"]);
  EXPECT_EQ(s["packets_opened"], s["packets_delivered"]);
  EXPECT_EQ(s["key_unwraps"], s["key_memory_accesses"]);
  for (const char* zero : {"payload_mismatches", "packets_dropped_auth", "packets_dropped_replay",
                           "packets_dropped_key", "key_unwrap_failures", "out_of_order_packets"}) {
    EXPECT_EQ(s[zero], 0) << zero;
  }
}

TEST(FunctionalCryptoRun, Skc6SyntheticTrafficDeliversEveryPayloadIntact) {
  sim::RunOutcome outcome;
  const auto result = run_here(with(kSynthetic, {"nic.crypto.mode=functional"}), &outcome);
  EXPECT_TRUE(outcome.drained);
  expect_every_payload_delivered_intact(result["statistics"]);
  EXPECT_GT(result["statistics"]["key_misses"].get<uint64_t>(), 100U) << "SKC misses must exercise the unwrap";
  EXPECT_EQ(result["config"]["nic"]["crypto"]["mode"], "functional");
}

// On a torus with dateline lanes most packets arrive on a lane other than
// the one their card chose (3 lanes: sessions on lane 2 end on 0 or 1); the
// nonce is the service level's, so every payload still opens.
TEST(FunctionalCryptoRun, PacketsThatChangeLanesOnATorusOpen) {
  sim::RunOutcome outcome;
  const auto result = run_here(with(kSynthetic, {"nic.crypto.mode=functional", "network.topology=torus",
                                                 "network.torus.dims=5x3", "network.virtual_lanes=3"}),
                               &outcome);
  EXPECT_TRUE(outcome.drained);
  expect_every_payload_delivered_intact(result["statistics"]);
  EXPECT_EQ(result["topology"]["lanes_needed"], 2);
}

TEST(FunctionalCryptoRun, PrefetchAndAes256DeliverEveryPayloadIntact) {
  const auto result = run_here(with(kSynthetic, {"nic.crypto.mode=functional", "nic.crypto.key_bits=256",
                                                 "nic.security=SKC-2+Prefetch-4", "network.virtual_lanes=3"}));
  expect_every_payload_delivered_intact(result["statistics"]);
  EXPECT_GT(result["statistics"]["prefetches_issued"].get<uint64_t>(), 0U);
}

TEST(FunctionalCryptoRun, NoSkcUnwrapsOnEveryLookup) {
  const auto result = run_here(with(kSynthetic, {"nic.crypto.mode=functional", "nic.security=NoSKC"}));
  expect_every_payload_delivered_intact(result["statistics"]);
  EXPECT_EQ(result["statistics"]["key_unwraps"], result["statistics"]["key_lookups"]);
}

TEST(FunctionalCryptoRun, NoSecuritySendsPlaintextWithoutTags) {
  const auto s = run_here(with(kSynthetic, {"nic.crypto.mode=functional", "nic.security=NoSecurity"}))["statistics"];
  EXPECT_EQ(s["packets_delivered"], s["packets_handed_over"]);
  EXPECT_EQ(s["packets_sealed"], 0);
  EXPECT_EQ(s["packets_opened"], 0);
  EXPECT_EQ(s["key_unwraps"], 0);
  EXPECT_EQ(s["payload_mismatches"], 0);
}

TEST(FunctionalCryptoRun, TraceReplayOfCollectivesDeliversEveryPayloadIntact) {
  const auto path =
      std::filesystem::temp_directory_path() / ("fc_collectives_" + std::to_string(::getpid()) + ".trace");
  std::string events;
  for (int r = 0; r < 4; ++r) events += std::to_string(r) + " 0 100 allreduce 0 8\n";
  for (int r = 0; r < 4; ++r) events += std::to_string(r) + " 100 200 alltoall 0 600\n";
  std::ofstream(path) << "ibsec-trace 1\nprocesses 4\ntime_unit ns\norigin synthetic functional_crypto_test\nevents\n"
                      << events << "end 8\n";
  const auto result = run_here(
      {"trace.file=" + nlohmann::json(path.string()).dump(), "nic.crypto.mode=functional", "nic.security=SKC-2"});
  std::filesystem::remove(path);
  const auto& s = result["statistics"];
  // Open MPI 4.1's choices on 4 ranks: a ring allreduce (24 messages), a linear alltoall (12 of 3 packets).
  EXPECT_EQ(s["packets_delivered"], 24 + 12 * 3);
  EXPECT_EQ(s["packets_opened"], 24 + 12 * 3);
  EXPECT_EQ(s["payload_mismatches"], 0);
  EXPECT_EQ(s["packets_dropped_auth"], 0);
}

TEST(FunctionalCryptoRun, TimingIsExactlyThatOfATimingRun) {
  const auto timing = nlohmann::ordered_json::parse(run_in_child(kSynthetic));
  auto functional = nlohmann::ordered_json::parse(run_in_child(with(kSynthetic, {"nic.crypto.mode=functional"})));
  ASSERT_FALSE(timing["statistics"].contains("packets_sealed")) << "timing results gain no statistics";
  ASSERT_GT(timing["statistics"]["key_misses"].get<uint64_t>(), 0U);
  for (const auto& [name, value] : timing["statistics"].items()) {
    if (name != "statistics_meta") {
      EXPECT_EQ(functional["statistics"][name], value) << name;
    }
  }
  EXPECT_EQ(functional["latency_histogram_ns"], timing["latency_histogram_ns"]);
}

TEST(FunctionalCryptoRun, SameSeedGivesByteIdenticalResults) {
  const auto overrides = with(kSynthetic, {"nic.crypto.mode=functional", "seed=11"});
  const std::string first = run_in_child(overrides);
  EXPECT_FALSE(first.empty());
  EXPECT_EQ(first, run_in_child(overrides));
}

TEST(FunctionalCryptoConfig, RejectsUnknownModesAndKeySizes) {
  EXPECT_THROW(config_with({"nic.crypto.mode=real"}), ConfigError);
  EXPECT_THROW(config_with({"nic.crypto.key_bits=192"}), ConfigError);
  EXPECT_EQ(config_with({}).nic.functional_crypto, false);
  EXPECT_EQ(config_with({"nic.crypto.key_bits=256"}).nic.session_key_bytes, 32U);
}

}  // namespace
}  // namespace ibsec
