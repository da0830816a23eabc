// libFuzzer target for the configuration layer (docs/running.md): a run's
// configuration file, attack file and --set overrides, read and checked as
// `ibsec-engine run` reads them (sim::load_config). A ConfigError is the
// expected outcome for a bad configuration; anything else (another
// exception, a crash, a sanitizer report, a leak, a hang) is a finding.
//
// An input is split at NUL bytes: the configuration file's text, then the
// attack file's text (empty: none), then one --set override per part.
//
// Build and run: tests/fuzz/run_fuzz.sh [SECONDS] config
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <systemc>  // declares sc_main, which the engine's objects need even though nothing is elaborated

#include "core/errors.h"
#include "sim/config.h"

int sc_main(int /*argc*/, char** /*argv*/) { return 0; }

namespace {

const std::string& scratch(bool attack) {
  static const std::string base = "/tmp/ibsec_config_fuzz." + std::to_string(::getpid());
  static const std::string paths[2] = {base + ".json", base + ".attack.json"};
  return paths[attack ? 1 : 0];
}

void write_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    std::perror("config_fuzz: cannot write the input file");
    std::abort();
  }
  if (!text.empty() && std::fwrite(text.data(), 1, text.size(), f) != text.size()) std::abort();
  std::fclose(f);
}

std::vector<std::string> parts_of(const uint8_t* data, size_t size) {
  std::vector<std::string> parts(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      parts.emplace_back();
    } else {
      parts.back().push_back(static_cast<char>(data[i]));
    }
  }
  return parts;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> parts = parts_of(data, size);
  write_file(scratch(false), parts[0]);
  std::string attack;
  if (parts.size() > 1 && !parts[1].empty()) {
    write_file(scratch(true), parts[1]);
    attack = scratch(true);
  }
  const std::vector<std::string> overrides(parts.begin() + std::min<size_t>(2, parts.size()), parts.end());
  try {
    (void)ibsec::sim::load_config(scratch(false), attack, overrides);
  } catch (const ibsec::ConfigError&) {
    // the expected answer to a bad configuration
  }
  return 0;
}
