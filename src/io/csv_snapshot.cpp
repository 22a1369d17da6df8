#include "io/csv_snapshot.hpp"

#include <cstdio>

#include "io/atomic_file.hpp"

namespace nbody {

template <class T>
std::string csv_snapshot_text(const Particles<T>& p) {
  constexpr int digits = sizeof(T) == 4 ? 9 : 17;
  std::string out = "id,m,x,y,z,vx,vy,vz\n";
  out.reserve(out.size() + p.size() * (8 * (digits + 8)));
  char row[512];
  for (std::size_t i = 0; i < p.size(); ++i) {
    const int len = std::snprintf(row, sizeof row, "%llu,%.*g,%.*g,%.*g,%.*g,%.*g,%.*g,%.*g\n",
                                  static_cast<unsigned long long>(p.id[i]), digits, double(p.m[i]), digits,
                                  double(p.x[i]), digits, double(p.y[i]), digits, double(p.z[i]), digits,
                                  double(p.vx[i]), digits, double(p.vy[i]), digits, double(p.vz[i]));
    out.append(row, static_cast<std::size_t>(len));
  }
  return out;
}

template <class T>
void write_csv_snapshot(const std::filesystem::path& path, const Particles<T>& p) {
  write_file_atomic(path, csv_snapshot_text(p));
}

template std::string csv_snapshot_text<float>(const Particles<float>&);
template std::string csv_snapshot_text<double>(const Particles<double>&);
template void write_csv_snapshot<float>(const std::filesystem::path&, const Particles<float>&);
template void write_csv_snapshot<double>(const std::filesystem::path&, const Particles<double>&);

}  // namespace nbody
