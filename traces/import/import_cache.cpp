#include "traces/import/import_cache.h"

#include <algorithm>

#include "core/errors.h"
#include "core/user_cache.h"
#include "traces/import/trace_import.h"
#include "traces/trace_error.h"
#include "traces/trace_reader.h"

namespace ibsec::traces {
namespace {

// Whether PATH is a trace this engine imported: readable, and carrying this
// engine's importer note. Anything else (another build's import, a file cut
// short by hand) is made again.
bool made_by_this_engine(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  try {
    const TraceReader reader(path.string());
    const auto& notes = reader.header().notes;
    return std::find(notes.begin(), notes.end(), importer_note()) != notes.end();
  } catch (const TraceError&) {
    return false;
  }
}

}  // namespace

std::string import_announcement(const CachedImport& import) {
  return import.source + ": importing it (" + import.format + ") once, into " + import.trace;
}

std::filesystem::path import_cache_folder(const std::string& field) {
  const auto folder = user_cache_folder();
  if (!folder) {
    throw ConfigError(field,
                      "another tool's trace is imported once into a cache folder, and neither XDG_CACHE_HOME nor "
                      "HOME is set: set one, or import it first with `ibsec trace import SOURCE --out FILE`");
  }
  return *folder / "imports";
}

CachedImport cached_import(const std::string& source, const std::string& field,
                           const std::function<void(const CachedImport&)>& before_import) {
  const SourceIdentity identity = import_source_identity(source);
  const std::filesystem::path folder = import_cache_folder(field);
  CachedImport cached{.source = source,
                      .format = identity.format,
                      .source_sha256 = identity.sha256,
                      .trace = (folder / (identity.sha256 + ".ibtb")).string()};
  if (made_by_this_engine(cached.trace)) return cached;
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) throw ConfigError(field, "cannot make the import cache folder " + folder.string() + ": " + ec.message());
  cached.imported_now = true;
  if (before_import) before_import(cached);
  import_trace(source, cached.trace, identity);
  return cached;
}

}  // namespace ibsec::traces
