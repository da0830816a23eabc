// First in, first out: evicts the key that was filled longest ago, whatever
// its use since.
#include "nic/policies/recency_list.h"

namespace ibsec::nic {
namespace {
using FifoPolicy = RecencyPolicy<false>;
}  // namespace

IBSEC_REGISTER_REPLACEMENT_POLICY("fifo", "first in, first out", false, FifoPolicy)

}  // namespace ibsec::nic
