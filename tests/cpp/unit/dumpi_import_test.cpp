// `trace import` of DUMPI traces (traces/import/dumpi_import.*,
// docs/importing.md): small runs written here byte by byte as sst-dumpi
// lays them out (big-endian; a .meta file and one file per rank), imported
// and compared event by event; and hostile ones, each refused naming the
// file and the byte offset or field at fault.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/errors.h"
#include "support/config_refusal.h"
#include "support/dumpi_writer.h"
#include "support/import_support.h"
#include "traces/import/dumpi_import.h"
#include "traces/import/trace_import.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace ibsec::traces {
namespace {

namespace fs = std::filesystem;

using namespace testing::dumpi;  // NOLINT: the writer's ids and argument helpers

using testing::events_by_rank;
using testing::imported;

// The error of a refused import ("" if it was imported) and its field.
struct Refusal {
  std::string field;
  std::string message;
};
Refusal refusal(const std::string& meta) {
  try {
    imported(meta);
  } catch (const TraceError& e) {
    return {e.field(), e.what()};
  }
  return {};
}

bool has_note(const std::string& trace, const std::string& part) {
  TraceReader reader(trace);
  const auto& notes = reader.header().notes;
  return std::any_of(notes.begin(), notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

TEST(DumpiImport, SendAndReceiveBetweenTwoRanks) {
  DumpiRunWriter run(2, "sendrecv");
  run.init(0);
  run.init(1);
  run.call(0, kSend, 20, 30, p2p(25, 1, 5));
  run.call(1, kRecv, 15, 35, recv(100, 0, 5, {100, 0, 5}));
  run.call(0, kCommRank, 40, 41, [](Bytes& b) {
    b.u16(kWorld);
    b.i32(0);
  });
  run.call(0, kPut, 50, 51, [](Bytes& b) {
    b.i32(1);
    b.u16(kInt);
    b.i32(1);
    b.i32(0);
    b.i32(1);
    b.u16(kInt);
    b.u16(1);
  });
  run.finalize(0);
  run.finalize(1);
  ImportSummary summary;
  const std::string out = imported(run.finish(), &summary);
  EXPECT_EQ(summary.format, "DUMPI");
  // Compute gaps carry the CPU time between the calls (here half the wall time).
  const std::map<uint32_t, std::vector<std::string>> expected = {
      {0, {"0 10 20 compute 5", "0 20 30 send 1 100 5 0", "0 30 110 compute 40"}},
      {1, {"1 10 15 compute 2", "1 15 35 recv 0 100 5 0 exact", "1 35 110 compute 38"}},
  };
  EXPECT_EQ(events_by_rank(out), expected);
  EXPECT_EQ(summary.tally.not_imported, (std::map<std::string, uint64_t>{{"MPI_Put", 1}}));
  EXPECT_EQ(summary.tally.messages, 1u);
  TraceReader reader(out);
  EXPECT_EQ(reader.header().cpu_clock, CpuClock::kProcess);
  EXPECT_TRUE(has_note(out, "sha256"));
}

TEST(DumpiImport, IsendIrecvAndWaitall) {
  DumpiRunWriter run(2, "waitall");
  run.init(0);
  run.init(1);
  run.call(0, kIsend, 20, 21, with_request(p2p(50, 1, 6), 7));
  run.call(0, kIsend, 22, 23, with_request(p2p(2, 1, 7), 8));
  run.call(0, kWaitall, 30, 40, waitall({7, 8}, {}));
  run.call(1, kIrecv, 12, 13, with_request(p2p(100, kAny, 6), 3));
  run.call(1, kIrecv, 14, 15, with_request(p2p(2, 0, 7), 4));
  run.call(1, kWaitall, 16, 45, waitall({3, 4}, {{200, 0, 6}, {8, 0, 7}}));
  run.finalize(0);
  run.finalize(1);
  const std::string out = imported(run.finish());
  const std::map<uint32_t, std::vector<std::string>> expected = {
      {0,
       {"0 10 20 compute 5", "0 20 21 isend 1 200 6 0 0", "0 21 22 compute 1", "0 22 23 isend 1 8 7 1 0",
        "0 23 30 compute 4", "0 30 40 wait 0", "0 40 40 wait 1", "0 40 110 compute 35"}},
      {1,
       {"1 10 12 compute 1", "1 12 13 irecv 0 200 6 0 0 any", "1 13 14 compute 1", "1 14 15 irecv 0 8 7 1 0 exact",
        "1 15 16 compute 1", "1 16 45 wait 0", "1 45 45 wait 1", "1 45 110 compute 33"}},
  };
  EXPECT_EQ(events_by_rank(out), expected);
}

// MPI_STATUS_IGNORE: DUMPI records no status, so a receive from a known
// source takes its size from its send, not from its larger buffer, whether
// the send is read before or after it.
TEST(DumpiImport, ReceiveWithoutStatusSizedByItsSend) {
  DumpiRunWriter run(2, "nostatus-size");
  run.init(0);
  run.init(1);
  const auto ignored = [](int32_t count, int32_t source, int32_t tag) {
    return [=](Bytes& b) {
      p2p(count, source, tag)(b);
      b.u32(0);
    };
  };
  run.call(0, kSend, 20, 30, p2p(25, 1, 5));
  run.call(1, kRecv, 21, 35, ignored(1000, 0, 5));  // read after its send
  run.call(1, kRecv, 40, 60, ignored(1000, 0, 6));  // read before its send
  run.call(0, kSend, 50, 55, p2p(3, 1, 6));
  run.finalize(0);
  run.finalize(1);
  const std::string out = imported(run.finish());
  const auto events = events_by_rank(out);
  EXPECT_EQ(events.at(1)[1], "1 21 35 recv 0 100 5 0 exact");
  EXPECT_EQ(events.at(1)[3], "1 40 60 recv 0 12 6 0 exact");
  EXPECT_TRUE(has_note(out, "repaired 2: receives completed without a recorded status"));
}

// Two communicators from one split, with each rank's own handle for them:
// members ordered by key, peers and roots written as world ranks.
TEST(DumpiImport, CommSplitRanksMappedToTheWorld) {
  DumpiRunWriter run(4, "split");
  for (uint32_t r = 0; r < 4; ++r) {
    run.init(r);
    const uint16_t handle = r == 3 ? 9 : 4;
    run.call(r, kCommSplit, 11, 12, [r, handle](Bytes& b) {
      b.u16(kWorld);
      b.i32(static_cast<int32_t>(r % 2));
      b.i32(-static_cast<int32_t>(r));
      b.u16(handle);
    });
  }
  // {2, 0}: rank 0 is its member 1 and sends to member 0, world rank 2.
  run.call(0, kSend, 20, 30, p2p(1, 0, 3, 4));
  run.call(2, kRecv, 15, 35, recv(1, 1, 3, {4, 1, 3}, 4));
  // {3, 1}: a broadcast from member 0, world rank 3.
  for (uint32_t r : {1u, 3u}) {
    run.call(r, kBcast, 40, 50, [r](Bytes& b) {
      b.i32(2);
      b.u16(kInt);
      b.i32(0);
      b.u16(r == 3 ? 9 : 4);
    });
  }
  for (uint32_t r = 0; r < 4; ++r) run.finalize(r);
  const std::string out = imported(run.finish());
  TraceReader reader(out);
  EXPECT_EQ(reader.header().comms, (std::map<uint32_t, std::vector<uint32_t>>{{1, {2, 0}}, {2, {3, 1}}}));
  const auto events = events_by_rank(out);
  EXPECT_EQ(events.at(0)[1], "0 20 30 send 2 4 3 1");
  EXPECT_EQ(events.at(2)[1], "2 15 35 recv 0 4 3 1 exact");
  EXPECT_EQ(events.at(1)[1], "1 40 50 bcast 2 3 8");
  EXPECT_EQ(events.at(3)[1], "3 40 50 bcast 2 3 8");
}

// MPI_Comm_create from a group made by MPI_Group_incl: the group's order, and
// MPI_COMM_NULL on the rank left out.
TEST(DumpiImport, CommCreateFromAGroup) {
  DumpiRunWriter run(3, "create");
  for (uint32_t r = 0; r < 3; ++r) {
    run.init(r);
    run.call(r, kCommGroup, 11, 12, [](Bytes& b) {
      b.u16(kWorld);
      b.u16(5);
    });
    run.call(r, kGroupIncl, 13, 14, [](Bytes& b) {
      b.u16(5);
      b.i32(2);
      b.ints({2, 0});
      b.u16(6);
    });
    run.call(r, kCommCreate, 15, 16, [r](Bytes& b) {
      b.u16(kWorld);
      b.u16(6);
      b.u16(r == 1 ? 1 : 7);  // MPI_COMM_NULL where the rank is not in the group
    });
    if (r != 1) run.call(r, kBarrier, 20, 30, [](Bytes& b) { b.u16(7); });
    run.finalize(r);
  }
  const std::string out = imported(run.finish());
  TraceReader reader(out);
  EXPECT_EQ(reader.header().comms, (std::map<uint32_t, std::vector<uint32_t>>{{1, {2, 0}}}));
  EXPECT_EQ(events_by_rank(out).at(2)[1], "2 20 30 barrier 1");
}

// Persistent requests: each start an isend or irecv, completed by
// MPI_Waitsome and MPI_Testsome, freed afterwards.
TEST(DumpiImport, PersistentRequestsStartedAndCompletedBySome) {
  DumpiRunWriter run(2, "persistent");
  run.init(0);
  run.init(1);
  run.call(0, kSendInit, 11, 12, with_request(p2p(2, 1, 1), 5));
  run.call(1, kRecvInit, 11, 12, with_request(p2p(2, 0, 1), 6));
  const auto some = [](int32_t request, const std::vector<Status>& got) {
    return [=](Bytes& b) {
      b.i32(1);
      b.ints({request});
      b.i32(1);
      b.ints({0});
      statuses(b, got);
    };
  };
  for (uint64_t round : {0, 1}) {
    const uint64_t t = 20 + 20 * round;
    run.call(0, kStartall, t, t + 1, [](Bytes& b) {
      b.i32(1);
      b.ints({5});
    });
    run.call(1, kStart, t, t + 1, [](Bytes& b) { b.i32(6); });
    run.call(0, kWaitsome, t + 2, t + 10, some(5, {}));
    run.call(1, kTestsome, t + 2, t + 12, some(6, {{8, 0, 1}}));
  }
  run.call(0, kRequestFree, 70, 71, [](Bytes& b) { b.i32(5); });
  run.call(1, kRequestFree, 70, 71, [](Bytes& b) { b.i32(6); });
  run.finalize(0);
  run.finalize(1);
  ImportSummary summary;
  const std::string out = imported(run.finish(), &summary);
  const auto events = events_by_rank(out);
  EXPECT_EQ(events.at(0)[1], "0 20 21 isend 1 8 1 0 0");
  EXPECT_EQ(events.at(0)[3], "0 22 30 wait 0");
  EXPECT_EQ(events.at(0)[5], "0 40 41 isend 1 8 1 0 0");
  EXPECT_EQ(events.at(1)[1], "1 20 21 irecv 0 8 1 0 0 exact");
  EXPECT_EQ(events.at(1)[3], "1 22 32 wait 0");
  EXPECT_EQ(summary.tally.messages, 2u);
  EXPECT_TRUE(summary.tally.not_imported.empty());
}

// MPI_Cart_create: the first ranks, as many as the grid holds; a reorder is
// counted, since DUMPI does not record one.
TEST(DumpiImport, CartCreateTakesTheFirstRanks) {
  DumpiRunWriter run(3, "cart");
  for (uint32_t r = 0; r < 3; ++r) {
    run.init(r);
    run.call(r, kCartCreate, 11, 12, [r](Bytes& b) {
      b.u16(kWorld);
      b.i32(1);
      b.ints({2});
      b.ints({0});
      b.i32(1);
      b.u16(r == 2 ? 1 : 4);
    });
    if (r != 2) run.call(r, kBarrier, 20, 30, [](Bytes& b) { b.u16(4); });
    run.finalize(r);
  }
  const std::string out = imported(run.finish());
  TraceReader reader(out);
  EXPECT_EQ(reader.header().comms, (std::map<uint32_t, std::vector<uint32_t>>{{1, {0, 1}}}));
  EXPECT_TRUE(has_note(out, "repaired 1: MPI_Cart_create with reorder"));
}

// Collectives with their sizes from the datatype table; alltoallv exactly.
TEST(DumpiImport, CollectivesSizedFromTheDatatypeTable) {
  DumpiRunWriter run(3, "coll");
  const std::vector<std::vector<int32_t>> sendcounts = {{0, 1, 2}, {3, 0, 4}, {5, 6, 0}};
  for (uint32_t r = 0; r < 3; ++r) {
    run.init(r);
    run.call(r, kAllreduce, 20, 30, [](Bytes& b) {
      b.i32(3);
      b.u16(kInt);
      b.u8(3);
      b.u16(kWorld);
    });
    run.call(r, kAlltoallv, 40, 50, [&sendcounts, r](Bytes& b) {
      b.i32(3);
      b.ints(sendcounts[r]);
      b.ints({0, 0, 0});
      b.u16(kInt);
      b.ints({0, 0, 0});
      b.ints({0, 0, 0});
      b.u16(kInt);
      b.u16(kWorld);
    });
    run.finalize(r);
  }
  ImportSummary summary;
  const std::string out = imported(run.finish(), &summary);
  const auto events = events_by_rank(out);
  EXPECT_EQ(events.at(1)[1], "1 20 30 allreduce 0 12");
  EXPECT_EQ(events.at(0)[3], "0 40 50 alltoallv 0 0,4,8");
  EXPECT_EQ(events.at(2)[3], "2 40 50 alltoallv 0 20,24,0");
  EXPECT_EQ(summary.tally.repairs.size(), 0u);
}

TEST(DumpiImport, AnnotationRecordsSkippedAndNoted) {
  DumpiRunWriter run(1, "annotation");
  run.init(0);
  run.annotation(0, 291);
  run.annotation(0, 292);
  run.finalize(0);
  const std::string out = imported(run.finish());
  EXPECT_TRUE(has_note(out, "skipped 2 DUMPI function-entry/exit and annotation records"));
}

TEST(DumpiImport, FolderHoldingTheRun) {
  DumpiRunWriter run(1, "folder");
  run.init(0);
  run.finalize(0);
  run.finish();
  EXPECT_EQ(import_trace(run.dir().string(), (run.dir() / "out.trace").string()).format, "DUMPI");
}

// An output that is one of the run's rank files would destroy the run: refused before anything is read.
TEST(DumpiImportHostile, OutputIsARankFileOfTheRun) {
  DumpiRunWriter run(2, "outrank");
  for (uint32_t r = 0; r < 2; ++r) {
    run.init(r);
    run.finalize(r);
  }
  const std::string meta = run.finish();
  const fs::path rank_file = run.dir() / "dumpi-run-0001.bin";
  const auto before = fs::file_size(rank_file);
  testing::config_refusal([&] { import_trace(meta, rank_file.string()); }, "out");
  EXPECT_EQ(fs::file_size(rank_file), before);
}

TEST(DumpiImport, EveryCommonCallHasALayout) {
  const auto known = dumpi_known_calls();
  for (const char* call : {"MPI_Send",
                           "MPI_Bsend",
                           "MPI_Ssend",
                           "MPI_Rsend",
                           "MPI_Isend",
                           "MPI_Ibsend",
                           "MPI_Issend",
                           "MPI_Irsend",
                           "MPI_Recv",
                           "MPI_Irecv",
                           "MPI_Sendrecv",
                           "MPI_Sendrecv_replace",
                           "MPI_Send_init",
                           "MPI_Recv_init",
                           "MPI_Start",
                           "MPI_Startall",
                           "MPI_Wait",
                           "MPI_Waitall",
                           "MPI_Waitany",
                           "MPI_Waitsome",
                           "MPI_Test",
                           "MPI_Testall",
                           "MPI_Testany",
                           "MPI_Testsome",
                           "MPI_Barrier",
                           "MPI_Bcast",
                           "MPI_Gather",
                           "MPI_Gatherv",
                           "MPI_Scatter",
                           "MPI_Scatterv",
                           "MPI_Allgather",
                           "MPI_Allgatherv",
                           "MPI_Alltoall",
                           "MPI_Alltoallv",
                           "MPI_Alltoallw",
                           "MPI_Reduce",
                           "MPI_Allreduce",
                           "MPI_Reduce_scatter",
                           "MPI_Scan",
                           "MPI_Exscan",
                           "MPI_Comm_dup",
                           "MPI_Comm_split",
                           "MPI_Comm_create",
                           "MPI_Comm_free",
                           "MPI_Comm_group",
                           "MPI_Group_incl",
                           "MPI_Group_excl",
                           "MPI_Init",
                           "MPI_Init_thread",
                           "MPI_Finalize",
                           "MPI_Comm_rank",
                           "MPI_Comm_size",
                           "MPI_Wtime",
                           "MPI_Type_size",
                           "MPI_Type_commit",
                           "MPI_Type_contiguous",
                           "MPI_Type_vector",
                           "MPI_Get_count",
                           "MPI_Iprobe",
                           "MPI_Probe",
                           "MPI_Cancel",
                           "MPI_Request_free",
                           "MPI_Pack",
                           "MPI_Unpack",
                           "MPI_File_write_at_all"}) {
    EXPECT_NE(std::find(known.begin(), known.end(), call), known.end()) << call;
  }
  EXPECT_EQ(known.size(), 291u);  // DUMPI's 290 function ids but MPI_Pcontrol, and its two annotation records
}

// Hostile runs: each refused naming the file and where in it.

TEST(DumpiImportHostile, TruncatedRankFile) {
  DumpiRunWriter run(1, "truncated");
  run.init(0);
  run.finalize(0);
  run.corrupt = [](uint32_t, std::vector<uint8_t>& f) { f.resize(f.size() / 2); };
  const Refusal r = refusal(run.finish());
  EXPECT_EQ(r.field, "index");
  EXPECT_NE(r.message.find("dumpi-run-0000.bin"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("truncated"), std::string::npos) << r.message;
}

TEST(DumpiImportHostile, BadMagic) {
  DumpiRunWriter run(1, "magic");
  run.init(0);
  run.corrupt = [](uint32_t, std::vector<uint8_t>& f) { f[3] = 'X'; };
  const Refusal r = refusal(run.finish());
  EXPECT_EQ(r.field, "magic");
  EXPECT_NE(r.message.find("byte offset 0"), std::string::npos) << r.message;
}

TEST(DumpiImportHostile, FunctionIdWithoutALayout) {
  DumpiRunWriter run(1, "unknown");
  run.init(0);
  run.call(0, kPcontrol, 20, 21);
  run.finalize(0);
  const Refusal r = refusal(run.finish());
  EXPECT_EQ(r.field, "function");
  EXPECT_NE(r.message.find("MPI_Pcontrol"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("dumpi-run-0000.bin"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("byte offset 49"), std::string::npos) << r.message;  // 8 magic, 8 biases, Init's 33
}

TEST(DumpiImportHostile, FunctionIdBeyondDumpi) {
  DumpiRunWriter run(1, "beyond");
  run.call(0, 4000, 0, 1);
  EXPECT_EQ(refusal(run.finish()).field, "function");
}

TEST(DumpiImportHostile, IndexOffsetOutsideTheFile) {
  DumpiRunWriter run(1, "index");
  run.init(0);
  run.corrupt = [](uint32_t, std::vector<uint8_t>& f) {
    f[f.size() - 4 * 8 + 3] = 0x7f;  // the header offset, far beyond the end
  };
  EXPECT_EQ(refusal(run.finish()).field, "header offset");
}

TEST(DumpiImportHostile, IndexPuttingTheStreamAfterTheHeader) {
  DumpiRunWriter run(1, "order");
  run.init(0);
  run.corrupt = [](uint32_t, std::vector<uint8_t>& f) {
    std::copy(f.end() - 4 * 8, f.end() - 3 * 8, f.end() - 3 * 8);  // the stream's offset := the header's
  };
  EXPECT_EQ(refusal(run.finish()).field, "stream offset");
}

TEST(DumpiImportHostile, ArrayLengthBeyondTheFile) {
  DumpiRunWriter run(1, "length");
  run.init(0);
  run.call(0, kWaitall, 20, 30, [](Bytes& b) {
    b.i32(1);
    b.u32(0x00ffffff);  // requests: 16 million of them
  });
  const Refusal r = refusal(run.finish());
  EXPECT_EQ(r.field, "requests");
  EXPECT_NE(r.message.find("byte offset"), std::string::npos) << r.message;
}

TEST(DumpiImportHostile, RecordCutShortByTheHeader) {
  DumpiRunWriter run(1, "short");
  run.init(0);
  run.call(0, kSend, 20, 30, [](Bytes& b) { b.i32(1); });  // the rest of its arguments missing
  EXPECT_EQ(refusal(run.finish()).field, "dest");  // its datatype read from the end label, its dest from the header
}

TEST(DumpiImportHostile, CallsThatOverlap) {
  DumpiRunWriter run(1, "overlap");
  run.init(0);
  run.call(0, kCommRank, 20, 30, [](Bytes& b) {
    b.u16(kWorld);
    b.i32(0);
  });
  run.call(0, kCommRank, 25, 26, [](Bytes& b) {
    b.u16(kWorld);
    b.i32(0);
  });
  const Refusal r = refusal(run.finish());
  EXPECT_EQ(r.field, "wall time");
  EXPECT_NE(r.message.find("begins 5 ns before the rank's previous call ended"), std::string::npos) << r.message;
}

// Found only by the checks every trace passes: said of the source.
TEST(DumpiImportHostile, SendAndReceiveOfDifferentSizes) {
  DumpiRunWriter run(2, "sizes");
  run.init(0);
  run.init(1);
  run.call(0, kSend, 20, 30, p2p(25, 1, 5));
  run.call(1, kRecv, 15, 35, recv(100, 0, 5, {60, 0, 5}));
  const Refusal r = refusal(run.finish());
  EXPECT_EQ(r.field, "bytes");
  EXPECT_NE(r.message.find("dumpi-run.meta"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("do not hold together"), std::string::npos) << r.message;
}

TEST(DumpiImportHostile, MetaNamingAMissingRankFile) {
  DumpiRunWriter run(2, "missing");
  run.init(0);
  run.init(1);
  const std::string meta = run.finish();
  fs::remove(run.dir() / DumpiRunWriter::rank_name(1));
  const Refusal r = refusal(meta);
  EXPECT_EQ(r.field, "numprocs");
  EXPECT_NE(r.message.find("dumpi-run-0001.bin"), std::string::npos) << r.message;
}

TEST(DumpiImportHostile, MoreRankFilesThanTheMetaSays) {
  DumpiRunWriter run(2, "extra");
  run.init(0);
  run.init(1);
  run.meta_ranks = 1;
  const Refusal r = refusal(run.finish());
  EXPECT_EQ(r.field, "numprocs");
  EXPECT_NE(r.message.find("dumpi-run-0001.bin"), std::string::npos) << r.message;
}

TEST(DumpiImportHostile, MetaWithoutNumprocs) {
  DumpiRunWriter run(1, "nometa");
  const std::string meta = run.finish();
  std::ofstream(meta) << "hostname=x\nfileprefix=dumpi-run\n";
  EXPECT_EQ(refusal(meta).field, "numprocs");
}

TEST(DumpiImportHostile, ReceiveFromAnySourceWithoutStatus) {
  DumpiRunWriter run(2, "nostatus");
  run.init(0);
  run.init(1);
  run.call(0, kSend, 20, 30, p2p(1, 1, 5));
  run.call(1, kRecv, 15, 35, [](Bytes& b) {
    p2p(1, kAny, 5)(b);
    b.u32(0);  // MPI_STATUS_IGNORE
  });
  const Refusal r = refusal(run.finish());
  EXPECT_EQ(r.field, "status");
  EXPECT_NE(r.message.find("dumpi-run-0001.bin"), std::string::npos) << r.message;
}

TEST(DumpiImportHostile, DatatypeMissingFromTheSizeTable) {
  DumpiRunWriter run(2, "datatype");
  run.init(0);
  run.call(0, kSend, 20, 30, [](Bytes& b) {
    b.i32(1);
    b.u16(77);
    b.i32(1);
    b.i32(0);
    b.u16(kWorld);
  });
  EXPECT_EQ(refusal(run.finish()).field, "datatype");
}

TEST(DumpiImportHostile, SplitNeverMadeByAMember) {
  DumpiRunWriter run(2, "halfsplit");
  run.init(0);
  run.init(1);
  run.call(0, kCommSplit, 11, 12, [](Bytes& b) {
    b.u16(kWorld);
    b.i32(0);
    b.i32(0);
    b.u16(4);
  });
  const Refusal r = refusal(run.finish());
  EXPECT_EQ(r.field, "oldcomm");
  EXPECT_NE(r.message.find("world ranks 1"), std::string::npos) << r.message;
}

}  // namespace
}  // namespace ibsec::traces
