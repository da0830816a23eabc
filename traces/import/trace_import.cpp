#include "traces/import/trace_import.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "core/atomic_file.h"
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

bool is_otf2_anchor(const std::string& path) { return std::filesystem::path(path).extension() == ".otf2"; }

// The events go first to a binary file beside OUT, since the notes that say
// what was repaired are known only at the end and the header comes first;
// the second pass puts header and events together and checks everything.
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

template <typename Source>
ImportSummary import_from(Source& source, const std::string& source_path, const std::string& out,
                          std::string_view format) {
  ScratchTrace scratch(out);
  TraceHeader header = source.header();
  ImportSummary summary;
  summary.format = format;
  summary.processes = header.processes;
  {
    TraceWriter events(scratch.path(), header, TraceEncoding::kBinary, TraceCompression::kNone, "out");
    std::map<uint32_t, std::vector<uint32_t>> comms = header.comms;
    std::vector<uint32_t> world(header.processes);
    for (uint32_t i = 0; i < header.processes; ++i) world[i] = i;
    comms[0] = world;
    ImportBuilder builder(source_path, header.processes, std::move(comms),
                          [&](const TraceEvent& e) { events.write(e); });
    source.read_events(builder);
    builder.finish();
    events.finish();
    summary.tally = builder.tally();
  }
  header = source.header();  // with what reading the events added
  for (std::string& note : tally_notes(summary.tally)) header.notes.push_back(std::move(note));
  TraceReader reader(scratch.path());
  TraceWriter writer(out, header, "out");
  check_whole_trace(reader, [&](const TraceEvent& e) { writer.write(e); });
  writer.finish();
  summary.events = reader.events_read();
  return summary;
}

}  // namespace

const std::vector<ImportFormat>& import_formats() {
  static const std::vector<ImportFormat> formats = {
      {"OTF2", "an OTF2 anchor file (*.otf2) beside its .def file and folder", kOtf2Built,
       "libotf2 was not found when this engine was built: install the OTF2 library (Debian: apt-get install "
       "libotf2-trace-dev) and build the engine again"},
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

ImportSummary import_trace(const std::string& source, const std::string& out) {
  CommandFiles files;
  files.input(source, "source");
  files.output(out, "out");
  files.check();
  if (!is_otf2_anchor(source)) {
    throw TraceError(source, TraceLocation::file(), "source",
                     "not a format `trace import` reads: expected " + std::string(import_formats()[0].source_hint));
  }
  if (!kOtf2Built) throw TraceError(source, TraceLocation::file(), "source", std::string(import_formats()[0].missing));
#ifdef IBSEC_HAVE_OTF2
  Otf2Source otf2(source);
  return import_from(otf2, source, out, "OTF2");
#else
  return {};
#endif
}

}  // namespace ibsec::traces
