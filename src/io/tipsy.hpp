#pragma once
// Tipsy binary files, as PKDGRAV and ChaNGa write them: a 32-byte header
//   double time; int nbodies, ndim, nsph, ndark, nstar; int pad;
// then nsph gas, ndark dark-matter and nstar star records of float32 values, big-endian (XDR).
// A dark-matter record is { float mass, pos[3], vel[3], eps, phi } (36 bytes); gas records are
// 48 bytes and star records 44, both starting with mass, pos[3], vel[3].
#include <cstdint>
#include <filesystem>
#include <string>

#include "io/particle_file.hpp"

namespace nbody {

inline constexpr std::size_t kTipsyHeaderBytes = 32;
inline constexpr std::size_t kTipsyGasBytes = 48;
inline constexpr std::size_t kTipsyDarkBytes = 36;
inline constexpr std::size_t kTipsyStarBytes = 44;

enum class ByteOrder { big, little };

// The file's bytes: every particle a dark-matter record (eps = the run's softening when
// meta.config is set, else 0; phi = 0), values rounded to float32, in `order`. Components are
// not kept (Tipsy's three kinds of record cannot hold a model's parts, and splitting the bodies
// by kind would reorder them): a Tipsy file reads back as one unnamed component.
[[nodiscard]] std::string tipsy_bytes(const Particles<double>& p, const SnapshotMeta& meta,
                                      ByteOrder order = ByteOrder::big);
void write_tipsy(const std::filesystem::path& path, const Particles<double>& p, const SnapshotMeta& meta);

// Reads gas, dark and star records alike as point masses, with ids = record index (Tipsy has
// none). Big-endian, or native little-endian when only that reading of the header is consistent
// (ndim = 3, counts that add up, a file of exactly the announced size).
[[nodiscard]] ParticleFileData read_tipsy(const std::filesystem::path& path, std::uintmax_t size);
// True when the header read either way is consistent with a file of `size` bytes.
[[nodiscard]] bool looks_like_tipsy(const std::filesystem::path& path, std::uintmax_t size);

}  // namespace nbody
