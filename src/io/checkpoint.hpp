#pragma once
// The checkpoint file: a binary format of our own.
//
//   "NBODYCKP"            8-byte magic
//   u32 version           kCheckpointVersion
//   u32 0x01020304        byte-order mark (files are read on machines of the same byte order)
//   sections              each: 4-byte tag, u64 payload size, payload
//     CONF  the resolved configuration, one "key\tvalue\n" line per schema parameter
//     STEP  i64 step, f64 time
//     PART  u32 bytes per value (4 or 8), u64 n, then x y z vx vy vz m (n values each, the
//           run's precision, exact bits), then n u64 ids, then n u8 components (version 3)
//     CNAM  the component names (version 3): u32 count, then each: u32 length, the name
//     INTG  u32 tag length, tag, u64 size, the integrator's own bytes
//     PROG  RunProgress: the step-0 diagnostics (i64 step, f64 time, kinetic, potential, total,
//           momentum[3], angular momentum[3], centre of mass[3], virial ratio), the step-0
//           Lagrangian radii (7 f64), i64 diagnostics rows, i64 snapshots
//     RUNI  the run id (text; written when the checkpoint has one; earlier releases skip it)
//   u64 FNV-1a 64 of every byte before it
//
// Readers skip sections they do not know, so a section can be added without a new version;
// changing one needs a new version. Version 2: PROG holds the whole step-0 diagnostics and
// Lagrangian radii (version 1 held E0 only). Version 3: PART ends with the bodies' components and
// CNAM names them. Versions 2 and 3 are read: a version-2 checkpoint's bodies are all of
// component 0, one unnamed component (no names).
#include <filesystem>
#include <string>
#include <string_view>

#include "nbody/checkpoint.hpp"

namespace nbody {

inline constexpr std::uint32_t kCheckpointVersion = 3;
// The oldest version this build reads.
inline constexpr std::uint32_t kCheckpointOldestVersion = 2;

[[nodiscard]] std::string encode_checkpoint(const Checkpoint& ck);
// `source` names the bytes in errors (a file name). A wrong magic, version, byte order or
// checksum, a truncated file or a malformed section is an input error. The codec is exact for any
// values; read_checkpoint also validates what it decodes. Versions kCheckpointOldestVersion to
// kCheckpointVersion are read.
[[nodiscard]] Checkpoint decode_checkpoint(std::string_view bytes, const std::string& source);
// A state that cannot be a run's is an input error naming `source`: a NaN or Inf position,
// velocity or time, a mass <= 0 or NaN, a duplicate id, a component without a name (>= the
// number of names; > 0 when there are none), a negative step or count, integrator state
// of another integrator than the configuration's or of the wrong size, Hermite block levels
// outside [0, 40].
void validate_checkpoint(const Checkpoint& ck, const std::string& source);

// Atomic: the previous file at `path`, if any, stays whole until the new one is complete.
void write_checkpoint(const std::filesystem::path& path, const Checkpoint& ck);
// decode_checkpoint and validate_checkpoint of the file's bytes.
[[nodiscard]] Checkpoint read_checkpoint(const std::filesystem::path& path);

}  // namespace nbody
