// MPI matching on its own, with the cards replaced by a transport that
// records what it is asked to carry: receives posted before and after their
// message, matching order within and across tags, waits on nonblocking
// requests, multi-packet messages and a collective's rounds.
#include <gtest/gtest.h>

#include "hosts/mpi_matching.h"

namespace ibsec::hosts {
namespace {

constexpr uint32_t kMtu = 256;
constexpr uint64_t kEagerLimit = 1024;
const ProcessId kP0(0);
const ProcessId kP1(1);

class RecordingTransport final : public MessageTransport {
 public:
  void carry(const OutgoingMessage& message, Tick /*now*/) override { carried.push_back(message); }
  void continue_later(uint32_t background, Tick /*now*/) override { rounds_done.push_back(background); }
  std::vector<OutgoingMessage> carried;
  std::vector<uint32_t> rounds_done;  // non-blocking collectives to continue
};

// One job of `processes` ranks with only the world communicator.
IdVector<JobId, MpiJob> one_job(uint32_t processes) {
  traces::TraceHeader header;
  header.processes = processes;
  IdVector<JobId, MpiJob> jobs;
  jobs.push_back(MpiJob{ProcessId(0), processes, header.communicators()});
  return jobs;
}

TraceEvent event(TraceOp op, uint32_t rank, uint32_t peer = 0, uint32_t tag = 0, uint32_t request = 0,
                 uint64_t bytes = 8) {
  TraceEvent e;
  e.op = op;
  e.rank = rank;
  e.peer = peer;
  e.tag = tag;
  e.request = request;
  e.bytes = bytes;
  return e;
}

class MpiMatchingTest : public ::testing::Test {
 protected:
  // Delivers every packet of the message carried `index`-th. A copy: a
  // delivery may make the matching carry another message, which can move
  // the recorded ones.
  MpiMatching::Delivery deliver(size_t index) {
    const OutgoingMessage m = transport.carried.at(index);
    MpiMatching::Delivery last;
    for (uint32_t i = 0; i < m.packets; ++i) last = matching.packet_delivered(m.message, 0);
    return last;
  }
  ProcessId sent(size_t index) { return matching.message_sent(transport.carried.at(index).message, 0); }

  RecordingTransport transport;
  MpiMatching matching{one_job(2), kMtu, kEagerLimit, CollectiveChoice(CollectiveScheme::kSimple), transport};
};

TEST_F(MpiMatchingTest, ReceivePostedBeforeTheMessageCompletesOnArrival) {
  EXPECT_FALSE(matching.begin(kP1, event(TraceOp::kRecv, 1, 0, 3), 0));
  EXPECT_FALSE(matching.begin(kP0, event(TraceOp::kSend, 0, 1, 3), 0));
  ASSERT_EQ(transport.carried.size(), 1U);
  EXPECT_EQ(transport.carried[0].from, kP0);
  EXPECT_EQ(transport.carried[0].to, kP1);
  EXPECT_EQ(sent(0), kP0);  // the blocking send returns once the card has sent it
  const MpiMatching::Delivery d = deliver(0);
  EXPECT_EQ(d.arrived_for, kP1);
  EXPECT_EQ(d.wait_over, kP1);
  EXPECT_EQ(matching.network_messages(), 1U);
}

TEST_F(MpiMatchingTest, ReceivePostedAfterTheMessageCompletesAtOnce) {
  EXPECT_TRUE(matching.begin(kP0, event(TraceOp::kIsend, 0, 1, 3, 7), 0));
  EXPECT_TRUE(sent(0).is_none());  // nobody waits for the isend yet
  const MpiMatching::Delivery d = deliver(0);
  EXPECT_EQ(d.arrived_for, kP1);
  EXPECT_TRUE(d.wait_over.is_none());
  EXPECT_TRUE(matching.begin(kP1, event(TraceOp::kRecv, 1, 0, 3), 0));
  // A second receive on the same channel finds nothing left.
  EXPECT_FALSE(matching.begin(kP1, event(TraceOp::kRecv, 1, 0, 3), 0));
}

TEST_F(MpiMatchingTest, MessagesMeetReceivesByTagAndInOrderWithinATag) {
  EXPECT_TRUE(matching.begin(kP1, event(TraceOp::kIrecv, 1, 0, 7, 1), 0));
  EXPECT_TRUE(matching.begin(kP1, event(TraceOp::kIrecv, 1, 0, 5, 2), 0));
  EXPECT_TRUE(matching.begin(kP1, event(TraceOp::kIrecv, 1, 0, 5, 3), 0));
  EXPECT_TRUE(matching.begin(kP0, event(TraceOp::kIsend, 0, 1, 5, 1), 0));
  EXPECT_TRUE(matching.begin(kP0, event(TraceOp::kIsend, 0, 1, 7, 2), 0));
  EXPECT_TRUE(matching.begin(kP0, event(TraceOp::kIsend, 0, 1, 5, 3), 0));
  deliver(0);  // tag 5: the first receive posted for tag 5, request 2
  EXPECT_TRUE(matching.begin(kP1, event(TraceOp::kWait, 1, 0, 0, 2), 0));
  EXPECT_FALSE(matching.begin(kP1, event(TraceOp::kWait, 1, 0, 0, 3), 0));
  EXPECT_EQ(deliver(2).wait_over, kP1);  // the second tag-5 message completes request 3
  EXPECT_FALSE(matching.begin(kP1, event(TraceOp::kWait, 1, 0, 0, 1), 0));
  EXPECT_EQ(deliver(1).wait_over, kP1);
}

TEST_F(MpiMatchingTest, AWaitOnAnIsendEndsWhenTheCardHasSentIt) {
  EXPECT_TRUE(matching.begin(kP0, event(TraceOp::kIsend, 0, 1, 0, 4), 0));
  EXPECT_FALSE(matching.begin(kP0, event(TraceOp::kWait, 0, 0, 0, 4), 0));
  EXPECT_EQ(sent(0), kP0);
  // Sent before the wait: the wait completes at once.
  EXPECT_TRUE(matching.begin(kP0, event(TraceOp::kIsend, 0, 1, 0, 5), 0));
  EXPECT_TRUE(sent(1).is_none());
  EXPECT_TRUE(matching.begin(kP0, event(TraceOp::kWait, 0, 0, 0, 5), 0));
}

TEST_F(MpiMatchingTest, AMessageArrivesWithItsLastPacket) {
  EXPECT_FALSE(matching.begin(kP1, event(TraceOp::kRecv, 1, 0, 0), 0));
  EXPECT_TRUE(matching.begin(kP0, event(TraceOp::kIsend, 0, 1, 0, 1, 2 * kMtu + 1), 0));
  const OutgoingMessage m = transport.carried.at(0);
  ASSERT_EQ(m.packets, 3U);
  EXPECT_TRUE(matching.packet_delivered(m.message, 0).arrived_for.is_none());
  EXPECT_TRUE(matching.packet_delivered(m.message, 0).arrived_for.is_none());
  EXPECT_EQ(matching.packet_delivered(m.message, 0).wait_over, kP1);
}

// A barrier of two is one dissemination round: each sends to the other and
// receives from it. A user message on tag 0 is not taken for the barrier's.
TEST_F(MpiMatchingTest, ACollectiveCompletesWithItsLastRoundAndIgnoresUserMessages) {
  EXPECT_TRUE(matching.begin(kP0, event(TraceOp::kIsend, 0, 1, 0, 1), 0));
  deliver(0);  // unexpected at process 1, user context
  TraceEvent barrier = event(TraceOp::kBarrier, 0);
  EXPECT_FALSE(matching.begin(kP0, barrier, 0));
  barrier.rank = 1;
  EXPECT_FALSE(matching.begin(kP1, barrier, 0));
  ASSERT_EQ(transport.carried.size(), 3U);
  EXPECT_EQ(matching.collective_messages(), 2U);
  // Two calls (one per process) of one barrier; the isend is the one application message.
  EXPECT_EQ(matching.collective_calls(TraceOp::kBarrier), 2U);
  EXPECT_EQ(matching.collective_calls(), 2U);
  EXPECT_EQ(matching.application_messages(), 1U);
  EXPECT_EQ(matching.network_messages(), 3U);
  EXPECT_EQ(matching.collective_round(kP0), (std::pair<size_t, size_t>{0, 1}));
  EXPECT_TRUE(sent(1).is_none());  // process 0 still waits for its receive
  EXPECT_EQ(deliver(2).wait_over, kP0);
  EXPECT_TRUE(matching.go_on(kP0, 0));
  EXPECT_TRUE(deliver(1).wait_over.is_none());  // process 1 still waits for its send
  EXPECT_EQ(sent(2), kP1);
  EXPECT_TRUE(matching.go_on(kP1, 0));
  // The user message is still there for a user receive.
  EXPECT_TRUE(matching.begin(kP1, event(TraceOp::kRecv, 1, 0, 0), 0));
}

TEST_F(MpiMatchingTest, ASelfMessageCrossesNoCard) {
  EXPECT_TRUE(matching.begin(kP0, event(TraceOp::kIrecv, 0, 0, 4, 1), 0));
  EXPECT_TRUE(matching.begin(kP0, event(TraceOp::kIsend, 0, 0, 4, 2), 0));
  EXPECT_TRUE(transport.carried.empty());
  EXPECT_EQ(matching.self_messages(), 1U);
  EXPECT_EQ(matching.application_messages(), 1U);  // a self-message is the program's send all the same
  EXPECT_EQ(matching.network_messages(), 0U);
  EXPECT_TRUE(matching.begin(kP0, event(TraceOp::kWait, 0, 0, 0, 1), 0));  // the receive is complete
  EXPECT_TRUE(matching.begin(kP0, event(TraceOp::kWait, 0, 0, 0, 2), 0));
  // Sent first, received later: the message waits in the channel.
  EXPECT_TRUE(matching.begin(kP0, event(TraceOp::kSend, 0, 0, 9), 0));
  EXPECT_TRUE(matching.begin(kP0, event(TraceOp::kRecv, 0, 0, 9), 0));
}

// Two processes and communicator 1 of both: the same tag on two
// communicators is two channels.
IdVector<JobId, MpiJob> two_comms() {
  traces::TraceHeader header;
  header.processes = 2;
  header.comms[1] = {1, 0};
  IdVector<JobId, MpiJob> jobs;
  jobs.push_back(MpiJob{ProcessId(0), 2, header.communicators()});
  return jobs;
}

TEST(MpiMatchingComms, MessagesMeetReceivesOnTheirOwnCommunicator) {
  RecordingTransport transport;
  MpiMatching matching{two_comms(), kMtu, kEagerLimit, CollectiveChoice(CollectiveScheme::kSimple), transport};
  TraceEvent on_world = event(TraceOp::kIrecv, 1, 0, 3, 1);
  TraceEvent on_one = event(TraceOp::kIrecv, 1, 0, 3, 2);
  on_one.comm = 1;
  EXPECT_TRUE(matching.begin(kP1, on_world, 0));
  EXPECT_TRUE(matching.begin(kP1, on_one, 0));
  TraceEvent send_on_one = event(TraceOp::kIsend, 0, 1, 3, 1);
  send_on_one.comm = 1;
  EXPECT_TRUE(matching.begin(kP0, send_on_one, 0));
  for (uint32_t i = 0; i < transport.carried[0].packets; ++i)
    matching.packet_delivered(transport.carried[0].message, 0);
  // Request 2 (communicator 1) is complete, request 1 (the world) is not.
  EXPECT_TRUE(matching.begin(kP1, event(TraceOp::kWait, 1, 0, 0, 2), 0));
  EXPECT_FALSE(matching.begin(kP1, event(TraceOp::kWait, 1, 0, 0, 1), 0));
}

// An iallreduce of two is one exchange; its rounds go on without the
// processes, and each request completes with its last round.
TEST_F(MpiMatchingTest, ANonBlockingCollectiveGoesOnInTheBackground) {
  TraceEvent call = event(TraceOp::kIallreduce, 0, 0, 0, 5, 64);
  EXPECT_TRUE(matching.begin(kP0, call, 0));
  call.rank = 1;
  call.request = 6;
  EXPECT_TRUE(matching.begin(kP1, call, 0));
  ASSERT_EQ(transport.carried.size(), 2U);
  EXPECT_EQ(matching.collective_messages(), 2U);
  // Counted under its own op: the replay adds the blocking form's calls when it asks whether allreduce ran.
  EXPECT_EQ(matching.collective_calls(TraceOp::kIallreduce), 2U);
  EXPECT_EQ(matching.collective_calls(TraceOp::kAllreduce), 0U);
  EXPECT_FALSE(matching.begin(kP0, event(TraceOp::kWait, 0, 0, 0, 5), 0));  // process 0 waits for it
  sent(0);
  sent(1);
  EXPECT_TRUE(transport.rounds_done.empty());  // both sent, neither received
  deliver(0);
  EXPECT_EQ(transport.rounds_done.size(), 1U);  // process 1's round is done
  deliver(1);
  ASSERT_EQ(transport.rounds_done.size(), 2U);
  // The replay calls back for each: process 1 nobody waits for yet, process 0 waits.
  EXPECT_TRUE(matching.continue_background(transport.rounds_done[0], 0).is_none());
  EXPECT_EQ(matching.continue_background(transport.rounds_done[1], 0), kP0);
  EXPECT_TRUE(matching.begin(kP1, event(TraceOp::kWait, 1, 0, 0, 6), 0));
}

// Three processes; process 2 posts a wildcard receive recorded as matched
// with process 0, but process 1's message comes first.
TEST(MpiMatchingWildcards, RecordedOrMatchedAgain) {
  for (const bool rematch : {false, true}) {
    RecordingTransport transport;
    MpiMatching matching{one_job(3), kMtu,   kEagerLimit, CollectiveChoice(CollectiveScheme::kSimple),
                         transport,  rematch};
    const ProcessId p2(2);
    TraceEvent wildcard = event(TraceOp::kRecv, 2, 0, 1);
    wildcard.posted = 1;
    EXPECT_FALSE(matching.begin(p2, wildcard, 0));
    EXPECT_TRUE(matching.begin(ProcessId(1), event(TraceOp::kIsend, 1, 2, 1, 1), 0));
    const OutgoingMessage m = transport.carried.at(0);
    const MpiMatching::Delivery d = matching.packet_delivered(m.message, 0);
    EXPECT_EQ(d.arrived_for, p2);
    // Recorded: the receive waits for process 0; matched again: process 1's message ends it.
    EXPECT_EQ(d.wait_over, rematch ? p2 : ProcessId::none()) << rematch;
  }
}

// Above the eager limit: a header-only request to send, the receiver's clear
// to send, then the data; the send completes when the data is on the link.
TEST_F(MpiMatchingTest, ARendezvousSendsItsDataOnlyOnceTheReceiverAnswers) {
  EXPECT_FALSE(matching.begin(kP1, event(TraceOp::kRecv, 1, 0, 3), 0));
  EXPECT_FALSE(matching.begin(kP0, event(TraceOp::kSend, 0, 1, 3, 0, kEagerLimit + 1), 0));
  ASSERT_EQ(transport.carried.size(), 1U);
  EXPECT_EQ(transport.carried[0].bytes, 0U);  // the request to send
  EXPECT_EQ(transport.carried[0].packets, 1U);
  EXPECT_TRUE(sent(0).is_none());  // the request on the link completes nothing
  EXPECT_TRUE(deliver(0).arrived_for.is_none());
  ASSERT_EQ(transport.carried.size(), 2U);  // the receive was posted: answered at once
  EXPECT_EQ(transport.carried[1].from, kP1);
  EXPECT_EQ(transport.carried[1].to, kP0);
  EXPECT_TRUE(sent(1).is_none());
  EXPECT_TRUE(deliver(1).arrived_for.is_none());
  ASSERT_EQ(transport.carried.size(), 3U);  // the data
  EXPECT_EQ(transport.carried[2].from, kP0);
  EXPECT_EQ(transport.carried[2].bytes, kEagerLimit + 1);
  EXPECT_EQ(transport.carried[2].packets, 5U);
  EXPECT_EQ(sent(2), kP0);
  const MpiMatching::Delivery d = deliver(2);
  EXPECT_EQ(d.arrived_for, kP1);
  EXPECT_EQ(d.wait_over, kP1);
  EXPECT_EQ(matching.network_messages(), 3U);
  EXPECT_EQ(matching.application_messages(), 1U);  // one send, three network messages
  EXPECT_EQ(matching.control_messages(), 2U);
  EXPECT_EQ(matching.rendezvous_sends(), 1U);
  EXPECT_EQ(matching.messages_in_flight(), 0U);
}

// A request to send that finds no receive waits for it, like an early
// message; posting the receive sends the answer, and the receive waits for
// the data. An eager message ahead of it on the channel keeps its place.
TEST_F(MpiMatchingTest, ARequestToSendWaitsForItsReceiveInChannelOrder) {
  EXPECT_TRUE(matching.begin(kP0, event(TraceOp::kIsend, 0, 1, 3, 1, kEagerLimit), 0));
  EXPECT_TRUE(matching.begin(kP0, event(TraceOp::kIsend, 0, 1, 3, 2, kEagerLimit + 1), 0));
  deliver(0);
  deliver(1);
  EXPECT_EQ(transport.carried.size(), 2U);       // nobody has answered the request
  EXPECT_EQ(matching.messages_in_flight(), 2U);  // neither is on the link yet
  EXPECT_TRUE(sent(0).is_none());
  EXPECT_TRUE(sent(1).is_none());
  EXPECT_EQ(matching.messages_in_flight(), 0U);
  EXPECT_TRUE(matching.begin(kP1, event(TraceOp::kRecv, 1, 0, 3), 0));  // the eager message
  EXPECT_EQ(transport.carried.size(), 2U);
  EXPECT_FALSE(matching.begin(kP1, event(TraceOp::kRecv, 1, 0, 3), 0));  // the rendezvous
  ASSERT_EQ(transport.carried.size(), 3U);
  EXPECT_EQ(transport.carried[2].to, kP0);
  deliver(2);
  ASSERT_EQ(transport.carried.size(), 4U);
  EXPECT_FALSE(matching.begin(kP0, event(TraceOp::kWait, 0, 0, 0, 2), 0));
  EXPECT_EQ(sent(3), kP0);
  EXPECT_EQ(deliver(3).wait_over, kP1);
}

}  // namespace
}  // namespace ibsec::hosts
