#include "nic/crypto/aes_gcm.h"

#include <openssl/crypto.h>
#include <openssl/err.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ibsec::nic::crypto {
namespace {

// EVP_CipherInit_ex's `enc`: 1 encrypt, 0 decrypt.
constexpr int encrypting = 1;
constexpr int decrypting = 0;

void require_same_size(size_t in, size_t out, const char* what) {
  if (in != out) {
    throw std::invalid_argument(std::string("AES-GCM ") + what + ": output is " + std::to_string(out) + " bytes for " +
                                std::to_string(in) + " of input");
  }
}

}  // namespace

AesGcm::AesGcm(std::span<const uint8_t> key, size_t tag_bytes)
    : context_(evp::new_cipher_context()), tag_bytes_(tag_bytes) {
  if (tag_bytes < min_tag_bytes || tag_bytes > max_tag_bytes) {
    throw std::invalid_argument("AES-GCM tag must be 12 to 16 bytes, not " + std::to_string(tag_bytes));
  }
  rekey(key);
}

AesGcm::~AesGcm() { OPENSSL_cleanse(key_.data(), key_.size()); }

void AesGcm::rekey(std::span<const uint8_t> key) {
  const EVP_CIPHER* cipher = evp::aes_gcm(key.size());  // also rejects other lengths
  const bool same_length = key.size() == key_bytes_;
  if (same_length && CRYPTO_memcmp(key.data(), key_.data(), key_bytes_) == 0) return;
  // Naming the cipher makes OpenSSL build a new context; for a key of the
  // same length it is enough to load the key into the one we have.
  key_bytes_ = 0;  // should OpenSSL fail, the next rekey starts afresh
  evp::check(
      EVP_CipherInit_ex(context_.get(), same_length ? nullptr : cipher, nullptr, key.data(), nullptr, encrypting),
      "EVP_CipherInit_ex(key)");
  if (!same_length) nonce_length_ = nonce_bytes;  // a new context starts at the default
  std::copy(key.begin(), key.end(), key_.begin());
  key_bytes_ = key.size();
}

void AesGcm::load_nonce(std::span<const uint8_t> nonce, bool encrypt) {
  if (nonce.empty()) throw std::invalid_argument("AES-GCM nonce is empty");
  if (nonce.size() != nonce_length_) {
    evp::check(EVP_CIPHER_CTX_ctrl(context_.get(), EVP_CTRL_GCM_SET_IVLEN, evp::length(nonce.size()), nullptr),
               "EVP_CTRL_GCM_SET_IVLEN");
    nonce_length_ = nonce.size();
  }
  // Cipher and key stay as they are: only the nonce (and direction) change.
  evp::check(
      EVP_CipherInit_ex(context_.get(), nullptr, nullptr, nullptr, nonce.data(), encrypt ? encrypting : decrypting),
      "EVP_CipherInit_ex(nonce)");
}

void AesGcm::absorb_aad(std::span<const uint8_t> aad) {
  if (aad.empty()) return;
  int absorbed = 0;
  evp::check(EVP_CipherUpdate(context_.get(), nullptr, &absorbed, aad.data(), evp::length(aad.size())),
             "EVP_CipherUpdate(aad)");
}

void AesGcm::seal(std::span<const uint8_t> nonce, std::span<const uint8_t> aad, std::span<const uint8_t> plaintext,
                  std::span<uint8_t> ciphertext, std::span<uint8_t> tag) {
  require_same_size(plaintext.size(), ciphertext.size(), "seal");
  if (tag.size() != tag_bytes_) {
    throw std::invalid_argument("AES-GCM seal: tag buffer is " + std::to_string(tag.size()) + " bytes, tags are " +
                                std::to_string(tag_bytes_));
  }
  load_nonce(nonce, true);
  absorb_aad(aad);
  int written = 0;
  if (!plaintext.empty()) {
    evp::check(
        EVP_EncryptUpdate(context_.get(), ciphertext.data(), &written, plaintext.data(), evp::length(plaintext.size())),
        "EVP_EncryptUpdate");
  }
  uint8_t none[max_tag_bytes];  // GCM writes nothing at the end; EVP still wants a buffer
  evp::check(EVP_EncryptFinal_ex(context_.get(), none, &written), "EVP_EncryptFinal_ex");
  evp::check(EVP_CIPHER_CTX_ctrl(context_.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(tag_bytes_), tag.data()),
             "EVP_CTRL_GCM_GET_TAG");
}

bool AesGcm::open(std::span<const uint8_t> nonce, std::span<const uint8_t> aad, std::span<const uint8_t> ciphertext,
                  std::span<const uint8_t> tag, std::span<uint8_t> plaintext) {
  require_same_size(ciphertext.size(), plaintext.size(), "open");
  if (tag.size() != tag_bytes_) {  // a malformed packet, not a caller's mistake
    OPENSSL_cleanse(plaintext.data(), plaintext.size());
    return false;
  }
  load_nonce(nonce, false);
  absorb_aad(aad);
  int written = 0;
  if (!ciphertext.empty()) {
    evp::check(EVP_DecryptUpdate(context_.get(), plaintext.data(), &written, ciphertext.data(),
                                 evp::length(ciphertext.size())),
               "EVP_DecryptUpdate");
  }
  // OpenSSL only reads the expected tag; its ctrl interface is not const-correct.
  evp::check(EVP_CIPHER_CTX_ctrl(context_.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(tag_bytes_),
                                 const_cast<uint8_t*>(tag.data())),
             "EVP_CTRL_GCM_SET_TAG");
  uint8_t none[max_tag_bytes];
  if (EVP_DecryptFinal_ex(context_.get(), none, &written) > 0) return true;
  ERR_clear_error();
  OPENSSL_cleanse(plaintext.data(), plaintext.size());
  return false;
}

}  // namespace ibsec::nic::crypto
