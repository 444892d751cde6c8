#pragma once
// Deterministic pseudo-random numbers for the data pipeline. Results depend only on the seed,
// never on the standard library implementation (std::shuffle and the std distributions are
// implementation-defined), so a data order is reproducible across compilers and machines.
//
//   SplitMix64 (Steele, Lea, Flood 2014): expands seeds and hashes (seed, counter) pairs.
//   xoshiro256** (Blackman, Vigna 2018): the stream generator, seeded by four SplitMix64
//   outputs. Bounded integers use Lemire's multiply-and-reject method (unbiased).

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gb::data {

// One SplitMix64 step: advances `state` by the golden gamma and returns the mixed output.
uint64_t splitmix64(uint64_t& state);
// The SplitMix64 finaliser as a stateless 64-bit mixer (a bijection; mix64(0) == 0).
uint64_t mix64(uint64_t x);
// An independent seed for sub-stream `stream` of `seed` (per epoch, per person, per purpose).
uint64_t derive_seed(uint64_t seed, uint64_t stream);
// A stateless uniform double in [0, 1) for (seed, index): 53 bits of mix64 output.
double hash_uniform01(uint64_t seed, uint64_t index);

class Rng {
 public:
  explicit Rng(uint64_t seed);
  // A generator with the given raw xoshiro256** state (reference tests); not all zero.
  static Rng from_state(uint64_t s0, uint64_t s1, uint64_t s2, uint64_t s3);
  uint64_t next_u64();
  // Uniform integer in [0, n); n must be > 0.
  uint64_t uniform(uint64_t n);
  // Uniform double in [0, 1) with 53 random bits.
  double uniform01();

 private:
  uint64_t m_s[4];
};

// Fisher-Yates shuffle (i from n-1 down to 1, j = uniform(i + 1)) driven by Rng(seed).
template <typename T>
void shuffle(std::vector<T>& items, uint64_t seed) {
  Rng rng(seed);
  for (size_t i = items.size(); i > 1; --i) {
    size_t j = static_cast<size_t>(rng.uniform(i));
    if (j != i - 1) std::swap(items[i - 1], items[j]);
  }
}

// The permutation of 0..n-1 that shuffle() applies to an identity vector of size n.
std::vector<uint64_t> permutation(uint64_t n, uint64_t seed);

}  // namespace gb::data
