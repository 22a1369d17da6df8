#pragma once
// FNV-1a, 64-bit (Fowler, Noll, Vo): a small non-cryptographic checksum that detects damaged
// or truncated files.
#include <cstdint>
#include <string_view>

namespace nbody {

class Fnv1a64 {
 public:
  void update(std::string_view bytes) noexcept {
    for (const char c : bytes) {
      hash_ ^= static_cast<unsigned char>(c);
      hash_ *= kPrime;
    }
  }
  [[nodiscard]] std::uint64_t value() const noexcept { return hash_; }

 private:
  static constexpr std::uint64_t kOffsetBasis = 0xcbf29ce484222325ULL;
  static constexpr std::uint64_t kPrime = 0x100000001b3ULL;
  std::uint64_t hash_ = kOffsetBasis;
};

[[nodiscard]] inline std::uint64_t fnv1a64(std::string_view bytes) noexcept {
  Fnv1a64 h;
  h.update(bytes);
  return h.value();
}

}  // namespace nbody
