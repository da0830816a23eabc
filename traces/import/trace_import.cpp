#include "traces/import/trace_import.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>

#include "core/atomic_file.h"
#include "traces/import/dumpi_import.h"
#include "traces/import/rank_clock_shift.h"
#include "traces/import/source_digest.h"
#include "traces/trace_checker.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

#ifdef IBSEC_HAVE_OTF2
#include "traces/import/otf2_import.h"
#endif

namespace ibsec::traces {
namespace {

#ifdef IBSEC_HAVE_OTF2
constexpr bool kOtf2Built = true;
#else
constexpr bool kOtf2Built = false;
#endif

constexpr const char* kOtf2AnchorSuffix = ".otf2";

bool is_otf2_anchor(const std::string& path) { return std::filesystem::path(path).extension() == kOtf2AnchorSuffix; }

// The events go first to a binary file beside OUT, since the notes that say
// what was repaired are known only at the end and the header comes first;
// the last pass puts header and events together and checks everything.
class ScratchTrace {
 public:
  explicit ScratchTrace(const std::string& out) {
    const std::filesystem::path target =
        out == "-" ? std::filesystem::path("ibsec-import") : std::filesystem::path(out);
    std::string hidden(1, '.');  // built by appending: GCC 12 warns falsely (-Wrestrict) on "." + string
    hidden += target.filename().string();
    hidden += ".import-" + std::to_string(getpid()) + ".ibtb";
    path_ = (target.parent_path().empty() ? std::filesystem::path(".") : target.parent_path()) / hidden;
  }
  ~ScratchTrace() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  ScratchTrace(const ScratchTrace&) = delete;
  ScratchTrace& operator=(const ScratchTrace&) = delete;
  [[nodiscard]] std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// One reading of the source into the scratch file: what the builder tallied
// and the clock lags it measured.
struct Pass {
  ImportTally tally;
  std::vector<uint64_t> clock_shifts;  // what would mend the lags; all 0 when none is needed
  bool reading_order_mattered = false;
};

template <typename Source>
Pass read_into_scratch(Source& source, const std::string& source_path, const std::string& scratch) {
  const TraceHeader& header = source.header();
  TraceWriter events(scratch, header, TraceEncoding::kBinary, TraceCompression::kNone, "out");
  std::map<uint32_t, std::vector<uint32_t>> comms = header.comms;
  std::vector<uint32_t> world(header.processes);
  for (uint32_t i = 0; i < header.processes; ++i) world[i] = i;
  comms[0] = world;
  ImportBuilder builder(source_path, header.processes, std::move(comms), [&](const TraceEvent& e) { events.write(e); });
  source.read_events(builder);
  builder.finish();
  events.finish();
  return {builder.tally(), clock_offsets(source_path, header.processes, builder.clock_lags()),
          builder.reading_order_mattered()};
}

bool any_shift(const std::vector<uint64_t>& shifts) {
  return std::any_of(shifts.begin(), shifts.end(), [](uint64_t s) { return s > 0; });
}

// The scratch file's events checked and written to `writer`, each rank's
// clock shifted by `shifts` (empty: none).
void check_and_write(TraceReader& scratch, const std::vector<uint64_t>& shifts, TraceWriter& writer) {
  if (shifts.empty()) {
    check_whole_trace(scratch, [&](const TraceEvent& e) { writer.write(e); });
    return;
  }
  TraceChecker checker(scratch.path(), scratch.header().processes, scratch.communicators());
  uint64_t events = 0;
  shift_rank_clocks(scratch, shifts, [&](const TraceEvent& e) {
    checker.add(e, TraceLocation::event(++events));
    writer.write(e);
  });
  checker.finish();
}

// OPEN(shifts) opens the source with per-rank clock shifts. A source whose
// ranks' clocks disagree (a receive recorded before its send began) needs
// the least shifts that mend it, known only once every message has been
// matched. Its events are then shifted as they are checked and written,
// unless one of them depended on the order the ranks were read in: then the
// source is read a second time with the clocks mended.
// DIGEST gives the source's SHA-256 for the note that names it, once the
// events are read: hashing may go on beside the reading.
template <typename Open>
ImportSummary import_from(const Open& open, const std::string& source_path, const std::string& out,
                          std::string_view format, const std::function<std::string()>& digest) {
  ScratchTrace scratch(out);
  auto source = open(std::vector<uint64_t>{});
  Pass pass = read_into_scratch(*source, source_path, scratch.path());
  std::vector<uint64_t> shift_as_written;
  if (any_shift(pass.clock_shifts)) {
    const std::vector<uint64_t> shifts = pass.clock_shifts;
    if (pass.reading_order_mattered) {
      source = open(shifts);
      pass = read_into_scratch(*source, source_path, scratch.path());
    } else {
      shift_as_written = shifts;
    }
    note_clock_shifts(pass.tally, shifts);
  }
  ImportSummary summary;
  summary.format = format;
  summary.processes = source->header().processes;
  summary.tally = pass.tally;
  TraceHeader header = source->header();  // with what reading the events added
  header.notes.insert(header.notes.begin(), source->source_note() + " sha256 " + digest());
  for (std::string& note : tally_notes(summary.tally)) header.notes.push_back(std::move(note));
  header.notes.push_back(importer_note());
  TraceReader reader(scratch.path());
  TraceWriter writer(out, header, "out");
  try {
    check_and_write(reader, shift_as_written, writer);
  } catch (const TraceError& e) {
    // Found by the checks every trace passes (a send and its receive of
    // different sizes, ...): said of the source, not of the scratch file.
    std::string problem = e.what();
    if (problem.starts_with(scratch.path())) problem.erase(0, scratch.path().size() + 2);
    const std::string field = "field '" + e.field() + "': ";
    if (const size_t at = problem.find(field); at != std::string::npos) problem.erase(at, field.size());
    throw TraceError(source_path, TraceLocation::file(), e.field(),
                     "the imported events do not hold together (in the output's " + problem + ")");
  }
  writer.finish();
  summary.events = reader.events_read();
  return summary;
}

}  // namespace

const std::vector<ImportFormat>& import_formats() {
  static const std::vector<ImportFormat> formats = {
      {"OTF2", kOtf2AnchorSuffix, "an OTF2 anchor file (*.otf2) beside its .def file and folder", kOtf2Built,
       "libotf2 was not found when this engine was built: install the OTF2 library (Debian: apt-get install "
       "libotf2-trace-dev) and build the engine again"},
      {"DUMPI", kDumpiMetaSuffix,
       "a DUMPI .meta file beside its dumpi-...-NNNN.bin rank files, or the folder holding them", true, ""},
  };
  return formats;
}

std::vector<std::string> tally_notes(const ImportTally& tally) {
  std::vector<std::string> notes;
  for (const auto& [call, count] : tally.not_imported) {
    notes.push_back("import: not imported: " + call + " (" + std::to_string(count) + " calls)");
  }
  for (const auto& [what, count] : tally.repairs) {
    notes.push_back("import: repaired " + std::to_string(count) + ": " + what);
  }
  if (tally.not_imported.empty()) notes.emplace_back("import: every MPI call that moves data was imported");
  return notes;
}

bool is_import_source(const std::string& path) { return is_dumpi_source(path) || is_otf2_anchor(path); }

std::string importer_note() { return "import: by ibsec-engine " IBSEC_VERSION " sha256 " + running_program_digest(); }

namespace {

// The format SOURCE is in; a TraceError listing what `trace import` reads
// when it is none of them, or what to install when its reader is not built.
std::string_view format_of(const std::string& source) {
  if (is_dumpi_source(source)) return "DUMPI";
  if (!is_otf2_anchor(source)) {
    std::string expected;
    for (const ImportFormat& format : import_formats()) {
      expected +=
          (expected.empty() ? "" : ", or ") + std::string(format.source_hint) + " (" + std::string(format.name) + ")";
    }
    throw TraceError(source, TraceLocation::file(), "source",
                     "not a format `trace import` reads: expected " + expected);
  }
  if (!kOtf2Built) throw TraceError(source, TraceLocation::file(), "source", std::string(import_formats()[0].missing));
  return "OTF2";
}

}  // namespace

SourceIdentity import_source_identity(const std::string& source) {
  const std::string_view format = format_of(source);
  if (format == "DUMPI") return {"DUMPI", dumpi_run_digest(read_dumpi_run(source))};
#ifdef IBSEC_HAVE_OTF2
  if (!std::filesystem::is_regular_file(source)) {
    throw TraceError(source, TraceLocation::file(), "source", "no such OTF2 anchor file");
  }
  return {"OTF2", otf2_archive_digest(source)};
#else
  return {};
#endif
}

namespace {

// DIGEST as import_from takes it.
ImportSummary import_as(std::string_view format, const std::string& source, const std::string& out,
                        const std::function<std::string()>& digest) {
  CommandFiles files;
  for (const std::string& file : import_source_files(source)) files.input(file, "source");
  files.output(out, "out");
  files.check();
  if (format == "DUMPI") {
    const auto open = [&](std::vector<uint64_t> shifts) {
      return std::make_unique<DumpiSource>(source, std::move(shifts));
    };
    return import_from(open, source, out, "DUMPI", digest);
  }
#ifdef IBSEC_HAVE_OTF2
  const auto open = [&](std::vector<uint64_t> shifts) {
    return std::make_unique<Otf2Source>(source, std::move(shifts));
  };
  return import_from(open, source, out, "OTF2", digest);
#else
  return {};
#endif
}

}  // namespace

std::vector<std::string> import_source_files(const std::string& source) {
  std::vector<std::string> files;
  if (is_dumpi_source(source)) {
    const DumpiRun run = read_dumpi_run(source);
    files.push_back(run.meta.string());
    for (const auto& rank_file : run.rank_files) files.push_back(rank_file.string());
    return files;
  }
#ifdef IBSEC_HAVE_OTF2
  if (is_otf2_anchor(source) && std::filesystem::is_regular_file(source)) {
    for (const auto& file : otf2_archive_files(source)) files.push_back(file.string());
    return files;
  }
#endif
  return {source};
}

// The source is hashed on a second thread while it is read: both read every
// file of it, and neither needs the other until the notes are written.
ImportSummary import_trace(const std::string& source, const std::string& out) {
  const std::string_view format = format_of(source);
  std::future<SourceIdentity> identity =
      std::async(std::launch::async, [source] { return import_source_identity(source); });
  return import_as(format, source, out, [&] { return identity.get().sha256; });
}

ImportSummary import_trace(const std::string& source, const std::string& out, const SourceIdentity& identity) {
  return import_as(identity.format, source, out, [&] { return identity.sha256; });
}

}  // namespace ibsec::traces
