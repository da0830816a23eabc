// Another tool's trace named where an ibsec trace is expected (`run
// --trace`, trace.file, trace.jobs, `trace info|validate|convert`): imported
// once into the user's cache and read from there after, for as long as
// neither the source's files nor the engine change (docs/importing.md).
//
// The cache is user_cache_folder()/imports (core/user_cache.h), one trace per
// source, named by the digest of the source's files. A cached trace is used
// only if the engine that made it is this one (its importer_note()); any
// other is made again. Imports are written atomically, so runs that import
// the same source at once each leave a complete trace.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace ibsec::traces {

struct CachedImport {
  std::string source;         // as it was named
  std::string format;         // "OTF2", "DUMPI"
  std::string source_sha256;  // over every file the import reads (import_source_identity)
  std::string trace;          // the ibsec trace in the cache
  bool imported_now = false;  // false: the cache held it already
};

// The cached import of SOURCE, made now when the cache lacks it.
// `before_import` is called just before an import starts (imports of large
// traces take a while). Throws ConfigError naming `field` when there is no
// cache folder (neither XDG_CACHE_HOME nor HOME is set) or it cannot be
// made, and TraceError as import_trace does for the source.
CachedImport cached_import(const std::string& source, const std::string& field,
                           const std::function<void(const CachedImport&)>& before_import = {});

// "SOURCE: importing it (FORMAT) once, into TRACE": what a command says on
// standard error before an import (`before_import`).
std::string import_announcement(const CachedImport& import);

// user_cache_folder()/imports; throws ConfigError naming `field` without one.
std::filesystem::path import_cache_folder(const std::string& field);

}  // namespace ibsec::traces
