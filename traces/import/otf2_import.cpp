#include "traces/import/otf2_import.h"

#include <otf2/otf2.h>

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <unordered_map>

#include "traces/import/source_digest.h"

namespace ibsec::traces {
namespace {

// The OTF2 library reports errors through one process-wide callback; it
// prints them by default. Kept here instead, so that the error we throw can
// say what the library found.
thread_local std::string otf2_last_error;

OTF2_ErrorCode remember_otf2_error(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code, const char* format,
                                   va_list arguments) {
  char text[512];
  std::vsnprintf(text, sizeof text, format ? format : "", arguments);
  otf2_last_error = std::string(OTF2_Error_GetName(code)) + ": " + text;
  return code;
}

// "MPI_Send" for "MPI_Send", "mpi_send_" (Fortran) and "PMPI_Send".
std::string canonical_call(std::string_view region) {
  std::string name(region);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  while (!name.empty() && name.back() == '_') name.pop_back();
  if (name.starts_with("pmpi_")) name.erase(0, 1);
  if (!name.starts_with("mpi_") || name.size() <= 4) return {};
  name[0] = 'M';
  name[1] = 'P';
  name[2] = 'I';
  name[4] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[4])));
  return name;
}

// EZTrace does its MPI_Finalize work in a region of its own.
constexpr std::string_view kEztraceFinalize = "EZTrace finalize";

std::optional<TraceOp> trace_op_of(OTF2_CollectiveOp op) {
  switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER:
      return TraceOp::kBarrier;
    case OTF2_COLLECTIVE_OP_BCAST:
      return TraceOp::kBcast;
    case OTF2_COLLECTIVE_OP_GATHER:
      return TraceOp::kGather;
    case OTF2_COLLECTIVE_OP_GATHERV:
      return TraceOp::kGatherv;
    case OTF2_COLLECTIVE_OP_SCATTER:
      return TraceOp::kScatter;
    case OTF2_COLLECTIVE_OP_SCATTERV:
      return TraceOp::kScatterv;
    case OTF2_COLLECTIVE_OP_ALLGATHER:
      return TraceOp::kAllgather;
    case OTF2_COLLECTIVE_OP_ALLGATHERV:
      return TraceOp::kAllgatherv;
    case OTF2_COLLECTIVE_OP_ALLTOALL:
      return TraceOp::kAlltoall;
    case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW:
      return TraceOp::kAlltoallv;  // the format records an alltoallw as one
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
      return TraceOp::kAllreduce;
    case OTF2_COLLECTIVE_OP_REDUCE:
      return TraceOp::kReduce;
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
      return TraceOp::kReduceScatter;
    case OTF2_COLLECTIVE_OP_SCAN:
      return TraceOp::kScan;
    case OTF2_COLLECTIVE_OP_EXSCAN:
      return TraceOp::kExscan;
    default:
      return std::nullopt;
  }
}

// Communicator and window management "collectives" move no user data.
bool is_handle_management(OTF2_CollectiveOp op) {
  return op >= OTF2_COLLECTIVE_OP_CREATE_HANDLE && op <= OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE;
}

}  // namespace

std::vector<std::filesystem::path> otf2_archive_files(const std::filesystem::path& anchor) {
  std::vector<std::filesystem::path> files{anchor};
  std::filesystem::path stem = anchor;
  stem.replace_extension();
  std::filesystem::path global = stem;
  global += ".def";
  if (std::filesystem::is_regular_file(global)) files.push_back(global);
  std::error_code ec;
  if (std::filesystem::is_directory(stem, ec)) {
    std::vector<std::filesystem::path> inside;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(stem, ec)) {
      if (entry.is_regular_file()) inside.push_back(entry.path());
    }
    std::sort(inside.begin(), inside.end());
    files.insert(files.end(), inside.begin(), inside.end());
  }
  return files;
}

namespace {

// A string the OTF2 library allocated.
std::string take_string(char* text) {
  std::string copy = text ? text : "";
  std::free(text);
  return copy;
}

}  // namespace

std::string otf2_archive_digest(const std::string& anchor) {
  const std::filesystem::path path(anchor);
  std::vector<std::pair<std::string, std::filesystem::path>> files;
  for (const auto& file : otf2_archive_files(path))
    files.emplace_back(std::filesystem::relative(file, path.parent_path()).generic_string(), file);
  return source_digest(files);
}

struct Otf2Source::State {
  std::string anchor;
  std::string source_note;  // "import: source ANCHOR (OTF2 archive)", its digest added by the import
  OTF2_Reader* reader = nullptr;
  OTF2_ErrorCallback previous_error_callback = nullptr;
  TraceHeader header;
  std::exception_ptr error;

  // Definitions.
  std::unordered_map<uint32_t, std::string> strings;
  struct Region {
    std::string call;  // canonical MPI name, empty for other regions
  };
  std::unordered_map<uint32_t, Region> regions;
  std::unordered_map<uint32_t, uint32_t> region_names;  // region -> string, resolved once strings are all read
  std::map<uint64_t, uint64_t> location_events;         // location -> its number of events
  std::vector<std::pair<uint32_t, std::vector<uint64_t>>> world_groups;  // MPI COMM_LOCATIONS groups
  std::map<uint32_t, std::vector<uint64_t>> comm_groups;                 // COMM_GROUP groups: members are world ranks
  std::map<uint32_t, uint32_t> comm_group_of;                            // comm -> its group
  uint64_t timer_resolution = 0;
  uint64_t global_offset = 0;
  bool have_clock = false;
  uint64_t same_id_groups = 0;  // COMM_LOCATIONS and COMM_GROUP groups sharing an id (EZTrace)

  // Derived.
  std::vector<uint64_t> world;                             // rank -> location
  std::unordered_map<uint64_t, uint32_t> rank_of;          // location -> rank
  std::unordered_map<uint32_t, uint32_t> trace_comm_of;    // OTF2 comm -> ibsec comm
  std::map<uint32_t, std::vector<uint32_t>> comm_members;  // ibsec comm -> world ranks, 0 included
  uint64_t merged_comms = 0;

  // Events.
  ImportBuilder* builder = nullptr;
  // Each world rank's reading: looked up once per record, by its rank.
  struct RankReading {
    OTF2_EvtReader* events = nullptr;
    uint64_t last_time_ns = 0;  // of its latest record, shifted
  };
  std::vector<RankReading> reading;    // by world rank
  std::vector<uint64_t> clock_shifts;  // by world rank; empty: none
  uint64_t unknown_records = 0;
  uint64_t alltoallw_calls = 0;

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw TraceError(anchor, TraceLocation::file(), field, problem);
  }
  void check(OTF2_ErrorCode code, const std::string& what) {
    if (code == OTF2_ERROR_INTERRUPTED_BY_CALLBACK && error) std::rethrow_exception(error);
    if (error) std::rethrow_exception(error);
    if (code != OTF2_SUCCESS) {
      fail(what, std::string("the OTF2 library cannot read it: ") +
                     (otf2_last_error.empty() ? OTF2_Error_GetDescription(code) : otf2_last_error));
    }
  }
};

namespace {

using State = Otf2Source::State;

constexpr uint64_t kNsPerSecond = 1'000'000'000;
constexpr uint64_t kMaxResolution = 1'000'000'000'000;  // 1 tick = 1 ps

// Callbacks run inside the C library: an exception must not cross it. It is
// kept and thrown again once the library has returned.
template <typename Body>
OTF2_CallbackCode guarded(void* data, Body&& body) {
  auto* state = static_cast<State*>(data);
  try {
    body(*state);
    return OTF2_CALLBACK_SUCCESS;
  } catch (...) {
    state->error = std::current_exception();
    return OTF2_CALLBACK_INTERRUPT;
  }
}

OTF2_CallbackCode on_string(void* data, OTF2_StringRef self, const char* text) {
  return guarded(data, [&](State& s) { s.strings[self] = text ? text : ""; });
}

OTF2_CallbackCode on_clock(void* data, uint64_t resolution, uint64_t offset, uint64_t, uint64_t) {
  return guarded(data, [&](State& s) {
    if (resolution == 0 || resolution > kMaxResolution) {
      s.fail("timerResolution", std::to_string(resolution) + " ticks per second (1 to 10^12 are taken)");
    }
    s.timer_resolution = resolution;
    s.global_offset = offset;
    s.have_clock = true;
  });
}

OTF2_CallbackCode on_location(void* data, OTF2_LocationRef self, OTF2_StringRef, OTF2_LocationType, uint64_t events,
                              OTF2_LocationGroupRef) {
  return guarded(data, [&](State& s) { s.location_events[self] = events; });
}

OTF2_CallbackCode on_region(void* data, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef, OTF2_StringRef,
                            OTF2_RegionRole, OTF2_Paradigm, OTF2_RegionFlag, OTF2_StringRef, uint32_t, uint32_t) {
  return guarded(data, [&](State& s) {
    const auto [it, fresh] = s.region_names.emplace(self, name);
    if (!fresh && it->second != name) {
      s.fail("region", "region " + std::to_string(self) + " is defined twice with different names");
    }
  });
}

OTF2_CallbackCode on_group(void* data, OTF2_GroupRef self, OTF2_StringRef, OTF2_GroupType type, OTF2_Paradigm paradigm,
                           OTF2_GroupFlag, uint32_t count, const uint64_t* members) {
  return guarded(data, [&](State& s) {
    std::vector<uint64_t> list(members, members + count);
    if (type == OTF2_GROUP_TYPE_COMM_LOCATIONS && paradigm == OTF2_PARADIGM_MPI) {
      s.world_groups.emplace_back(self, std::move(list));
      if (s.comm_groups.contains(self)) ++s.same_id_groups;
    } else if (type == OTF2_GROUP_TYPE_COMM_GROUP && paradigm == OTF2_PARADIGM_MPI) {
      const auto [it, fresh] = s.comm_groups.emplace(self, list);
      if (!fresh && it->second != list) {
        s.fail("group", "group " + std::to_string(self) + " is defined twice with different members");
      }
      for (const auto& world : s.world_groups) s.same_id_groups += world.first == self ? 1 : 0;
    }
  });
}

OTF2_CallbackCode on_comm(void* data, OTF2_CommRef self, OTF2_StringRef, OTF2_GroupRef group, OTF2_CommRef,
                          OTF2_CommFlag) {
  return guarded(data, [&](State& s) {
    const auto [it, fresh] = s.comm_group_of.emplace(self, group);
    if (!fresh && it->second != group) {
      s.fail("communicator", "communicator " + std::to_string(self) + " is defined twice with different groups");
    }
  });
}

void read_definitions(State& s) {
  OTF2_GlobalDefReader* definitions = OTF2_Reader_GetGlobalDefReader(s.reader);
  if (!definitions) s.fail("definitions", "no global definitions: " + otf2_last_error);
  OTF2_GlobalDefReaderCallbacks* callbacks = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(callbacks, on_string);
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(callbacks, on_clock);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(callbacks, on_location);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(callbacks, on_region);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(callbacks, on_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(callbacks, on_comm);
  OTF2_Reader_RegisterGlobalDefCallbacks(s.reader, definitions, callbacks, &s);
  OTF2_GlobalDefReaderCallbacks_Delete(callbacks);
  uint64_t read = 0;
  const OTF2_ErrorCode code = OTF2_Reader_ReadAllGlobalDefinitions(s.reader, definitions, &read);
  OTF2_Reader_CloseGlobalDefReader(s.reader, definitions);
  s.check(code, "definitions");
}

void resolve_regions(State& s) {
  for (const auto& [region, name] : s.region_names) {
    const auto text = s.strings.find(name);
    if (text == s.strings.end()) {
      s.fail("region",
             "region " + std::to_string(region) + " names string " + std::to_string(name) + ", which is not defined");
    }
    s.regions[region] = {text->second == kEztraceFinalize ? "MPI_Finalize" : canonical_call(text->second)};
  }
}

// MPI_COMM_WORLD: the MPI COMM_LOCATIONS group lists the location of each rank.
void resolve_world(State& s) {
  if (s.world_groups.empty()) {
    s.fail("group",
           "no MPI group of type COMM_LOCATIONS: the archive does not say which location is which MPI "
           "rank (not an MPI trace, or its definitions are missing)");
  }
  for (size_t i = 1; i < s.world_groups.size(); ++i) {
    if (s.world_groups[i].second != s.world_groups[0].second) {
      s.fail("group", "two MPI COMM_LOCATIONS groups with different members");
    }
  }
  s.world = s.world_groups.front().second;
  if (s.world.empty() || s.world.size() > kMaxTraceProcesses) {
    s.fail("group", "MPI_COMM_WORLD has " + std::to_string(s.world.size()) + " ranks (1 to " +
                        std::to_string(kMaxTraceProcesses) + " are possible)");
  }
  for (uint32_t rank = 0; rank < s.world.size(); ++rank) {
    if (!s.location_events.contains(s.world[rank])) {
      s.fail("location", "rank " + std::to_string(rank) + " is location " + std::to_string(s.world[rank]) +
                             ", which is not defined");
    }
    if (!s.rank_of.emplace(s.world[rank], rank).second) {
      s.fail("location", "location " + std::to_string(s.world[rank]) + " is more than one rank");
    }
  }
}

// OTF2 communicators become ibsec communicators by their members: EZTrace
// defines the same communicator once per process, under different ids.
void resolve_comms(State& s) {
  const uint32_t n = static_cast<uint32_t>(s.world.size());
  std::map<std::vector<uint32_t>, uint32_t> id_of_members;
  std::vector<uint32_t> world(n);
  for (uint32_t i = 0; i < n; ++i) world[i] = i;
  id_of_members[world] = 0;
  s.comm_members[0] = world;
  for (const auto& [comm, group] : s.comm_group_of) {
    const auto members = s.comm_groups.find(group);
    if (members == s.comm_groups.end()) continue;  // a group of another kind (COMM_SELF): refused where used
    std::vector<uint32_t> ranks;
    for (uint64_t rank : members->second) {
      if (rank >= n) {
        s.fail("group", "group " + std::to_string(group) + " of communicator " + std::to_string(comm) + " has member " +
                            std::to_string(rank) + " but MPI_COMM_WORLD has " + std::to_string(n) + " ranks");
      }
      ranks.push_back(static_cast<uint32_t>(rank));
    }
    if (ranks.empty()) continue;  // a communicator of no rank carries nothing; naming it in an event is refused
    const auto [it, fresh] = id_of_members.emplace(ranks, static_cast<uint32_t>(id_of_members.size()));
    if (fresh) {
      s.comm_members[it->second] = ranks;
    } else {
      ++s.merged_comms;
    }
    s.trace_comm_of[comm] = it->second;
  }
  s.merged_comms -= std::min<uint64_t>(s.merged_comms, 1);  // the world's own definition is not a merge
}

std::string otf2_version(OTF2_Reader* reader) {
  uint8_t major = 0, minor = 0, bugfix = 0;
  OTF2_Reader_GetVersion(reader, &major, &minor, &bugfix);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(bugfix);
}

bool has_eztrace_region(const State& s) {
  return std::any_of(s.strings.begin(), s.strings.end(), [](const auto& e) { return e.second == kEztraceFinalize; });
}

void describe_provenance(State& s) {
  char* text = nullptr;
  OTF2_Reader_GetCreator(s.reader, &text);
  std::string creator = take_string(text);
  OTF2_Reader_GetMachineName(s.reader, &text);
  const std::string machine = take_string(text);
  OTF2_Reader_GetDescription(s.reader, &text);
  const std::string description = take_string(text);
  std::string tool = creator;
  if (tool.empty()) tool = has_eztrace_region(s) ? "EZTrace" : "an unnamed tool";
  TraceHeader& h = s.header;
  h.origin = TraceOrigin::kCaptured;
  h.origin_text = "imported from OTF2 " + otf2_version(s.reader) + " by " + tool + ": " +
                  std::filesystem::path(s.anchor).filename().string();
  s.source_note = "import: source " + s.anchor + " (OTF2 archive)";
  h.notes.push_back(
      "import: creator " + (creator.empty() ? std::string("(not named by the archive)") : creator) +
      (creator.empty() && tool == "EZTrace" ? "; EZTrace recognised by its region 'EZTrace finalize'" : ""));
  if (!machine.empty()) h.notes.push_back("import: machine " + machine);
  if (!description.empty()) h.notes.push_back("import: description " + description);
  uint32_t count = 0;
  char** names = nullptr;
  if (OTF2_Reader_GetPropertyNames(s.reader, &count, &names) == OTF2_SUCCESS && names) {
    for (uint32_t i = 0; i < count; ++i) {
      OTF2_Reader_GetProperty(s.reader, names[i], &text);
      h.notes.push_back("import: property " + std::string(names[i]) + " = " + take_string(text));
    }
    std::free(names);
  }
  h.notes.push_back("import: clock " + std::to_string(s.timer_resolution) + " ticks/s, times from the global offset " +
                    std::to_string(s.global_offset));
  h.notes.push_back("import: no CPU times (the archive records none that the ibsec format takes)");
  uint64_t other_locations = 0, other_events = 0;
  for (const auto& [location, events] : s.location_events) {
    if (events == 0 || s.rank_of.contains(location)) continue;
    ++other_locations;
    other_events += events;
  }
  if (other_locations > 0) {
    h.notes.push_back("import: not read: " + std::to_string(other_events) + " events of " +
                      std::to_string(other_locations) + " locations that are no MPI rank (threads, devices)");
  }
  if (s.same_id_groups > 0) {
    h.notes.push_back("import: repaired " + std::to_string(s.same_id_groups) +
                      ": an MPI COMM_LOCATIONS and a COMM_GROUP group share an id (kept apart by their type)");
  }
  if (s.merged_comms > 0) {
    h.notes.push_back("import: repaired " + std::to_string(s.merged_comms) +
                      ": OTF2 communicators with the same members as another taken as that one");
  }
}

void open_archive(State& s) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(s.anchor, ec)) s.fail("source", "no such file");
  otf2_last_error.clear();
  s.reader = OTF2_Reader_Open(s.anchor.c_str());
  if (!s.reader) s.fail("anchor", "not an OTF2 anchor file: " + otf2_last_error);
  s.check(OTF2_Reader_SetSerialCollectiveCallbacks(s.reader), "anchor");
}

// The record's place among its rank's records, as otf2-print counts them.
uint64_t record_index(const State::RankReading& rank) {
  uint64_t position = 0;
  if (rank.events) OTF2_EvtReader_GetPos(rank.events, &position);
  return position;
}

// Split so that nothing overflows: the remainder is below the resolution,
// which on_clock keeps at most kMaxResolution. A clock that ticks in ns
// (EZTrace's) is divided by a constant, which costs a multiplication, not
// three divisions a record.
uint64_t ticks_to_ns(State& s, uint64_t ticks) {
  const bool ns_clock = s.timer_resolution == kNsPerSecond;
  const uint64_t seconds = ns_clock ? ticks / kNsPerSecond : ticks / s.timer_resolution;
  if (seconds > std::numeric_limits<uint64_t>::max() / kNsPerSecond / 2) {
    s.builder->fail("time", "beyond what the format holds");
  }
  if (ns_clock) return ticks;
  return seconds * kNsPerSecond + (ticks % s.timer_resolution) * kNsPerSecond / s.timer_resolution;
}

// A record's rank and its time (ns, shifted).
struct Arrival {
  WorldRank rank;
  uint64_t time_ns;
};

// Sets the builder's place and time for a record.
Arrival arrive(State& s, OTF2_LocationRef location, OTF2_TimeStamp time) {
  const auto rank = s.rank_of.find(location);
  if (rank == s.rank_of.end()) s.fail("location", "events of location " + std::to_string(location) + ", not a rank");
  const WorldRank who(rank->second);
  State::RankReading& reading = s.reading[who.value()];
  s.builder->at(who, record_index(reading));
  if (time < s.global_offset) s.builder->fail("time", "before the clock's global offset");
  const uint64_t unshifted_ns = ticks_to_ns(s, time - s.global_offset);
  // The global reader merges the ranks by their own clocks: with shifts (all
  // >= 0), a record still to come is no earlier than this one unshifted.
  const uint64_t time_ns = unshifted_ns + (s.clock_shifts.empty() ? 0 : s.clock_shifts[who.value()]);
  if (time_ns < reading.last_time_ns) s.builder->fail("time", "earlier than the rank's previous record");
  reading.last_time_ns = time_ns;
  s.builder->now(time_ns, unshifted_ns);
  s.builder->begin_rank(who, time_ns);
  return {who, time_ns};
}

const std::string& call_of(State& s, OTF2_RegionRef region) {
  const auto found = s.regions.find(region);
  if (found == s.regions.end()) s.builder->fail("region", "region " + std::to_string(region) + " is not defined");
  return found->second.call;
}

TraceComm comm_of(State& s, OTF2_CommRef comm) {
  const auto found = s.trace_comm_of.find(comm);
  if (found == s.trace_comm_of.end()) {
    s.builder->fail("communicator", "communicator " + std::to_string(comm) + " is not defined (or not an MPI one)");
  }
  return TraceComm(found->second);
}

WorldRank world_rank(State& s, TraceComm comm, uint32_t rank, const char* field) {
  const auto& members = s.comm_members.at(comm.value());
  if (rank >= members.size()) {
    s.builder->fail(field, std::to_string(rank) + " is not a rank of its communicator (" +
                               std::to_string(members.size()) + " members)");
  }
  return WorldRank(members[rank]);
}

uint32_t tag_of(State& s, uint32_t tag) {
  if (tag > info(TraceArg::kTag).max) s.builder->fail("msgTag", std::to_string(tag) + " is not an MPI tag");
  return tag;
}

OTF2_CallbackCode on_enter(OTF2_LocationRef location, OTF2_TimeStamp time, void* data, OTF2_AttributeList*,
                           OTF2_RegionRef region) {
  return guarded(data, [&](State& s) {
    const Arrival record = arrive(s, location, time);
    const std::string& call = call_of(s, region);
    if (!call.empty()) s.builder->enter_call(record.rank, record.time_ns, call);
  });
}

OTF2_CallbackCode on_leave(OTF2_LocationRef location, OTF2_TimeStamp time, void* data, OTF2_AttributeList*,
                           OTF2_RegionRef region) {
  return guarded(data, [&](State& s) {
    const Arrival record = arrive(s, location, time);
    if (!call_of(s, region).empty()) s.builder->leave_call(record.rank, record.time_ns);
  });
}

OTF2_CallbackCode on_send(OTF2_LocationRef location, OTF2_TimeStamp time, void* data, OTF2_AttributeList*,
                          uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t length) {
  return guarded(data, [&](State& s) {
    const WorldRank rank = arrive(s, location, time).rank;
    const TraceComm c = comm_of(s, comm);
    s.builder->send(rank, world_rank(s, c, receiver, "receiver"), length, tag_of(s, tag), c);
  });
}

OTF2_CallbackCode on_isend(OTF2_LocationRef location, OTF2_TimeStamp time, void* data, OTF2_AttributeList*,
                           uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t length, uint64_t request) {
  return guarded(data, [&](State& s) {
    const WorldRank rank = arrive(s, location, time).rank;
    const TraceComm c = comm_of(s, comm);
    s.builder->isend(rank, world_rank(s, c, receiver, "receiver"), length, tag_of(s, tag), c, SourceRequest(request));
  });
}

OTF2_CallbackCode on_isend_complete(OTF2_LocationRef location, OTF2_TimeStamp time, void* data, OTF2_AttributeList*,
                                    uint64_t request) {
  return guarded(data,
                 [&](State& s) { s.builder->send_completed(arrive(s, location, time).rank, SourceRequest(request)); });
}

OTF2_CallbackCode on_irecv_request(OTF2_LocationRef location, OTF2_TimeStamp time, void* data, OTF2_AttributeList*,
                                   uint64_t request) {
  return guarded(data,
                 [&](State& s) { s.builder->irecv_posted(arrive(s, location, time).rank, SourceRequest(request)); });
}

OTF2_CallbackCode on_recv(OTF2_LocationRef location, OTF2_TimeStamp time, void* data, OTF2_AttributeList*,
                          uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t length) {
  return guarded(data, [&](State& s) {
    const WorldRank rank = arrive(s, location, time).rank;
    const TraceComm c = comm_of(s, comm);
    s.builder->recv(rank, world_rank(s, c, sender, "sender"), length, tag_of(s, tag), c);
  });
}

OTF2_CallbackCode on_irecv(OTF2_LocationRef location, OTF2_TimeStamp time, void* data, OTF2_AttributeList*,
                           uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t length, uint64_t request) {
  return guarded(data, [&](State& s) {
    const WorldRank rank = arrive(s, location, time).rank;
    const TraceComm c = comm_of(s, comm);
    s.builder->irecv_completed(rank, world_rank(s, c, sender, "sender"), length, tag_of(s, tag), c,
                               SourceRequest(request));
  });
}

OTF2_CallbackCode on_cancelled(OTF2_LocationRef location, OTF2_TimeStamp time, void* data, OTF2_AttributeList*,
                               uint64_t request) {
  return guarded(
      data, [&](State& s) { s.builder->request_cancelled(arrive(s, location, time).rank, SourceRequest(request)); });
}

OTF2_CallbackCode on_collective_end(OTF2_LocationRef location, OTF2_TimeStamp time, void* data, OTF2_AttributeList*,
                                    OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                    uint64_t received) {
  return guarded(data, [&](State& s) {
    const WorldRank rank = arrive(s, location, time).rank;
    if (is_handle_management(op)) return;
    const auto trace_op = trace_op_of(op);
    if (!trace_op) s.builder->fail("collectiveOp", std::to_string(op) + " is not an OTF2 collective operation");
    if (op == OTF2_COLLECTIVE_OP_ALLTOALLW) ++s.alltoallw_calls;
    const TraceComm c = comm_of(s, comm);
    std::optional<WorldRank> root_rank;
    if (has_root(*trace_op)) {
      if (root == OTF2_COLLECTIVE_ROOT_SELF || root == OTF2_COLLECTIVE_ROOT_THIS_GROUP) {
        s.builder->fail("root", "an intercommunicator collective, which the ibsec format does not express");
      }
      root_rank = root == OTF2_COLLECTIVE_ROOT_NONE ? std::nullopt : std::optional(world_rank(s, c, root, "root"));
    }
    s.builder->collective(rank, *trace_op, c, root_rank, sent, received);
  });
}

OTF2_CallbackCode on_unknown(OTF2_LocationRef location, OTF2_TimeStamp time, void* data, OTF2_AttributeList*) {
  return guarded(data, [&](State& s) {
    arrive(s, location, time);
    ++s.unknown_records;
  });
}

void register_event_callbacks(State& s, OTF2_GlobalEvtReader* events) {
  OTF2_GlobalEvtReaderCallbacks* callbacks = OTF2_GlobalEvtReaderCallbacks_New();
  OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(callbacks, on_enter);
  OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(callbacks, on_leave);
  OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(callbacks, on_send);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(callbacks, on_isend);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(callbacks, on_isend_complete);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(callbacks, on_irecv_request);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(callbacks, on_recv);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(callbacks, on_irecv);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRequestCancelledCallback(callbacks, on_cancelled);
  OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(callbacks, on_collective_end);
  OTF2_GlobalEvtReaderCallbacks_SetUnknownCallback(callbacks, on_unknown);
  OTF2_Reader_RegisterGlobalEvtCallbacks(s.reader, events, callbacks, &s);
  OTF2_GlobalEvtReaderCallbacks_Delete(callbacks);
}

// The per-location readers: every rank's local definitions first (their id
// mappings), then one event reader per rank, which the global reader merges
// by time. Definitions all before any event reader: the library gives each
// reader a buffer of the archive's chunk size (EZTrace: 16 MiB) and clears
// it, so one definitions buffer freed and taken again stays in memory the
// process already has, instead of every rank's touching fresh pages.
void read_local_definitions(State& s) {
  if (OTF2_Reader_OpenDefFiles(s.reader) != OTF2_SUCCESS) return;  // local definitions are optional
  for (uint64_t location : s.world) {
    if (OTF2_DefReader* local = OTF2_Reader_GetDefReader(s.reader, location)) {
      uint64_t read = 0;
      const OTF2_ErrorCode code = OTF2_Reader_ReadAllLocalDefinitions(s.reader, local, &read);
      OTF2_Reader_CloseDefReader(s.reader, local);
      s.check(code, "definitions");
    }
  }
  OTF2_Reader_CloseDefFiles(s.reader);
}

void open_rank_readers(State& s) {
  for (uint64_t location : s.world) s.check(OTF2_Reader_SelectLocation(s.reader, location), "location");
  read_local_definitions(s);
  s.check(OTF2_Reader_OpenEvtFiles(s.reader), "events");
  s.reading.assign(s.world.size(), {});
  for (uint32_t rank = 0; rank < s.world.size(); ++rank) {
    const uint64_t location = s.world[rank];
    OTF2_EvtReader* events = OTF2_Reader_GetEvtReader(s.reader, location);
    if (!events)
      s.fail("events", "cannot open the events of location " + std::to_string(location) + ": " + otf2_last_error);
    s.reading[rank].events = events;
  }
}

}  // namespace

Otf2Source::Otf2Source(const std::string& anchor, std::vector<uint64_t> clock_shifts)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.anchor = anchor;
  s.clock_shifts = std::move(clock_shifts);
  s.previous_error_callback = OTF2_Error_RegisterCallback(remember_otf2_error, nullptr);
  try {
    open_archive(s);
    read_definitions(s);
    if (!s.have_clock) s.fail("clockProperties", "the archive defines no clock (ticks per second)");
    resolve_regions(s);
    resolve_world(s);
    if (!s.clock_shifts.empty() && s.clock_shifts.size() != s.world.size()) {
      s.fail("clock shifts",
             std::to_string(s.clock_shifts.size()) + " given for " + std::to_string(s.world.size()) + " ranks");
    }
    resolve_comms(s);
    s.header.processes = static_cast<uint32_t>(s.world.size());
    for (const auto& [id, members] : s.comm_members) {
      if (id != 0) s.header.comms[id] = members;
    }
    describe_provenance(s);
  } catch (...) {
    if (s.reader) OTF2_Reader_Close(s.reader);
    OTF2_Error_RegisterCallback(s.previous_error_callback, nullptr);
    throw;
  }
}

Otf2Source::~Otf2Source() {
  if (state_->reader) OTF2_Reader_Close(state_->reader);
  OTF2_Error_RegisterCallback(state_->previous_error_callback, nullptr);
}

const TraceHeader& Otf2Source::header() const { return state_->header; }

const std::string& Otf2Source::source_note() const { return state_->source_note; }

void Otf2Source::read_events(ImportBuilder& builder) {
  State& s = *state_;
  s.builder = &builder;
  if (has_eztrace_region(s)) builder.assume_completions_unrecorded();  // its C MPI_Waitall records none
  open_rank_readers(s);
  OTF2_GlobalEvtReader* events = OTF2_Reader_GetGlobalEvtReader(s.reader);
  if (!events) s.fail("events", "cannot merge the ranks' events: " + otf2_last_error);
  register_event_callbacks(s, events);
  uint64_t read = 0;
  const OTF2_ErrorCode code = OTF2_Reader_ReadAllGlobalEvents(s.reader, events, &read);
  OTF2_Reader_CloseGlobalEvtReader(s.reader, events);
  s.check(code, "events");
  if (s.unknown_records > 0) {
    s.header.notes.push_back("import: skipped " + std::to_string(s.unknown_records) +
                             " records of a kind the OTF2 library does not know");
  }
  if (s.alltoallw_calls > 0) {
    s.header.notes.push_back("import: " + std::to_string(s.alltoallw_calls) + " alltoallw calls written as alltoallv");
  }
}

}  // namespace ibsec::traces
