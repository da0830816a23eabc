// A zstd input filter for Boost.Iostreams on libzstd's streaming API, used
// instead of Boost's own: Boost's decoder ends silently at an incomplete
// frame, so a cut-short .zst trace read as a shorter (or empty) one. This one
// reports the truncation, and any corruption, with the compressed byte offset.
#pragma once

#include <zstd.h>

#include <cstdint>
#include <ios>
#include <memory>
#include <string>
#include <vector>

#include <boost/iostreams/concepts.hpp>
#include <boost/iostreams/operations.hpp>

namespace ibsec::traces {

// Corrupt or truncated compressed data, with what and where.
class CompressedDataError : public std::ios_base::failure {
 public:
  explicit CompressedDataError(const std::string& detail) : std::ios_base::failure(detail), detail_(detail) {}
  [[nodiscard]] const std::string& detail() const { return detail_; }

 private:
  std::string detail_;
};

class ZstdDecompressor : public boost::iostreams::multichar_input_filter {
 public:
  ZstdDecompressor() : state_(std::make_shared<State>()) {}

  template <typename Source>
  std::streamsize read(Source& source, char* s, std::streamsize n) {
    State& st = *state_;
    ZSTD_outBuffer out{s, static_cast<size_t>(n), 0};
    while (out.pos == 0) {
      if (st.in.pos == st.in.size && !refill(source)) {
        if (st.frame_open) {
          throw CompressedDataError("truncated zstd data: the last frame stops at byte " + std::to_string(st.consumed) +
                                    " of the file");
        }
        return -1;
      }
      const size_t before = st.in.pos;
      const size_t hint = ZSTD_decompressStream(st.context.get(), &out, &st.in);
      st.consumed += st.in.pos - before;
      if (ZSTD_isError(hint) != 0) {
        throw CompressedDataError(std::string("corrupt zstd data near byte ") + std::to_string(st.consumed) +
                                  " of the file: " + ZSTD_getErrorName(hint));
      }
      st.frame_open = hint != 0;  // 0: a frame is complete and fully flushed
    }
    return static_cast<std::streamsize>(out.pos);
  }

 private:
  struct State {
    std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> context{ZSTD_createDCtx(), ZSTD_freeDCtx};
    std::vector<char> buffer = std::vector<char>(ZSTD_DStreamInSize());
    ZSTD_inBuffer in{buffer.data(), 0, 0};
    uint64_t consumed = 0;    // compressed bytes decoded so far
    bool frame_open = false;  // inside a frame that has not ended
  };

  template <typename Source>
  bool refill(Source& source) {
    State& st = *state_;
    const std::streamsize got =
        boost::iostreams::read(source, st.buffer.data(), static_cast<std::streamsize>(st.buffer.size()));
    if (got <= 0) return false;
    st.in = ZSTD_inBuffer{st.buffer.data(), static_cast<size_t>(got), 0};
    return true;
  }

  std::shared_ptr<State> state_;  // Boost copies filters; the copies share one stream
};

}  // namespace ibsec::traces
