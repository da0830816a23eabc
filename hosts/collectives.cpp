#include "hosts/collectives.h"

#include <algorithm>
#include <stdexcept>

namespace ibsec::hosts {

bool CollectiveAlgorithms::add(TraceOp op, std::string algorithm, std::string description,
                               Rounds (*rounds)(const CollectiveCall&)) {
  std::string name = std::string(traces::name(op)) + "." + algorithm;
  return Registry::add(CollectiveAlgorithm{std::move(name), op, std::move(algorithm), std::move(description), rounds});
}

const CollectiveAlgorithm* CollectiveAlgorithms::find(TraceOp op, const std::string& algorithm) {
  for (const CollectiveAlgorithm* entry : sorted()) {
    if (entry->op == op && entry->algorithm == algorithm) return entry;
  }
  return nullptr;
}

std::vector<std::string> CollectiveAlgorithms::of(TraceOp op) {
  std::vector<std::string> names;
  for (const CollectiveAlgorithm* entry : sorted()) {
    if (entry->op == op) names.push_back(entry->algorithm);
  }
  return names;
}

const CollectiveOp* CollectiveOps::find(TraceOp op) {
  for (const CollectiveOp* entry : sorted()) {
    if (entry->op == op) return entry;
  }
  return nullptr;
}

namespace {

const CollectiveOp& op_choices(TraceOp op) {
  const CollectiveOp* choices = CollectiveOps::find(op);
  if (choices == nullptr) throw std::invalid_argument("not a collective: " + std::string(traces::name(op)));
  return *choices;
}

const CollectiveAlgorithm& registered(TraceOp op, const std::string& algorithm) {
  const CollectiveAlgorithm* entry = CollectiveAlgorithms::find(op, algorithm);
  if (entry == nullptr) {
    throw std::logic_error("collective " + std::string(traces::name(op)) + " has no algorithm '" + algorithm + "'");
  }
  return *entry;
}

}  // namespace

const CollectiveAlgorithm& CollectiveOps::tuned(TraceOp op, uint32_t size, uint64_t bytes) {
  const CollectiveOp& choices = op_choices(op);
  const auto row = std::ranges::find_if(choices.tuned, [&](const DecisionRow& r) { return size < r.below_size; });
  if (row == choices.tuned.end()) throw std::logic_error(choices.name + "'s decision table misses a last row");
  const auto rule = std::ranges::find_if(row->rules, [&](const SizeRule& r) { return bytes < r.below_bytes; });
  if (rule == row->rules.end()) throw std::logic_error(choices.name + "'s decision table misses a last rule");
  const auto algorithm = choices.ompi_algorithms.find(rule->ompi_algorithm);
  if (algorithm == choices.ompi_algorithms.end()) {
    throw std::logic_error(choices.name + " maps no algorithm to Open MPI's " + std::to_string(rule->ompi_algorithm));
  }
  return registered(op, algorithm->second);
}

CollectiveChoice::CollectiveChoice(CollectiveScheme scheme, std::map<TraceOp, std::string> forced)
    : scheme_(scheme), forced_(std::move(forced)) {}

const CollectiveAlgorithm& CollectiveChoice::choose(TraceOp op, uint32_t size, uint64_t bytes) const {
  const auto forced = forced_.find(op);
  if (forced != forced_.end()) return registered(op, forced->second);
  if (scheme_ == CollectiveScheme::kSimple) return registered(op, op_choices(op).simple);
  return CollectiveOps::tuned(op, size, bytes);
}

Rounds expand_collective(TraceOp op, uint32_t size, uint32_t rank, uint32_t root, uint64_t bytes,
                         const CollectiveChoice& choice) {
  if (size == 0 || rank >= size || root >= size) {
    throw std::invalid_argument("collective rank outside its communicator");
  }
  return choice.choose(op, size, bytes).rounds(CollectiveCall{size, rank, root, bytes});
}

}  // namespace ibsec::hosts
