// Functional AES-GCM per packet (nic/crypto/aes_gcm.h): seal + open of one
// payload with a 32-byte header as AAD and a fresh nonce per packet, against
// the cost of switching keys, of a new object per packet (what reusing the
// OpenSSL context saves), and of key wrapping and derivation.
// Run: build/bench/bench_aes_gcm [--benchmark_min_time=1s]
#include <benchmark/benchmark.h>

#include <vector>

#include "nic/crypto/aes_gcm.h"
#include "nic/crypto/key_wrap.h"
#include "nic/crypto/nonce.h"
#include "nic/crypto/session_key_generator.h"

namespace {

using namespace ibsec;
using namespace ibsec::nic::crypto;

constexpr size_t header_bytes = 32;

NonceSequence new_sequence() { return {SessionKeyId(1), NonceDirection::lower_to_higher, VirtualLane(0)}; }

std::vector<uint8_t> key_of(uint64_t id) {
  const SessionKey key = SessionKeyGenerator(1).session_key(SessionKeyId(id));
  return {key.bytes().begin(), key.bytes().end()};
}

void report(benchmark::State& state, size_t payload) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * payload));
  state.SetItemsProcessed(state.iterations());  // items = packets
}

// The sender seals, the receiver opens: the work of one packet end to end.
void BM_AesGcmSealOpen(benchmark::State& state) {
  const auto payload = static_cast<size_t>(state.range(0));
  AesGcm sender(key_of(1)), receiver(key_of(1));
  NonceSequence nonces = new_sequence();
  std::vector<uint8_t> header(header_bytes, 0x11), plaintext(payload, 0x22), ciphertext(payload), tag(16), out(payload);
  for (auto _ : state) {
    const GcmNonce nonce = nonces.next();
    sender.seal(nonce, header, plaintext, ciphertext, tag);
    if (!receiver.open(nonce, header, ciphertext, tag, out)) state.SkipWithError("open failed");
    benchmark::DoNotOptimize(out.data());
  }
  report(state, payload);
}
BENCHMARK(BM_AesGcmSealOpen)->Arg(256)->Arg(2048);

void BM_AesGcmSeal(benchmark::State& state) {
  const auto payload = static_cast<size_t>(state.range(0));
  AesGcm sender(key_of(1));
  NonceSequence nonces = new_sequence();
  std::vector<uint8_t> header(header_bytes, 0x11), plaintext(payload, 0x22), ciphertext(payload), tag(16);
  for (auto _ : state) {
    sender.seal(nonces.next(), header, plaintext, ciphertext, tag);
    benchmark::DoNotOptimize(tag.data());
  }
  report(state, payload);
}
BENCHMARK(BM_AesGcmSeal)->Arg(256)->Arg(2048);

void BM_AesGcmOpen(benchmark::State& state) {
  const auto payload = static_cast<size_t>(state.range(0));
  constexpr size_t packets = 256;  // sealed beforehand, each under its own nonce
  AesGcm sender(key_of(1)), receiver(key_of(1));
  NonceSequence nonces = new_sequence();
  std::vector<uint8_t> header(header_bytes, 0x11), plaintext(payload, 0x22), out(payload);
  std::vector<GcmNonce> nonce(packets);
  std::vector<std::vector<uint8_t>> ciphertext(packets, std::vector<uint8_t>(payload)),
      tag(packets, std::vector<uint8_t>(16));
  for (size_t p = 0; p < packets; ++p) {
    nonce[p] = nonces.next();
    sender.seal(nonce[p], header, plaintext, ciphertext[p], tag[p]);
  }
  size_t p = 0;
  for (auto _ : state) {
    if (!receiver.open(nonce[p], header, ciphertext[p], tag[p], out)) state.SkipWithError("open failed");
    p = (p + 1) % packets;
  }
  report(state, payload);
}
BENCHMARK(BM_AesGcmOpen)->Arg(256)->Arg(2048);

// Every packet under another key than the last: the key schedule and GHASH
// key are recomputed per packet, as after every session-key cache miss.
void BM_AesGcmSealRekeyEveryPacket(benchmark::State& state) {
  const auto payload = static_cast<size_t>(state.range(0));
  const std::vector<uint8_t> keys[2] = {key_of(1), key_of(2)};
  AesGcm sender(keys[0]);
  NonceSequence nonces = new_sequence();
  std::vector<uint8_t> header(header_bytes, 0x11), plaintext(payload, 0x22), ciphertext(payload), tag(16);
  size_t k = 0;
  for (auto _ : state) {
    k ^= 1;
    sender.rekey(keys[k]);
    sender.seal(nonces.next(), header, plaintext, ciphertext, tag);
    benchmark::DoNotOptimize(tag.data());
  }
  report(state, payload);
}
BENCHMARK(BM_AesGcmSealRekeyEveryPacket)->Arg(256);

// The naive way: a new object (OpenSSL context) per packet.
void BM_AesGcmSealNewObjectPerPacket(benchmark::State& state) {
  const auto payload = static_cast<size_t>(state.range(0));
  const std::vector<uint8_t> key = key_of(1);
  NonceSequence nonces = new_sequence();
  std::vector<uint8_t> header(header_bytes, 0x11), plaintext(payload, 0x22), ciphertext(payload), tag(16);
  for (auto _ : state) {
    AesGcm sender(key);
    sender.seal(nonces.next(), header, plaintext, ciphertext, tag);
    benchmark::DoNotOptimize(tag.data());
  }
  report(state, payload);
}
BENCHMARK(BM_AesGcmSealNewObjectPerPacket)->Arg(256);

// A session key written to and read back from external key memory.
void BM_KeyWrapRoundTrip(benchmark::State& state) {
  SessionKeyGenerator keys(1);
  KeyWrap card(keys.card_key(NodeId(0)).bytes());
  const SessionKey key = keys.session_key(SessionKeyId(5));
  uint64_t version = 0;
  for (auto _ : state) {
    const WrappedKey record = card.wrap(SessionKeyId(5), ++version, key);
    benchmark::DoNotOptimize(card.unwrap(SessionKeyId(5), record, version));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_KeyWrapRoundTrip);

void BM_SessionKeyDerive(benchmark::State& state) {
  SessionKeyGenerator keys(1);
  uint64_t id = 0;
  for (auto _ : state) benchmark::DoNotOptimize(keys.session_key(SessionKeyId(id++)));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SessionKeyDerive);

}  // namespace
BENCHMARK_MAIN();
