#include "device_array.hpp"

#include <pybind11/stl.h>

#include <cstring>

namespace nbody::py {
namespace {

// The DLPack ABI (dlpack.h, version 0.8 and later: the "dltensor" capsule), written out here.
struct DLDevice {
  std::int32_t device_type;  // 1: CPU, 2: CUDA
  std::int32_t device_id;
};
struct DLDataType {
  std::uint8_t code;  // 0 int, 1 uint, 2 float
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // null: compact row-major
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

constexpr std::int32_t kDLCPU = 1;
constexpr std::int32_t kDLCUDA = 2;

// What a DLManagedTensor owns: the array (keeping the simulation alive) and the shape.
struct DlpackContext {
  DeviceArray array;
  std::int64_t shape[1];
  DLManagedTensor tensor;
};

void dlpack_deleter(DLManagedTensor* t) {
  // Consumers may call it from any thread, with or without the GIL; the context holds no
  // Python object, so no GIL is needed.
  delete static_cast<DlpackContext*>(t->manager_ctx);
}

void dlpack_capsule_destructor(PyObject* capsule) {
  // A capsule still named "dltensor" was never consumed: it owns the tensor.
  if (PyCapsule_IsValid(capsule, "dltensor") != 0) {
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (t != nullptr && t->deleter != nullptr) t->deleter(t);
  }
}

std::string typestr(const DeviceArray& a) {
  return std::string("<") + a.kind + std::to_string(a.bytes);
}

pb::array to_numpy(const DeviceArray& a) {
  pb::array out(pb::dtype(typestr(a)), std::vector<pb::ssize_t>{static_cast<pb::ssize_t>(a.n)});
  {
    pb::gil_scoped_release release;
    copy_bytes(out.mutable_data(), Location::host(), a.data, a.where, a.n * a.bytes, a.stream);
  }
  return out;
}

}  // namespace

void bind_device_arrays(pb::module_& m) {
  pb::class_<DeviceArray>(m, "DeviceArray",
                          "One particle field where the simulation keeps it (a GPU's memory, or the host's), "
                          "readable without a copy through __cuda_array_interface__ (GPU) and DLPack "
                          "(__dlpack__); to_numpy() copies it to the host. It keeps the simulation alive.")
      .def_property_readonly("shape", [](const DeviceArray& a) { return pb::make_tuple(a.n); })
      .def_property_readonly("dtype", [](const DeviceArray& a) { return pb::dtype(typestr(a)); })
      .def_property_readonly("device", [](const DeviceArray& a) { return a.where.text(); })
      .def("__len__", [](const DeviceArray& a) { return a.n; })
      .def("to_numpy", &to_numpy, "A copy on the host as a numpy array.")
      .def_property_readonly(
          "__cuda_array_interface__",
          [](const DeviceArray& a) {
            if (!a.where.on_device()) throw pb::attribute_error("__cuda_array_interface__: the array is in host memory");
            pb::dict d;
            d["shape"] = pb::make_tuple(a.n);
            d["typestr"] = typestr(a);
            d["data"] = pb::make_tuple(reinterpret_cast<std::uintptr_t>(a.data), a.readonly);
            d["version"] = 3;
            d["strides"] = pb::none();
            // The simulation's work is complete when an array is handed out (the run loop waits
            // for its stream after every chunk), so consumers need not synchronise.
            d["stream"] = pb::none();
            return d;
          })
      .def(
          "__dlpack__",
          // stream, max_version, dl_device, copy: this producer's memory is ready (the run loop waits for
          // its stream) and it gives the unversioned capsule, which consumers accept.
          [](const DeviceArray& a, const pb::args&, const pb::kwargs&) {
            auto* ctx = new DlpackContext{a, {static_cast<std::int64_t>(a.n)}, {}};
            DLTensor& t = ctx->tensor.dl_tensor;
            t.data = a.data;
            t.device = a.where.on_device() ? DLDevice{kDLCUDA, a.where.device} : DLDevice{kDLCPU, 0};
            t.ndim = 1;
            t.dtype = {static_cast<std::uint8_t>(a.kind == 'f' ? 2 : 1), static_cast<std::uint8_t>(8 * a.bytes), 1};
            t.shape = ctx->shape;
            t.strides = nullptr;
            t.byte_offset = 0;
            ctx->tensor.manager_ctx = ctx;
            ctx->tensor.deleter = &dlpack_deleter;
            return pb::reinterpret_steal<pb::object>(
                PyCapsule_New(&ctx->tensor, "dltensor", &dlpack_capsule_destructor));
          },
          "A DLPack capsule of the array (no copy).")
      .def("__dlpack_device__", [](const DeviceArray& a) {
        const std::int32_t type = a.where.on_device() ? kDLCUDA : kDLCPU;
        const std::int32_t id = a.where.on_device() ? a.where.device : 0;
        return pb::make_tuple(type, id);
      });
}

}  // namespace nbody::py
