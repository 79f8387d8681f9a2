#include "reports/output_dir.hpp"

#include <filesystem>
#include <fstream>
#include <system_error>

namespace hasim {
namespace {

namespace fs = std::filesystem;

bool fail(std::string* error, std::string message) {
  if (error != nullptr) *error = std::move(message);
  return false;
}

}  // namespace

bool prepare_output_dir(const std::string& path, const std::vector<std::string>& file_names,
                        bool force, std::string* error) {
  std::error_code code;
  const fs::file_status status = fs::status(path, code);
  if (fs::exists(status)) {
    if (!fs::is_directory(status)) {
      return fail(error, path + " exists and is not a directory; choose another --out");
    }
  } else if (!fs::create_directories(path, code) && code) {
    return fail(error, "cannot create directory " + path + ": " + code.message());
  }
  std::vector<std::string> existing;
  for (const std::string& name : file_names) {
    const std::string file = (fs::path(path) / name).string();
    const fs::file_status file_status = fs::status(file, code);
    if (fs::is_directory(file_status)) {
      return fail(error, file +
                             " is a directory, where the report writes a file; remove it or "
                             "choose another --out");
    }
    if (fs::exists(file_status)) existing.push_back(file);
  }
  if (force || existing.empty()) return true;
  std::string list;
  for (std::size_t i = 0; i < existing.size(); ++i) {
    if (i > 0) list += i + 1 == existing.size() ? " and " : ", ";
    list += existing[i];
  }
  return fail(error, list + (existing.size() == 1 ? " already exists" : " already exist") +
                         "; use --force to overwrite");
}

bool write_text_file(const std::string& path, std::string_view contents, std::string* error) {
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out) return fail(error, "cannot write " + path + ": cannot create " + partial);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.close();
    if (!out) {
      std::error_code ignored;
      fs::remove(partial, ignored);
      return fail(error, "cannot write " + path + " (disk full?)");
    }
  }
  std::error_code code;
  fs::rename(partial, path, code);
  if (code) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    return fail(error, "cannot write " + path + ": " + code.message());
  }
  return true;
}

}  // namespace hasim
