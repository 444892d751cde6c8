#include "data/random.h"

#include "util/error.h"

namespace gb::data {
namespace {
constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ULL;

inline uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}
}  // namespace

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t splitmix64(uint64_t& state) {
  state += kGoldenGamma;
  return mix64(state);
}

uint64_t derive_seed(uint64_t seed, uint64_t stream) {
  // Two rounds so that nearby (seed, stream) pairs give unrelated seeds.
  return mix64(mix64(seed + kGoldenGamma) ^ mix64(stream * 2 + 1));
}

double hash_uniform01(uint64_t seed, uint64_t index) {
  return static_cast<double>(derive_seed(seed, index) >> 11) * 0x1.0p-53;
}

Rng::Rng(uint64_t seed) {
  uint64_t state = seed;
  for (uint64_t& s : m_s) s = splitmix64(state);
}

Rng Rng::from_state(uint64_t s0, uint64_t s1, uint64_t s2, uint64_t s3) {
  if ((s0 | s1 | s2 | s3) == 0) fail("Rng::from_state: the state must not be all zero");
  Rng rng(0);
  rng.m_s[0] = s0;
  rng.m_s[1] = s1;
  rng.m_s[2] = s2;
  rng.m_s[3] = s3;
  return rng;
}

uint64_t Rng::next_u64() {
  const uint64_t result = rotl(m_s[1] * 5, 7) * 9;
  const uint64_t t = m_s[1] << 17;
  m_s[2] ^= m_s[0];
  m_s[3] ^= m_s[1];
  m_s[1] ^= m_s[2];
  m_s[0] ^= m_s[3];
  m_s[2] ^= t;
  m_s[3] = rotl(m_s[3], 45);
  return result;
}

uint64_t Rng::uniform(uint64_t n) {
  if (n == 0) fail("Rng::uniform: the range must not be empty (n = 0)");
  // Lemire, "Fast random integer generation in an interval" (2019).
  unsigned __int128 m = static_cast<unsigned __int128>(next_u64()) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    const uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<unsigned __int128>(next_u64()) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

double Rng::uniform01() {
  return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

std::vector<uint64_t> permutation(uint64_t n, uint64_t seed) {
  std::vector<uint64_t> p(n);
  for (uint64_t i = 0; i < n; ++i) p[i] = i;
  shuffle(p, seed);
  return p;
}

}  // namespace gb::data
