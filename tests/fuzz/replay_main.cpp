// Replays saved inputs through the fuzz target without libFuzzer, so that
// the corpus and every past finding (tests/fuzz/regressions) are rerun by
// ctest with any compiler. The target aborts on a finding; here every input
// must come back.
//
//   trace_fuzz_replay FILE|DIR...     (a folder's *.md files are notes, not inputs)
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::set<fs::path> inputs;  // sorted: the same order every run
  for (int i = 1; i < argc; ++i) {
    if (fs::is_directory(argv[i])) {
      for (const auto& entry : fs::directory_iterator(argv[i])) {
        if (entry.is_regular_file() && entry.path().extension() != ".md") inputs.insert(entry.path());
      }
    } else {
      inputs.insert(argv[i]);
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "trace_fuzz_replay: no inputs\n");
    return 2;
  }
  for (const fs::path& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::printf("%s (%zu bytes)\n", path.filename().c_str(), bytes.size());
    std::fflush(stdout);
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  std::printf("%zu inputs replayed, no finding\n", inputs.size());
  return 0;
}
