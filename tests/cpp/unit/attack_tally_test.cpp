#include <gtest/gtest.h>

#include <cstddef>

#include "nic/attack_tally.h"

namespace ibsec::nic {
namespace {

using network::AttackKind;

network::Packet packet(AttackKind attack, uint32_t sequence = 7) {
  network::Packet p;
  p.attack = attack;
  p.source_process = 1;
  p.destination_process = 2;
  p.sequence = sequence;
  return p;
}

size_t at(AttackKind kind) { return static_cast<size_t>(kind); }

TEST(AttackTally, GenuinePacketsAreDeliveredAndCountNothing) {
  AttackTally tally;
  EXPECT_TRUE(tally.delivered(packet(AttackKind::kNone), true));
  EXPECT_TRUE(tally.delivered(packet(AttackKind::kNone), false));
  const AttackOutcomes& o = tally.outcomes();
  for (size_t k = 0; k < network::kAttackKinds; ++k) EXPECT_EQ(o.delivered[k] + o.detected[k], 0u);
  EXPECT_EQ(o.false_drops, 0u);
}

TEST(AttackTally, ForgedPacketsThatPassAreCountedAndNotDelivered) {
  AttackTally tally;
  EXPECT_TRUE(tally.delivered(packet(AttackKind::kTamper), false));  // a host sent it, altered
  EXPECT_FALSE(tally.delivered(packet(AttackKind::kInject), false));
  EXPECT_FALSE(tally.delivered(packet(AttackKind::kSpoof), true));
  EXPECT_FALSE(tally.delivered(packet(AttackKind::kReplay), false));  // no replay windows
  const AttackOutcomes& o = tally.outcomes();
  EXPECT_EQ(o.delivered[at(AttackKind::kTamper)], 1u);
  EXPECT_EQ(o.delivered[at(AttackKind::kInject)], 1u);
  EXPECT_EQ(o.delivered[at(AttackKind::kSpoof)], 1u);
  EXPECT_EQ(o.delivered[at(AttackKind::kReplay)], 1u);
}

TEST(AttackTally, AReplayAheadOfItsOriginalMakesTheOriginalsDropNoFalseDrop) {
  AttackTally tally;
  EXPECT_TRUE(tally.delivered(packet(AttackKind::kReplay, 7), true));
  EXPECT_EQ(tally.outcomes().replays_ahead_of_original, 1u);
  EXPECT_EQ(tally.outcomes().delivered[at(AttackKind::kReplay)], 0u);
  tally.dropped(packet(AttackKind::kNone, 7));  // the original, refused as the duplicate
  EXPECT_EQ(tally.outcomes().false_drops, 0u);
  tally.dropped(packet(AttackKind::kNone, 7));  // the same again is a genuine loss
  tally.dropped(packet(AttackKind::kNone, 8));
  EXPECT_EQ(tally.outcomes().false_drops, 2u);
}

TEST(AttackTally, DroppedAttacksAreDetected) {
  AttackTally tally;
  tally.dropped(packet(AttackKind::kTamper));
  tally.dropped(packet(AttackKind::kReplay));
  tally.dropped(packet(AttackKind::kReplay));
  EXPECT_EQ(tally.outcomes().detected[at(AttackKind::kTamper)], 1u);
  EXPECT_EQ(tally.outcomes().detected[at(AttackKind::kReplay)], 2u);
  EXPECT_EQ(tally.outcomes().false_drops, 0u);
}

}  // namespace
}  // namespace ibsec::nic
