#include "io/csv_log.hpp"

#include <cerrno>
#include <cstring>

#include "nbody/error.hpp"

namespace nbody {

CsvLog::CsvLog(std::filesystem::path path, const std::string& header) : path_(std::move(path)) {
  file_ = std::fopen(path_.c_str(), "w");
  if (file_ == nullptr) throw_runtime_error("cannot write '" + path_.string() + "': " + std::strerror(errno));
  append(header);
}

CsvLog::~CsvLog() {
  if (file_ != nullptr) std::fclose(file_);
}

void CsvLog::append(const std::string& row) {
  if (std::fprintf(file_, "%s\n", row.c_str()) < 0 || std::fflush(file_) != 0) {
    throw_runtime_error("cannot write '" + path_.string() + "': " + std::strerror(errno));
  }
}

}  // namespace nbody
