#include "traces/import/dumpi_run.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "traces/import/source_digest.h"
#include "traces/trace_error.h"
#include "traces/trace_header.h"

namespace ibsec::traces {
namespace {

std::filesystem::path find_meta(const std::string& source) {
  std::error_code ec;
  if (!std::filesystem::is_directory(source, ec)) return source;
  std::vector<std::filesystem::path> metas;
  for (const auto& entry : std::filesystem::directory_iterator(source, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == kDumpiMetaSuffix) metas.push_back(entry.path());
  }
  if (metas.size() != 1) {
    throw TraceError(source, TraceLocation::file(), "source",
                     metas.empty() ? "a folder with no DUMPI .meta file"
                                   : "a folder with " + std::to_string(metas.size()) +
                                         " DUMPI .meta files: name the run's .meta file");
  }
  return metas.front();
}

std::string rank_file_name(const std::string& prefix, uint32_t rank) {
  char digits[16];
  std::snprintf(digits, sizeof digits, "%04u", rank);
  return prefix + "-" + digits + ".bin";
}

}  // namespace

DumpiRun read_dumpi_run(const std::string& source) {
  DumpiRun run;
  run.meta = find_meta(source);
  const std::string meta = run.meta.string();
  std::ifstream in(run.meta);
  if (!in) throw TraceError(meta, TraceLocation::file(), "source", "no such file");
  std::string line;
  uint64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    const size_t eq = line.find('=');
    if (eq == std::string::npos) {
      throw TraceError(meta, TraceLocation::line(number), "", "not KEY=VALUE: not a DUMPI .meta file");
    }
    run.keys[line.substr(0, eq)] = line.substr(eq + 1);
  }
  const auto need = [&](const char* key) -> const std::string& {
    const auto found = run.keys.find(key);
    if (found == run.keys.end()) throw TraceError(meta, TraceLocation::file(), key, "missing from the .meta file");
    return found->second;
  };
  const std::string& numprocs = need("numprocs");
  char* end = nullptr;
  const unsigned long long n = std::strtoull(numprocs.c_str(), &end, 10);
  if (numprocs.empty() || *end != '\0' || n == 0 || n > kMaxTraceProcesses) {
    throw TraceError(meta, TraceLocation::file(), "numprocs",
                     "'" + numprocs + "' (1 to " + std::to_string(kMaxTraceProcesses) + " ranks are possible)");
  }
  run.processes = static_cast<uint32_t>(n);
  // The prefix is as the traced program's working directory named it: the
  // rank files are looked for beside the .meta file.
  run.prefix = std::filesystem::path(need("fileprefix")).filename().string();
  if (run.prefix.empty()) throw TraceError(meta, TraceLocation::file(), "fileprefix", "empty");
  const std::filesystem::path folder = run.meta.parent_path().empty() ? "." : run.meta.parent_path();
  for (uint32_t rank = 0; rank < run.processes; ++rank) {
    run.rank_files.push_back(folder / rank_file_name(run.prefix, rank));
    std::error_code ec;
    if (!std::filesystem::is_regular_file(run.rank_files.back(), ec)) {
      throw TraceError(meta, TraceLocation::file(), "numprocs",
                       "numprocs=" + numprocs + " but the file of rank " + std::to_string(rank) + ", " +
                           run.rank_files.back().string() + ", is missing");
    }
  }
  // A rank file beyond numprocs: the .meta file belongs to another run.
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(run.prefix + "-") || !name.ends_with(".bin")) continue;
    const std::string digits = name.substr(run.prefix.size() + 1, name.size() - run.prefix.size() - 5);
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    if (std::stoull(digits) >= run.processes) {
      throw TraceError(meta, TraceLocation::file(), "numprocs",
                       "numprocs=" + numprocs + " but there is a rank file " + entry.path().string() +
                           ": the ranks and the .meta file disagree");
    }
  }
  return run;
}

// SHA-256 over the .meta file and every rank file (names and bytes).
std::string dumpi_run_digest(const DumpiRun& run) {
  std::vector<std::pair<std::string, std::filesystem::path>> files{{run.meta.filename().string(), run.meta}};
  for (const auto& file : run.rank_files) files.emplace_back(file.filename().string(), file);
  return source_digest(files);
}

bool is_dumpi_source(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::path(path).extension() == kDumpiMetaSuffix) return true;
  if (!std::filesystem::is_directory(path, ec)) return false;
  size_t metas = 0;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
    metas += entry.path().extension() == kDumpiMetaSuffix ? 1 : 0;
  }
  return metas > 0;
}

}  // namespace ibsec::traces
