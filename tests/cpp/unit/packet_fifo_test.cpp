#include <gtest/gtest.h>

#include "nic/packet_fifo.h"

namespace ibsec::nic {
namespace {

TEST(PacketFifo, PopsInPushOrderAndCountsWhatWaits) {
  network::PacketPool pool;
  const network::PacketHandle a = pool.acquire(), b = pool.acquire(), c = pool.acquire();
  PacketFifo fifo;
  EXPECT_TRUE(fifo.empty());
  fifo.push_back(pool, a);
  fifo.push_back(pool, b);
  EXPECT_EQ(fifo.front(), a);
  EXPECT_EQ(fifo.size(), 2u);
  EXPECT_EQ(fifo.pop_front(pool), a);
  fifo.push_back(pool, c);
  EXPECT_EQ(fifo.pop_front(pool), b);
  EXPECT_EQ(fifo.pop_front(pool), c);
  EXPECT_TRUE(fifo.empty());
  EXPECT_EQ(fifo.size(), 0u);
}

TEST(PacketFifo, APacketMovesFromOneQueueToAnother) {
  network::PacketPool pool;
  const network::PacketHandle a = pool.acquire(), b = pool.acquire();
  PacketFifo sending, receiving;
  sending.push_back(pool, a);
  sending.push_back(pool, b);
  receiving.push_back(pool, sending.pop_front(pool));  // a's link to b is dropped as it joins
  EXPECT_EQ(receiving.pop_front(pool), a);
  EXPECT_TRUE(receiving.empty());
  EXPECT_EQ(sending.pop_front(pool), b);
}

}  // namespace
}  // namespace ibsec::nic
