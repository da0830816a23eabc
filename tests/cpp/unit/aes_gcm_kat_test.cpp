// Known-answer tests of AesGcm: published vectors, each sealed and opened
// through the wrapper (not through OpenSSL directly).
//
// Sources:
// - McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)", 2005,
//   Appendix B: test cases 1-6 (AES-128) and 13-18 (AES-256). Cases 5/17 use
//   an 8-byte IV and 6/18 a 60-byte one, which GCM hashes into its counter.
// - NIST CAVP GCM test vectors (gcmtestvectors.zip): gcmEncryptExtIV128.rsp,
//   gcmEncryptExtIV256.rsp and gcmDecrypt128.rsp, whose FAIL entries must be
//   rejected. The section of each vector is noted beside it.
#include <gtest/gtest.h>

#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "nic/crypto/aes_gcm.h"
#include "support/hex.h"

namespace ibsec::nic::crypto {
namespace {

using test::from_hex;

struct Vector {
  const char* name;
  const char* key;
  const char* iv;
  const char* aad;
  const char* plaintext;
  const char* ciphertext;
  const char* tag;
};

// Shared by the McGrew-Viega cases.
#define MV_K0_128 "00000000000000000000000000000000"
#define MV_K0_256 MV_K0_128 MV_K0_128
#define MV_K_128 "feffe9928665731c6d6a8f9467308308"
#define MV_K_256 MV_K_128 MV_K_128
#define MV_IV0 "000000000000000000000000"
#define MV_IV_96 "cafebabefacedbaddecaf888"
#define MV_IV_64 "cafebabefacedbad"
#define MV_IV_480                    \
  "9313225df88406e555909c5aff5269aa" \
  "6a7a9538534f7da1e4c303d2a318a728" \
  "c3c0c95156809539fcf0e2429a6b5254" \
  "16aedbf5a0de6a57a637b39b"
#define MV_AAD "feedfacedeadbeeffeedfacedeadbeefabaddad2"
#define MV_P_60                      \
  "d9313225f88406e5a55909c5aff5269a" \
  "86a7a9531534f7da2e4c303d8a318a72" \
  "1c3c0c95956809532fcf0e2449a6b525" \
  "b16aedf5aa0de657ba637b39"
#define MV_P_64 MV_P_60 "1aafd255"

const Vector mcgrew_viega[] = {
    {"TestCase1", MV_K0_128, MV_IV0, "", "", "", "58e2fccefa7e3061367f1d57a4e7455a"},
    {"TestCase2", MV_K0_128, MV_IV0, "", MV_K0_128, "0388dace60b6a392f328c2b971b2fe78",
     "ab6e47d42cec13bdf53a67b21257bddf"},
    {"TestCase3", MV_K_128, MV_IV_96, "", MV_P_64,
     "42831ec2217774244b7221b784d0d49c"
     "e3aa212f2c02a4e035c17e2329aca12e"
     "21d514b25466931c7d8f6a5aac84aa05"
     "1ba30b396a0aac973d58e091473f5985",
     "4d5c2af327cd64a62cf35abd2ba6fab4"},
    {"TestCase4", MV_K_128, MV_IV_96, MV_AAD, MV_P_60,
     "42831ec2217774244b7221b784d0d49c"
     "e3aa212f2c02a4e035c17e2329aca12e"
     "21d514b25466931c7d8f6a5aac84aa05"
     "1ba30b396a0aac973d58e091",
     "5bc94fbc3221a5db94fae95ae7121a47"},
    {"TestCase5", MV_K_128, MV_IV_64, MV_AAD, MV_P_60,
     "61353b4c2806934a777ff51fa22a4755"
     "699b2a714fcdc6f83766e5f97b6c7423"
     "73806900e49f24b22b097544d4896b42"
     "4989b5e1ebac0f07c23f4598",
     "3612d2e79e3b0785561be14aaca2fccb"},
    {"TestCase6", MV_K_128, MV_IV_480, MV_AAD, MV_P_60,
     "8ce24998625615b603a033aca13fb894"
     "be9112a5c3a211a8ba262a3cca7e2ca7"
     "01e4a9a4fba43c90ccdcb281d48c7c6f"
     "d62875d2aca417034c34aee5",
     "619cc5aefffe0bfa462af43c1699d050"},
    {"TestCase13", MV_K0_256, MV_IV0, "", "", "", "530f8afbc74536b9a963b4f1c4cb738b"},
    {"TestCase14", MV_K0_256, MV_IV0, "", MV_K0_128, "cea7403d4d606b6e074ec5d3baf39d18",
     "d0d1c8a799996bf0265b98b5d48ab919"},
    {"TestCase15", MV_K_256, MV_IV_96, "", MV_P_64,
     "522dc1f099567d07f47f37a32a84427d"
     "643a8cdcbfe5c0c97598a2bd2555d1aa"
     "8cb08e48590dbb3da7b08b1056828838"
     "c5f61e6393ba7a0abcc9f662898015ad",
     "b094dac5d93471bdec1a502270e3cc6c"},
    {"TestCase16", MV_K_256, MV_IV_96, MV_AAD, MV_P_60,
     "522dc1f099567d07f47f37a32a84427d"
     "643a8cdcbfe5c0c97598a2bd2555d1aa"
     "8cb08e48590dbb3da7b08b1056828838"
     "c5f61e6393ba7a0abcc9f662",
     "76fc6ece0f4e1768cddf8853bb2d551b"},
    {"TestCase17", MV_K_256, MV_IV_64, MV_AAD, MV_P_60,
     "c3762df1ca787d32ae47c13bf19844cb"
     "af1ae14d0b976afac52ff7d79bba9de0"
     "feb582d33934a4f0954cc2363bc73f78"
     "62ac430e64abe499f47c9b1f",
     "3a337dbf46a792c45e454913fe2ea8f2"},
    {"TestCase18", MV_K_256, MV_IV_480, MV_AAD, MV_P_60,
     "5a8def2f0c9e53f1f75d7853659e2a20"
     "eeb2b22aafde6419a058ab4f6f746bf4"
     "0fc0c3b780f244452da3ebf1c5d82cde"
     "a2418997200ef82e44ae7e3f",
     "a44a8266ee1c8eb0c8b5d4cf5ae9f19a"},
};

// gcmEncryptExtIV: every entry seals to the listed ciphertext and tag.
const Vector cavp_encrypt[] = {
    // gcmEncryptExtIV128 [Keylen=128, IVlen=96, PTlen=128, AADlen=0, Taglen=128]
    {"Encrypt128Pt128", "7fddb57453c241d03efbed3ac44e371c", "ee283a3fc75575e33efd4887", "",
     "d5de42b461646c255c87bd2962d3b9a2", "2ccda4a5415cb91e135c2a0f78c9b2fd", "b36d1df9b9d5e596f83e8b7f52971cb3"},
    // gcmEncryptExtIV128 [Keylen=128, IVlen=96, PTlen=408, AADlen=160, Taglen=128]
    {"Encrypt128Pt408Aad160", "fe47fcce5fc32665d2ae399e4eec72ba", "5adb9609dbaeb58cbd6e7275",
     "88319d6e1d3ffa5f987199166c8a9b56c2aeba5a",
     "7c0e88c88899a779228465074797cd4c2e1498d259b54390b85e3eef1c02df60e743f1b840382c4bccaf3bafb4ca8429bea063",
     "98f4826f05a265e6dd2be82db241c0fbbbf9ffb1c173aa83964b7cf5393043736365253ddbc5db8778371495da76d269e5db3e",
     "291ef1982e4defedaa2249f898556b47"},
    // gcmEncryptExtIV128 [Keylen=128, IVlen=96, PTlen=408, AADlen=720, Taglen=128]
    {"Encrypt128Pt408Aad720", "2c1f21cf0f6fb3661943155c3e3d8492", "23cb5ff362e22426984d1907",
     "5d3624879d35e46849953e45a32a624d6a6c536ed9857c613b572b0333e701557a713e3f010ecdf9a6bd6c9e3e44b065208645aff4aabee6"
     "11b391528514170084ccf587177f4488f33cfb5e979e42b6e1cfc0a60238982a7aec",
     "42f758836986954db44bf37c6ef5e4ac0adaf38f27252a1b82d02ea949c8a1a2dbc0d68b5615ba7c1220ff6510e259f06655d8",
     "81824f0e0d523db30d3da369fdc0d60894c7a0a20646dd015073ad2732bd989b14a222b6ad57af43e1895df9dca2a5344a62cc",
     "57a3ee28136e94c74838997ae9823f3a"},
    // gcmEncryptExtIV128 [Keylen=128, IVlen=96, PTlen=104, AADlen=0, Taglen=128]
    {"Encrypt128Pt104", "fe9bb47deb3a61e423c2231841cfd1fb", "4d328eb776f500a2f7fb47aa", "",
     "f1cc3818e421876bb6b8bbd6c9", "b88c5c1977b35b517b0aeae967", "43fd4727fe5cdb4b5b42818dea7ef8c9"},
    // gcmEncryptExtIV256 [Keylen=256, IVlen=96, PTlen=128, AADlen=160, Taglen=128]
    {"Encrypt256Pt128Aad160", "83688deb4af8007f9b713b47cfa6c73e35ea7a3aa4ecdb414dded03bf7a0fd3a",
     "0b459724904e010a46901cf3", "794a14ccd178c8ebfd1379dc704c5e208f9d8424", "33d893a2114ce06fc15d55e454cf90c3",
     "cc66bee423e3fcd4c0865715e9586696", "0fb291bd3dba94a1dfd8b286cfb97ac5"},
};

// gcmDecrypt128: plaintext nullptr marks an entry the file lists as FAIL.
const Vector cavp_decrypt[] = {
    // [Keylen=128, IVlen=96, PTlen=0, AADlen=0, Taglen=128], Count 0 and 1
    {"Decrypt128Empty", "cf063a34d4a9a76c2c86787d3f96db71", "113b9785971864c83b01c787", "", "", "",
     "72ac8493e3a5228b5d130a69d2510e42"},
    {"Decrypt128EmptyFail", "a49a5e26a2f8cb63d05546c2a62f5343", "907763b19b9b4ab6bd4f0281", "", nullptr, "",
     "a2be08210d8c470a8df6e8fbd79ec5cf"},
    // [Keylen=128, IVlen=96, PTlen=0, AADlen=128, Taglen=128]
    {"Decrypt128AadFail", "d1f6af919cde85661208bdce0c27cb22", "898c6929b435017bf031c3c5",
     "7c5faa40e636bbc91107e68010c92b9f", nullptr, "", "ae45f11777540a2caeb128be8092468a"},
    {"Decrypt128Aad", "2370e320d4344208e0ff5683f243b213", "04dbb82f044d30831c441228",
     "d43a8e5089eea0d026c03a85178b27da", "", "", "2a049c049d25aa95969b451d93c31c6e"},
    // [Keylen=128, IVlen=96, PTlen=128, AADlen=0, Taglen=128]
    {"Decrypt128Pt128", "e98b72a9881a84ca6b76e0f43e68647a", "8b23299fde174053f3d652ba", "",
     "28286a321293253c3e0aa2704a278032", "5a3c1cf1985dbb8bed818036fdd5ab42", "23c7ab0f952b7091cd324835043b5eb5"},
    {"Decrypt128Pt128Fail", "5164df856f1e9cac04a79b808dc5be39", "e76925d5355e0584ce871b2b", "", nullptr,
     "0216c899c88d6e32c958c7e553daa5bc", "a145319896329c96df291f64efbe0e3a"},
    // [Keylen=128, IVlen=96, PTlen=408, AADlen=160, Taglen=128]
    {"Decrypt128Pt408Aad160", "af57f42c60c0fc5a09adb81ab86ca1c3", "a2dc01871f37025dc0fc9a79",
     "41dc38988945fcb44faf2ef72d0061289ef8efd8",
     "3803a0727eeb0ade441e0ec107161ded2d425ec0d102f21f51bf2cf9947c7ec4aa72795b2f69b041596e8817d0a3c16f8fadeb",
     "b9a535864f48ea7b6b1367914978f9bfa087d854bb0e269bed8d279d2eea1210e48947338b22f9bad09093276a331e9c79c7f4",
     "4f71e72bde0018f555c5adcce062e005"},
    {"Decrypt128Pt408Aad160Fail", "52bdbbf9cf477f187ec010589cb39d58", "d3be36d3393134951d324b31",
     "93c4fc6a4135f54d640b0c976bf755a06a292c33", nullptr,
     "700188da144fa692cf46e4a8499510a53d90903c967f7f13e8a1bd8151a74adc4fe63e32b992760b3a5f99e9a47838867000a9",
     "8ca4e38aa3dfa6b1d0297021ccf3ea5f"},
};

// Names the vector in test output instead of dumping the struct's bytes.
void PrintTo(const Vector& v, std::ostream* out) { *out << v.name; }

struct Bytes {
  std::vector<uint8_t> key, iv, aad, plaintext, ciphertext, tag;
};

Bytes decode(const Vector& v) {
  return {from_hex(v.key),        from_hex(v.iv), from_hex(v.aad), from_hex(v.plaintext ? v.plaintext : ""),
          from_hex(v.ciphertext), from_hex(v.tag)};
}

void expect_seals_to_vector(AesGcm& gcm, const Bytes& v) {
  std::vector<uint8_t> ciphertext(v.plaintext.size());
  std::vector<uint8_t> tag(AesGcm::max_tag_bytes);
  gcm.seal(v.iv, v.aad, v.plaintext, ciphertext, tag);
  EXPECT_EQ(ciphertext, v.ciphertext);
  EXPECT_EQ(tag, v.tag);
}

void expect_opens_to_vector(AesGcm& gcm, const Bytes& v) {
  std::vector<uint8_t> plaintext(v.ciphertext.size(), 0xAA);
  ASSERT_TRUE(gcm.open(v.iv, v.aad, v.ciphertext, v.tag, plaintext));
  EXPECT_EQ(plaintext, v.plaintext);
}

std::string vector_name(const testing::TestParamInfo<Vector>& info) { return info.param.name; }

class McGrewViega : public testing::TestWithParam<Vector> {};

TEST_P(McGrewViega, SealsAndOpensThroughTheWrapper) {
  const Bytes v = decode(GetParam());
  AesGcm gcm(v.key);
  expect_seals_to_vector(gcm, v);
  expect_opens_to_vector(gcm, v);
}
INSTANTIATE_TEST_SUITE_P(AesGcmKat, McGrewViega, testing::ValuesIn(mcgrew_viega), vector_name);

class CavpEncrypt : public testing::TestWithParam<Vector> {};

TEST_P(CavpEncrypt, SealsToTheListedCiphertextAndTag) {
  const Bytes v = decode(GetParam());
  AesGcm gcm(v.key);
  expect_seals_to_vector(gcm, v);
  expect_opens_to_vector(gcm, v);
}
INSTANTIATE_TEST_SUITE_P(AesGcmKat, CavpEncrypt, testing::ValuesIn(cavp_encrypt), vector_name);

class CavpDecrypt : public testing::TestWithParam<Vector> {};

TEST_P(CavpDecrypt, OpensPassEntriesAndRejectsFailEntries) {
  const Bytes v = decode(GetParam());
  AesGcm gcm(v.key);
  if (GetParam().plaintext != nullptr) {
    expect_opens_to_vector(gcm, v);
    return;
  }
  std::vector<uint8_t> plaintext(v.ciphertext.size(), 0xAA);
  EXPECT_FALSE(gcm.open(v.iv, v.aad, v.ciphertext, v.tag, plaintext));
  EXPECT_EQ(plaintext, std::vector<uint8_t>(v.ciphertext.size(), 0)) << "unverified plaintext left in the buffer";
}
INSTANTIATE_TEST_SUITE_P(AesGcmKat, CavpDecrypt, testing::ValuesIn(cavp_decrypt), vector_name);

// One object rekeyed from vector to vector (key lengths and IV lengths
// changing back and forth) must give the same answers as fresh objects: no
// state of one packet or key leaks into the next.
TEST(AesGcmKatReuse, OneObjectRekeyedThroughEveryVector) {
  AesGcm gcm(from_hex(MV_K0_128));
  for (int round = 0; round < 2; ++round) {
    for (const auto& vectors : {std::span<const Vector>(mcgrew_viega), std::span<const Vector>(cavp_encrypt)}) {
      for (const Vector& vector : vectors) {
        SCOPED_TRACE(vector.name);
        const Bytes v = decode(vector);
        gcm.rekey(v.key);
        expect_seals_to_vector(gcm, v);
        expect_opens_to_vector(gcm, v);
      }
    }
  }
}

}  // namespace
}  // namespace ibsec::nic::crypto
