#pragma once
/// Files as the user names them: opening one to read, or replacing one atomically. Every failure
/// (missing, a directory, unreadable, a read error half-way) is an InputError naming the path.

#include <fstream>
#include <functional>
#include <ostream>
#include <string>

namespace phasecheck {

/// Opens `path` for binary reading into `in` (whose buffer the caller may already have set).
void open_input(std::ifstream& in, const std::string& path);

/// Writes `path` through `path.tmp` and a rename, so that a failure never leaves half a file.
void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write);

/// Runs `read`, turning a stream failure (such as EIO in the middle of a file) into an InputError.
void read_guarded(const std::string& source, const std::function<void()>& read);

}  // namespace phasecheck
