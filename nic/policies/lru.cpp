// Least recently used: the paper's policy (§3.1).
#include "nic/policies/recency_list.h"

namespace ibsec::nic {
namespace {
using LruPolicy = RecencyPolicy<true>;
}  // namespace

IBSEC_REGISTER_REPLACEMENT_POLICY("lru", "least recently used (the paper's policy)", false, LruPolicy)

}  // namespace ibsec::nic
