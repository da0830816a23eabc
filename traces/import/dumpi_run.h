// A DUMPI run on disk (SST's sst-dumpi): its `.meta` file and the rank
// files it names, found and checked before any record is read, and the
// digest that says which run a trace was imported from.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ibsec::traces {

// The suffix of a run's .meta file, by which a DUMPI source is known.
inline constexpr const char* kDumpiMetaSuffix = ".meta";

struct DumpiRun {
  std::filesystem::path meta;                     // the .meta file
  uint32_t processes = 0;                         // its numprocs
  std::string prefix;                             // its fileprefix, without the traced program's folder
  std::vector<std::filesystem::path> rank_files;  // PREFIX-NNNN.bin beside the .meta file, by rank
  std::map<std::string, std::string> keys;        // every KEY=VALUE line
};

// True for what names a DUMPI trace: its `.meta` file, or a folder holding
// exactly one `.meta` file.
bool is_dumpi_source(const std::string& path);

// The run SOURCE names (a .meta file, or the folder holding one). Throws
// TraceError naming the .meta file and the key at fault: no numprocs, a rank
// file missing, or one beyond numprocs (the .meta file of another run).
DumpiRun read_dumpi_run(const std::string& source);

// SHA-256 over the .meta file and every rank file (names and bytes).
std::string dumpi_run_digest(const DumpiRun& run);

}  // namespace ibsec::traces
