// MPI's two queues per receiver, by channel: receives posted before their
// message arrived, and messages that arrived before their receive was
// posted (docs/replay.md). A channel is (source, destination, tag,
// context); within one, messages and receives meet in the order they came
// (MPI's non-overtaking rule).
//
// What waits for a receive is an Arrival: what the matching needs of an
// early message (e.g. nothing for an eager message, the rendezvous for a
// request to send).
//
// A receive posted with MPI_ANY_SOURCE can either keep the source that
// matched in the original run (an ordinary receive on that channel) or be
// matched again as the replay goes: it then takes the earliest message from
// any source on (destination, tag, context), and an arriving message goes to
// whichever matching receive was posted first, specific or wildcard, as in
// MPI. Only the second way keeps the extra index it needs.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <unordered_map>

#include "core/types.h"

namespace ibsec::hosts {

struct ChannelKey {
  ProcessId source;
  ProcessId destination;
  uint32_t tag = 0;
  uint64_t context = 0;  // 2 x communicator id for user point-to-point, + 1 for collectives
  bool operator==(const ChannelKey&) const = default;
};

// What a wildcard receive matches: any source.
struct AnySourceKey {
  ProcessId destination;
  uint32_t tag = 0;
  uint64_t context = 0;
  bool operator==(const AnySourceKey&) const = default;
};

template <typename Receive, typename Arrival>
class MessageQueues {
 public:
  explicit MessageQueues(bool rematch_wildcards) : rematch_wildcards_(rematch_wildcards) {}

  [[nodiscard]] bool rematches_wildcards() const { return rematch_wildcards_; }

  // Takes the oldest arrival waiting on the channel, if any.
  std::optional<Arrival> take_unexpected(const ChannelKey& key);
  // Takes the oldest arrival waiting from any source, if any.
  std::optional<Arrival> take_unexpected(const AnySourceKey& key);
  // A receive waits for its message.
  void post(const ChannelKey& key, Receive receive) { channels_[key].posted.push_back({next_++, receive}); }
  void post(const AnySourceKey& key, Receive receive) { wildcards_[key].push_back({next_++, receive}); }
  // A message is there: the receive it meets, or none (it waits as `arrival`).
  std::optional<Receive> arrive(const ChannelKey& key, Arrival arrival);

  [[nodiscard]] bool empty() const { return channels_.empty() && wildcards_.empty(); }

 private:
  struct Posted {
    uint64_t order;
    Receive receive;
  };
  struct Waiting {
    uint64_t order;
    Arrival arrival;
  };
  struct Channel {
    std::deque<Posted> posted;
    std::deque<Waiting> unexpected;
  };
  struct ChannelKeyHash {
    size_t operator()(const ChannelKey& k) const noexcept {
      const uint64_t a = (uint64_t{k.source.value()} << 32) | k.destination.value();
      const uint64_t b = (uint64_t{k.tag} << 32) ^ k.context;
      return std::hash<uint64_t>{}(a * 0x9e3779b97f4a7c15ULL ^ (b + 0x7f4a7c159e3779b9ULL + (a << 6) + (a >> 2)));
    }
  };
  struct AnySourceKeyHash {
    size_t operator()(const AnySourceKey& k) const noexcept {
      return ChannelKeyHash{}(ChannelKey{ProcessId(0), k.destination, k.tag, k.context});
    }
  };
  static AnySourceKey any_source(const ChannelKey& key) { return {key.destination, key.tag, key.context}; }
  void forget_if_empty(const ChannelKey& key);

  bool rematch_wildcards_;
  uint64_t next_ = 0;  // posting and arrival order, one sequence
  std::unordered_map<ChannelKey, Channel, ChannelKeyHash> channels_;
  std::unordered_map<AnySourceKey, std::deque<Posted>, AnySourceKeyHash> wildcards_;
  // Only when wildcards are matched again: waiting messages by arrival, per
  // (destination, tag, context), with their source.
  std::unordered_map<AnySourceKey, std::map<uint64_t, ProcessId>, AnySourceKeyHash> unexpected_by_arrival_;
};

template <typename Receive, typename Arrival>
std::optional<Arrival> MessageQueues<Receive, Arrival>::take_unexpected(const ChannelKey& key) {
  const auto found = channels_.find(key);
  if (found == channels_.end() || found->second.unexpected.empty()) return std::nullopt;
  const Waiting waiting = found->second.unexpected.front();
  found->second.unexpected.pop_front();
  if (rematch_wildcards_) {
    auto& index = unexpected_by_arrival_[any_source(key)];
    index.erase(waiting.order);
    if (index.empty()) unexpected_by_arrival_.erase(any_source(key));
  }
  forget_if_empty(key);
  return waiting.arrival;
}

template <typename Receive, typename Arrival>
std::optional<Arrival> MessageQueues<Receive, Arrival>::take_unexpected(const AnySourceKey& key) {
  const auto found = unexpected_by_arrival_.find(key);
  if (found == unexpected_by_arrival_.end()) return std::nullopt;
  const ProcessId source = found->second.begin()->second;
  // The earliest arrival of all is its own channel's oldest.
  return take_unexpected(ChannelKey{source, key.destination, key.tag, key.context});
}

template <typename Receive, typename Arrival>
std::optional<Receive> MessageQueues<Receive, Arrival>::arrive(const ChannelKey& key, Arrival arrival) {
  Channel& channel = channels_[key];
  auto wildcard = rematch_wildcards_ ? wildcards_.find(any_source(key)) : wildcards_.end();
  const bool specific = !channel.posted.empty();
  const bool any = wildcard != wildcards_.end();
  if (!specific && !any) {
    const uint64_t order = next_++;
    channel.unexpected.push_back({order, arrival});
    if (rematch_wildcards_) unexpected_by_arrival_[any_source(key)].emplace(order, key.source);
    return std::nullopt;
  }
  // The receive posted first of those that match.
  if (specific && (!any || channel.posted.front().order < wildcard->second.front().order)) {
    const Receive receive = channel.posted.front().receive;
    channel.posted.pop_front();
    forget_if_empty(key);
    return receive;
  }
  const Receive receive = wildcard->second.front().receive;
  wildcard->second.pop_front();
  if (wildcard->second.empty()) wildcards_.erase(wildcard);
  forget_if_empty(key);
  return receive;
}

template <typename Receive, typename Arrival>
void MessageQueues<Receive, Arrival>::forget_if_empty(const ChannelKey& key) {
  const auto found = channels_.find(key);
  if (found != channels_.end() && found->second.posted.empty() && found->second.unexpected.empty()) {
    channels_.erase(found);
  }
}

}  // namespace ibsec::hosts
