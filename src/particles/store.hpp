#pragma once
// The particle store: a structure of arrays in one memory space (host, or one CUDA device). Core
// fields x, y, z, vx, vy, vz, m (in T), id (uint64) and component (uint8, the body's tag: see
// nbody/particles.hpp) for every body, and named extra fields
// that solvers, integrators and modules register ("acceleration.x", "hermite.jerk.x", later
// charge, weight, species). Pointers stay valid for the store's lifetime: views taken once stay
// good across steps, permutations and uploads. `permute` reorders every field at once (a tree
// sorts by key, PIC by cell). Segments cut the bodies into systems (one segment: one system).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "nbody/particles.hpp"
#include "particles/memory.hpp"
#include "particles/views.hpp"

namespace nbody {

// Bodies [offset, offset + count) of a store form one system.
struct Segment {
  std::size_t offset = 0;
  std::size_t count = 0;
  bool operator==(const Segment&) const = default;
};

// Copies n values of `width` bytes: dst[k] = src[order[k]] (order in the same location).
void gather_values(void* dst, const void* src, const std::int32_t* order, std::size_t n, std::size_t width,
                   Location at, StreamHandle stream);

template <class T>
class ParticleStore {
 public:
  // Bytes of the core fields of n bodies.
  [[nodiscard]] static constexpr std::size_t core_bytes(std::size_t n) noexcept { return n * (7 * sizeof(T) + 9); }

  ParticleStore(std::size_t n, Location where, StreamHandle stream = nullptr)
      : n_(n), where_(where), stream_(stream), segments_{{0, n}} {
    for (const char* name : {"x", "y", "z", "vx", "vy", "vz", "m"}) add_field<T>(name);
    add_field<std::uint64_t>("id");
    add_field<std::uint8_t>("component");
  }
  ParticleStore(const ParticleStore&) = delete;
  ParticleStore& operator=(const ParticleStore&) = delete;
  ParticleStore(ParticleStore&&) noexcept = default;
  ParticleStore& operator=(ParticleStore&&) noexcept = default;

  [[nodiscard]] std::size_t size() const noexcept { return n_; }
  [[nodiscard]] Location location() const noexcept { return where_; }
  [[nodiscard]] StreamHandle stream() const noexcept { return stream_; }

  [[nodiscard]] ParticleView<T> view() {
    return {{field<T>("x"), field<T>("y"), field<T>("z")},
            {field<T>("vx"), field<T>("vy"), field<T>("vz")},
            field<T>("m"),
            field<std::uint64_t>("id"),
            static_cast<int>(n_)};
  }

  // A zero-initialised field of one V per body (the existing one when `name` is registered
  // with the same type; a runtime error when with another).
  template <class V>
  V* add_field(const std::string& name) {
    if (Field* f = find(name)) return typed<V>(*f);
    Field f{name, sizeof(V), &typeid(V), Buffer(where_, n_ * sizeof(V))};
    zero_bytes(f.data.data(), where_, f.data.bytes(), stream_);
    fields_.push_back(std::move(f));
    return static_cast<V*>(fields_.back().data.data());
  }
  template <class V>
  [[nodiscard]] V* field(std::string_view name) {
    Field* f = find(name);
    if (f == nullptr) missing(name);
    return typed<V>(*f);
  }
  [[nodiscard]] bool has_field(std::string_view name) const {
    for (const auto& f : fields_) {
      if (f.name == name) return true;
    }
    return false;
  }
  // Three fields "<prefix>.x", "<prefix>.y", "<prefix>.z".
  Vec3Span<T> add_vec3(const std::string& prefix) {
    return {add_field<T>(prefix + ".x"), add_field<T>(prefix + ".y"), add_field<T>(prefix + ".z")};
  }
  [[nodiscard]] Vec3Span<T> vec3(const std::string& prefix) {
    return {field<T>(prefix + ".x"), field<T>(prefix + ".y"), field<T>(prefix + ".z")};
  }
  // Bytes of every field registered so far.
  [[nodiscard]] std::size_t bytes() const noexcept {
    std::size_t b = 0;
    for (const auto& f : fields_) b += f.data.bytes();
    return b;
  }

  // Body k becomes the former body order[k], in every field. `order` is a permutation of
  // 0 .. n-1 in host memory.
  void permute(std::span<const std::int32_t> order) {
    check_permutation(order);
    Array<std::int32_t> index(where_, n_);
    copy_bytes(index.data(), where_, order.data(), Location::host(), n_ * sizeof(std::int32_t), stream_);
    for (auto& f : fields_) {
      Buffer scratch(where_, f.data.bytes());
      gather_values(scratch.data(), f.data.data(), index.data(), n_, f.width, where_, stream_);
      // Back into the field's own memory, so its pointer (and every view) stays valid.
      copy_bytes(f.data.data(), where_, scratch.data(), where_, f.data.bytes(), stream_);
    }
    synchronize_copies();
  }

  [[nodiscard]] const std::vector<Segment>& segments() const noexcept { return segments_; }
  // Segments must tile [0, n) in order.
  void set_segments(std::vector<Segment> segments);

  // Replaces the core fields with p's (same size); ids and components included (a p without
  // components, component.size() == 0, gives every body component 0). The component names stay
  // with the caller (the store keeps per-body values only).
  void upload(const Particles<T>& p) {
    check_size(p.size(), "upload");
    const std::vector<T>* src[] = {&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz, &p.m};
    const char* names[] = {"x", "y", "z", "vx", "vy", "vz", "m"};
    for (int k = 0; k < 7; ++k) upload_field(names[k], *src[k]);
    upload_field("id", p.id);
    if (p.component.empty()) {
      zero_bytes(field<std::uint8_t>("component"), where_, n_, stream_);
    } else {
      upload_field("component", p.component);
    }
  }
  void download(Particles<T>& p) {
    p.resize(n_);
    std::vector<T>* dst[] = {&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz, &p.m};
    const char* names[] = {"x", "y", "z", "vx", "vy", "vz", "m"};
    for (int k = 0; k < 7; ++k) download_field(names[k], *dst[k]);
    download_field("id", p.id);
    download_field("component", p.component);
  }
  template <class V>
  void upload_field(std::string_view name, const std::vector<V>& values) {
    check_size(values.size(), "upload of " + std::string(name));
    copy_bytes(field<V>(name), where_, values.data(), Location::host(), n_ * sizeof(V), stream_);
  }
  template <class V>
  void download_field(std::string_view name, std::vector<V>& values) {
    values.resize(n_);
    copy_bytes(values.data(), Location::host(), field<V>(name), where_, n_ * sizeof(V), stream_);
  }

 private:
  struct Field {
    std::string name;
    std::size_t width;
    const std::type_info* type;
    Buffer data;
  };

  Field* find(std::string_view name) {
    for (auto& f : fields_) {
      if (f.name == name) return &f;
    }
    return nullptr;
  }
  template <class V>
  V* typed(Field& f) {
    if (*f.type != typeid(V)) wrong_type(f.name);
    return static_cast<V*>(f.data.data());
  }
  [[noreturn]] static void missing(std::string_view name);
  [[noreturn]] static void wrong_type(std::string_view name);
  void check_size(std::size_t count, const std::string& what) const;
  void check_permutation(std::span<const std::int32_t> order) const;
  void synchronize_copies();

  std::size_t n_ = 0;
  Location where_;
  StreamHandle stream_ = nullptr;
  std::vector<Field> fields_;
  std::vector<Segment> segments_;
};

extern template class ParticleStore<float>;
extern template class ParticleStore<double>;

}  // namespace nbody
