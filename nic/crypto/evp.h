// The few pieces of OpenSSL's EVP interface that the crypto classes share:
// an owning cipher context, ciphers fetched once per process, and turning a
// failed call into a CryptoError.
#pragma once

#include <openssl/evp.h>

#include <cstddef>
#include <memory>

namespace ibsec::nic::crypto::evp {

struct CipherContextDeleter {
  void operator()(EVP_CIPHER_CTX* context) const noexcept { EVP_CIPHER_CTX_free(context); }
};
using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, CipherContextDeleter>;

[[nodiscard]] CipherContext new_cipher_context();

// OpenSSL 3 looks a cipher up in its providers on every init that names it
// unless the caller fetched it explicitly; these fetch once per process.
[[nodiscard]] const EVP_CIPHER* aes_gcm(size_t key_bytes);  // 16 or 32
[[nodiscard]] const EVP_CIPHER* aes_256_ecb();

// Throws CryptoError naming `call` and OpenSSL's reason unless `result` is 1.
void check(int result, const char* call);

// EVP takes lengths as int; refuses what would not fit.
[[nodiscard]] int length(size_t bytes);

}  // namespace ibsec::nic::crypto::evp
