// A DUMPI run written byte by byte as sst-dumpi lays it out (big-endian; a
// .meta file and one file per rank), for the tests of the DUMPI import and of
// the import cache: the function ids and handles they use, the run, and
// writers of call arguments in DUMPI's order.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ibsec::testing::dumpi {

namespace fs = std::filesystem;

// Function ids (dumpi_calls.def) and DUMPI's handles the tests use.
enum : uint16_t {
  kSend = 0,
  kRecv = 1,
  kIsend = 8,
  kRequestFree = 15,
  kWaitsome = 20,
  kTestsome = 21,
  kSendInit = 26,
  kRecvInit = 30,
  kStart = 31,
  kStartall = 32,
  kIrecv = 12,
  kWaitall = 18,
  kBarrier = 52,
  kBcast = 53,
  kAlltoallv = 61,
  kAllreduce = 65,
  kCommGroup = 72,
  kGroupIncl = 76,
  kCommRank = 82,
  kCommCreate = 85,
  kCartCreate = 99,
  kCommSplit = 86,
  kInit = 124,
  kFinalize = 125,
  kPcontrol = 128,
  kPut = 143,
  kEnd = 293,
};
constexpr uint16_t kWorld = 2;
constexpr uint16_t kInt = 9;  // 4 bytes in the files' datatype tables
constexpr int32_t kAny = -1;

class Bytes {
 public:
  void u8(uint8_t v) { data.push_back(v); }
  void u16(uint16_t v) {
    u8(static_cast<uint8_t>(v >> 8));
    u8(static_cast<uint8_t>(v));
  }
  void u32(uint32_t v) {
    u16(static_cast<uint16_t>(v >> 16));
    u16(static_cast<uint16_t>(v));
  }
  void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
  void u64(uint64_t v) {
    u32(static_cast<uint32_t>(v >> 32));
    u32(static_cast<uint32_t>(v));
  }
  void ints(const std::vector<int32_t>& values) {
    u32(static_cast<uint32_t>(values.size()));
    for (int32_t v : values) i32(v);
  }
  std::vector<uint8_t> data;
};

struct Status {
  int32_t bytes, source, tag;
};
inline void statuses(Bytes& b, const std::vector<Status>& list) {
  b.u32(static_cast<uint32_t>(list.size()));
  for (const Status& s : list) {
    b.i32(s.bytes);
    b.i32(s.source);
    b.u8(0);
    b.u8(0);
    b.i32(s.tag);
  }
}

// A DUMPI run of `ranks` ranks in a fresh folder: calls are appended rank by
// rank, with wall times in ns (CPU times half of them), then finish()
// writes every file. Fields set before finish() break it on purpose.
class DumpiRunWriter {
 public:
  explicit DumpiRunWriter(uint32_t ranks, const std::string& name) : streams_(ranks), counts_(ranks) {
    dir_ = fs::temp_directory_path() / ("ibsec-dumpi-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~DumpiRunWriter() { fs::remove_all(dir_); }

  void call(uint32_t rank, uint16_t id, uint64_t start, uint64_t stop,
            const std::function<void(Bytes&)>& arguments = {}) {
    Bytes& b = streams_[rank];
    b.u16(id);
    b.u8(0x4 | 0x8 | 0x40 | 0x3);  // CPU and wall time, thread, statuses
    b.u16(0);
    for (uint64_t t : {start / 2, stop / 2, start, stop}) {  // CPU times rounded down: 21 ns is 10
      b.u16(static_cast<uint16_t>(t / 1'000'000'000));
      b.u32(static_cast<uint32_t>(t % 1'000'000'000));
    }
    if (arguments) arguments(b);
    if (id < 291) ++counts_[rank][id];
  }
  // A record as MPI_Pcontrol leaves it: DUMPI's function-entry or -exit
  // record (id 291, 292) with times never set.
  void annotation(uint32_t rank, uint16_t id) {
    Bytes& b = streams_[rank];
    b.u16(id);
    b.u8(0x4 | 0x8 | 0x40);
    b.u16(0);
    for (int i = 0; i < 24; ++i) b.u8(0xff);
    b.u64(4096);
  }
  void init(uint32_t rank) {
    call(rank, kInit, 0, 10, [](Bytes& b) { b.u32(0); });
  }
  void finalize(uint32_t rank) { call(rank, kFinalize, 110, 120); }

  // Writes the .meta file and the rank files; the .meta file's path.
  std::string finish() {
    std::ofstream(dir_ / "dumpi-run.meta") << "hostname=test\nnumprocs=" << meta_ranks.value_or(streams_.size())
                                           << "\nusername=test\nstartime=0\nfileprefix=dumpi-run\nversion=0\n";
    for (uint32_t rank = 0; rank < streams_.size(); ++rank) {
      const std::vector<uint8_t> file = rank_file(rank);
      std::ofstream out(dir_ / rank_name(rank), std::ios::binary);
      out.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
    }
    return (dir_ / "dumpi-run.meta").string();
  }
  static std::string rank_name(uint32_t rank) {
    char name[32];
    std::snprintf(name, sizeof name, "dumpi-run-%04u.bin", rank);
    return name;
  }
  [[nodiscard]] fs::path dir() const { return dir_; }

  std::optional<size_t> meta_ranks;
  std::function<void(uint32_t rank, std::vector<uint8_t>&)> corrupt;  // the finished file of a rank

 private:
  std::vector<uint8_t> rank_file(uint32_t rank) {
    Bytes f;
    f.u64(0xffaadd44554d5049ULL);
    const uint64_t body = f.data.size();
    f.u32(0);    // CPU time bias, s
    f.u32(100);  // wall time bias, s
    f.data.insert(f.data.end(), streams_[rank].data.begin(), streams_[rank].data.end());
    f.u16(kEnd);
    const uint64_t header = f.data.size();
    for (uint8_t v : {13, 0, 0}) f.u8(v);
    f.u64(0);
    for (const char* text : {"host", "user"}) {
      f.u16(static_cast<uint16_t>(std::strlen(text)));
      for (const char* c = text; *c; ++c) f.u8(static_cast<uint8_t>(*c));
    }
    f.u32(0);
    f.u32(0);
    const uint64_t footer = f.data.size();
    f.u64(0xf007fee7);
    for (uint32_t id = 0; id <= 290; ++id) f.u32(counts_[rank].count(id) ? counts_[rank][id] : 0);
    for (uint32_t id = 0; id <= 290; ++id) f.u32(0);
    const uint64_t keyval = f.data.size();
    f.u32(0);
    const uint64_t perf = f.data.size();
    f.u32(0);
    const uint64_t sizes = f.data.size();
    f.ints({0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4, 8});
    const uint64_t addresses = f.data.size();
    f.u32(0);
    f.u64(0xffaadd44554d5049ULL);
    for (uint64_t offset : {sizes, addresses, perf, header, body, footer, keyval}) f.u64(offset);
    if (corrupt) corrupt(rank, f.data);
    return f.data;
  }

  fs::path dir_;
  std::vector<Bytes> streams_;
  std::vector<std::map<uint32_t, uint32_t>> counts_;
};

// Argument writers, in DUMPI's order.
inline std::function<void(Bytes&)> p2p(int32_t count, int32_t peer, int32_t tag, uint16_t comm = kWorld) {
  return [=](Bytes& b) {
    b.i32(count);
    b.u16(kInt);
    b.i32(peer);
    b.i32(tag);
    b.u16(comm);
  };
}
inline std::function<void(Bytes&)> recv(int32_t count, int32_t source, int32_t tag, Status got,
                                        uint16_t comm = kWorld) {
  return [=](Bytes& b) {
    p2p(count, source, tag, comm)(b);
    statuses(b, {got});
  };
}
inline std::function<void(Bytes&)> with_request(const std::function<void(Bytes&)>& args, int32_t request) {
  return [=](Bytes& b) {
    args(b);
    b.i32(request);
  };
}
inline std::function<void(Bytes&)> waitall(const std::vector<int32_t>& requests, const std::vector<Status>& got) {
  return [=](Bytes& b) {
    b.i32(static_cast<int32_t>(requests.size()));
    b.ints(requests);
    statuses(b, got);
  };
}

// A two-rank run with one message of `count` ints from rank 0 to rank 1; its .meta file.
inline std::string two_rank_run(DumpiRunWriter& run, int32_t count) {
  for (uint32_t r = 0; r < 2; ++r) run.init(r);
  run.call(0, kSend, 20, 30, p2p(count, 1, 5));
  run.call(1, kRecv, 15, 35, recv(count, 0, 5, {4 * count, 0, 5}));
  for (uint32_t r = 0; r < 2; ++r) run.finalize(r);
  return run.finish();
}

}  // namespace ibsec::testing::dumpi
