// Reads a DUMPI trace (SST's sst-dumpi: a `.meta` file and one binary file
// per rank) and hands its MPI calls to an ImportBuilder (docs/importing.md).
// ibsec's own reader, needing no DUMPI library: the record layouts are data,
// traces/import/dumpi_calls.def, one line per function id.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "traces/import/dumpi_run.h"  // is_dumpi_source
#include "traces/import/import_builder.h"
#include "traces/trace_header.h"

namespace ibsec::traces {

// "MPI_Send", "MPI_Recv", ... in function-id order: every call whose record
// layout the reader knows (dumpi_calls.def), for the documentation and tests.
std::vector<std::string> dumpi_known_calls();

class DumpiSource {
 public:
  // Opens the `.meta` file (or the folder holding it) and reads every rank
  // file once through: their structure, datatype sizes and the
  // communicators their calls made. Throws TraceError naming the file, and
  // the byte offset or field at fault. `clock_shifts` as for Otf2Source.
  explicit DumpiSource(const std::string& source, std::vector<uint64_t> clock_shifts = {});
  ~DumpiSource();
  DumpiSource(const DumpiSource&) = delete;
  DumpiSource& operator=(const DumpiSource&) = delete;

  // Processes, communicators (world ranks), CPU clock, origin and notes.
  [[nodiscard]] const TraceHeader& header() const;
  // The note that names the source, to which the import adds its digest (dumpi_run_digest).
  [[nodiscard]] const std::string& source_note() const;
  // Reads the calls of every rank, merged in time order, into `builder`.
  void read_events(ImportBuilder& builder);

  struct State;  // dumpi_import.cpp

 private:
  std::unique_ptr<State> state_;
};

}  // namespace ibsec::traces
