#include "sim/imported_traces.h"

#include "traces/import/trace_import.h"

namespace ibsec::sim {

void use_cached_imports(SimConfig& config, const std::function<void(const traces::CachedImport&)>& before_import) {
  const std::string field = config.trace.jobs.empty() ? "trace.file" : "trace.jobs";
  const auto resolve = [&](std::string& path) {
    if (!traces::is_import_source(path)) return;
    config.trace.imports.push_back(traces::cached_import(path, field, before_import));
    path = config.trace.imports.back().trace;
  };
  if (!config.trace.file.empty()) resolve(config.trace.file);
  for (std::string& job : config.trace.jobs) resolve(job);
}

nlohmann::ordered_json imported_traces_json(const std::vector<traces::CachedImport>& imports) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const traces::CachedImport& i : imports) {
    list.push_back({{"source", i.source}, {"format", i.format}, {"source_sha256", i.source_sha256}});
  }
  return list;
}

}  // namespace ibsec::sim
