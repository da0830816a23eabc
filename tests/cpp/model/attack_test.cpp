// The attacker model (attack/attacker.h, docs/attacks.md): every kind of
// active attack is stopped by the card with security on (all detected, none
// delivered, no genuine packet lost) and gets through without it; a snooped
// capture holds no plaintext of protected traffic; an attacker that does
// nothing changes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attack/attack.h"
#include "core/errors.h"
#include "nic/synthetic_payload.h"
#include "support/hex.h"
#include "support/model_support.h"

namespace ibsec {
namespace {

using testing::config_with;
using testing::run_here;
using testing::run_in_child;

// Four nodes, node 0's outgoing cable attacked: about a quarter of 12 000
// one-packet messages pass the attacker.
std::vector<std::string> attacked_run(const std::string& security, const std::vector<std::string>& more) {
  std::vector<std::string> o{"network.nodes=4",       "traffic.messages=12000",     "traffic.warmup_messages=500",
                             "traffic.load=0.2",      "nic.crypto.mode=functional", "nic.security=" + security,
                             "attack.link=node 0 out"};
  o.insert(o.end(), more.begin(), more.end());
  return o;
}

struct AttackedRun {
  nlohmann::ordered_json attack;
  nlohmann::ordered_json statistics;
  bool drained = false;
};

AttackedRun run_attacked(const std::string& security, const std::vector<std::string>& more) {
  sim::RunOutcome outcome;
  const auto result = run_here(attacked_run(security, more), &outcome);
  return {result["attack"], result["statistics"], outcome.drained};
}

uint64_t count(const nlohmann::ordered_json& v) { return v.get<uint64_t>(); }

// ---- Each active attack, with security on and off ----

class ActiveAttack : public ::testing::TestWithParam<std::string> {};

TEST_P(ActiveAttack, SecurityDetectsEveryAttackedPacketAndDropsNoGenuineOne) {
  const std::string& kind = GetParam();
  const AttackedRun run = run_attacked("SKC-6", {"attack." + kind + "=1.0"});
  const auto& k = run.attack["kinds"][kind];
  EXPECT_GT(count(k["attacked"]), 2000U) << "thousands of packets attacked";
  EXPECT_EQ(k["detected"], k["attacked"]);
  EXPECT_EQ(k["delivered"], 0);
  EXPECT_EQ(run.attack["delivered_despite_attack"], 0);
  EXPECT_EQ(run.attack["false_drops"], 0);
  EXPECT_EQ(run.statistics["payload_mismatches"], 0);
  EXPECT_EQ(run.statistics["credits_missing_at_end"], 0) << "the attacker's packets returned their credits";
  EXPECT_TRUE(run.drained);
  // Only tampering destroys genuine packets; every other one arrives.
  const uint64_t lost = kind == "tamper" ? count(k["attacked"]) : 0;
  EXPECT_EQ(count(run.statistics["packets_delivered"]), count(run.statistics["packets_handed_over"]) - lost);
}

TEST_P(ActiveAttack, WithoutSecurityTheAttackGetsThrough) {
  const std::string& kind = GetParam();
  const AttackedRun run = run_attacked("NoSecurity", {"attack." + kind + "=1.0"});
  const auto& k = run.attack["kinds"][kind];
  EXPECT_GT(count(k["attacked"]), 2000U);
  EXPECT_EQ(k["delivered"], k["attacked"]);
  EXPECT_EQ(k["detected"], 0);
  EXPECT_EQ(run.attack["false_drops"], 0);
  EXPECT_TRUE(run.drained);
}

INSTANTIATE_TEST_SUITE_P(Kinds, ActiveAttack, ::testing::Values("tamper", "inject", "replay", "spoof"),
                         [](const auto& info) { return info.param; });

class TamperedField : public ::testing::TestWithParam<std::string> {};

TEST_P(TamperedField, EveryAlteredPacketFailsItsChecks) {
  const AttackedRun run = run_attacked("SKC-2+Prefetch-4", {"attack.tamper=0.5", "attack.tamper_field=" + GetParam()});
  const auto& k = run.attack["kinds"]["tamper"];
  EXPECT_GT(count(k["attacked"]), 1000U);
  EXPECT_EQ(k["detected"], k["attacked"]);
  EXPECT_EQ(run.attack["false_drops"], 0);
  EXPECT_EQ(count(run.statistics["packets_dropped_auth"]) + count(run.statistics["packets_dropped_replay"]),
            count(k["attacked"]));
}

INSTANTIATE_TEST_SUITE_P(Fields, TamperedField, ::testing::Values("header", "payload", "tag"),
                         [](const auto& info) { return info.param; });

TEST(Attack, AllKindsTogetherOnASwitchPortAreAllDetected) {
  const AttackedRun run =
      run_attacked("SKC-6", {"attack.link=switch 0 port 2", "attack.tamper=0.2", "attack.inject=0.2",
                             "attack.replay=0.2", "attack.spoof=0.2", "attack.replay_delay_us=20"});
  EXPECT_GT(count(run.attack["attacked"]), 1500U);
  EXPECT_EQ(run.attack["detected"], run.attack["attacked"]);
  EXPECT_EQ(run.attack["delivered_despite_attack"], 0);
  EXPECT_EQ(run.attack["false_drops"], 0);
  EXPECT_EQ(run.statistics["credits_missing_at_end"], 0);
}

TEST(Attack, ReplaysBeyondTheWindowAreRefusedAsTooOld) {
  // 200 us later, hundreds of newer packets of each session have arrived.
  const AttackedRun run = run_attacked("SKC-6", {"attack.replay=1.0", "attack.replay_delay_us=200", "traffic.load=0.5",
                                                 "traffic.sizes_bytes=[4096]", "traffic.messages=2000"});
  EXPECT_GT(count(run.attack["kinds"]["replay"]["attacked"]), 1000U);
  EXPECT_EQ(run.attack["kinds"]["replay"]["detected"], run.attack["kinds"]["replay"]["attacked"]);
  EXPECT_EQ(run.statistics["packets_dropped_replay"], run.attack["kinds"]["replay"]["attacked"]);
}

TEST(Attack, VictimsLimitWhatIsAttacked) {
  const AttackedRun run = run_attacked("SKC-6", {"attack.inject=1.0", "attack.victims=[2]"});
  const uint64_t attacked = count(run.attack["kinds"]["inject"]["attacked"]);
  EXPECT_GT(attacked, 500U);
  EXPECT_LT(attacked, count(run.attack["packets_seen"]) / 2) << "only packets to node 2, about a third";
}

// ---- Snooping ----

// The hex of the plaintext payload the sender put in a packet.
std::string plaintext_hex(uint64_t key, uint32_t source_process, uint64_t sequence, uint32_t bytes) {
  std::vector<uint8_t> payload(bytes);
  nic::SyntheticPayload::fill(SessionKeyId(key), source_process, sequence, payload);
  return test::to_hex(payload);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string field; std::getline(in, field, ',');) fields.push_back(field);
  return fields;
}

// Snoops every packet into a capture, then searches the whole capture for
// each snooped packet's plaintext (its first 32 bytes, enough to be unique).
struct SnoopedCapture {
  uint64_t rows = 0;
  uint64_t plaintexts_found = 0;
  nlohmann::ordered_json attack;
};

SnoopedCapture snoop_everything(const std::string& security) {
  const auto path = std::filesystem::temp_directory_path() / ("capture_" + std::to_string(::getpid()) + ".csv");
  const auto result = run_here(attacked_run(
      security, {"attack.snoop=1.0", "traffic.sizes_bytes=[32,256,1000]", "attack.capture_file=" + path.string()}));
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  std::filesystem::remove(path);
  const std::string capture = text.str();
  SnoopedCapture out{0, 0, result["attack"]};
  std::stringstream lines(capture);
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) {
    const auto f = split(line);
    // session_key 6, source_process 4, sequence 7, payload_bytes 9
    const std::string plain = plaintext_hex(std::stoull(f.at(6)), static_cast<uint32_t>(std::stoul(f.at(4))),
                                            std::stoull(f.at(7)), static_cast<uint32_t>(std::stoul(f.at(9))));
    ++out.rows;
    if (capture.find(plain.substr(0, 64)) != std::string::npos) ++out.plaintexts_found;
  }
  return out;
}

TEST(Snoop, ACaptureOfProtectedTrafficHoldsNoPlaintext) {
  const SnoopedCapture c = snoop_everything("SKC-6");
  EXPECT_GT(c.rows, 2000U);
  EXPECT_EQ(c.rows, count(c.attack["snooped"]));
  EXPECT_EQ(c.plaintexts_found, 0U);
  EXPECT_EQ(c.attack["snooped_plaintext"], 0);
}

TEST(Snoop, ACaptureWithoutSecurityHoldsEveryPlaintext) {
  const SnoopedCapture c = snoop_everything("NoSecurity");
  EXPECT_GT(c.rows, 2000U);
  EXPECT_EQ(c.plaintexts_found, c.rows) << "the search finds plaintext where there is some";
  EXPECT_EQ(c.attack["snooped_plaintext"], c.attack["snooped"]);
}

// ---- An attacker that does nothing, and determinism ----

TEST(Attack, AnIdleAttackerChangesNoStatistic) {
  const std::vector<std::string> base{"network.nodes=4", "traffic.messages=4000", "nic.crypto.mode=functional",
                                      "traffic.sizes_bytes=[64,700]"};
  auto idle = base;
  idle.push_back("attack.link=node 1 in");
  idle.push_back("attack.snoop=1.0");  // reading changes nothing
  const auto plain = nlohmann::ordered_json::parse(run_in_child(base));
  const auto tapped = nlohmann::ordered_json::parse(run_in_child(idle));
  ASSERT_TRUE(tapped.contains("attack"));
  EXPECT_GT(tapped["attack"]["snooped"].get<uint64_t>(), 500U);
  for (const auto& [name, value] : plain["statistics"].items()) EXPECT_EQ(tapped["statistics"][name], value) << name;
  EXPECT_EQ(tapped["latency_histogram_ns"], plain["latency_histogram_ns"]);
}

TEST(Attack, SameSeedGivesByteIdenticalResults) {
  const auto overrides = attacked_run("SKC-6", {"attack.tamper=0.3", "attack.inject=0.3", "attack.replay=0.3",
                                                "attack.spoof=0.3", "traffic.messages=3000"});
  const std::string first = run_in_child(overrides);
  ASSERT_NE(first.find("\"attack\""), std::string::npos);
  EXPECT_EQ(first, run_in_child(overrides));
}

// ---- Configuration ----

TEST(AttackSite, ReadsEveryFormAndWritesItBack) {
  for (const std::string text : {"node 3 out", "node 0 in", "switch 2 port 7"}) {
    EXPECT_EQ(attack::AttackSite::parse(text, "k").text(), text);
  }
  EXPECT_EQ(attack::AttackSite::parse("switch 2 port 7", "k").port, 7);
  for (const std::string bad : {"", "node", "node 3", "node -1 out", "node 3 sideways", "switch 1 port",
                                "switch 1 port 70000", "node 1 out extra", "link 1 out"}) {
    try {
      attack::AttackSite::parse(bad, "attack.link");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("attack.link"), std::string::npos) << e.what();
    }
  }
}

TEST(AttackConfig, RejectsWhatCannotBeRun) {
  const std::vector<std::string> ok{"nic.crypto.mode=functional", "attack.link=node 0 out"};
  EXPECT_TRUE(config_with(ok).attack.has_value());
  EXPECT_FALSE(config_with({}).attack.has_value());
  const auto rejects = [&ok](const std::string& extra, const std::string& key) {
    auto o = ok;
    o.push_back(extra);
    try {
      config_with(o);
      ADD_FAILURE() << "accepted " << extra;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  rejects("nic.crypto.mode=timing", "attack.link");
  rejects("attack.tamper=1.5", "attack.tamper");
  rejects("attack.snoop=-0.1", "attack.snoop");
  rejects("attack.tamper_field=crc", "attack.tamper_field");
  rejects("attack.victims=[16]", "attack.victims");
}

TEST(AttackConfig, TamperingAReplayedTraceIsRefused) {
  try {
    config_with({"nic.crypto.mode=functional", "attack.link=node 0 out", "attack.tamper=0.1", "trace.file=x.trace"});
    ADD_FAILURE() << "accepted tampering with a trace replay";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("retransmit"), std::string::npos) << e.what();
  }
}

TEST(AttackConfig, ALinkMissingFromTheTopologyIsNamed) {
  try {
    sim::Cluster cluster(config_with({"nic.crypto.mode=functional", "network.nodes=4", "attack.link=node 4 out"}));
    ADD_FAILURE() << "built a cluster with an attacker on no cable";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("node 4 out"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ibsec
