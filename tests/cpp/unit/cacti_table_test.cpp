// nic.skc.access_ns = "cacti": the SKC access time from the CACTI table for
// the configured geometry, the errors for geometries the table lacks or CACTI
// rejects, and a run that uses it.
#include <sys/wait.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "nic/cacti_table.h"
#include "support/model_support.h"

namespace ibsec {
namespace {

namespace fs = std::filesystem;
using testing::config_with;
using testing::message_at;

constexpr const char* kHeader =
    "tech_nm,capacity_bytes,block_bytes,assoc,access_ns,cycle_ns,area_mm2,read_energy_nJ,leakage_mW,status,"
    "structure,search_energy_nJ,write_energy_nJ,cfg_file,raw_file,wall_s\n";

// A private folder for table files, also used as $XDG_CACHE_HOME so that the
// user's own cache of CACTI runs never changes what a test sees.
class CactiTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ibsec-cacti-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    ::setenv("XDG_CACHE_HOME", (dir_ / "xdg").c_str(), 1);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const fs::path& relative, const std::string& rows) const {
    const fs::path path = dir_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << kHeader << rows;
    return path.string();
  }
  // The message of the ConfigError that loading these overrides throws.
  static std::string config_error(const std::vector<std::string>& overrides) {
    try {
      (void)config_with(overrides);
    } catch (const ConfigError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no ConfigError";
    return "";
  }

  fs::path dir_;
};

TEST_F(CactiTableTest, ShippedTableHasThe16KbFullyAssociativeSkc) {
  const std::string shipped = nic::shipped_cacti_table();
  ASSERT_FALSE(shipped.empty());
  const auto table = nic::CactiTable::read({shipped}, "nic.cacti_table");
  const nic::CactiRow* row = table.find({45, 16384, 32, 0, nic::skc_structure(0)});
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->access_ns, 1.03481);
  EXPECT_EQ(table.find({45, 16384, 32, 0, "prefetch buffer as pure CAM"}), nullptr);  // another model
  const nic::CactiRow* rejected = table.find({45, 2048, 32, 8, nic::skc_structure(8)});
  ASSERT_NE(rejected, nullptr);
  EXPECT_FALSE(rejected->access_ns);
  EXPECT_EQ(rejected->rejection, "ERROR: no valid data array organizations found");
}

TEST_F(CactiTableTest, CactiGivesTheTablesAccessTimeForSkc512) {
  // SKC-512 at the default 32 B per entry is the 16 KB of the paper.
  const sim::SimConfig c = config_with({"nic.security=SKC-512", "nic.skc.access_ns=cacti"});
  EXPECT_EQ(c.nic.skc_access, ticks_from_ns(1.03481));
  EXPECT_EQ(c.nic.skc_access_origin.ns, 1.03481);
  EXPECT_NE(c.nic.skc_access_origin.source.find("16 KB fully associative"), std::string::npos)
      << c.nic.skc_access_origin.source;
  EXPECT_NE(c.nic.skc_access_origin.source.find("cacti7_summary.csv"), std::string::npos)
      << c.nic.skc_access_origin.source;
  // The geometry follows the keys: 8-way 16 KB, and 16 KB at 22 nm.
  EXPECT_EQ(config_with({"nic.security=SKC-512", "nic.skc.ways=8", "nic.skc.access_ns=cacti"}).nic.skc_access_origin.ns,
            0.573007);
  EXPECT_EQ(config_with({"nic.security=SKC-512", "nic.tech_nm=22", "nic.skc.access_ns=cacti"}).nic.skc_access_origin.ns,
            0.508488);
  // 256 entries of 64 B are 16 KB too, but with 64 B blocks: not a row of the table.
  EXPECT_THROW(config_with({"nic.security=SKC-256", "nic.skc.block_bytes=64", "nic.skc.access_ns=cacti"}), ConfigError);
}

TEST_F(CactiTableTest, RejectedGeometryNamesTheKeyGeometryAndReason) {
  const std::string message = config_error({"nic.security=SKC-64", "nic.skc.ways=8", "nic.skc.access_ns=cacti"});
  EXPECT_NE(message.find("invalid 'nic.skc.access_ns'"), std::string::npos) << message;
  EXPECT_NE(message.find("2 KB 8-way array of 32 B blocks at 45 nm"), std::string::npos) << message;
  EXPECT_NE(message.find("ERROR: no valid data array organizations found"), std::string::npos) << message;
  EXPECT_NE(message.find("give the access time in ns"), std::string::npos) << message;
}

TEST_F(CactiTableTest, MissingGeometrySaysHowToComputeIt) {
  const std::string message = config_error({"nic.security=SKC-6", "nic.skc.access_ns=cacti"});
  EXPECT_NE(message.find("invalid 'nic.skc.access_ns'"), std::string::npos) << message;
  EXPECT_NE(message.find("192 B fully associative array"), std::string::npos) << message;
  EXPECT_NE(message.find("2 KB, 4 KB, 8 KB, 16 KB of 32 B blocks at 45 nm"), std::string::npos) << message;
  EXPECT_NE(message.find("CACTI_BIN=/path/to/cacti ibsec hwcost --skc 192B --ways 0 --block 32 --tech 45"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("nic.skc.access_ns=3.0"), std::string::npos) << message;
  EXPECT_NE(config_error({"nic.security=SKC-512", "nic.tech_nm=28", "nic.skc.access_ns=cacti"})
                .find("technologies 22 nm, 32 nm, 45 nm"),
            std::string::npos);
}

TEST_F(CactiTableTest, TheUsersCacheOfLiveRunsIsReadAfterTheTable) {
  write("xdg/ibsec/cacti/cacti_runs.csv",
        "45,192,32,0,0.25,0.3,0.01,0.001,1.5,ok,SKC fully-assoc cache,0.002,0.003,cfg/a.cfg,raw/a.txt,0.02\r\n"
        "45,192,32,2,,,,,,\"rejected: Number of sets is too small: / Need to either increase cache size, or "
        "decrease associativity or block size\",SKC 2-way cache,,,cfg/b.cfg,raw/b.txt,0.01\r\n");
  EXPECT_EQ(config_with({"nic.security=SKC-6", "nic.skc.access_ns=cacti"}).nic.skc_access_origin.ns, 0.25);
  const std::string message = config_error({"nic.security=SKC-6", "nic.skc.ways=2", "nic.skc.access_ns=cacti"});
  EXPECT_NE(message.find("Need to either increase cache size, or decrease associativity"), std::string::npos)
      << message;
}

TEST_F(CactiTableTest, AnExplicitTableIsUsedAndABadOneIsNamed) {
  const std::string mine = write("mine.csv", "45,192,32,0,0.5,0.6,0.01,0.001,1.5,ok,SKC fully-assoc cache,,,,,\n");
  EXPECT_EQ(config_with({"nic.security=SKC-6", "nic.skc.access_ns=cacti", "nic.cacti_table=" + mine})
                .nic.skc_access_origin.ns,
            0.5);
  const std::string bad = write("bad.csv", "45,192,32,0,0.5,0.6,0.01,0.001,1.5,fine,SKC fully-assoc cache,,,,,\n");
  const std::string message = config_error({"nic.security=SKC-6", "nic.skc.access_ns=cacti", "nic.cacti_table=" + bad});
  EXPECT_NE(message.find("invalid 'nic.cacti_table': " + bad + ":2: status must be"), std::string::npos) << message;
  EXPECT_NE(config_error({"nic.skc.access_ns=fast"}).find("expected a time in ns or \"cacti\""), std::string::npos);
}

TEST_F(CactiTableTest, WithoutAnSkcCactiIsNotConsulted) {
  const sim::SimConfig c = config_with({"nic.security=NoSKC", "nic.skc.access_ns=cacti"});
  EXPECT_NE(c.nic.skc_access_origin.source.find("not used"), std::string::npos);
}

// Latency of the second packet of a session, whose key look-ups hit at both
// ends. SystemC elaborates one design per process, so each run is made in a
// child process that reports its latency through a pipe (0 if it failed).
Tick hit_latency(const std::vector<std::string>& overrides) {
  int channel[2];
  if (::pipe(channel) != 0) return 0;
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(channel[0]);
    Tick latency = 0;
    try {
      sim::Cluster cluster(config_with(overrides),
                           {message_at(0, 2, 5, 256, 0), message_at(100 * kTicksPerUs, 2, 5, 256, 1)});
      const bool drained = cluster.run().drained;
      const auto& delivered = cluster.scripted()->delivered();
      if (drained && delivered.size() == 2) latency = delivered[1].delivered - delivered[1].handover;
    } catch (...) {
    }
    const bool sent = ::write(channel[1], &latency, sizeof latency) == sizeof latency;
    ::_exit(sent ? 0 : 1);
  }
  ::close(channel[1]);
  Tick latency = 0;
  const bool received = ::read(channel[0], &latency, sizeof latency) == sizeof latency;
  ::close(channel[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return received ? latency : 0;
}

TEST_F(CactiTableTest, RunWithCactiMatchesTheSameTimeGivenByHand) {
  // At 2 GHz (0.5 ns cycles) 1.03481 ns takes 3 cycles and 3 ns takes 6, so
  // the run shows which access time it used (at 270 MHz both are one cycle).
  auto with = [](const std::string& access) {
    return hit_latency({"nic.security=SKC-512", "nic.clock_mhz=2000", "nic.skc.access_ns=" + access});
  };
  const Tick cacti = with("cacti");
  ASSERT_GT(cacti, 0U);
  EXPECT_EQ(cacti, with("1.03481"));
  EXPECT_EQ(with("3.0") - cacti, 2 * 3 * 500U);  // two look-ups, 3 cycles more each
}

}  // namespace
}  // namespace ibsec
