// A run may replay other tools' traces as they are (trace.file or
// trace.jobs naming an OTF2 anchor or a DUMPI run): each is replaced by its
// cached import before the cluster is built (traces/import/import_cache.h),
// and the result names the sources (imported_traces_json).
#pragma once

#include <functional>

#include <nlohmann/json.hpp>

#include "sim/config.h"

namespace ibsec::sim {

// Replaces every import source in config.trace.file/jobs by its cached
// import and lists them in config.trace.imports. `before_import` is called
// before an import that the cache did not hold.
void use_cached_imports(SimConfig& config, const std::function<void(const traces::CachedImport&)>& before_import = {});

// The result's "trace_imports": per source, its name, format and digest.
// The cache's path and whether the import was made now are left out, so that
// a run's result is the same whoever runs it and however often.
nlohmann::ordered_json imported_traces_json(const std::vector<traces::CachedImport>& imports);

}  // namespace ibsec::sim
