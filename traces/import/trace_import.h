// `ibsec-engine trace import`: another tool's trace written as an ibsec
// trace (docs/importing.md). Each source format is a reader of its own
// beside the others (otf2_import.*, dumpi_import.*), recognised by its file and
// feeding the same ImportBuilder; what it could not express or had to mend
// is said in the trace's notes and returned, never dropped silently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "traces/import/import_builder.h"

namespace ibsec::traces {

struct ImportFormat {
  std::string_view name;         // "OTF2"
  std::string_view suffix;       // the file a source is named by: ".otf2" (a DUMPI run may be named by its folder)
  std::string_view source_hint;  // what a source of this format looks like
  bool built;                    // false: this engine was built without its library
  std::string_view missing;      // what to install when it is not built
};

// Every format `trace import` knows, built or not.
const std::vector<ImportFormat>& import_formats();

struct ImportSummary {
  std::string format;
  uint32_t processes = 0;
  uint64_t events = 0;
  ImportTally tally;
};

// True when PATH names a source of a format `trace import` reads (an OTF2
// anchor, a DUMPI .meta file or its folder) rather than an ibsec trace.
bool is_import_source(const std::string& path);

// The format's name and the SHA-256 over every file an import of SOURCE
// reads: what its notes give as "sha256", known before importing. Throws
// TraceError as import_trace does for a source that is not one.
struct SourceIdentity {
  std::string format;
  std::string sha256;
};
SourceIdentity import_source_identity(const std::string& source);

// Every file an import of SOURCE reads (an OTF2 archive's anchor, definitions
// and location files; a DUMPI run's .meta and rank files), for the check
// that an output is none of them; just SOURCE where it names none of those.
std::vector<std::string> import_source_files(const std::string& source);

// The note every import carries: "import: by ibsec-engine VERSION sha256
// DIGEST", the program that made it (source_digest.h).
std::string importer_note();

// Reads SOURCE, writes OUT (replaced only once complete and checked like
// `trace validate`). Throws TraceError naming the file, rank, event and
// field at fault, or ConfigError for the output.
ImportSummary import_trace(const std::string& source, const std::string& out);
// The same for a source whose identity is known (import_source_identity):
// its files are hashed once, not once per reading.
ImportSummary import_trace(const std::string& source, const std::string& out, const SourceIdentity& identity);

// The tally as header notes: "import: not imported: MPI_Put (12 calls)", ...
std::vector<std::string> tally_notes(const ImportTally& tally);

}  // namespace ibsec::traces
