// MPI's posted-receive and unexpected-message queues, with and without
// wildcard receives matched again: MPI's order (the receive posted first
// takes an arriving message; a wildcard takes the earliest waiting message
// from any source).
#include <gtest/gtest.h>

#include "hosts/message_queues.h"

namespace ibsec::hosts {
namespace {

const ProcessId kA(0);
const ProcessId kB(1);
const ProcessId kDest(2);

ChannelKey from(ProcessId source, uint32_t tag = 5) { return {source, kDest, tag, 0}; }
const AnySourceKey kAny{kDest, 5, 0};
// Receives are ints; an arrival says which message it was.
using Queues = MessageQueues<int, char>;

TEST(MessageQueues, MessagesAndReceivesMeetInOrderPerChannel) {
  Queues queues(false);
  queues.post(from(kA), 1);
  queues.post(from(kA), 2);
  EXPECT_EQ(queues.arrive(from(kA), 'm'), 1);
  EXPECT_EQ(queues.arrive(from(kB), 'm'), std::nullopt);  // another channel: waits
  EXPECT_EQ(queues.arrive(from(kA), 'm'), 2);
  EXPECT_EQ(queues.take_unexpected(from(kB)), 'm');
  EXPECT_EQ(queues.take_unexpected(from(kB)), std::nullopt);
  EXPECT_TRUE(queues.empty());
}

TEST(MessageQueues, AWildcardTakesTheEarliestWaitingMessageFromAnySource) {
  Queues queues(true);
  EXPECT_EQ(queues.arrive(from(kB), 'b'), std::nullopt);
  EXPECT_EQ(queues.arrive(from(kA), 'a'), std::nullopt);
  EXPECT_EQ(queues.arrive(from(kB, 6), '6'), std::nullopt);  // another tag: not for this wildcard
  EXPECT_EQ(queues.take_unexpected(kAny), 'b');
  EXPECT_EQ(queues.take_unexpected(kAny), 'a');
  EXPECT_EQ(queues.take_unexpected(kAny), std::nullopt);
  EXPECT_EQ(queues.take_unexpected(from(kB, 6)), '6');
  EXPECT_TRUE(queues.empty());
}

TEST(MessageQueues, AnArrivingMessageGoesToTheReceivePostedFirst) {
  Queues queues(true);
  queues.post(from(kA), 1);
  queues.post(kAny, 2);
  queues.post(from(kA), 3);
  EXPECT_EQ(queues.arrive(from(kA), 'm'), 1);  // specific, posted before the wildcard
  EXPECT_EQ(queues.arrive(from(kA), 'm'), 2);  // the wildcard, posted before receive 3
  EXPECT_EQ(queues.arrive(from(kB), 'm'), std::nullopt);
  EXPECT_EQ(queues.arrive(from(kA), 'm'), 3);
  EXPECT_EQ(queues.take_unexpected(from(kB)), 'm');
  EXPECT_TRUE(queues.empty());
}

// A message taken by a specific receive is no longer there for a wildcard.
TEST(MessageQueues, ASpecificReceiveRemovesItsMessageFromTheWildcardsView) {
  Queues queues(true);
  EXPECT_EQ(queues.arrive(from(kA), 'a'), std::nullopt);
  EXPECT_EQ(queues.arrive(from(kB), 'b'), std::nullopt);
  EXPECT_EQ(queues.take_unexpected(from(kA)), 'a');
  EXPECT_EQ(queues.take_unexpected(kAny), 'b');
  EXPECT_TRUE(queues.empty());
}

// Without matching again, a wildcard receive is not posted as one: arrivals
// ignore the wildcard queue.
TEST(MessageQueues, WithoutRematchingArrivalsOnlyMeetTheirChannel) {
  Queues queues(false);
  queues.post(kAny, 9);
  EXPECT_EQ(queues.arrive(from(kA), 'm'), std::nullopt);
}

}  // namespace
}  // namespace ibsec::hosts
