#include "core/files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "core/error.hpp"

namespace phasecheck {

void open_input(std::ifstream& in, const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path + ": is a directory, not a file");
  in.open(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open the file (" + std::strerror(errno) + ")");
}

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path + ": is a directory, not a file");
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f) throw InputError(path + ": cannot write the file (" + std::strerror(errno) + ")");
    try {
      write(f);
      f.flush();
    } catch (...) {
      f.close();
      std::remove(tmp.c_str());
      throw;
    }
    if (!f) {
      f.close();
      std::remove(tmp.c_str());
      throw InputError(path + ": write failed");
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw InputError(path + ": cannot replace the file (" + ec.message() + ")");
  }
}

void read_guarded(const std::string& source, const std::function<void()>& read) {
  try {
    read();
  } catch (const std::ios_base::failure& e) {
    throw InputError(source + ": read error (" + e.what() + ")");
  }
}

}  // namespace phasecheck
