#include "nic/crypto/evp.h"

#include <openssl/err.h>

#include <climits>
#include <stdexcept>
#include <string>

#include "core/errors.h"

namespace ibsec::nic::crypto::evp {
namespace {

struct CipherDeleter {
  void operator()(EVP_CIPHER* cipher) const noexcept { EVP_CIPHER_free(cipher); }
};
using FetchedCipher = std::unique_ptr<EVP_CIPHER, CipherDeleter>;

std::string openssl_reason() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "no reason given";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

FetchedCipher fetch(const char* name) {
  FetchedCipher cipher(EVP_CIPHER_fetch(nullptr, name, nullptr));
  if (!cipher) throw CryptoError(std::string("OpenSSL has no ") + name + ": " + openssl_reason());
  return cipher;
}

}  // namespace

CipherContext new_cipher_context() {
  CipherContext context(EVP_CIPHER_CTX_new());
  if (!context) throw CryptoError("EVP_CIPHER_CTX_new failed: " + openssl_reason());
  return context;
}

const EVP_CIPHER* aes_gcm(size_t key_bytes) {
  static const FetchedCipher aes128 = fetch("AES-128-GCM");
  static const FetchedCipher aes256 = fetch("AES-256-GCM");
  if (key_bytes == 16) return aes128.get();
  if (key_bytes == 32) return aes256.get();
  throw std::invalid_argument("AES-GCM key must be 16 or 32 bytes, not " + std::to_string(key_bytes));
}

const EVP_CIPHER* aes_256_ecb() {
  static const FetchedCipher cipher = fetch("AES-256-ECB");
  return cipher.get();
}

void check(int result, const char* call) {
  if (result != 1) throw CryptoError(std::string(call) + " failed: " + openssl_reason());
}

int length(size_t bytes) {
  if (bytes > static_cast<size_t>(INT_MAX))
    throw std::invalid_argument("buffer too long for OpenSSL: " + std::to_string(bytes));
  return static_cast<int>(bytes);
}

}  // namespace ibsec::nic::crypto::evp
