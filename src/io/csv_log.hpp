#pragma once
// An append-only CSV file: the header when created, then one row per append, flushed at once so
// that a run cut short leaves every row it computed.
#include <cstdio>
#include <filesystem>
#include <string>

namespace nbody {

class CsvLog {
 public:
  CsvLog(std::filesystem::path path, const std::string& header);
  ~CsvLog();
  CsvLog(const CsvLog&) = delete;
  CsvLog& operator=(const CsvLog&) = delete;

  void append(const std::string& row);
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
};

}  // namespace nbody
