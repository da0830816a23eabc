// Reads an OTF2 archive (Score-P, EZTrace, TAU) through the OTF2 C library
// and hands its MPI records to an ImportBuilder (docs/importing.md). Built
// only where libotf2 is found (traces/import/CMakeLists.txt).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "traces/import/import_builder.h"
#include "traces/trace_header.h"

namespace ibsec::traces {

// SHA-256 over every file of the archive (the anchor, its .def file and its
// folder's files), each by its name relative to the anchor's folder: which
// source a trace was imported from.
std::string otf2_archive_digest(const std::string& anchor);

// Every file of the archive: the anchor, the global definitions and the
// folder of per-location files, in name order.
std::vector<std::filesystem::path> otf2_archive_files(const std::filesystem::path& anchor);

class Otf2Source {
 public:
  // Opens the anchor file and reads every definition. Throws TraceError.
  // `clock_shifts`: ns added to each world rank's times (none: all 0), to
  // mend ranks whose clocks disagree (clock_offsets, import_builder.h).
  explicit Otf2Source(const std::string& anchor, std::vector<uint64_t> clock_shifts = {});
  ~Otf2Source();
  Otf2Source(const Otf2Source&) = delete;
  Otf2Source& operator=(const Otf2Source&) = delete;

  // Processes, communicators (world ranks), origin and provenance notes.
  [[nodiscard]] const TraceHeader& header() const;
  // "import: source ANCHOR (OTF2 archive)": the note that names the source,
  // to which the import adds its digest (otf2_archive_digest).
  [[nodiscard]] const std::string& source_note() const;
  // Reads the events of every rank, merged in time order, into `builder`.
  void read_events(ImportBuilder& builder);

  struct State;  // what the library's callbacks fill in (otf2_import.cpp)

 private:
  std::unique_ptr<State> state_;
};

}  // namespace ibsec::traces
