#include "traces/import/source_digest.h"

#include <openssl/evp.h>

#include <cstdio>
#include <fstream>
#include <memory>

namespace ibsec::traces {

std::string source_digest(const std::vector<std::pair<std::string, std::filesystem::path>>& files) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr);
  std::vector<char> chunk(1 << 20);
  for (const auto& [name, path] : files) {
    EVP_DigestUpdate(context.get(), name.c_str(), name.size() + 1);  // the name and its terminator
    std::ifstream in(path, std::ios::binary);
    while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
      EVP_DigestUpdate(context.get(), chunk.data(), static_cast<size_t>(in.gcount()));
    }
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(context.get(), digest, &length);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    char two[3];
    std::snprintf(two, sizeof two, "%02x", digest[i]);
    hex += two;
  }
  return hex;
}

const std::string& running_program_digest() {
  static const std::string digest = source_digest({{"program", "/proc/self/exe"}});
  return digest;
}

}  // namespace ibsec::traces
