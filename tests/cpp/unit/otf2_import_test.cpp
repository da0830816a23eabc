// `trace import` of OTF2 archives (traces/import, docs/importing.md): small
// archives written here with the OTF2 writer API, imported and compared
// event by event; and hostile ones, each refused naming the field at fault.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/errors.h"
#include "support/config_refusal.h"
#include "support/import_support.h"
#include "traces/import/trace_import.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

#ifdef IBSEC_HAVE_OTF2
#include <otf2/otf2.h>

namespace ibsec::traces {
namespace {

namespace fs = std::filesystem;

// The regions the tests call; their ids are their places here.
const std::vector<std::string> kRegions = {"MPI_Init", "MPI_Send",     "MPI_Recv",  "MPI_Isend",       "MPI_Irecv",
                                           "MPI_Wait", "MPI_Waitall",  "MPI_Bcast", "MPI_Alltoallv",   "MPI_Comm_rank",
                                           "MPI_Put",  "MPI_Finalize", "work",      "mpi_allgatherv_", "MPI_Testall"};
uint32_t region(const std::string& name) {
  return static_cast<uint32_t>(std::find(kRegions.begin(), kRegions.end(), name) - kRegions.begin());
}

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) { return 0; }

// An OTF2 archive of `ranks` MPI ranks in a fresh folder. Communicators:
// 0 the world, 1 ranks {1, 2} (a split), 2 a duplicate of the world.
class Archive {
 public:
  explicit Archive(uint32_t ranks, std::string name = "t") : ranks_(ranks) {
    dir_ = fs::temp_directory_path() / ("ibsec-otf2-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    archive_ = OTF2_Archive_Open(dir_.c_str(), "trace", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                 OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    static const OTF2_FlushCallbacks flush = {pre_flush, post_flush};
    OTF2_Archive_SetFlushCallbacks(archive_, &flush, nullptr);
    OTF2_Archive_SetSerialCollectiveCallbacks(archive_);
    OTF2_Archive_OpenEvtFiles(archive_);
    for (uint32_t r = 0; r < ranks; ++r) writers_.push_back(OTF2_Archive_GetEvtWriter(archive_, r));
  }
  ~Archive() { fs::remove_all(dir_); }

  OTF2_EvtWriter* at(uint32_t rank) { return writers_[rank]; }
  // Definitions finish() writes wrong on purpose: the locations the MPI
  // COMM_LOCATIONS group lists, rank by rank (default: location r is rank r),
  // and one more region whose name is this string id, never defined.
  std::optional<std::vector<uint64_t>> world_locations;
  std::optional<uint32_t> region_named_by;
  // Written as EZTrace writes: a string 'EZTrace finalize' among the definitions.
  bool eztrace = false;
  void call(uint32_t rank, const std::string& name, uint64_t enter, uint64_t leave,
            const std::function<void(OTF2_EvtWriter*)>& inside = {}) {
    OTF2_EvtWriter_Enter(at(rank), nullptr, enter, region(name));
    if (inside) inside(at(rank));
    OTF2_EvtWriter_Leave(at(rank), nullptr, leave, region(name));
  }
  void collective(uint32_t rank, const std::string& name, uint64_t enter, uint64_t leave, OTF2_CollectiveOp op,
                  uint32_t comm, uint32_t root, uint64_t sent, uint64_t received) {
    call(rank, name, enter, leave, [&](OTF2_EvtWriter* w) {
      OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, enter);
      OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, leave, op, comm, root, sent, received);
    });
  }
  // Writes the definitions and closes the archive; the anchor file's path.
  std::string finish(uint64_t resolution = 1'000'000'000, bool world_group = true) {
    std::vector<uint64_t> events(ranks_);
    for (uint32_t r = 0; r < ranks_; ++r) {
      OTF2_EvtWriter_GetNumberOfEvents(writers_[r], &events[r]);
      OTF2_Archive_CloseEvtWriter(archive_, writers_[r]);
    }
    OTF2_Archive_CloseEvtFiles(archive_);
    OTF2_Archive_OpenDefFiles(archive_);
    for (uint32_t r = 0; r < ranks_; ++r) OTF2_Archive_CloseDefWriter(archive_, OTF2_Archive_GetDefWriter(archive_, r));
    OTF2_Archive_CloseDefFiles(archive_);
    OTF2_GlobalDefWriter* d = OTF2_Archive_GetGlobalDefWriter(archive_);
    OTF2_GlobalDefWriter_WriteClockProperties(d, resolution, 0, 1'000'000, OTF2_UNDEFINED_TIMESTAMP);
    uint32_t s = 0;
    OTF2_GlobalDefWriter_WriteString(d, s++, "");
    if (eztrace) OTF2_GlobalDefWriter_WriteString(d, s++, "EZTrace finalize");
    for (size_t i = 0; i < kRegions.size(); ++i) {
      OTF2_GlobalDefWriter_WriteString(d, s, kRegions[i].c_str());
      OTF2_GlobalDefWriter_WriteRegion(d, static_cast<uint32_t>(i), s, s, s, OTF2_REGION_ROLE_FUNCTION,
                                       OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
      ++s;
    }
    if (region_named_by) {
      OTF2_GlobalDefWriter_WriteRegion(d, static_cast<uint32_t>(kRegions.size()), *region_named_by, 0, 0,
                                       OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    }
    OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, 0, 0, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    std::vector<uint64_t> locations;
    std::vector<uint64_t> world;
    for (uint32_t r = 0; r < ranks_; ++r) {
      OTF2_GlobalDefWriter_WriteLocationGroup(d, r, 0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                              OTF2_UNDEFINED_LOCATION_GROUP);
      OTF2_GlobalDefWriter_WriteLocation(d, r, 0, OTF2_LOCATION_TYPE_CPU_THREAD, events[r], r);
      locations.push_back(r);
    }
    if (world_locations) locations = *world_locations;
    for (uint64_t r = 0; r < locations.size(); ++r) world.push_back(r);  // the COMM_GROUP of the world: ranks
    if (world_group) {
      OTF2_GlobalDefWriter_WriteGroup(d, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                      static_cast<uint32_t>(locations.size()), locations.data());
    }
    OTF2_GlobalDefWriter_WriteGroup(d, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    static_cast<uint32_t>(world.size()), world.data());
    const uint64_t split[] = {1, 2};
    OTF2_GlobalDefWriter_WriteGroup(d, 2, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    world.size() >= 3 ? 2 : 0, split);
    OTF2_GlobalDefWriter_WriteComm(d, 0, 0, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteComm(d, 1, 0, 2, 0, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteComm(d, 2, 0, 1, 0, OTF2_COMM_FLAG_NONE);
    OTF2_Archive_Close(archive_);
    return (dir_ / "trace.otf2").string();
  }
  [[nodiscard]] fs::path dir() const { return dir_; }

 private:
  uint32_t ranks_;
  fs::path dir_;
  OTF2_Archive* archive_ = nullptr;
  std::vector<OTF2_EvtWriter*> writers_;
};

using testing::events_by_rank;
using testing::events_in_order;
using testing::imported;

// The field a refused import names; "" if it was imported.
std::string refused_field(const std::string& anchor) {
  try {
    imported(anchor);
  } catch (const TraceError& e) {
    return e.field();
  }
  return "";
}

// The message of a refused import; "" if it was imported.
std::string refusal(const std::string& anchor) {
  try {
    imported(anchor);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

void init(Archive& a, uint32_t rank) { a.call(rank, "MPI_Init", 0, 10); }
void finalize(Archive& a, uint32_t rank) { a.call(rank, "MPI_Finalize", 110, 120); }

// Point-to-point in every form, a split communicator, a wait and a waitall,
// a collective with a root and a vector one, calls that move no data and a
// call the format cannot express.
TEST(Otf2Import, EveryEventKindEventByEvent) {
  Archive a(3, "kinds");
  for (uint32_t r = 0; r < 3; ++r) init(a, r);
  a.call(0, "MPI_Send", 20, 30, [](auto* w) { OTF2_EvtWriter_MpiSend(w, nullptr, 21, 1, 0, 5, 100); });
  a.call(0, "MPI_Isend", 40, 45, [](auto* w) { OTF2_EvtWriter_MpiIsend(w, nullptr, 41, 2, 0, 6, 200, 7); });
  a.call(0, "MPI_Wait", 50, 60, [](auto* w) { OTF2_EvtWriter_MpiIsendComplete(w, nullptr, 59, 7); });
  a.call(1, "MPI_Recv", 15, 35, [](auto* w) { OTF2_EvtWriter_MpiRecv(w, nullptr, 34, 0, 0, 5, 100); });
  a.call(1, "MPI_Irecv", 36, 37, [](auto* w) { OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, 36, 9); });
  a.call(1, "MPI_Wait", 38, 60, [](auto* w) { OTF2_EvtWriter_MpiIrecv(w, nullptr, 59, 1, 1, 1, 64, 9); });
  a.call(2, "MPI_Irecv", 12, 13, [](auto* w) { OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, 12, 3); });
  a.call(2, "MPI_Send", 20, 25, [](auto* w) { OTF2_EvtWriter_MpiSend(w, nullptr, 21, 0, 1, 1, 64); });
  a.call(2, "MPI_Waitall", 41, 55, [](auto* w) { OTF2_EvtWriter_MpiIrecv(w, nullptr, 54, 0, 0, 6, 200, 3); });
  const uint64_t bcast_enter[] = {70, 65, 70};
  const uint64_t alltoallv_sent[] = {10, 20, 0};
  for (uint32_t r = 0; r < 3; ++r) {
    a.collective(r, "MPI_Bcast", bcast_enter[r], 80, OTF2_COLLECTIVE_OP_BCAST, 2, 0, 8, 8);
    a.collective(r, "MPI_Alltoallv", 90, 100, OTF2_COLLECTIVE_OP_ALLTOALLV, 0, OTF2_COLLECTIVE_ROOT_NONE,
                 alltoallv_sent[r], 0);
    a.collective(r, "mpi_allgatherv_", 101, 102, OTF2_COLLECTIVE_OP_ALLGATHERV, 0, OTF2_COLLECTIVE_ROOT_NONE, r + 1, 6);
  }
  a.call(0, "MPI_Comm_rank", 105, 106);
  a.call(0, "MPI_Put", 107, 108);
  for (uint32_t r = 0; r < 3; ++r) finalize(a, r);
  ImportSummary summary;
  const std::string out = imported(a.finish(), &summary);

  const std::map<uint32_t, std::vector<std::string>> expected = {
      {0,
       {"0 10 20 compute", "0 20 30 send 1 100 5 0", "0 30 40 compute", "0 40 45 isend 2 200 6 0 0", "0 45 50 compute",
        "0 50 60 wait 0", "0 60 70 compute", "0 70 80 bcast 0 0 8", "0 80 90 compute", "0 90 100 alltoallv 0 4,3,3",
        "0 100 101 compute", "0 101 102 allgatherv 0 1,2,3", "0 102 110 compute"}},
      {1,
       {"1 10 15 compute", "1 15 35 recv 0 100 5 0 exact", "1 35 36 compute", "1 36 37 irecv 2 64 1 0 1 exact",
        "1 37 38 compute", "1 38 60 wait 0", "1 60 65 compute", "1 65 80 bcast 0 0 8", "1 80 90 compute",
        "1 90 100 alltoallv 0 7,7,6", "1 100 101 compute", "1 101 102 allgatherv 0 1,2,3", "1 102 110 compute"}},
      {2,
       {"2 10 12 compute", "2 12 13 irecv 0 200 6 0 0 exact", "2 13 20 compute", "2 20 25 send 1 64 1 1",
        "2 25 41 compute", "2 41 55 wait 0", "2 55 70 compute", "2 70 80 bcast 0 0 8", "2 80 90 compute",
        "2 90 100 alltoallv 0 0,0,0", "2 100 101 compute", "2 101 102 allgatherv 0 1,2,3", "2 102 110 compute"}},
  };
  EXPECT_EQ(events_by_rank(out), expected);
  EXPECT_EQ(summary.tally.not_imported, (std::map<std::string, uint64_t>{{"MPI_Put", 1}}));
  EXPECT_EQ(summary.tally.messages, 3u);
  EXPECT_EQ(summary.tally.message_bytes, 364u);
  TraceReader reader(out);
  EXPECT_EQ(reader.header().comms, (std::map<uint32_t, std::vector<uint32_t>>{{1, {1, 2}}}));
  const auto& notes = reader.header().notes;
  EXPECT_NE(std::find(notes.begin(), notes.end(), "import: not imported: MPI_Put (1 calls)"), notes.end());
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(),
                          [](const std::string& n) { return n.find("sha256") != std::string::npos; }));
}

// Rank 1 posts a receive and waits 22..40 with no record of its completion;
// rank 0 sends it 1000 bytes, its call entered at `send_at`.
void receive_without_completion(Archive& a, uint64_t send_at) {
  for (uint32_t r = 0; r < 2; ++r) init(a, r);
  a.call(1, "MPI_Irecv", 20, 21, [](auto* w) { OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, 20, 4); });
  a.call(1, "MPI_Wait", 22, 40);
  a.call(0, "MPI_Send", send_at, send_at + 5,
         [&](auto* w) { OTF2_EvtWriter_MpiSend(w, nullptr, send_at + 1, 1, 0, 1000, 4); });
  for (uint32_t r = 0; r < 2; ++r) finalize(a, r);
}

// EZTrace's MPI_Wait without the receive's completion: rebuilt from the only send.
TEST(Otf2Import, ReceiveWithoutCompletionRebuiltFromItsOnlySend) {
  Archive a(2, "unrecorded");
  receive_without_completion(a, 30);
  ImportSummary summary;
  const auto events = events_by_rank(imported(a.finish(), &summary));
  EXPECT_EQ(events.at(1)[1], "1 20 21 irecv 0 4 1000 0 0 exact");
  EXPECT_EQ(events.at(1)[3], "1 22 40 wait 0");
  ASSERT_EQ(summary.tally.repairs.size(), 1u);
  EXPECT_EQ(summary.tally.repairs.begin()->second, 1u);
}

// EZTrace's C MPI_Waitall records no completion: a halo exchange in a loop
// reuses its requests. The Waitall completes every open request, in the
// order they began; each receive takes the earliest unmatched send to its rank.
void halo_rounds(Archive& a) {
  for (uint32_t r = 0; r < 2; ++r) init(a, r);
  for (uint64_t round = 0; round < 2; ++round) {
    const uint64_t t = 20 + 40 * round;
    for (uint32_t r = 0; r < 2; ++r) {
      const uint32_t peer = 1 - r;
      a.call(r, "MPI_Irecv", t, t + 1, [&](auto* w) { OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, t, 4); });
      a.call(r, "MPI_Isend", t + 2, t + 3,
             [&](auto* w) { OTF2_EvtWriter_MpiIsend(w, nullptr, t + 2, peer, 0, 9, 100 + 10 * round, 8); });
      a.call(r, "MPI_Waitall", t + 4, t + 20);
    }
  }
  for (uint32_t r = 0; r < 2; ++r) finalize(a, r);
}

TEST(Otf2Import, EztraceWaitallWithoutCompletionsCompletesEveryOpenRequest) {
  Archive a(2, "halo-ez");
  a.eztrace = true;
  halo_rounds(a);
  ImportSummary summary;
  const auto events = events_by_rank(imported(a.finish(), &summary));
  // Rank 1: each round an irecv of rank 0's message (its size that round), an isend, and the Waitall's two waits
  // in the order the requests began; the names come free for the next round (last freed, first reused).
  const std::vector<std::string> expected = {"1 10 20 compute",
                                             "1 20 21 irecv 0 100 9 0 0 exact",
                                             "1 21 22 compute",
                                             "1 22 23 isend 0 100 9 1 0",
                                             "1 23 24 compute",
                                             "1 24 40 wait 0",
                                             "1 40 40 wait 1",
                                             "1 40 60 compute",
                                             "1 60 61 irecv 0 110 9 1 0 exact",
                                             "1 61 62 compute",
                                             "1 62 63 isend 0 110 9 0 0",
                                             "1 63 64 compute",
                                             "1 64 80 wait 1",
                                             "1 80 80 wait 0",
                                             "1 80 110 compute"};
  EXPECT_EQ(events.at(1), expected);
  const auto repairs = [&](const std::string& what) {
    const auto found = summary.tally.repairs.find(what);
    return found == summary.tally.repairs.end() ? 0 : found->second;
  };
  // Two Waitalls on each of two ranks; every receive from a send already read or from the next one.
  EXPECT_EQ(repairs("completions missing under MPI_Waitall (the source records none): every open request "
                    "completed by it"),
            4u);
  EXPECT_EQ(repairs("receive completion missing: sender, tag, size and communicator from the earliest unmatched "
                    "send to the rank") +
                repairs("receive completion missing under MPI_Wait: sender, tag, size and communicator from its "
                        "only possible send"),
            4u);
}

// The same rounds completed by MPI_Testall polls that record nothing: each
// request completes where its handle is reused, the last round's at
// MPI_Finalize.
TEST(Otf2Import, EztraceRequestsReusedAfterUnrecordedTestsCompleteWhereReused) {
  Archive a(2, "halo-test");
  a.eztrace = true;
  for (uint32_t r = 0; r < 2; ++r) init(a, r);
  for (uint64_t round = 0; round < 2; ++round) {
    const uint64_t t = 20 + 40 * round;
    for (uint32_t r = 0; r < 2; ++r) {
      a.call(r, "MPI_Irecv", t, t + 1, [&](auto* w) { OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, t, 4); });
      a.call(r, "MPI_Isend", t + 2, t + 3,
             [&](auto* w) { OTF2_EvtWriter_MpiIsend(w, nullptr, t + 2, 1 - r, 0, 9, 100, 8); });
      a.call(r, "MPI_Testall", t + 4, t + 5);
      a.call(r, "MPI_Testall", t + 6, t + 20);
    }
  }
  for (uint32_t r = 0; r < 2; ++r) finalize(a, r);
  ImportSummary summary;
  const auto events = events_by_rank(imported(a.finish(), &summary));
  // Round 2's irecv (new name 2) starts as its call begins and the wait for round 1's (name 0) takes the call;
  // then its isend (name 0, freed by then) and the wait for round 1's isend (1); at MPI_Finalize, waits for round
  // 2's two. The Testall polls, which move nothing, are computation.
  const std::vector<std::string> expected = {"1 10 20 compute",
                                             "1 20 21 irecv 0 100 9 0 0 exact",
                                             "1 21 22 compute",
                                             "1 22 23 isend 0 100 9 1 0",
                                             "1 23 60 compute",
                                             "1 60 60 irecv 0 100 9 2 0 exact",
                                             "1 60 61 wait 0",
                                             "1 61 62 compute",
                                             "1 62 62 isend 0 100 9 0 0",
                                             "1 62 63 wait 1",
                                             "1 63 110 compute",
                                             "1 110 110 wait 2",
                                             "1 110 110 wait 0"};
  EXPECT_EQ(events.at(1), expected);
  EXPECT_EQ(summary.tally.repairs.at("request started again while open (the source records no completions under "
                                     "MPI_Waitany, MPI_Testall, ...): completed where it is reused"),
            4u);
  EXPECT_EQ(summary.tally.repairs.at(
                "completions missing under MPI_Finalize (the source records none): every open request completed by it"),
            2u);
}

// Without EZTrace's mark the same archive is refused as before: a request
// opened again while open is a fault of the source, not a gap to mend.
TEST(Otf2ImportHostile, RequestReusedWhileOpenWithoutEztrace) {
  Archive a(2, "halo");
  halo_rounds(a);
  EXPECT_EQ(refused_field(a.finish()), "request");
}

// A receive filed on the world whose send was on a sub-communicator.
TEST(Otf2Import, ReceiveOnTheWrongCommunicatorRefiled) {
  Archive a(3, "refile");
  for (uint32_t r = 0; r < 3; ++r) init(a, r);
  a.call(2, "MPI_Send", 20, 25, [](auto* w) { OTF2_EvtWriter_MpiSend(w, nullptr, 21, 0, 1, 3, 64); });
  a.call(1, "MPI_Recv", 22, 30, [](auto* w) { OTF2_EvtWriter_MpiRecv(w, nullptr, 29, 2, 0, 3, 64); });
  for (uint32_t r = 0; r < 3; ++r) finalize(a, r);
  ImportSummary summary;
  const auto events = events_by_rank(imported(a.finish(), &summary));
  EXPECT_EQ(events.at(1)[1], "1 22 30 recv 2 64 3 1 exact");
  EXPECT_EQ(summary.tally.repairs.size(), 1u);
}

// EZTrace's ranks keep clocks of their own (rank 0 of NPB LU ran 21 ms
// behind): here rank 1 records the receive at 29, before rank 0's send began
// at 50. Rank 1's clock is shifted by the least that mends it (50 - 29 = 21),
// which the reply (sent at 60 + 21, received at 99) still allows.
TEST(Otf2Import, SkewedClocksShiftedSoEveryReceiveFollowsItsSend) {
  Archive a(2, "skew");
  for (uint32_t r = 0; r < 2; ++r) init(a, r);
  a.call(1, "MPI_Recv", 20, 30, [](auto* w) { OTF2_EvtWriter_MpiRecv(w, nullptr, 29, 0, 0, 5, 100); });
  a.call(0, "MPI_Send", 50, 55, [](auto* w) { OTF2_EvtWriter_MpiSend(w, nullptr, 51, 1, 0, 5, 100); });
  a.call(1, "MPI_Send", 60, 65, [](auto* w) { OTF2_EvtWriter_MpiSend(w, nullptr, 61, 0, 0, 6, 8); });
  a.call(0, "MPI_Recv", 70, 100, [](auto* w) { OTF2_EvtWriter_MpiRecv(w, nullptr, 99, 1, 0, 6, 8); });
  for (uint32_t r = 0; r < 2; ++r) finalize(a, r);
  ImportSummary summary;
  const std::string out = imported(a.finish(), &summary);
  const std::map<uint32_t, std::vector<std::string>> expected = {
      {0,
       {"0 10 50 compute", "0 50 55 send 1 100 5 0", "0 55 70 compute", "0 70 100 recv 1 8 6 0 exact",
        "0 100 110 compute"}},
      {1,
       {"1 31 41 compute", "1 41 51 recv 0 100 5 0 exact", "1 51 81 compute", "1 81 86 send 0 8 6 0",
        "1 86 131 compute"}},
  };
  EXPECT_EQ(events_by_rank(out), expected);
  ASSERT_EQ(summary.tally.repairs.size(), 1u);
  EXPECT_NE(summary.tally.repairs.begin()->first.find("1 by 21 ns"), std::string::npos)
      << summary.tally.repairs.begin()->first;
  EXPECT_EQ(summary.tally.repairs.begin()->second, 1u);  // one rank shifted
  // The shifted events in the format's order, as if read with mended clocks.
  const std::vector<std::string> in_order = {
      "0 10 50 compute",  "1 31 41 compute",  "1 41 51 recv 0 100 5 0 exact", "0 50 55 send 1 100 5 0",
      "1 51 81 compute",  "0 55 70 compute",  "0 70 100 recv 1 8 6 0 exact",  "1 81 86 send 0 8 6 0",
      "1 86 131 compute", "0 100 110 compute"};
  EXPECT_EQ(events_in_order(out), in_order);
}

// A receive rebuilt from a send read after it (EZTrace's C MPI_Wait records
// no completion, and rank 1's clock is 15 ns behind): which send it took
// depended on the order the ranks were read in, so the archive is read again
// with rank 1's clock mended rather than its events shifted as they were.
TEST(Otf2Import, SkewedClocksAndAReceiveRebuiltReadAgain) {
  Archive a(2, "skewrebuilt");
  a.eztrace = true;
  receive_without_completion(a, 55);
  ImportSummary summary;
  const std::string out = imported(a.finish(), &summary);
  const std::map<uint32_t, std::vector<std::string>> expected = {
      {0, {"0 10 55 compute", "0 55 60 send 1 4 1000 0", "0 60 110 compute"}},
      {1,
       {"1 25 35 compute", "1 35 36 irecv 0 4 1000 0 0 exact", "1 36 37 compute", "1 37 55 wait 0",
        "1 55 125 compute"}},
  };
  EXPECT_EQ(events_by_rank(out), expected);
  std::vector<std::string> repairs;
  for (const auto& [what, count] : summary.tally.repairs) repairs.push_back(what + " x" + std::to_string(count));
  ASSERT_EQ(repairs.size(), 2u);
  EXPECT_NE(repairs[0].find("1 by 15 ns"), std::string::npos) << repairs[0];
  EXPECT_NE(repairs[1].find("from its only possible send x1"), std::string::npos) << repairs[1];
}

// -- Hostile archives: each refused, naming the field at fault. --

// Each rank receives before the other's send began: shifting one rank's
// clock later breaks the other message, so no constant shift mends them.
TEST(Otf2ImportHostile, ClocksThatNoShiftMends) {
  Archive a(2, "skewcycle");
  a.call(0, "MPI_Recv", 10, 40, [](auto* w) { OTF2_EvtWriter_MpiRecv(w, nullptr, 39, 1, 0, 6, 8); });
  a.call(1, "MPI_Recv", 20, 30, [](auto* w) { OTF2_EvtWriter_MpiRecv(w, nullptr, 29, 0, 0, 5, 100); });
  a.call(0, "MPI_Send", 50, 55, [](auto* w) { OTF2_EvtWriter_MpiSend(w, nullptr, 51, 1, 0, 5, 100); });
  a.call(1, "MPI_Send", 60, 65, [](auto* w) { OTF2_EvtWriter_MpiSend(w, nullptr, 61, 0, 0, 6, 8); });
  EXPECT_EQ(refused_field(a.finish()), "time");
}

// The skewed archive above with a receive of another size than its send:
// refused once the shifted events are checked, naming the event of the
// output where the mismatch shows.
TEST(Otf2ImportHostile, SkewedClocksAndSizesThatDisagree) {
  Archive a(2, "skewsize");
  for (uint32_t r = 0; r < 2; ++r) init(a, r);
  a.call(1, "MPI_Recv", 20, 30, [](auto* w) { OTF2_EvtWriter_MpiRecv(w, nullptr, 29, 0, 0, 5, 100); });
  a.call(0, "MPI_Send", 50, 55, [](auto* w) { OTF2_EvtWriter_MpiSend(w, nullptr, 51, 1, 0, 5, 90); });
  for (uint32_t r = 0; r < 2; ++r) finalize(a, r);
  const std::string message = refusal(a.finish());
  EXPECT_NE(message.find("do not hold together (in the output's event 4"), std::string::npos) << message;
  EXPECT_NE(message.find("90"), std::string::npos) << message;
}

TEST(Otf2ImportHostile, NoSuchFile) {
  EXPECT_EQ(refused_field((fs::temp_directory_path() / "ibsec-otf2-missing.otf2").string()), "source");
}

TEST(Otf2ImportHostile, NotAnOtf2Name) {
  const auto path = fs::temp_directory_path() / "ibsec-otf2-not-anchor.trace";
  std::ofstream(path) << "x";
  EXPECT_EQ(refused_field(path.string()), "source");
  fs::remove(path);
}

TEST(Otf2ImportHostile, GarbageAnchor) {
  const auto dir = fs::temp_directory_path() / ("ibsec-otf2-garbage-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "x.otf2") << "this is not an anchor file\n";
  EXPECT_EQ(refused_field((dir / "x.otf2").string()), "anchor");
  fs::remove_all(dir);
}

TEST(Otf2ImportHostile, EmptyAnchor) {
  const auto dir = fs::temp_directory_path() / ("ibsec-otf2-empty-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "x.otf2").flush();
  EXPECT_EQ(refused_field((dir / "x.otf2").string()), "anchor");
  fs::remove_all(dir);
}

TEST(Otf2ImportHostile, CallNeverLeft) {
  Archive a(1, "open");
  init(a, 0);
  OTF2_EvtWriter_Enter(a.at(0), nullptr, 20, region("MPI_Send"));
  EXPECT_EQ(refused_field(a.finish()), "leave");
}

TEST(Otf2ImportHostile, SendNeverReceived) {
  Archive a(2, "unreceived");
  a.call(0, "MPI_Send", 20, 30, [](auto* w) { OTF2_EvtWriter_MpiSend(w, nullptr, 21, 1, 0, 5, 100); });
  EXPECT_EQ(refused_field(a.finish()), "receiver");
}

TEST(Otf2ImportHostile, ReceiveMatchingNoSend) {
  Archive a(2, "nosend");
  a.call(1, "MPI_Recv", 20, 30, [](auto* w) { OTF2_EvtWriter_MpiRecv(w, nullptr, 21, 0, 0, 5, 100); });
  EXPECT_EQ(refused_field(a.finish()), "sender");
}

TEST(Otf2ImportHostile, ReceiveRequestNeverCompleted) {
  Archive a(2, "opened");
  a.call(1, "MPI_Irecv", 20, 30, [](auto* w) { OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, 21, 5); });
  EXPECT_EQ(refused_field(a.finish()), "request");
}

TEST(Otf2ImportHostile, CompletionOfAnUnknownRequest) {
  Archive a(1, "unknownreq");
  a.call(0, "MPI_Wait", 20, 30, [](auto* w) { OTF2_EvtWriter_MpiIsendComplete(w, nullptr, 21, 77); });
  EXPECT_EQ(refused_field(a.finish()), "request");
}

TEST(Otf2ImportHostile, CollectiveOpsDisagree) {
  Archive a(2, "opsdiffer");
  a.collective(0, "MPI_Bcast", 20, 30, OTF2_COLLECTIVE_OP_BCAST, 0, 0, 8, 8);
  a.collective(1, "MPI_Bcast", 20, 30, OTF2_COLLECTIVE_OP_ALLREDUCE, 0, OTF2_COLLECTIVE_ROOT_NONE, 8, 8);
  EXPECT_EQ(refused_field(a.finish()), "collectiveOp");
}

TEST(Otf2ImportHostile, CollectiveRootsDisagree) {
  Archive a(2, "rootsdiffer");
  a.collective(0, "MPI_Bcast", 20, 30, OTF2_COLLECTIVE_OP_BCAST, 0, 0, 8, 8);
  a.collective(1, "MPI_Bcast", 20, 30, OTF2_COLLECTIVE_OP_BCAST, 0, 1, 8, 8);
  EXPECT_EQ(refused_field(a.finish()), "root");
}

TEST(Otf2ImportHostile, RootedCollectiveWithoutRoot) {
  Archive a(1, "noroot");
  a.collective(0, "MPI_Bcast", 20, 30, OTF2_COLLECTIVE_OP_BCAST, 0, OTF2_COLLECTIVE_ROOT_NONE, 8, 8);
  EXPECT_EQ(refused_field(a.finish()), "root");
}

TEST(Otf2ImportHostile, CollectiveMissingAMember) {
  Archive a(2, "missingmember");  // rank 1 has no events at all
  a.collective(0, "MPI_Bcast", 20, 30, OTF2_COLLECTIVE_OP_BCAST, 0, 0, 8, 8);
  EXPECT_EQ(refused_field(a.finish()), "communicator");
}

TEST(Otf2ImportHostile, MessageLargerThanTheFormatHolds) {
  Archive a(2, "huge");
  a.call(0, "MPI_Send", 20, 30, [](auto* w) { OTF2_EvtWriter_MpiSend(w, nullptr, 21, 1, 0, 5, 5'000'000'000); });
  EXPECT_EQ(refused_field(a.finish()), "bytes");
}

TEST(Otf2ImportHostile, TagBeyondMpiTags) {
  Archive a(2, "tag");
  a.call(0, "MPI_Send", 20, 30, [](auto* w) { OTF2_EvtWriter_MpiSend(w, nullptr, 21, 1, 0, 0x90000000u, 4); });
  EXPECT_EQ(refused_field(a.finish()), "msgTag");
}

TEST(Otf2ImportHostile, ReceiverOutsideItsCommunicator) {
  Archive a(2, "receiver");
  a.call(0, "MPI_Send", 20, 30, [](auto* w) { OTF2_EvtWriter_MpiSend(w, nullptr, 21, 9, 0, 5, 4); });
  EXPECT_EQ(refused_field(a.finish()), "receiver");
}

TEST(Otf2ImportHostile, UndefinedCommunicator) {
  Archive a(2, "comm");
  a.call(0, "MPI_Send", 20, 30, [](auto* w) { OTF2_EvtWriter_MpiSend(w, nullptr, 21, 1, 42, 5, 4); });
  EXPECT_EQ(refused_field(a.finish()), "communicator");
}

TEST(Otf2ImportHostile, SenderNotMemberOfTheCommunicator) {
  Archive a(3, "member");  // communicator 1 is ranks {1, 2}
  a.call(0, "MPI_Send", 20, 30, [](auto* w) { OTF2_EvtWriter_MpiSend(w, nullptr, 21, 1, 1, 5, 4); });
  EXPECT_EQ(refused_field(a.finish()), "communicator");
}

TEST(Otf2ImportHostile, UndefinedRegion) {
  Archive a(1, "region");
  OTF2_EvtWriter_Enter(a.at(0), nullptr, 20, 999);
  EXPECT_EQ(refused_field(a.finish()), "region");
}

// A region defined with a name string the archive never defines: refused
// before any event is read, naming the region and the string.
TEST(Otf2ImportHostile, RegionNamedByAnUndefinedString) {
  Archive a(1, "regionname");
  a.region_named_by = 4242;
  a.call(0, "MPI_Comm_rank", 20, 30);
  const std::string anchor = a.finish();
  EXPECT_EQ(refused_field(anchor), "region");
  EXPECT_NE(refusal(anchor).find("region " + std::to_string(kRegions.size()) + " names string 4242"), std::string::npos)
      << refusal(anchor);
}

// Definitions of another run: its MPI_COMM_WORLD has three ranks, but the
// archive defines only two locations. Refused naming the rank without one.
TEST(Otf2ImportHostile, WorldLargerThanTheDefinedLocations) {
  Archive a(2, "otherrun");
  a.world_locations = std::vector<uint64_t>{0, 1, 2};
  a.call(0, "MPI_Comm_rank", 20, 30);
  const std::string anchor = a.finish();
  EXPECT_EQ(refused_field(anchor), "location");
  EXPECT_NE(refusal(anchor).find("rank 2 is location 2, which is not defined"), std::string::npos) << refusal(anchor);
}

// One location listed as two ranks of MPI_COMM_WORLD: which rank its events
// are is unknowable, so refused naming the location.
TEST(Otf2ImportHostile, OneLocationClaimedByTwoRanks) {
  Archive a(2, "tworanks");
  a.world_locations = std::vector<uint64_t>{1, 1};
  a.call(0, "MPI_Comm_rank", 20, 30);
  const std::string anchor = a.finish();
  EXPECT_EQ(refused_field(anchor), "location");
  EXPECT_NE(refusal(anchor).find("location 1 is more than one rank"), std::string::npos) << refusal(anchor);
}

// A location outside MPI_COMM_WORLD (a thread, a device) is not read, but
// its events are not dropped silently: a note counts them.
TEST(Otf2Import, EventsOfALocationThatIsNoRankNoted) {
  Archive a(3, "norank");
  a.world_locations = std::vector<uint64_t>{0, 1};
  a.call(0, "MPI_Comm_rank", 20, 30);
  a.call(2, "MPI_Send", 20, 30, [](auto* w) { OTF2_EvtWriter_MpiSend(w, nullptr, 21, 1, 0, 5, 4); });
  ImportSummary summary;
  const std::string out = imported(a.finish(), &summary);
  EXPECT_EQ(summary.processes, 2u);
  EXPECT_EQ(summary.tally.messages, 0u);
  TraceReader reader(out);
  const auto& notes = reader.header().notes;
  EXPECT_NE(std::find(notes.begin(), notes.end(),
                      "import: not read: 3 events of 1 locations that are no MPI rank (threads, devices)"),
            notes.end());
}

TEST(Otf2ImportHostile, LeaveWithoutEnter) {
  Archive a(1, "leave");
  OTF2_EvtWriter_Leave(a.at(0), nullptr, 20, region("MPI_Send"));
  EXPECT_EQ(refused_field(a.finish()), "region");
}

TEST(Otf2ImportHostile, SendOutsideAnyCall) {
  Archive a(2, "outside");
  OTF2_EvtWriter_MpiSend(a.at(0), nullptr, 21, 1, 0, 5, 4);
  EXPECT_EQ(refused_field(a.finish()), "region");
}

TEST(Otf2ImportHostile, NoWorldGroup) {
  Archive a(1, "noworld");
  a.call(0, "MPI_Comm_rank", 20, 30);
  EXPECT_EQ(refused_field(a.finish(1'000'000'000, false)), "group");
}

TEST(Otf2ImportHostile, ZeroTimerResolution) {
  Archive a(1, "clock");
  a.call(0, "MPI_Comm_rank", 20, 30);
  EXPECT_EQ(refused_field(a.finish(0)), "timerResolution");
}

TEST(Otf2ImportHostile, SameRequestOpenedTwice) {
  Archive a(2, "reqtwice");
  a.call(1, "MPI_Irecv", 20, 21, [](auto* w) { OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, 20, 4); });
  a.call(1, "MPI_Irecv", 22, 23, [](auto* w) { OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, 22, 4); });
  EXPECT_EQ(refused_field(a.finish()), "request");
}

TEST(Otf2ImportHostile, TruncatedEventFile) {
  Archive a(2, "truncated");
  for (uint32_t i = 0; i < 2000; ++i) {
    a.call(0, "MPI_Send", 20 + 10 * i, 25 + 10 * i,
           [&](auto* w) { OTF2_EvtWriter_MpiSend(w, nullptr, 21 + 10 * i, 1, 0, 5, 4); });
    a.call(1, "MPI_Recv", 20 + 10 * i, 26 + 10 * i,
           [&](auto* w) { OTF2_EvtWriter_MpiRecv(w, nullptr, 25 + 10 * i, 0, 0, 5, 4); });
  }
  const std::string anchor = a.finish();
  const auto events = a.dir() / "trace" / "0.evt";
  fs::resize_file(events, fs::file_size(events) / 2);
  EXPECT_NE(refused_field(anchor), "");
}

TEST(Otf2ImportHostile, DefinitionsFileMissing) {
  Archive a(1, "nodefs");
  a.call(0, "MPI_Comm_rank", 20, 30);
  const std::string anchor = a.finish();
  fs::remove(a.dir() / "trace.def");
  EXPECT_NE(refused_field(anchor), "");
}

TEST(Otf2ImportHostile, OutputIsTheSource) {
  Archive a(1, "samefile");
  a.call(0, "MPI_Comm_rank", 20, 30);
  const std::string anchor = a.finish();
  EXPECT_THROW(import_trace(anchor, anchor), std::exception);
}

// Any file of the archive, not only its anchor: an output over a location's
// event file would destroy the archive. Refused before anything is read.
TEST(Otf2ImportHostile, OutputIsAnEventFileOfTheArchive) {
  Archive a(2, "sameevt");
  for (uint32_t r = 0; r < 2; ++r) a.call(r, "MPI_Comm_rank", 20, 30);
  const std::string anchor = a.finish();
  const fs::path events = a.dir() / "trace" / "1.evt";
  ASSERT_TRUE(fs::is_regular_file(events));
  const auto before = fs::file_size(events);
  testing::config_refusal([&] { import_trace(anchor, events.string()); }, "out");
  EXPECT_EQ(fs::file_size(events), before);
}

// A rank without any event imports (it did nothing), and is still a process.
TEST(Otf2Import, RankWithoutEvents) {
  Archive a(2, "idle");
  a.call(0, "MPI_Comm_rank", 20, 30);
  ImportSummary summary;
  const std::string out = imported(a.finish(), &summary);
  EXPECT_EQ(summary.processes, 2u);
  EXPECT_EQ(summary.events, 0u);
}

}  // namespace
}  // namespace ibsec::traces

#else

TEST(Otf2Import, NotBuilt) {
  GTEST_SKIP() << "libotf2 was not found when the engine was built (Debian: libotf2-trace-dev)";
}

#endif
